"""The conformance check (cardroom.kit.conformance, the one an author runs on their own game)
on every registered game, as OpenSpiel runs one random-simulation test on every game: a game
added to the registry gets all of it by registering.

Here each random game is played through the same steps the service uses
(cardroom.table.steps), so the server's own stamping and logging are checked as well; and
after it, a replay of its log gives every event and the state live play gave. Per-game test
files keep only what is particular to their game.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardroom.kit import Game
from cardroom.kit.conformance import Shapes, check_declarations, play
from cardroom.kit.conformance.games import START_MS
from cardroom.registry import get_game, installed, registry
from cardroom.store.record import GameRecord
from cardroom.table import steps
from cardroom.table.steps import Replay

GAMES = sorted(registry())
EXAMPLES = 25  # games per game type: about 5 s each on 2 cores


class ServiceTable:
    """The steps of the server's table on a record, committed as the store would: its log
    lines kept, its state stored as JSON and read back."""

    def __init__(self, game: Game, players: int, options: dict[str, Any], seed: int):
        self.game = game
        self.lines: list[str] = []
        self.record = GameRecord(
            id="g1",
            game_type=game.game_type,
            players=players,
            options=options,
            seed=seed,
            seats=[{"name": None, "bot": None} for _ in range(players)],
            state=game.new_game(players, options, seed),
            created_at=START_MS / 1000,
            updated_at=START_MS / 1000,
            logged_ms=START_MS,
        )

    @property
    def state(self) -> dict[str, Any]:
        return self.record.state

    def start(self, ms: int) -> list[dict[str, Any]]:
        events = steps.begin(self.record)
        for seat in range(self.record.players):
            events += steps.take_seat(self.record, seat, f"p{seat}")
        return events

    def act(self, seat: int, action: dict[str, Any], ms: int) -> list[dict[str, Any]]:
        return steps.act(self.record, self.game, seat, action, ms)

    def expire(self, ms: int) -> list[dict[str, Any]]:
        return steps.expire(self.record, self.game, ms)

    def commit(self) -> None:
        self.lines.extend(self.record.pending)
        self.record.pending.clear()
        text = json.dumps(self.record.state)
        assert json.loads(text) == self.record.state, "the state does not round-trip through JSON"
        self.record.state = json.loads(text)


def check_served(game_type: str, players: int, seed: int) -> None:
    """A random game through the service's steps, checked by the kit; then its replay."""
    game = get_game(game_type)
    tables: list[ServiceTable] = []

    def make_table(game: Game, players: int, options: dict[str, Any], seed: int) -> ServiceTable:
        tables.append(ServiceTable(game, players, options, seed))
        return tables[-1]

    played = play(game, players, seed, make_table, SHAPES[game_type])
    table = tables[0]
    # A replay of the log gives every event and the state live play gave.
    replay = Replay(table.record)
    replay.advance(table.lines)
    assert replay.events == played.events
    assert replay.record.state == table.record.state
    assert (replay.record.version, replay.record.seq) == (table.record.version, table.record.seq)


SHAPES: dict[str, Shapes] = {}


@pytest.mark.parametrize("game_type", GAMES)
def test_every_game_conforms(game_type: str) -> None:
    game = get_game(game_type)
    SHAPES[game_type] = Shapes(game)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(players=st.integers(game.min_players, game.max_players), seed=st.integers(0, 2**31))
    def run(players: int, seed: int) -> None:
        check_served(game_type, players, seed)

    run()


@pytest.mark.parametrize("game_type", GAMES)
def test_every_game_declares_its_contract(game_type: str) -> None:
    check_declarations(get_game(game_type))
    assert installed()[game_type].plugin.game is get_game(game_type)
