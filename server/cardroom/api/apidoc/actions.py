"""One schema per action type, from each game's declared moves (kit/moves.py)."""

from __future__ import annotations

from cardroom.api.apidoc.names import Schema, camel, constant, prefix
from cardroom.kit.base import Game
from cardroom.kit.moves import Field, Move
from cardroom.table.envelopes import nullable


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
