"""Options and actions drawn from a game's declarations: legal or not, well-formed or not."""

from __future__ import annotations

import random
from typing import Any

from cardroom.kit.base import Game
from cardroom.kit.conformance.problems import ConformanceError
from cardroom.kit.contract_types import Action, State
from cardroom.kit.errors import InvalidOptions
from cardroom.kit.moves import Field, Move


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


def action_cards(game: Game, action: Action) -> set[str]:
    """The card ids an action names, by its declared fields."""
    move = game.moves_by_type[action["type"]]
    named: set[str] = set()
    for each in move.fields:
        value = action.get(each.name)
        if each.kind == "card" and isinstance(value, str):
            named.add(value)
        elif each.kind == "cards" and isinstance(value, list):
            named |= {item for item in value if isinstance(item, str)}
    return named


def hand_of(game: Game, state: State, seat: int) -> list[str]:
    return sorted(card_ids(game.view(state, seat)["you"]))


def field_values(each: Field, hand: list[str], state: State, rng: random.Random) -> list:
    """Well-formed values of a field, from its declared kind (some of them not legal now)."""
    if each.kind == "card":
        return hand
    if each.kind == "cards":
        if not hand:
            return []
        return [rng.sample(hand, rng.randint(1, min(4, len(hand)))) for _ in range(3)]
    if each.kind == "seat":
        return list(range(state["players"]))
    if each.kind == "integer":
        return list(range(each.minimum, each.maximum + 1))  # type: ignore[attr-defined]
    if each.kind == "choice":
        return list(each.choices)  # type: ignore[attr-defined]
    raise ConformanceError("unknown field kind", f"{each.name}: {each.kind!r}")


def wrong_values(each: Any, game: Game, hand: list[str], state: State, seat: int) -> list:
    """Values a field of this kind must refuse."""
    foreign = sorted(game.hidden_cards(state, seat))[:2]
    junk: list[Any] = [True, 1.5, {}, "", "#"]
    if each.kind == "card":
        return [*junk, 17, ["x"], *foreign]
    if each.kind == "cards":
        twice = [hand[0], hand[0]] if hand else []
        return [*junk, [], "x", [17], [*foreign[:1]], twice]
    if each.kind == "seat":
        wrong = [*junk, -1, state["players"], "1"]
        return [*wrong, seat] if each.other else wrong
    if each.kind == "integer":
        return [*junk, each.minimum - 1, each.maximum + 1, str(each.minimum)]
    if each.kind == "choice":
        return [*junk, "lizard", 3, [each.choices[0]]]
    raise ConformanceError("unknown field kind", f"{each.name}: {each.kind!r}")


def built_actions(move: Move, hand: list[str], state: State, rng: random.Random) -> list:
    """Actions of ``move`` with well-formed field values (legal or not)."""
    built = []
    for _ in range(4):
        action: dict[str, Any] = {"type": move.type}
        for each in move.fields:
            values = field_values(each, hand, state, rng)
            if each.optional and (not values or rng.random() < 0.4):
                continue
            if not values:
                break
            action[each.name] = rng.choice(values)
        else:
            built.append(action)
    return built


def malformed_actions(
    game: Game, move: Move, sample: dict, hand: list[str], state: State, seat: int
) -> list:
    """(action, field at fault) pairs that break the declared form of ``move``."""
    bad: list[tuple[Any, str | None]] = [({**sample, "zzz": 1}, "zzz")]
    for each in move.fields:
        if not each.optional:
            without = {k: v for k, v in sample.items() if k != each.name}
            bad.append((without, each.name))
        for value in wrong_values(each, game, hand, state, seat):
            bad.append(({**sample, each.name: value}, each.name))
    return bad
