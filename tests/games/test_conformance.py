"""One conformance test for every registered game (as OpenSpiel runs one random-simulation
test on every game): a game added to the registry gets all of it by registering.

Random games, with options drawn from the game's own option specs, are played through the
same steps the service uses (cardroom.table.steps). At every step:

- ``to_act`` names who may act, and only they have legal actions;
- every listed action is accepted (on a copy), and conforms to its declared move;
- actions built from the declarations but not listed, malformed ones (each field given a
  value of the wrong kind, a field missing or unknown, an unknown type, not an object) and
  actions of seats that may not act are refused with a RuleError, the state unchanged;
  every illegal action names its rule and the field at fault;
- no view, legal action list or redacted event shows a seat (or a spectator) a card it may
  not see (``Game.hidden_cards``);
- the state round-trips through JSON, and play goes on from the round-tripped state.

After the game: it ended (within a bounded number of steps), with winners; the same seed
and actions give the same game; a replay of its log gives every event and the state live
play gave. Per-game test files keep only what is particular to their game.
"""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema_rs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardroom.games.base import Game, IllegalAction, InvalidOptions, NotYourTurn, RuleError
from cardroom.games.base import redact_event as redact
from cardroom.games.moves import Move
from cardroom.registry import get_game, registry
from cardroom.store.record import GameRecord
from cardroom.table import steps
from cardroom.table.steps import Replay

GAMES = sorted(registry())
SHAPES: dict[str, Any] = {}
EXAMPLES = 25  # games per game type: about 5 s each on 2 cores
MAX_STEPS = 20_000
CREATED_AT = 1_764_433_845.0


# --- options and actions from the declarations ---------------------------------------------


def random_options(game: Game, players: int, rng: random.Random) -> dict[str, Any]:
    """Options drawn from the specs: each at its default or a value in its range (integers
    near their minimum, so that turn limits keep games short); kept only if valid."""
    options: dict[str, Any] = {}
    for spec in game.option_specs:
        if rng.random() < 0.3:
            continue
        if spec.choices is not None:
            value: Any = rng.choice(spec.choices)
        elif spec.type == "boolean":
            value = rng.random() < 0.5
        elif spec.type == "integer" and spec.minimum is not None:
            high = spec.maximum if spec.maximum is not None else spec.minimum + 40
            value = rng.randint(int(spec.minimum), int(min(high, spec.minimum + 40)))
        elif spec.type == "number" and spec.minimum is not None:
            value = rng.choice([0.5, 1.0, 3.0, 10.0])
        else:
            continue
        try:
            game.validate_options(players, {**options, spec.name: value})
        except InvalidOptions:
            continue
        options[spec.name] = value
    return options


def card_ids(value: Any) -> set[str]:
    """The id of every card (an object with ``id`` and ``code``) in a JSON value."""
    found: set[str] = set()
    if isinstance(value, dict):
        if "id" in value and "code" in value:
            found.add(str(value["id"]))
        for item in value.values():
            found |= card_ids(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_ids(item)
    return found


def action_cards(game: Game, action: dict[str, Any]) -> set[str]:
    """The card ids an action names, by its declared fields."""
    move = game.moves_by_type[action["type"]]
    named: set[str] = set()
    for field in move.fields:
        value = action.get(field.name)
        if field.kind == "card" and isinstance(value, str):
            named.add(value)
        elif field.kind == "cards" and isinstance(value, list):
            named |= {item for item in value if isinstance(item, str)}
    return named


def hand_of(game: Game, state: dict, seat: int) -> list[str]:
    return sorted(card_ids(game.view(state, seat)["you"]))


def field_values(field: Any, hand: list[str], state: dict, rng: random.Random) -> list:
    """Well-formed values of a field, from its declared kind (some of them not legal now)."""
    if field.kind == "card":
        return hand
    if field.kind == "cards":
        if not hand:
            return []
        return [rng.sample(hand, rng.randint(1, min(4, len(hand)))) for _ in range(3)]
    if field.kind == "seat":
        return list(range(state["players"]))
    if field.kind == "integer":
        return list(range(field.minimum, field.maximum + 1))
    if field.kind == "choice":
        return list(field.choices)
    raise AssertionError(f"a field kind the conformance test does not know: {field.kind}")


def wrong_values(field: Any, game: Game, hand: list[str], state: dict, seat: int) -> list:
    """Values a field of this kind must refuse."""
    foreign = sorted(game.hidden_cards(state, seat))[:2]
    junk: list[Any] = [True, 1.5, {}, "", "#"]
    if field.kind == "card":
        return [*junk, 17, ["x"], *foreign]
    if field.kind == "cards":
        twice = [hand[0], hand[0]] if hand else []
        return [*junk, [], "x", [17], [*foreign[:1]], twice]
    if field.kind == "seat":
        wrong = [*junk, -1, state["players"], "1"]
        return [*wrong, seat] if field.other else wrong
    if field.kind == "integer":
        return [*junk, field.minimum - 1, field.maximum + 1, str(field.minimum)]
    if field.kind == "choice":
        return [*junk, "lizard", 3, [field.choices[0]]]
    raise AssertionError(field.kind)


def built_actions(move: Move, hand: list[str], state: dict, rng: random.Random) -> list:
    """Actions of ``move`` with well-formed field values (legal or not)."""
    built = []
    for _ in range(4):
        action: dict[str, Any] = {"type": move.type}
        for field in move.fields:
            values = field_values(field, hand, state, rng)
            if field.optional and (not values or rng.random() < 0.4):
                continue
            if not values:
                break
            action[field.name] = rng.choice(values)
        else:
            built.append(action)
    return built


def malformed_actions(
    game: Game, move: Move, sample: dict, hand: list[str], state: dict, seat: int
) -> list:
    """(action, field at fault) pairs that break the declared form of ``move``."""
    bad: list[tuple[Any, str | None]] = [({**sample, "zzz": 1}, "zzz")]
    for field in move.fields:
        if not field.optional:
            without = {k: v for k, v in sample.items() if k != field.name}
            bad.append((without, field.name))
        for value in wrong_values(field, game, hand, state, seat):
            bad.append(({**sample, field.name: value}, field.name))
    return bad


# --- the declared shapes ---------------------------------------------------------------------


STAMPED = {"type": {"type": "string"}, "seq": {}, "version": {}, "actor": {}}


def strict(schema: Any) -> Any:
    """The schema with no undocumented property allowed anywhere (the document may let
    clients expect more fields later; the engine must give no field it does not declare)."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: strict(value) for key, value in schema.items()}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


class Shapes:
    """Validators for a game's declared shapes (Game.shapes)."""

    def __init__(self, game: Game):
        defs = {name: schema for name, schema in game.shapes.items() if name != "Events"}
        for kind, schema in game.shapes["Events"].items():
            event = dict(schema)
            event["properties"] = {**STAMPED, **schema["properties"]}
            event["properties"]["type"] = {"const": kind}
            defs[f"event:{kind}"] = event
        self.defs = strict(defs)
        self.kinds = set(game.shapes["Events"])
        self.validators: dict[str, Any] = {}

    def check(self, name: str, value: Any) -> None:
        if name not in self.validators:
            root = {"$defs": self.defs, "$ref": f"#/$defs/{name}"}
            self.validators[name] = jsonschema_rs.Draft202012Validator(root)
        error = next(self.validators[name].iter_errors(value), None)
        assert error is None, f"{name} does not match its declared shape: {error}"

    def check_view(self, view: dict[str, Any]) -> None:
        public = {key: value for key, value in view.items() if key != "you"}
        self.check("Public", public)
        if view["you"] is not None:
            self.check("You", view["you"])

    def check_event(self, event: dict[str, Any]) -> None:
        if event["type"] in STEP_EVENTS:
            return
        assert event["type"] in self.kinds, f"undeclared event type {event['type']!r}"
        self.check(f"event:{event['type']}", event)


STEP_EVENTS = {"game_created", "seat_taken", "game_started"}  # the service's own (steps.py)


# --- playing ------------------------------------------------------------------------------


def check_refused(game: Game, state: dict, seat: Any, action: Any, error: type, now: float):
    before = orjson.dumps(state)
    try:
        game.apply(state, seat, action, now)
    except error as caught:
        assert orjson.dumps(state) == before, f"{action!r} changed the state"
        if isinstance(caught, IllegalAction):
            assert caught.rule, f"{action!r} refused without a rule: {caught.message}"
        return caught
    except RuleError as caught:
        raise AssertionError(f"{action!r} by {seat!r}: {type(caught).__name__}") from caught
    raise AssertionError(f"{action!r} by seat {seat!r} was accepted")


def check_step(game: Game, state: dict, seat: int, now: float, rng: random.Random) -> None:
    players = state["players"]
    to_act = game.to_act(state)
    legal = game.legal_actions(state, seat)
    assert legal, f"seat {seat} is to act but has no legal action"
    for other in range(players):
        if other not in to_act:
            assert game.legal_actions(state, other) == []
    text = json.dumps(state)
    phase = game.phase(state)
    hand = hand_of(game, state, seat)
    listed: set[tuple] = set()
    for action in legal:
        move = game.moves_by_type[action["type"]]
        assert phase in move.phases, (action, phase)
        game.read_action(state, seat, action)  # conforms to its declared form
        listed.add(move.canonical(action))
        game.apply(json.loads(text), seat, json.loads(json.dumps(action)), now)
    assert json.dumps(state) == text

    # Not objects, unknown types, other phases' moves, seats that may not act.
    for junk in (None, "pass", 3, [], {}, {"type": None}, {"type": "zzz"}, {"type": ["x"]}):
        error = check_refused(game, state, seat, junk, IllegalAction, now)
        assert error.field == "type"
    for move in game.moves:
        if phase not in move.phases:
            check_refused(game, state, seat, {"type": move.type}, NotYourTurn, now)
    for other in {-1, players, "0", None, *set(range(players)) - to_act}:
        check_refused(game, state, other, rng.choice(legal), NotYourTurn, now)

    # Malformed actions of this phase's moves, and well-formed ones that are not listed.
    for move in game.moves:
        if phase not in move.phases:
            continue
        samples = [a for a in legal if a["type"] == move.type] or [{"type": move.type}]
        sample = rng.choice(samples)
        for action, field in malformed_actions(game, move, sample, hand, state, seat):
            if move.canonical(action) in listed:
                continue
            error = check_refused(game, state, seat, action, RuleError, now)
            if sample in legal:  # every other field is good: this one is named
                assert isinstance(error, IllegalAction) and error.field == field, (action, error)
        if not move.lists_all:
            continue
        for action in built_actions(move, hand, state, rng):
            if move.canonical(action) not in listed:
                check_refused(game, state, seat, action, RuleError, now)


def check_secrets(game, state, before_hidden, events, action, shapes: Shapes) -> None:
    players = state["players"]
    # Cards the action names, or that any event shows everyone, are public from this step on
    # (a played card may come back into a hand or the draw pile within the same step).
    played = action_cards(game, action) if action is not None else set()
    for event in events:
        played |= card_ids(redact(event, None) or {})
    for viewer in [None, *range(players)]:
        hidden = game.hidden_cards(state, viewer)
        view = game.view(state, viewer)
        shapes.check_view(view)
        assert not card_ids(view) & hidden, (viewer, card_ids(view) & hidden)
        if viewer is None:
            assert view["you"] is None
        else:
            assert view["you"]["seat"] == viewer
            for legal in game.legal_actions(state, viewer):
                assert not action_cards(game, legal) & hidden, legal
        secret = (before_hidden[viewer] & hidden) - played
        for event in events:
            shown = redact(event, viewer)
            if shown is not None:
                shapes.check_event(shown)
                # What an event of the viewer's own seat shows it alone (the card it drew) is
                # its own: within one step that card may go back out of sight (Exact Plays: a
                # draw that ends the round, and the next round's deal). Every other seat and
                # spectators are still checked against it.
                mine = viewer is not None and event.get("seat") == viewer
                own = card_ids(shown) if mine else set()
                assert not (card_ids(shown) - own) & secret, (viewer, shown)


def play_checked(game_type: str, players: int, seed: int) -> None:
    game = get_game(game_type)
    shapes = SHAPES[game_type]
    rng = random.Random(seed)
    options = game.validate_options(players, random_options(game, players, rng))
    record = GameRecord(
        id="g1",
        game_type=game_type,
        players=players,
        options=options,
        seed=seed,
        seats=[{"name": None, "bot": None} for _ in range(players)],
        state=game.new_game(players, options, seed),
        created_at=CREATED_AT,
        updated_at=CREATED_AT,
        logged_ms=steps.clock_ms(CREATED_AT),
    )
    assert game.new_game(players, options, seed) == record.state, "new_game is not deterministic"
    lines: list[str] = []

    def commit() -> None:
        lines.extend(record.pending)
        record.pending.clear()
        text = json.dumps(record.state)
        assert json.loads(text) == record.state, "the state does not round-trip through JSON"
        record.state = json.loads(text)

    events = steps.begin(record)
    for seat in range(players):
        events += steps.take_seat(record, seat, f"p{seat}")
    commit()
    played: list[tuple[int | None, dict[str, Any] | None, int]] = []
    ms = record.logged_ms
    for _ in range(MAX_STEPS):
        state = record.state
        if game.result(state) is not None:
            break
        ms += rng.choice([0, 500, 1_000, 4_000])
        deadline = game.deadline(state)
        if deadline is not None and ms / 1000 >= deadline:
            hidden = {
                viewer: game.hidden_cards(state, viewer) for viewer in [None, *range(players)]
            }
            new = steps.expire(record, game, ms)
            check_secrets(game, record.state, hidden, new, None, shapes)
            events += new
            played.append((None, None, ms))
            commit()
            continue
        to_act = sorted(game.to_act(state))
        assert to_act, "nobody may act, and the game is not over"
        seat = rng.choice(to_act)
        check_step(game, state, seat, ms / 1000, rng)
        action = rng.choice(game.legal_actions(state, seat))
        hidden = {viewer: game.hidden_cards(state, viewer) for viewer in [None, *range(players)]}
        new = steps.act(record, game, seat, action, ms)
        check_secrets(game, record.state, hidden, new, action, shapes)
        events += new
        played.append((seat, action, ms))
        commit()
    result = game.result(record.state)
    assert result is not None, f"no result after {MAX_STEPS} steps"
    shapes.check("Result", result)
    assert result["winners"] and set(result["winners"]) <= set(range(players))
    assert game.to_act(record.state) == set() and game.is_over(record.state)
    assert result["scores"] == game.scores(record.state)

    # The same seed and actions (at the same times) give the same game.
    again = game.new_game(players, options, seed)
    game.start(again, steps.clock_ms(CREATED_AT) / 1000, set())  # every seat taken: clocks run
    for seat, action, at in played:
        if action is None:
            game.advance(again, at / 1000)  # a deadline passed
        else:
            game.apply(again, seat, action, at / 1000)
    assert again == record.state

    # A replay of the log gives every event and the state live play gave.
    replay = Replay(record)
    replay.advance(lines)
    assert replay.events == events
    assert replay.record.state == record.state
    assert (replay.record.version, replay.record.seq) == (record.version, record.seq)


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
        play_checked(game_type, players, seed)

    run()


@pytest.mark.parametrize("game_type", GAMES)
def test_every_game_declares_its_contract(game_type: str) -> None:
    """The declarations the rest of the server reads: moves with handlers, fields with
    rules, a card id pattern its example matches, a create example its options accept."""
    game = get_game(game_type)
    # The server shows every seat the one public part it shapes per version (Game.view is
    # that part plus the seat's own): an engine's own view could say more than it shows.
    assert type(game).view is Game.view, "views come from public_view and private_view"
    assert game.moves and len(game.moves_by_type) == len(game.moves)
    assert game.form_rule
    for move in game.moves:
        assert move.rule and move.phases and move.description
        assert callable(getattr(game, move.handler))
        assert all(field.rule and field.description for field in move.fields)
    assert game.card_id_re.fullmatch(game.card_example)
    example = game.example
    assert example["game_type"] == game_type
    game.validate_options(example["players"], example.get("options"))
