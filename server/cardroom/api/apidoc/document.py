"""The document's components: every game's, the unions of them the endpoints use, and the
parts a create request, a summary and an action's answer share."""

from __future__ import annotations

from typing import Any

from cardroom.api.apidoc.actions import action_name
from cardroom.api.apidoc.envelope_schemas import envelope_schema
from cardroom.api.apidoc.game_parts import game_components
from cardroom.api.apidoc.names import COMPONENTS, Schema, camel, prefix, ref
from cardroom.kit.base import Game
from cardroom.registry import policies, registry
from cardroom.table.envelopes import ACTION_RESULT, EVENT_LIST

CLOCK: Schema = {
    "type": "object",
    "description": "Turn clocks (kit/clock.py): each wait may last `turn_seconds`, then "
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
    out["ActionResult"] = envelope_schema(
        ACTION_RESULT, description="The answer to an accepted action."
    )
    out["EventList"] = envelope_schema(EVENT_LIST, description="A page of a game's events.")
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
