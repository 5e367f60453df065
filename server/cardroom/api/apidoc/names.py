"""Names and small helpers every part of the API document uses: component references, the
names of a game's components, and a game's shapes schemas relocated into the document."""

from __future__ import annotations

import re
from typing import Any

from cardroom.kit.base import Game
from cardroom.table.envelopes import Schema

MAX_SEED = 2**53 - 1
PROBLEM_JSON = "application/problem+json"
COMPONENTS = "#/components/schemas/"


def ref(name: str) -> Schema:
    return {"$ref": COMPONENTS + name}


def camel(text: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", text) if part)


def prefix(game: Game) -> str:
    """The prefix of a game's component names: ``MrToast``."""
    return camel(game.title)


def relocated(schema: Any, game_prefix: str) -> Any:
    """A shapes schema with its ``#/$defs/X`` references turned into component references."""
    if isinstance(schema, list):
        return [relocated(item, game_prefix) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: relocated(value, game_prefix) for key, value in schema.items()}
    target = out.get("$ref")
    if isinstance(target, str) and target.startswith("#/$defs/"):
        out["$ref"] = COMPONENTS + game_prefix + target.removeprefix("#/$defs/")
    return out


def constant(value: str) -> Schema:
    """A property of one value that the wire still requires; its ``default`` lets a generated
    client fill it in (openapi-python-client: ``type_: Literal["<value>"] = "<value>"``)."""
    return {"type": "string", "const": value, "default": value}
