"""Seating: creating a game, taking a seat, coming back from away, and a rematch."""

from __future__ import annotations

import secrets
from collections import Counter
from contextlib import suppress
from typing import Any

from cardroom.bots import thinks
from cardroom.kit.base import InvalidOptions
from cardroom.registry import get_game, get_policy, installed, policies, registry
from cardroom.store import GameRecord, Gone
from cardroom.store.buckets import new_game_id
from cardroom.table import rematch as rematches
from cardroom.table import steps
from cardroom.table.access import authenticate, reserved_for
from cardroom.table.bot_play import play_bots
from cardroom.table.context import Context
from cardroom.table.errors import (
    MAX_ATTEMPTS,
    Conflict,
    GameFull,
    GameNotFinished,
    InvalidRequest,
    SeatReserved,
    SeatTaken,
)
from cardroom.table.settling import schedule_due_work, settled, write_change


def new_token() -> str:
    """A new seat token, the only key to its seat's hand: 64 hex digits (256 bits). Never
    URL-safe base64, which can begin with "-": a token is pasted into commands such as
    ``cardroom-bot --token TOKEN``, where that would be read as an option."""
    return secrets.token_hex(32)


def game_types() -> list[dict[str, Any]]:
    """Every game type with its options, bot policies, rules page and the package that
    plays it (``GET /v1/game-types``)."""
    described = []
    for game_type, entry in installed().items():
        described.append(
            {
                **entry.game.describe(),
                "bot_policies": list(entry.policies),
                "bots": [
                    {
                        "name": name,
                        "description": entry.describe_bot(name),
                        "thinks": thinks(bot),
                    }
                    for name, bot in entry.policies.items()
                ],
                "rules_url": f"/rules/{game_type}" if entry.rules_page else "",
                **entry.played_by,
            }
        )
    return described


def create(
    ctx: Context,
    game_type: str,
    players: int,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    bots: list[dict[str, Any]] | None = None,
) -> GameRecord:
    try:
        game = get_game(game_type)
    except KeyError:
        known = ", ".join(sorted(registry()))
        raise InvalidRequest(
            f"unknown game type {game_type!r}; known: {known}", "game_type"
        ) from None
    try:
        full_options = game.validate_options(players, options)
    except InvalidOptions as error:
        raise InvalidRequest(error.message, error.field) from None
    seats: list[dict[str, Any]] = [{"name": None, "bot": None} for _ in range(players)]
    for index, bot in enumerate(bots or []):
        seat, policy = bot["seat"], bot["policy"]
        where = f"bots.{index}.seat"
        if not 0 <= seat < players:
            raise InvalidRequest(f"seat {seat} does not exist (0 to {players - 1})", where)
        if seats[seat]["bot"] is not None:
            raise InvalidRequest(f"seat {seat} is given two bots", where)
        try:
            get_policy(policy, game_type)
        except KeyError:
            known = ", ".join(policies(game_type))
            raise InvalidRequest(
                f"unknown bot policy {policy!r} for {game.title}; known: {known}",
                f"bots.{index}.policy",
            ) from None
        seats[seat] = {"name": None, "bot": policy}
    name_bots(seats)
    seed_chosen = seed is not None
    if seed is None:
        seed = secrets.randbelow(2**53)
    now = ctx.clock()
    record = GameRecord(
        id=new_game_id(),  # in a random bucket: cardroom.store.buckets
        game_type=game_type,
        players=players,
        options=full_options,
        seed=seed,
        seed_chosen=seed_chosen,
        seats=seats,
        state=game.new_game(players, full_options, seed),
        created_at=now,
        updated_at=now,
        logged_ms=steps.clock_ms(now),
        plugin=installed()[game_type].played_by,
    )
    steps.begin(record)
    if record.status == "active":
        play_bots(record, game, steps.time_for(record, now), ctx.spending())
    schedule_due_work(ctx, record, game, now)
    ctx.store.create(record)
    return record


def join(
    ctx: Context, game_id: str, name: str, seat: int | None, token: str | None = None
) -> tuple[GameRecord, int, str]:
    """Take a free seat. A seat a rematch reserved (table/rematch.py) is taken only with
    ``token``, the token that held it in the previous game."""
    token_issued = new_token()
    for _ in range(MAX_ATTEMPTS):
        record = ctx.load(game_id).record
        chosen = choose_seat(record, seat, token)
        now = ctx.clock()
        record.updated_at = now
        ms = steps.time_for(record, now)
        steps.take_seat(record, chosen, name, ms)
        game = get_game(record.game_type, record.rules_version)
        if record.status == "active":
            play_bots(record, game, ms, ctx.spending())
        schedule_due_work(ctx, record, game, now)
        try:
            ctx.store.commit(record, token=(chosen, token_issued))
        except Conflict:
            continue
        return record, chosen, token_issued
    raise Conflict(game_id)


def choose_seat(record: GameRecord, seat: int | None, token: str | None) -> int:
    """The seat a join takes: the one asked for, else the one a rematch keeps for ``token``,
    else the first open one."""
    free = [i for i, entry in enumerate(record.seats) if entry["name"] is None]
    mine = reserved_for(record, token)
    open_seats = [i for i in free if not record.seats[i].get("reserved") or i == mine]
    if seat is not None:
        if not 0 <= seat < record.players:
            raise InvalidRequest(f"seat {seat} does not exist (0 to {record.players - 1})", "seat")
        if seat not in free:
            raise SeatTaken(f"seat {seat} is taken")
        if seat not in open_seats:
            raise SeatReserved(
                f"seat {seat} is kept for its player in the previous game: join it "
                "with that game's token"
            )
        return seat
    if mine is not None and mine in free:
        return mine
    if open_seats:
        return open_seats[0]
    if free:
        raise SeatReserved("every free seat is kept for a player of the previous game")
    raise GameFull("every seat of this game is taken")


def come_back(ctx: Context, game_id: str, token: str | None) -> tuple[GameRecord, int]:
    """The token's seat is back from being away (MT-17, EP-19): the game waits for it
    again. Nothing changes for a seat that is not away."""
    for _ in range(MAX_ATTEMPTS):
        record = settled(ctx, game_id)
        seat = authenticate(record, token)
        if record.status != "active":
            return record, seat
        game = get_game(record.game_type, record.rules_version)
        now = ctx.clock()
        if not steps.come_back(record, game, seat, steps.time_for(record, now)):
            return record, seat
        if write_change(ctx, record, game, now):
            return record, seat
    raise Conflict(game_id)


def rematch(ctx: Context, game_id: str, token: str | None) -> GameRecord:
    """The rematch of a finished game, asked for by one of its seats (table/rematch.py):
    created on the first ask, the same game on every ask after it."""
    for _ in range(MAX_ATTEMPTS):
        old = settled(ctx, game_id)
        authenticate(old, token)
        if old.status != "finished":
            raise GameNotFinished("a rematch is offered once the game is finished")
        if old.rematch is None:
            old.rematch = new_game_id()
            try:
                ctx.store.commit(old)
            except Conflict:
                continue
        try:
            return ctx.store.load(old.rematch).record
        except Gone:
            pass  # named, not created yet
        with suppress(Conflict):  # another ask created it first
            ctx.store.commit(rematches.new_game(old, ctx.clock()), create=True)
        return ctx.load(old.rematch).record
    raise Conflict(game_id)


def name_bots(seats: list[dict[str, Any]]) -> None:
    """Give each bot seat a distinct name a person can tell apart: "Greedy bot", or "Greedy
    bot 1", "Greedy bot 2"… when several seats play the same policy."""
    playing = Counter(entry["bot"] for entry in seats if entry["bot"])
    numbered: Counter[str] = Counter()
    for entry in seats:
        policy = entry["bot"]
        if not policy:
            continue
        numbered[policy] += 1
        name = f"{policy.replace('_', ' ').capitalize()} bot"
        entry["name"] = f"{name} {numbered[policy]}" if playing[policy] > 1 else name
