"""Rematches: a finished game's "play again" (boardgame.io's ``playAgain``), docs/api.md.

A seat of a finished game asks for a rematch; the first ask names the new game in the old
one (a compare-and-set on the old game), then creates it with that id: the same game type,
players and options (a stacked deck aside: it is known to everyone now, so the rematch is
dealt from a new secret seed), the same bot seats, and every person's seat *reserved* for the
token that held it. Every later ask, from any seat or any server, finds the name and gets the
same game; whoever finds it not created yet creates it (the create is a compare-and-set too).
A reserved seat is taken by ``join`` with the old game's token (``Authorization``).
"""

from __future__ import annotations

import contextlib
import secrets
from typing import TYPE_CHECKING

from cardroom import steps
from cardroom.games import get_game
from cardroom.store import Conflict, GameRecord, Gone
from cardroom.store.buckets import new_game_id

if TYPE_CHECKING:
    from cardroom.service import Tables

MAX_ATTEMPTS = 50


def rematch(tables: Tables, game_id: str, token: str | None) -> GameRecord:
    """The rematch of a finished game, asked for by one of its seats: created on the first
    ask, the same game on every ask after it."""
    from cardroom.service import GameNotFinished, NotFound

    for _ in range(MAX_ATTEMPTS):
        old = tables.open(game_id, None)[0]
        tables.authenticate(old, token)
        if old.status != "finished":
            raise GameNotFinished("a rematch is offered once the game is finished")
        if old.rematch is None:
            old.rematch = new_game_id()
            try:
                tables.store.commit(old)
            except Conflict:
                continue
        try:
            return tables.store.load(old.rematch).record
        except Gone:
            pass  # named, not created yet
        with contextlib.suppress(Conflict):  # another ask created it first
            tables.store.commit(_new_game(tables, old), create=True)
        try:
            return tables.store.load(old.rematch).record
        except Gone:
            raise NotFound(old.rematch) from None
    raise Conflict(game_id)


def _new_game(tables: Tables, old: GameRecord) -> GameRecord:
    game = get_game(old.game_type)
    secret = {spec.name for spec in game.option_specs if spec.secret}
    options = {name: value for name, value in old.options.items() if name not in secret}
    options = game.validate_options(old.players, options)
    seats = []
    for seat, entry in enumerate(old.seats):
        if entry["bot"]:
            seats.append(dict(entry))
        else:
            seats.append({"name": None, "bot": None, "reserved": old.token_hashes.get(seat)})
    now = tables.clock()
    seed = secrets.randbelow(2**53)
    record = GameRecord(
        id=old.rematch or new_game_id(),
        game_type=old.game_type,
        players=old.players,
        options=options,
        seed=seed,
        seats=seats,
        state=game.new_game(old.players, options, seed),
        created_at=now,
        updated_at=now,
        logged_ms=steps.clock_ms(now),
    )
    steps.begin(record)
    return record
