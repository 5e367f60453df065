"""The request bodies' examples, for Swagger UI's Try it out."""

from __future__ import annotations

from typing import Any

from cardroom.api.apidoc.names import Schema
from cardroom.kit.base import Game
from cardroom.kit.moves import Field
from cardroom.registry import registry


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
