"""What a seat (or a spectator) sees of a game: its view, its ETag and a game's summary.

A view is made from the record alone, so any version the log rebuilds gives the same view
byte for byte (docs/architecture.md, "An action's path"). Its public part is shaped once per
version and shared by every seat's view of it (``view_parts``).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

from cardroom.kit.base import Game
from cardroom.registry import get_game, serves
from cardroom.store import GameRecord
from cardroom.table.envelopes import VIEW


def etag_for(record: GameRecord, seat: int | None, rev: int | None = None) -> str:
    """The ETag of ``seat``'s view: it changes whenever the game is written."""
    return _etag(record.id, record.rev if rev is None else rev, seat)


@functools.lru_cache(maxsize=8192)
def _etag(game_id: str, rev: int, seat: int | None) -> str:
    # Asked about six times a move (the If-Match, the answer, each socket's view): a
    # version's tags are made once.
    basis = f"{game_id}:{rev}:{'-' if seat is None else seat}"
    return hashlib.sha1(basis.encode()).hexdigest()[:20]


def shape_view(record: GameRecord, seat: int | None) -> dict[str, Any]:
    """``seat``'s view of the game (None: a spectator's), without its ETag."""
    game = get_game(record.game_type, record.rules_version)
    shared = view_parts(record, game)
    you = game.private_view(record.state, seat)
    to_act = shared["to_act"]
    legal = game.legal_actions(record.state, seat) if seat in to_act else []
    view = {
        "game_id": record.id,
        "game_type": record.game_type,
        "status": record.status,
        "version": record.version,
        "last_seq": record.seq,
        "to_act": to_act,
        "awaiting": shared["awaiting"],
        "you": you,
        "legal_actions": legal,
        "deadline": shared["deadline"],
        "clock": shared["clock"],
        "rematch": shared["rematch"],
        "result": shared["result"],
        "deal": shared["deal"],
        "seats": shared["seats"],
        "scores": shared["scores"],
        "options": shared["options"],
        "public": shared["public"],
    }
    return VIEW.checked(view)


def view_parts(record: GameRecord, game: Game) -> dict[str, Any]:
    """What every seat's view of this version shares, made once per record and version:
    the followers of a game in this process read one record (``snapshot``), so each
    change shapes these once, not once per seat. Shared between views: never changed."""
    # Every step adds an event; a rematch is named by a write that adds none.
    mark = (record.version, record.seq, record.status, record.rematch)
    cached = record.view_parts
    if cached is not None and cached[0] == mark:
        return cached[1]
    active = record.status == "active"
    parts = {
        "to_act": sorted(game.to_act(record.state)) if active else [],
        "awaiting": sorted(game.awaiting(record.state)) if active else [],
        "deadline": game.deadline(record.state) if active else None,
        "clock": game.clock_view(record.state) if active else None,
        "rematch": record.rematch,
        "result": game.result(record.state),
        "deal": deal(game, record),
        "seats": seats(record, game),
        "scores": game.scores(record.state),
        "options": public_options(game, record),
        "public": game.public_view(record.state),
    }
    record.view_parts = (mark, parts)
    return parts


def available(record: GameRecord) -> bool:
    """Whether this server can play the game: its game type is installed here, playing the
    rules it was recorded under."""
    return serves(record.game_type, record.rules_version)


def summarise(record: GameRecord) -> dict[str, Any]:
    """The game as the listing and ``GET /v1/games/{id}`` show it to anyone."""
    if not available(record):
        return unavailable_summary(record)
    game = get_game(record.game_type, record.rules_version)
    finished = record.status == "finished"
    return {
        "available": True,
        "plugin": played_by(record),
        "id": record.id,
        "game_type": record.game_type,
        "status": record.status,
        "players": record.players,
        "seats": seats(record, game),
        "options": public_options(game, record),
        "version": record.version,
        "scores": game.scores(record.state),
        "to_act": sorted(game.to_act(record.state)) if record.status == "active" else [],
        "result": game.result(record.state),
        "deal": deal(game, record),
        "seed": record.seed if finished else None,
        "rematch": record.rematch,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def unavailable_summary(record: GameRecord) -> dict[str, Any]:
    """A game this server cannot play (its type not installed here, or installed with other
    rules): what the record says without its rules. Its scores, turn and result need the
    engine; its options are kept back, as a secret one cannot be told from the others."""
    finished = record.status == "finished"
    return {
        "available": False,
        "plugin": played_by(record),
        "id": record.id,
        "game_type": record.game_type,
        "status": record.status,
        "players": record.players,
        "seats": seats(record, None),
        "options": {},
        "version": record.version,
        "scores": [],
        "to_act": [],
        "result": None,
        "deal": "unknown",
        "seed": record.seed if finished else None,
        "rematch": record.rematch,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def played_by(record: GameRecord) -> dict[str, Any]:
    """The package that plays the game, as recorded (rules version 1 for a game recorded
    before packages were)."""
    return record.plugin or {"package": None, "version": None, "rules_version": 1}


def seats(record: GameRecord, game: Game | None) -> list[dict[str, Any]]:
    """Each seat as everyone sees it; who is away needs the game's rules (``game``)."""
    active = game is not None and record.status == "active"
    away = game.away_seats(record.state) if active else set()
    return [
        {
            "seat": index,
            "name": entry["name"],
            "bot": entry["bot"],
            "taken": entry["name"] is not None,
            "away": index in away,
            "reserved": entry["name"] is None and bool(entry.get("reserved")),
        }
        for index, entry in enumerate(record.seats)
    ]


def deal(game: Game, record: GameRecord) -> str:
    """How the cards were dealt, for everyone to see from the start (docs/api.md):
    ``stacked`` (the creator set the deck), ``seeded`` (the creator chose the seed, so
    may know every hand) or ``random`` (the server's secret seed: nobody knows them)."""
    if any(spec.secret and record.options.get(spec.name) is not None for spec in game.option_specs):
        return "stacked"
    return "seeded" if record.seed_chosen else "random"


def public_options(game: Game, record: GameRecord) -> dict[str, Any]:
    """Options as everyone may see them: a stacked deck shows as "stacked" until the end."""
    if record.status == "finished":
        return record.options
    return game.public_options(record.options)
