"""Clocks and due work: what a game must do with no one acting (docs/architecture.md, Time).

A passed deadline (a reaction window, MT-14; a turn clock, MT-17/EP-19) is resolved lazily,
by the next read or action, and bot play a request's budget left over is continued the same
way; the progression loop (``cardroom.progress``) calls ``advance`` for games no one reads.
Before the commit that leaves such work, the game is entered in the due set.
"""

from __future__ import annotations

from typing import Any

from cardroom.kit.base import Game
from cardroom.registry import get_game
from cardroom.store import GameRecord, Gone
from cardroom.table import steps
from cardroom.table.bot_play import Spending, bots_pending, play_bots, thinking_seat
from cardroom.table.context import Context
from cardroom.table.errors import MAX_ATTEMPTS, Conflict, NotFound, OutcomeUnknown


def expire(record: GameRecord, game: Game, ms: int, spending: Spending) -> list[dict[str, Any]]:
    """Resolve passed deadlines, one logged step each, and let bots answer, within the
    request's bot budget: each timeout counts as a bot action (what is left is due work)."""
    events: list[dict[str, Any]] = []
    while record.status == "active" and not spending.exhausted():
        deadline = game.deadline(record.state)
        if deadline is None or ms / 1000 < deadline:
            break
        produced = steps.expire(record, game, ms)
        if not produced:
            break
        spending.actions += 1
        events += produced
        events += play_bots(record, game, ms, spending)
    return events


def due(record: GameRecord, game: Game, now: float) -> float | None:
    """When the game next has work that must happen with no request (None: none): bot play
    left over is due at once; a deadline when it passes."""
    if record.status != "active":
        return None
    if bots_pending(record, game):
        return now
    return game.deadline(record.state)


def schedule_due_work(ctx: Context, record: GameRecord, game: Game, now: float) -> None:
    """Enter the game in the due set if it leaves due work, and in the thinking set if a bot
    that thinks is to play (before the commit that leaves it: an entry without work costs a
    load, a missing one a stalled game)."""
    when = due(record, game, now)
    if when is not None:
        ctx.store.due.schedule(record.id, when)
    if record.status == "active" and thinking_seat(record, game) is not None:
        ctx.store.thinking.schedule(record.id, now)


def write_change(ctx: Context, record: GameRecord, game: Game, now: float) -> bool:
    """Write what this request changed in the game (due work entered first); False if the
    game was written since it was loaded (the caller loads it again)."""
    record.updated_at = now
    schedule_due_work(ctx, record, game, now)
    try:
        ctx.store.commit(record)
    except Conflict:
        return False
    return True


def settled(ctx: Context, game_id: str) -> GameRecord:
    """The game, with any passed deadline resolved first (lazily, MT-14), and bot play that
    an earlier request's budget left over continued (within this one's budget)."""
    for _ in range(MAX_ATTEMPTS):
        record = ctx.load(game_id).record
        game = get_game(record.game_type, record.rules_version)
        now = ctx.clock()
        ms = steps.time_for(record, now)
        spending = ctx.spending()
        before = record.version
        expire(record, game, ms, spending)
        if bots_pending(record, game):
            play_bots(record, game, ms, spending)
        if record.version == before:
            return record
        try:
            if not write_change(ctx, record, game, now):
                continue
        except OutcomeUnknown as unknown:
            # A read's own write (a deadline, bot play) was lost in the store: to the
            # reader that is the store being unavailable, nothing it asked for.
            raise unknown.__cause__ or unknown from None
        return record
    raise Conflict(game_id)


def unsettled(ctx: Context, record: GameRecord) -> bool:
    """A read of this game has work to do first: a passed deadline, or bots to play."""
    if record.status != "active":
        return False
    game = get_game(record.game_type, record.rules_version)
    deadline = game.deadline(record.state)
    if deadline is not None and ctx.clock() >= deadline:
        return True
    return bots_pending(record, game)


def snapshot(ctx: Context, game_id: str, heard: int | None = None) -> GameRecord:
    """The game as stored now, for reading only: this process's kept copy when it is at
    least at revision ``heard`` (what a watch heard of), else one load shared by the
    followers asking at once (``GameStore.snapshot``). Due work is settled first."""
    try:
        record = ctx.store.snapshot(game_id, heard)
    except Gone:
        raise NotFound(game_id) from None
    if unsettled(ctx, record):
        return settled(ctx, game_id)
    return record


def advance(ctx: Context, game_id: str) -> tuple[int, float | None]:
    """Do a game's due work, as a request would (the progression loop calls this).

    Returns the game's revision as judged and when it is next due (None: nothing due).
    """
    record = settled(ctx, game_id)
    return record.rev, due(record, get_game(record.game_type, record.rules_version), ctx.clock())
