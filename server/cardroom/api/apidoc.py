"""The typed parts of the API document, generated from the game declarations.

- Components: each game's cards, actions (one schema per action type, from games/moves.py),
  public view, private part, result, options and events (games/*/shapes.py), and the unions
  the endpoints use: ``Action`` (any game's action, told apart by ``type``), ``View`` (told
  apart by ``game_type``), ``Event`` (any game's event: two games may share an event type,
  so this union has no discriminator; each game's own ``<Game>Event`` has one), and a
  replay's events (``<Game>ReplayEvent``: unredacted, with ``private``).
- Envelopes: what the server builds around a game's parts (a view, an event, an action's
  answer, a page of events) is declared once, as a table of its fields (``VIEW_ENVELOPE``,
  ``EVENT_ENVELOPE``…), and published with ``additionalProperties: false``: a field the
  server sends and the table lacks fails tests/api/test_view_envelope.py.
- ``OperationDocs``, an apispec plugin: each view function carries its operation's docs in
  ``operation(...)`` marks (an attribute, no wrapper: nothing runs per request), and the
  plugin writes them into the document as flask-smorest registers the routes: operationId,
  headers read and sent, typed bodies, problem responses and problem+json as ``default``.

Action types of two games may share a name (``pass`` in a game to come, say). The body's
discriminator maps each name to one schema: a name of one game maps to that game's schema;
a name of several maps to a shared schema that is ``anyOf`` each game's form of it (the
server knows the game from the URL). See docs/api.md, "The API document".
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from apispec import BasePlugin
from flask import Flask

from cardroom.games import policies, registry
from cardroom.games.base import Game, OptionSpec
from cardroom.games.moves import Field, Move

Schema = dict[str, Any]
MAX_SEED = 2**53 - 1
PROBLEM_JSON = "application/problem+json"
COMPONENTS = "#/components/schemas/"
# The service's own events (cardroom.steps), in every game.
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


def ref(name: str) -> Schema:
    return {"$ref": COMPONENTS + name}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def camel(text: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", text) if part)


def prefix(game: Game) -> str:
    """The prefix of a game's component names: ``MrToast``."""
    return camel(game.title)


def _relocated(schema: Any, game_prefix: str) -> Any:
    """A shapes schema with its ``#/$defs/X`` references turned into component references."""
    if isinstance(schema, list):
        return [_relocated(item, game_prefix) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _relocated(value, game_prefix) for key, value in schema.items()}
    target = out.get("$ref")
    if isinstance(target, str) and target.startswith("#/$defs/"):
        out["$ref"] = COMPONENTS + game_prefix + target.removeprefix("#/$defs/")
    return out


# --- actions ----------------------------------------------------------------------------------


def field_schema(game: Game, field: Field) -> Schema:
    card = {
        "type": "string",
        "pattern": f"^(?:{game.card_id_pattern})$",
        "examples": [game.card_example],
    }
    if field.kind == "card":
        schema: Schema = dict(card)
    elif field.kind == "cards":
        schema = {"type": "array", "items": card, "minItems": 1, "uniqueItems": True}
    elif field.kind == "seat":
        schema = {"type": "integer", "minimum": 0, "maximum": game.max_players - 1}
    elif field.kind == "integer":
        schema = {"type": "integer", "minimum": field.minimum, "maximum": field.maximum}
    elif field.kind == "choice":
        schema = {"type": "string", "enum": list(field.choices)}
    else:
        raise ValueError(f"no schema for a field of kind {field.kind!r}")
    schema["description"] = f"{field.description} (refused by {field.rule})"
    if field.optional:
        return {**nullable(schema), "description": schema.pop("description")}
    return schema


def constant(value: str) -> Schema:
    """A property of one value that the wire still requires; its ``default`` lets a generated
    client fill it in (openapi-python-client: ``type_: Literal["<value>"] = "<value>"``)."""
    return {"type": "string", "const": value, "default": value}


def action_schema(game: Game, move: Move) -> Schema:
    properties: Schema = {"type": constant(move.type)}
    required = ["type"]
    for field in move.fields:
        properties[field.name] = field_schema(game, field)
        if not field.optional:
            required.append(field.name)
    phases = ", ".join(move.phases)
    return {
        "type": "object",
        "title": f"{game.title}: {move.type}",
        "description": f"{move.description} Phase: {phases}; {move.rule}.",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def action_name(game: Game, move: Move) -> str:
    return f"{prefix(game)}{camel(move.type)}Action"


# --- options ----------------------------------------------------------------------------------

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
    for part in ("Card", "Public", "You", "Result"):
        out[name + part] = _relocated(game.shapes[part], name)
    out[name + "Options"] = options_schema(game, shown=True)
    out[name + "OptionsRequest"] = options_schema(game, shown=False)

    events: dict[str, str] = {}
    for kind, schema in {**STEP_EVENTS, **game.shapes["Events"]}.items():
        shaped = _relocated(schema, name)
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

    out[name + "View"] = envelope(
        VIEW_ENVELOPE, game, description=f"Your view of a {game.title} game."
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


# --- envelopes --------------------------------------------------------------------------------
# What the server builds around a game's own parts (the view around `public` and `you`, an
# event around its type's fields, an action's answer around a view and events), declared
# once: one table per envelope of each field the server sends, its JSON Schema and its
# description. Each component is made from its table and forbids any other field, so a field
# the server adds without declaring it here fails tests/api/test_view_envelope.py.


@dataclass(frozen=True)
class Prop:
    """One field of an envelope. ``schema`` is a JSON Schema, or a function of what the
    component is made for (``game``, and ``kind`` for an event) for a field typed by it."""

    schema: Schema | Callable[..., Schema]
    description: str = ""
    required: bool = True

    def build(self, **context: Any) -> Schema:
        schema = self.schema(**context) if callable(self.schema) else copy.deepcopy(self.schema)
        return {**schema, "description": self.description} if self.description else schema


def envelope(props: dict[str, Prop], game: Game | None = None, **more: Any) -> Schema:
    """An envelope's schema from its table: every field declared, no other allowed."""
    return {
        "type": "object",
        **more,
        "properties": {name: prop.build(game=game) for name, prop in props.items()},
        "required": [name for name, prop in props.items() if prop.required],
        "additionalProperties": False,
    }


SEAT_LIST: Schema = {"type": "array", "items": {"type": "integer", "minimum": 0}}
DEAL = ("random", "seeded", "stacked")

# A view, field by field in the order the service sends them (Tables.shape_view); `etag` is
# added by the API (and the game socket) to every view it sends.
VIEW_ENVELOPE: dict[str, Prop] = {
    "game_id": Prop({"type": "string"}, "The game's id, as in its URL."),
    "game_type": Prop(
        lambda game, **_: {"type": "string", "const": game.game_type},
        "The game type: it tells which game's view this is.",
    ),
    "status": Prop(
        {"type": "string", "enum": ["waiting", "active", "finished"]},
        "`waiting` until every seat is taken, then `active`, then `finished`.",
    ),
    "version": Prop({"type": "integer"}, "The number of accepted actions."),
    "last_seq": Prop(
        {"type": "integer"},
        "The game's latest event `seq`: long-poll events `after` it.",
    ),
    "to_act": Prop(
        SEAT_LIST, "Who may act now (empty unless the game is `active`), by seat, ascending."
    ),
    "awaiting": Prop(
        SEAT_LIST,
        "Who the game waits for: in a simultaneous phase a seat that has answered may still "
        "change its answer (it is in `to_act`) but is not awaited. It is your turn when your "
        "seat is here.",
    ),
    "you": Prop(
        lambda game, **_: nullable(ref(prefix(game) + "You")),
        "Your own part: your seat and your hand. Null for a spectator.",
    ),
    "legal_actions": Prop(
        lambda game, **_: {"type": "array", "items": ref(prefix(game) + "Action")},
        "What you may submit now, exactly as listed (empty unless you may act).",
    ),
    "deadline": Prop(
        {"type": ["number", "null"]},
        "Unix time of the next deadline, if any: a timed reaction window closes, or a seat's "
        "turn clock runs out (`clock` says whose).",
    ),
    "clock": Prop(
        nullable(ref("Clock")),
        "The turn clock of a game with `turn_seconds` or `bank_seconds`, while it is "
        "`active`; null otherwise.",
    ),
    "rematch": Prop(
        {"type": ["string", "null"]},
        "The id of this game's rematch, once a seat asked for one.",
    ),
    "result": Prop(
        lambda game, **_: nullable(ref(prefix(game) + "Result")),
        "How the game ended: null until it is `finished`.",
    ),
    "deal": Prop(
        {"type": "string", "enum": list(DEAL)},
        "How the cards were dealt, shown from the start so a player can tell before "
        "joining: `random` (the server's secret seed: nobody knows the hands), `seeded` (the "
        "creator chose `seed`, so may know every hand) or `stacked` (the creator set the "
        "deck).",
    ),
    "seats": Prop(
        {"type": "array", "items": ref("Seat")},
        "Every seat, by seat: who sits there, or the bot policy that plays it.",
    ),
    "scores": Prop({"type": "array", "items": {"type": "integer"}}, "Each seat's score."),
    "options": Prop(
        lambda game, **_: ref(prefix(game) + "Options"),
        "The game's options with their values (a stacked deck reads `stacked` until the end).",
    ),
    "public": Prop(
        lambda game, **_: ref(prefix(game) + "Public"),
        "The table as everyone sees it: the same in every seat's view and a spectator's.",
    ),
    "etag": Prop(
        {"type": "string"},
        "The view's ETag, for If-Match on the next action: bare here (`3f2a…`), quoted in "
        'the `ETag` header (`"3f2a…"`).',
    ),
}

# An event: these fields, then its type's own (the game's shapes, or STEP_EVENTS).
EVENT_ENVELOPE: dict[str, Prop] = {
    "type": Prop(
        lambda kind, **_: {"type": "string", "const": kind}, "What happened: the event type."
    ),
    "seq": Prop({"type": "integer", "minimum": 1}, "Numbers the game's events from 1."),
    "version": Prop({"type": "integer"}, "The game version the event belongs to."),
    "actor": Prop(
        {"type": "integer", "minimum": 0},
        "The seat whose action it was (absent when no seat acted: a deadline, the game).",
        required=False,
    ),
}


def event_schema(game: Game, kind: str, shaped: Schema, replay: bool = False) -> Schema:
    """An event of ``kind``: the envelope, then its own fields (``shaped``). As your seat sees
    it, or (``replay``) unredacted, its secret details under ``private``."""
    own = shaped.get("properties", {})
    properties = {name: prop.build(game=game, kind=kind) for name, prop in EVENT_ENVELOPE.items()}
    properties.update(copy.deepcopy(own))
    if replay:
        properties["private"] = {
            "type": "object",
            "description": 'Secret details by seat (`"2"`): fields of this event (declared '
            "above) that only that seat saw, added to the event as it was shown to it.",
            "additionalProperties": {"type": "object"},
        }
    required = [name for name, prop in EVENT_ENVELOPE.items() if prop.required]
    return {
        "type": "object",
        "properties": properties,
        "required": [*required, *shaped.get("required", [])],
        "additionalProperties": False,
    }


# An action's answer (`POST …/actions`, and `result` on the game socket).
ACTION_RESULT_ENVELOPE: dict[str, Prop] = {
    "version": Prop({"type": "integer"}, "The game's version after your action and the bots'."),
    "events": Prop(
        {"type": "array", "items": ref("Event")},
        "Your new events: the action's, and the bots' it led to, as your seat may see them.",
    ),
    "view": Prop(ref("View"), "Your view after the action."),
}

# A page of events (`GET …/events`).
EVENT_LIST_ENVELOPE: dict[str, Prop] = {
    "game_id": Prop({"type": "string"}),
    "events": Prop(
        {"type": "array", "items": ref("Event")},
        "The events after `after`, as your seat may see them, oldest first.",
    ),
    "last_seq": Prop(
        {"type": "integer"},
        "Pass as `after` next time (covers hidden events too).",
    ),
}

CLOCK: Schema = {
    "type": "object",
    "description": "Turn clocks (games/clock.py): each wait may last `turn_seconds`, then "
    "uses the seat's bank; when both are spent the seat's default move is played.",
    "properties": {
        "turn_seconds": {"type": "number"},
        "bank_seconds": {"type": "number", "description": "Each seat's bank at the start."},
        "away_after": {"type": "integer", "description": "Timeouts in a row that make away."},
        "seats": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "seat": {"type": "integer", "minimum": 0},
                    "since": {
                        "type": ["number", "null"],
                        "description": "Unix time the seat's current wait began (null: "
                        "the game does not wait for it, or it has no clock).",
                    },
                    "deadline": {
                        "type": ["number", "null"],
                        "description": "Unix time the seat times out, if the game waits for it.",
                    },
                    "bank": {"type": "number", "description": "Bank seconds left."},
                    "missed": {"type": "integer", "description": "Timeouts in a row."},
                    "away": {"type": "boolean"},
                },
                "required": ["seat", "since", "deadline", "bank", "missed", "away"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["turn_seconds", "bank_seconds", "away_after", "seats"],
    "additionalProperties": False,
}


def bot_seat_schema(games: list[Game]) -> Schema:
    """A seat the server plays, in a create request: one type for every game (a generated
    client's ``BotSeat``); the server refuses a seat or policy the game has not."""
    names = list(dict.fromkeys(name for game in games for name in policies(game.game_type)))
    return {
        "type": "object",
        "description": "A seat played by the server itself, and the bot policy that plays it.",
        "properties": {
            "seat": {
                "type": "integer",
                "minimum": 0,
                "maximum": max(game.max_players for game in games) - 1,
                "description": "The seat, below `players`.",
            },
            "policy": {
                "type": "string",
                "enum": names,
                "description": "A bot policy of the game type: `GET /v1/game-types` lists "
                "each game's `bot_policies`.",
            },
        },
        "required": ["seat", "policy"],
        "additionalProperties": False,
    }


def _by_game_type(games: list[Game], suffix: str, description: str) -> dict[str, Any]:
    """One of each game's ``<Game><suffix>`` schemas, told apart by ``game_type``."""
    return {
        "description": description,
        "oneOf": [ref(prefix(game) + suffix) for game in games],
        "discriminator": {
            "propertyName": "game_type",
            "mapping": {game.game_type: COMPONENTS + prefix(game) + suffix for game in games},
        },
    }


def components(games: list[Game]) -> dict[str, Schema]:
    """Every game's components, and the unions of them the endpoints use."""
    out: dict[str, Schema] = {}
    for game in games:
        out.update(game_components(game))

    # The action body: any game's action, by `type`. A type of several games maps
    # to a shared schema that is any of their forms of it.
    by_type: dict[str, list[str]] = {}
    for game in games:
        for move in game.moves:
            by_type.setdefault(move.type, []).append(action_name(game, move))
    mapping: dict[str, str] = {}
    for kind, names in by_type.items():
        if len(names) == 1:
            mapping[kind] = names[0]
        else:
            shared = f"Shared{camel(kind)}Action"
            out[shared] = {
                "description": f"`{kind}`: an action type of several games; the game's "
                "own form applies.",
                "anyOf": [ref(name) for name in names],
            }
            mapping[kind] = shared
    out["Action"] = {
        "description": "An action of any game, told apart by `type`. Your view's "
        "`legal_actions` lists the ones you may submit now.",
        "oneOf": [ref(name) for name in dict.fromkeys(mapping.values())],
        "discriminator": {
            "propertyName": "type",
            "mapping": {kind: COMPONENTS + name for kind, name in mapping.items()},
        },
    }
    out["BotSeat"] = bot_seat_schema(games)
    out["CreateGameRequest"] = _by_game_type(
        games,
        "CreateGame",
        "A new game of any type, told apart by `game_type`: "
        "`GET /v1/game-types` describes each. Only `game_type` and `players` are required.",
    )
    out["View"] = _by_game_type(
        games,
        "View",
        "Your view of a game, told apart by `game_type`.",
    )
    out["Replay"] = _by_game_type(
        games,
        "Replay",
        "A finished game's replay, told apart by `game_type`.",
    )
    out["Clock"] = CLOCK
    out["Event"] = {
        "description": "An event of any game (each game's events are told apart by `type`; "
        "two games may have an event type of the same name).",
        "anyOf": [ref(prefix(game) + "Event") for game in games],
    }
    out["ActionResult"] = envelope(
        ACTION_RESULT_ENVELOPE, description="The answer to an accepted action."
    )
    out["EventList"] = envelope(EVENT_LIST_ENVELOPE, description="A page of a game's events.")
    out["StreamedEvent"] = {
        "type": "object",
        "description": "One Server-Sent Event: `id` is the event's `seq`, `data` the event "
        "as JSON.",
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9]+$"},
            "event": {"type": "string", "const": "message"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": ref("Event"),
            },
            "retry": {"type": "integer"},
        },
        "required": ["id", "data"],
    }
    return out


def summary_options() -> Schema:
    """A summary's ``options``: any game's, as shown."""
    return {"anyOf": [ref(prefix(game) + "Options") for game in registry().values()]}


def summary_result() -> Schema:
    """A summary's ``result``: null until the end, then any game's."""
    games = registry().values()
    return {"anyOf": [*(ref(prefix(game) + "Result") for game in games), {"type": "null"}]}


def request_options() -> Schema:
    """A create request's ``options``: any game's."""
    return {"anyOf": [ref(prefix(game) + "OptionsRequest") for game in registry().values()]}


def create_examples() -> dict[str, Schema]:
    """One create request per game that plays as it is, for Swagger's Try it out."""
    return {
        game.game_type: {"summary": f"{game.title}, with bots", "value": game.example}
        for game in registry().values()
    }


def action_examples() -> dict[str, Schema]:
    """One action per game: its first action type whose fields need no card or seat (such a
    value is well-formed in any game, and often legal: `GET …/view` lists what is)."""
    examples: dict[str, Schema] = {}
    for game in registry().values():
        plain = [m for m in game.moves if all(f.kind in ("integer", "choice") for f in m.fields)]
        move = (plain or list(game.moves))[0]
        value: Schema = {"type": move.type}
        for field in move.fields:
            if not field.optional:
                value[field.name] = _example_value(game, field)
        examples[f"{game.game_type}-{move.type}"] = {
            "summary": f"{game.title}: {move.type}",
            "value": value,
        }
    return examples


def _example_value(game: Game, field: Field) -> Any:
    return {
        "card": game.card_example,
        "cards": [game.card_example],
        "seat": 1,
        "integer": getattr(field, "minimum", 0),
        "choice": next(iter(getattr(field, "choices", ("",)))),
    }[field.kind]


# --- operations ---------------------------------------------------------------------------------

HEADERS: dict[str, Schema] = {
    "X-Request-ID": {
        "description": "The request's id: yours when you sent a sane one (1-128 of "
        "`A-Z a-z 0-9 . _ : -`), else a fresh one. Also in problems and logs.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    },
    "Location": {
        "description": "The new game's URL.",
        "schema": {"type": "string", "pattern": "^/v1/games/[A-Za-z0-9]+$"},
    },
    "ETag": {
        "description": "The view's ETag: send it as If-None-Match (304) or If-Match (an action).",
        "schema": {"type": "string"},
    },
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer", "minimum": 1},
    },
    "Idempotent-Replayed": {
        "description": "`true` when this is the stored answer to an Idempotency-Key sent "
        "before (nothing was applied again).",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "WWW-Authenticate": {
        "description": "The scheme to authenticate with: a seat token as a bearer token.",
        "schema": {"type": "string"},
    },
    "Upgrade": {
        "description": "The protocol this address needs, `websocket` (with `Connection: Upgrade`).",
        "schema": {"type": "string", "enum": ["websocket"]},
    },
}

PARAMETERS: dict[str, Schema] = {
    "X-Request-ID": {
        "in": "header",
        "name": "X-Request-ID",
        "required": False,
        "description": "Your id for the request (1-128 of `A-Z a-z 0-9 . _ : -`); "
        "another value is replaced by a fresh id.",
        "schema": {"type": "string"},
    },
    "wait": {
        "in": "query",
        "name": "wait",
        "required": False,
        "description": "With If-None-Match: seconds to hold the request while the view is the "
        "one you hold (≤ 30). It answers with the new view as soon as the game changes, or 304 "
        "when `wait` passes first.",
        "schema": {"type": "number", "minimum": 0, "maximum": 30, "default": 0},
    },
    "If-None-Match": {
        "in": "header",
        "name": "If-None-Match",
        "required": False,
        "description": "The ETag of a view you hold: 304 Not Modified while it is current.",
        "schema": {"type": "string"},
    },
    "If-Match": {
        "in": "header",
        "name": "If-Match",
        "required": False,
        "description": "The ETag of the view you decided on: 412 if the game changed since.",
        "schema": {"type": "string"},
    },
    "Idempotency-Key": {
        "in": "header",
        "name": "Idempotency-Key",
        "required": False,
        "description": "Retry safely: the same key and body return the first answer "
        "(Idempotent-Replayed: true) and apply nothing twice; the same key with another "
        "body is a 422. Kept an hour (`CARDROOM_IDEMPOTENCY_TTL`), per seat token.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    },
    "Last-Event-ID": {
        "in": "header",
        "name": "Last-Event-ID",
        "required": False,
        "description": "Resume after this event (`seq`); overrides `after`.",
        "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
    },
}

PROBLEM_DOCS = {
    400: "Malformed JSON (problem `malformed-json`).",
    401: "Missing or wrong seat token (problem `unauthorized`).",
    404: "No such game (problem `game-not-found`).",
    409: "Not your turn, game over, not started, seat taken, or busy (see `type`).",
    412: "If-Match is stale (problem `stale-version`).",
    413: "The body is too large (problem `payload-too-large`).",
    422: "A field that cannot be accepted (`field`, `errors` name it), or an illegal action "
    "(`rule` names the ruling).",
    426: "A plain request of a WebSocket's address (problem `upgrade-required`).",
    429: "Too many creates or joins from your address (problem `rate-limited`).",
    503: "The game store is unavailable (problem `storage-unavailable`).",
}
_PROBLEM_HEADERS = {
    401: ["WWW-Authenticate"],
    409: ["Retry-After"],
    426: ["Upgrade"],
    429: ["Retry-After"],
    503: ["Retry-After"],
}


def operation(**doc: Any) -> Callable[[Any], Any]:
    """Mark a view function with its operation's docs (read by ``OperationDocs``).

    ``operation_id``; ``problems`` (statuses); ``parameters`` (names in PARAMETERS);
    ``response`` (``(status, component or None, [header names], description)``);
    ``request`` (a component for the JSON body); ``examples`` (of the JSON body);
    ``stream`` (a component for each Server-Sent Event); ``not_modified`` (a 304);
    ``problem_docs`` (this operation's own words for a problem status).
    """

    def mark(func: Any) -> Any:
        func.operation_doc = doc
        return func

    return mark


def _header_refs(names: list[str]) -> Schema:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


class OperationDocs(BasePlugin):
    """Writes each view function's ``operation(...)`` marks into the document."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def init_spec(self, spec: Any) -> None:
        super().init_spec(spec)
        for name, schema in components(list(registry().values())).items():
            spec.components.schema(name, schema)
        for name, header in HEADERS.items():
            spec.components.header(name, header)
        spec.components.response(
            "Problem",
            {
                "description": "Problem details (RFC 9457), whatever the status.",
                "content": {PROBLEM_JSON: {"schema": ref("Problem")}},
                "headers": _header_refs(["X-Request-ID"]),
            },
        )

    def operation_helper(self, path: str | None = None, operations: Any = None, **kwargs: Any):
        rule = kwargs.get("rule")
        if rule is None or not operations:
            return
        view = self.app.view_functions[rule.endpoint]
        owner = getattr(view, "view_class", None)
        for method, op in operations.items():
            func = getattr(owner, method, None) if owner is not None else view
            doc = getattr(func, "operation_doc", None)
            if doc is None:
                raise ValueError(f"{method.upper()} {rule.rule} has no operation(...) docs")
            self._document(op, doc)

    def _document(self, op: Schema, doc: dict[str, Any]) -> None:
        op["operationId"] = doc["operation_id"]
        if "security" in doc:
            op["security"] = doc["security"]
        responses: dict[Any, Any] = {str(k): v for k, v in op.get("responses", {}).items()}
        parameters = op.setdefault("parameters", [])
        for name in ["X-Request-ID", *doc.get("parameters", [])]:
            parameters.append(copy.deepcopy(PARAMETERS[name]))
        if "response" in doc:
            status, component, headers, description = doc["response"]
            response = responses.get(str(status))
            if not isinstance(response, dict):
                response = {}
            response["description"] = description or response.get("description", "OK")
            if component is not None:
                response["content"] = {"application/json": {"schema": ref(component)}}
            response["headers"] = _header_refs(["X-Request-ID", *headers])
            responses[str(status)] = response
        elif "stream" in doc:
            responses["200"] = {
                "description": doc["stream_description"],
                "content": {"text/event-stream": {"schema": ref(doc["stream"])}},
                "headers": _header_refs(["X-Request-ID"]),
            }
        else:
            for response in responses.values():
                if isinstance(response, dict):
                    response.setdefault("headers", {}).update(_header_refs(["X-Request-ID"]))
        if doc.get("not_modified"):
            responses["304"] = {
                "description": "Not modified: the ETag in If-None-Match is current.",
                "headers": _header_refs(["X-Request-ID", "ETag"]),
            }
        for status in doc.get("problems", ()):
            responses[str(status)] = {
                "description": doc.get("problem_docs", {}).get(status, PROBLEM_DOCS[status]),
                "content": {PROBLEM_JSON: {"schema": ref("Problem")}},
                "headers": _header_refs(["X-Request-ID", *_PROBLEM_HEADERS.get(status, [])]),
            }
        responses["default"] = {"$ref": "#/components/responses/Problem"}
        op["responses"] = responses
        if "request" in doc:
            body = op.setdefault("requestBody", {"required": True})
            media: Schema = {"schema": ref(doc["request"])}
            if "examples" in doc:
                media["examples"] = doc["examples"]
            body["content"] = {"application/json": media}
        elif "examples" in doc:
            media = op["requestBody"]["content"]["application/json"]
            media["examples"] = doc["examples"]
