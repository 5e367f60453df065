"""Rematches: a finished game's "play again" (boardgame.io's ``playAgain``), docs/api.md.

A seat of a finished game asks for a rematch (``Tables.rematch``, table/seating.py); the
first ask names the new game in the old one (a compare-and-set on the old game), then creates
it with that id (``new_game``): the same game type, players and options (a stacked deck
aside: it is known to everyone now, so the rematch is dealt from a new secret seed), the same
bot seats, and every person's seat *reserved* for the token that held it. Every later ask,
from any seat or any server, finds the name and gets the same game; whoever finds it not
created yet creates it (the create is a compare-and-set too). A reserved seat is taken by
``join`` with the old game's token (``Authorization``).
"""

from __future__ import annotations

import secrets

from cardroom.registry import get_game, installed
from cardroom.store import GameRecord
from cardroom.store.buckets import new_game_id
from cardroom.table import steps


def new_game(old: GameRecord, now: float) -> GameRecord:
    """The rematch of ``old`` (a finished game that names it), as created at ``now``."""
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
        plugin=installed()[old.game_type].played_by,
    )
    steps.begin(record)
    return record
