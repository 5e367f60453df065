"""Whole random games, every step checked, and the check an author calls: ``check_game``."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from cardroom.kit.base import Game
from cardroom.kit.conformance.draws import random_options
from cardroom.kit.conformance.problems import ConformanceError, expect
from cardroom.kit.conformance.sampling import check_sampling
from cardroom.kit.conformance.shapes import Shapes
from cardroom.kit.conformance.step import check_secrets, check_step, hidden_by_viewer
from cardroom.kit.contract_types import Action, Event, State
from cardroom.kit.errors import InvalidOptions
from cardroom.kit.plugin import GamePlugin, problems

MAX_STEPS = 20_000
# The share of steps at which a game that offers sampling has it checked (for every seat).
SAMPLED_STEPS = 0.1
START_MS = 1_764_433_845_000


class Table(Protocol):
    """What plays the steps of a game: the engine alone (``EngineTable``), or a server's
    table, which also stamps and logs each step."""

    state: State

    def start(self, ms: int) -> list[Event]: ...

    def act(self, seat: int, action: Action, ms: int) -> list[Event]: ...

    def expire(self, ms: int) -> list[Event]: ...

    def commit(self) -> None: ...


@dataclass
class EngineTable:
    """The engine alone, as a server drives it: every seat taken at ``start``, then actions
    and passed deadlines. Each step's state is stored as JSON and read back (``commit``)."""

    game: Game
    state: State
    seq: int = 0
    version: int = 0

    def start(self, ms: int) -> list[Event]:
        return self._stamped(self.game.start(self.state, ms / 1000, set()), None)

    def act(self, seat: int, action: Action, ms: int) -> list[Event]:
        self.version += 1
        return self._stamped(self.game.apply(self.state, seat, action, ms / 1000), seat)

    def expire(self, ms: int) -> list[Event]:
        produced = self.game.advance(self.state, ms / 1000)
        if produced:
            self.version += 1
        return self._stamped(produced, None)

    def commit(self) -> None:
        text = json.dumps(self.state)
        expect(json.loads(text) == self.state, "state is not JSON", "it does not round-trip")
        self.state = json.loads(text)

    def _stamped(self, events: list[Event], actor: int | None) -> list[Event]:
        stamped = []
        for event in events:
            self.seq += 1
            one = {"seq": self.seq, "version": self.version, **event}
            if actor is not None and "actor" not in one:
                one["actor"] = actor
            stamped.append(one)
        return stamped


def engine_table(game: Game, players: int, options: dict[str, Any], seed: int) -> Table:
    return EngineTable(game, game.new_game(players, options, seed))


# A table for a new game: (game, players, options, seed) -> Table.
TableFactory = Callable[[Game, int, dict[str, Any], int], Table]


@dataclass
class Played:
    """A game played to its end: its deal and what happened, step by step."""

    players: int
    options: dict[str, Any]
    seed: int
    # (seat, action, ms) per step; (None, None, ms) where a deadline passed.
    steps: list[tuple[int | None, Action | None, int]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    state: State = field(default_factory=dict)


def play(
    game: Game,
    players: int,
    seed: int,
    make_table: TableFactory = engine_table,
    shapes: Shapes | None = None,
    max_steps: int = MAX_STEPS,
) -> Played:
    """One random game of ``game``, every step checked; ConformanceError at the first
    problem, with the game type, players and seed to play it again."""
    try:
        return _play(game, players, seed, make_table, shapes or Shapes(game), max_steps)
    except ConformanceError as error:
        if not error.where:
            error.where = f"{game.game_type}, {players} players, seed {seed}"
            error.args = (f"{error.problem}: {error.detail} ({error.where})",)
        raise


def _play(
    game: Game,
    players: int,
    seed: int,
    make_table: TableFactory,
    shapes: Shapes,
    max_steps: int,
) -> Played:
    rng = random.Random(seed)
    options = game.validate_options(players, random_options(game, players, rng))
    first = game.new_game(players, options, seed)
    again = game.new_game(players, options, seed)
    expect(first == again, "new_game is not deterministic", "the same seed dealt twice differs")
    table = make_table(game, players, options, seed)
    expect(table.state == first, "new_game is not deterministic", "a third deal differs")
    played = Played(players, options, seed)
    # Its own generator: a game plays the same steps whether or not it offers sampling.
    sampling = random.Random(f"{seed}:sampling") if game.samples() else None
    ms = START_MS
    played.events += table.start(ms)
    table.commit()
    for _ in range(max_steps):
        state = table.state
        if game.result(state) is not None:
            break
        ms += rng.choice([0, 500, 1_000, 4_000])
        deadline = game.deadline(state)
        if deadline is not None and ms / 1000 >= deadline:
            hidden = hidden_by_viewer(game, state)
            new = table.expire(ms)
            check_secrets(game, table.state, hidden, new, None, shapes)
            played.steps.append((None, None, ms))
        else:
            to_act = sorted(game.to_act(state))
            expect(to_act, "nobody may act", f"phase {game.phase(state)!r}, and no result")
            seat = rng.choice(to_act)
            check_step(game, state, seat, ms / 1000, rng)
            action = rng.choice(game.legal_actions(state, seat))
            hidden = hidden_by_viewer(game, state)
            new = table.act(seat, action, ms)
            check_secrets(game, table.state, hidden, new, action, shapes)
            played.steps.append((seat, action, ms))
        played.events += new
        table.commit()
        if sampling is not None and sampling.random() < SAMPLED_STEPS:
            check_sampling(game, table.state, played.events, options, sampling)
    state = table.state
    result = game.result(state)
    expect(result is not None, "game does not end", f"no result after {max_steps} steps")
    assert result is not None
    shapes.check("Result", result)
    winners = result.get("winners")
    expect(winners and set(winners) <= set(range(players)), "result names no winner", repr(result))
    values = game.values(state)
    expect(
        len(values) == players and all(0 <= value <= 1 for value in values),
        "values are not one number from 0 to 1 per seat",
        repr(values),
    )
    expect(
        game.to_act(state) == set() and game.is_over(state),
        "finished game still awaits a seat",
        f"to_act {sorted(game.to_act(state))}, phase {game.phase(state)!r}",
    )
    expect(
        result.get("scores") == game.scores(state),
        "result scores differ from the game's",
        f"{result.get('scores')} against {game.scores(state)}",
    )

    # The same seed and actions (at the same times) give the same game.
    replayed = game.new_game(players, options, seed)
    game.start(replayed, START_MS / 1000, set())
    for seat, action, at in played.steps:
        if action is None:
            game.advance(replayed, at / 1000)
        else:
            game.apply(replayed, seat, action, at / 1000)
    expect(replayed == state, "not deterministic", "the same seed and actions end elsewhere")
    played.state = state
    return played


def check_declarations(game: Game) -> None:
    """The declarations the server reads: moves with handlers, fields with rules, a card id
    pattern its example matches, a create example its options accept."""
    # The server shows every seat the one public part it shapes per version (Game.view is
    # that part plus the seat's own): an engine's own view could say more than it shows.
    expect(type(game).view is Game.view, "view overridden", "override public/private_view")
    expect(game.moves, "no moves", "declare Game.moves")
    expect(len(game.moves_by_type) == len(game.moves), "two moves of one type", "Game.moves")
    expect(game.form_rule, "no form rule", "declare Game.form_rule")
    for move in game.moves:
        for name in ("rule", "phases", "description"):
            expect(getattr(move, name), f"move without {name}", move.type)
        expect(callable(getattr(game, move.handler, None)), "move without handler", move.type)
        for each in move.fields:
            expect(each.rule and each.description, "field without rule", each.name)
    expect(
        game.card_id_re.fullmatch(game.card_example),
        "card example does not match the card id pattern",
        f"{game.card_example!r} against {game.card_id_pattern!r}",
    )
    example = game.example
    expect(example.get("game_type") == game.game_type, "example of another game", repr(example))
    try:
        game.validate_options(example["players"], example.get("options"))
    except InvalidOptions as error:
        raise ConformanceError("example refused", str(error)) from error
    for name in ("Card", "Public", "You", "Result", "Events"):
        expect(name in game.shapes, "shape not declared", name)


def check_game(
    declared: GamePlugin | Game,
    *,
    games: int = 20,
    seed: int = 0,
    players: Iterable[int] | None = None,
    max_steps: int = MAX_STEPS,
) -> None:
    """Check a game against the contract: its declarations, then ``games`` random games
    (each player count in turn, seeds from ``seed``), each to end within ``max_steps``
    steps. Raises ConformanceError naming the first problem found."""
    if isinstance(declared, GamePlugin):
        found = problems(declared, declared.game.game_type)
        expect(not found, "plug-in declaration refused", "; ".join(found))
        game = declared.game
    else:
        game = declared
    check_declarations(game)
    counts = (
        list(players) if players is not None else [*range(game.min_players, game.max_players + 1)]
    )
    shapes = Shapes(game)
    for number in range(games):
        play(game, counts[number % len(counts)], seed + number, shapes=shapes, max_steps=max_steps)
