"""Tables on a controlled clock, on a Redis of their own (the suite's gunicorn servers run
progression loops on the shared one, on the real clock: they would fire these deadlines)."""

from __future__ import annotations

from typing import Any

from cardroom.config import Settings
from cardroom.registry import get_game
from cardroom.serve.app import create_app
from cardroom.store import GameRecord
from cardroom.table import Tables

START = 1_800_000_000.0


class Clock:
    """A clock that moves only when a test moves it."""

    def __init__(self, now: float = START):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def clocked_app(redis_url: str) -> Any:
    return create_app(Settings.from_env(redis_url=redis_url, rate_limit_create="off"))


def instance(redis_url: str, clock: Clock) -> Tables:
    """One API instance (its own store, kept games and history) on ``clock``."""
    store = clocked_app(redis_url).extensions["cardroom.tables"].store
    return Tables(store, clock=clock)


def seated(
    tables: Tables,
    game_type: str,
    players: int,
    options: dict[str, Any],
    bots: list[dict[str, Any]] | None = None,
    seed: int = 7,
) -> tuple[str, dict[int, str]]:
    """A game with every free seat taken by a person; (id, token by seat)."""
    record = tables.create(game_type, players, options, seed=seed, bots=bots or [])
    bot_seats = {bot["seat"] for bot in bots or []}
    tokens = {}
    for seat in range(players):
        if seat not in bot_seats:
            tokens[seat] = tables.join(record.id, f"p{seat}", seat)[2]
    return record.id, tokens


def stored(tables: Tables, game_id: str) -> GameRecord:
    """The game as Redis holds it, read without settling anything."""
    return tables.store.load(game_id).record


def opened(tables: Tables, game_id: str, token: str | None) -> tuple[GameRecord, int | None]:
    """The game as ``token``'s seat (None: a spectator) reads it, passed deadlines settled
    (as a game socket's hello: the game read, then its seat)."""
    record = tables.snapshot(game_id)
    return record, tables.seat_of(record, token)


def events_of(tables: Tables, game_id: str, after: int = 0) -> list[dict[str, Any]]:
    """Every event after ``after``, unredacted, as stored (nothing settled first)."""
    record = stored(tables, game_id)
    return tables.history.events_after(record, after, 100_000)


def hands(record: GameRecord) -> list[list[str]]:
    game = get_game(record.game_type)
    return [
        [card["id"] for card in game.view(record.state, seat)["you"]["hand"]]
        for seat in range(record.players)
    ]
