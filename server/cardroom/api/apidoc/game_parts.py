"""Each game's own components: its cards, options, events, actions, create request, view and
replay, from its declarations (kit/moves.py, games/*/shapes.py)."""

from __future__ import annotations

import copy

from cardroom.api.apidoc.actions import action_name, action_schema
from cardroom.api.apidoc.envelope_schemas import envelope_schema, event_schema
from cardroom.api.apidoc.names import (
    COMPONENTS,
    MAX_SEED,
    Schema,
    camel,
    constant,
    prefix,
    ref,
    relocated,
)
from cardroom.kit.base import Game, OptionSpec
from cardroom.table.envelopes import VIEW

# The table's own events (cardroom.table.steps), in every game.
STEP_EVENTS: dict[str, Schema] = {
    "game_created": {
        "type": "object",
        "properties": {"players": {"type": "integer"}},
        "required": ["players"],
    },
    "seat_taken": {
        "type": "object",
        "properties": {"seat": {"type": "integer", "minimum": 0}, "name": {"type": "string"}},
        "required": ["seat", "name"],
    },
    "game_started": {"type": "object", "properties": {}},
}


_JSON_TYPES = {
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "string": "string",
    "array": "array",
    "object": "object",
}


def option_schema(spec: OptionSpec, shown: bool) -> Schema:
    """An option as a request sends it, or as a summary or view shows it (``shown``: a
    secret option that is set reads ``"stacked"`` until the game ends)."""
    schema: Schema = {"type": _JSON_TYPES[spec.type], "description": spec.description}
    if spec.choices is not None:
        schema["enum"] = list(spec.choices)
    if spec.minimum is not None:
        schema["minimum"] = spec.minimum
    if spec.maximum is not None:
        schema["maximum"] = spec.maximum
    if spec.items is not None:
        schema["items"] = copy.deepcopy(spec.items)
    variants = [schema]
    if spec.nullable:
        variants.append({"type": "null"})
    if shown and spec.secret:
        variants.append({"type": "string", "const": "stacked"})
    if len(variants) == 1:
        return schema
    description = schema.pop("description")
    return {"anyOf": variants, "description": description}


def options_schema(game: Game, shown: bool) -> Schema:
    return {
        "type": "object",
        "description": f"{game.title} options"
        + (
            " with their values (a secret one that is set reads `stacked` until the end)."
            if shown
            else "."
        ),
        "properties": {spec.name: option_schema(spec, shown) for spec in game.option_specs},
        **({"required": [spec.name for spec in game.option_specs]} if shown else {}),
        **({} if shown else {"additionalProperties": False}),
    }


# --- the components ---------------------------------------------------------------------------


def game_components(game: Game) -> dict[str, Schema]:
    """Every component of one game."""
    name = prefix(game)
    out: dict[str, Schema] = {}
    # Card, Public, You, Result, and any other shape they refer to (kit/shapes.py).
    for part, schema in game.shapes.items():
        if part != "Events":
            out[name + part] = relocated(schema, name)
    out[name + "Options"] = options_schema(game, shown=True)
    out[name + "OptionsRequest"] = options_schema(game, shown=False)

    events: dict[str, str] = {}
    for kind, schema in {**STEP_EVENTS, **game.shapes["Events"]}.items():
        shaped = relocated(schema, name)
        component = f"{name}{camel(kind)}Event"
        out[component] = event_schema(game, kind, shaped)
        out[f"{name}{camel(kind)}ReplayEvent"] = event_schema(game, kind, shaped, replay=True)
        events[kind] = component
    for suffix, description in [
        ("Event", f"A {game.title} event, as your seat may see it."),
        ("ReplayEvent", f"A {game.title} event in a replay, unredacted."),
    ]:
        kinds = {
            kind: component.removesuffix("Event") + suffix for kind, component in events.items()
        }
        out[name + suffix] = {
            "description": description,
            "oneOf": [ref(component) for component in kinds.values()],
            "discriminator": {
                "propertyName": "type",
                "mapping": {kind: COMPONENTS + component for kind, component in kinds.items()},
            },
        }

    for move in game.moves:
        out[action_name(game, move)] = action_schema(game, move)
    out[name + "Action"] = {
        "description": f"A {game.title} action.",
        "oneOf": [ref(action_name(game, move)) for move in game.moves],
        "discriminator": {
            "propertyName": "type",
            "mapping": {move.type: COMPONENTS + action_name(game, move) for move in game.moves},
        },
    }

    out[name + "CreateGame"] = {
        "type": "object",
        "title": f"New {game.title} game",
        "properties": {
            "game_type": constant(game.game_type),
            "players": {
                "type": "integer",
                "minimum": game.min_players,
                "maximum": game.max_players,
                "description": "The number of seats.",
            },
            "options": ref(name + "OptionsRequest"),
            "seed": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": MAX_SEED,
                "description": "Seeds every shuffle: the same seed and actions replay the "
                "same game.",
            },
            "bots": {
                "type": "array",
                "maxItems": game.max_players,
                "description": "Seats played by the server itself, each seat at most once.",
                "items": ref("BotSeat"),
            },
        },
        "required": ["game_type", "players"],
    }

    out[name + "View"] = envelope_schema(
        VIEW, game, description=f"Your view of a {game.title} game."
    )
    out[name + "Replay"] = replay_schema(game, name)
    return out


def replay_schema(game: Game, name: str) -> Schema:
    """A finished game's replay (cardroom/replays.py)."""
    hand = {"type": "array", "items": {"type": "string"}, "description": "Card ids."}
    hands = {"type": "array", "items": hand, "description": "Each seat's hand, by seat."}
    scores = {"type": "array", "items": {"type": "integer"}}
    event = {
        **ref(name + "ReplayEvent"),
        "description": "An event unredacted: a secret detail (a drawn card, a declaration) "
        'is under `private`, by seat: `{"private": {"2": {"cards": [...]}}}`.',
    }
    step = {
        "type": "object",
        "description": "One step of the log: who did what, its events, and what it changed.",
        "properties": {
            "kind": {
                "type": "string",
                "enum": ["join", "action", "timeout", "back"],
                "description": "`join`: a person took `seat`; `action`: `seat` played "
                "`action` (a person or a bot); `timeout`: a deadline passed (a reaction "
                "window, a turn clock: see the events); `back`: an away seat came back.",
            },
            "seat": {"type": ["integer", "null"], "minimum": 0},
            "action": {**ref(name + "Action"), "description": "The action (`action` only)."},
            "name": {"type": "string", "description": "The player's name (`join` only)."},
            "at": {"type": "integer", "description": "Milliseconds since the game's creation."},
            "events": {"type": "array", "items": event},
            "hands": {
                "type": "object",
                "description": 'The hands this step changed, by seat (`"0"`), as card ids.',
                "additionalProperties": hand,
            },
            "scores": {**scores, "description": "The scores, if this step changed them."},
        },
        "required": ["kind", "seat", "at", "events"],
    }
    return {
        "type": "object",
        "description": f"A finished {game.title} game, every hand face up. Start from `deal` "
        "and apply each step's `hands` and `scores` to have the table at that step.",
        "properties": {
            "game_id": {"type": "string"},
            "game_type": {"type": "string", "const": game.game_type},
            "players": {"type": "integer"},
            "options": ref(name + "Options"),
            "seed": {"type": "integer"},
            "seats": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "seat": {"type": "integer"},
                        "name": {"type": ["string", "null"]},
                        "bot": {"type": ["string", "null"]},
                    },
                    "required": ["seat", "name", "bot"],
                },
            },
            "created_at": {"type": "number"},
            "updated_at": {"type": "number"},
            "result": ref(name + "Result"),
            "cards": {
                "type": "object",
                "description": "Every card met in a hand, by id.",
                "additionalProperties": ref(name + "Card"),
            },
            "deal": {
                "type": "object",
                "properties": {"hands": hands, "scores": scores},
                "required": ["hands", "scores"],
            },
            "opening_events": {
                "type": "array",
                "items": event,
                "description": "The events before the first step (the game's creation).",
            },
            "steps": {"type": "array", "items": step},
            "final": {
                "type": "object",
                "description": "The hands and scores after the last step.",
                "properties": {"hands": hands, "scores": scores},
                "required": ["hands", "scores"],
            },
        },
        "required": [
            "game_id",
            "game_type",
            "players",
            "options",
            "seed",
            "seats",
            "result",
            "cards",
            "deal",
            "opening_events",
            "steps",
            "final",
        ],
    }
