"""The shapes of what an engine gives out, declared as JSON Schema (2020-12, as OpenAPI 3.1
reads it): its cards, its view's public part and private part (``you``), its result and its
events. The API document (api/apidoc/) publishes them; the conformance test checks every
view and event of random games against them.

A game's shapes are one dict of named schemas; they refer to each other as
``{"$ref": "#/$defs/Card"}`` (``ref("Card")``). Each must have ``Card``, ``Public``, ``You``,
``Result`` and ``Events`` (a dict: event type -> the schema of its other fields); it may name
more (``Seat``, ``Trick``) for the others to refer to. The API document publishes each under
the game's prefix (``CrazyEightsSeat``), so a name is CamelCase and not one the document
makes itself (``shape_name_problem``).
"""

from __future__ import annotations

import re
from typing import Any

Schema = dict[str, Any]

INT: Schema = {"type": "integer"}
SEAT: Schema = {"type": "integer", "minimum": 0}
NUMBER: Schema = {"type": "number"}
STRING: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
SEATS: Schema = {"type": "array", "items": SEAT}
INTS: Schema = {"type": "array", "items": INT}


REQUIRED_SHAPES = ("Card", "Public", "You", "Result", "Events")
# Names the API document gives a game's own components (api/apidoc/game_parts.py).
DOCUMENT_NAMES = frozenset({"Options", "OptionsRequest", "CreateGame", "View", "Replay"})
_SHAPE_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")


def shape_name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as the name of a shape, in words; None if nothing is."""
    if name == "Events":
        return None
    if not _SHAPE_NAME.match(name):
        return f"shape name {name!r} is not CamelCase letters and digits"
    if name in DOCUMENT_NAMES or name.endswith(("Event", "Action")):
        return f"shape name {name!r} is one the API document gives its own components"
    return None


def ref(name: str) -> Schema:
    return {"$ref": f"#/$defs/{name}"}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def nullable(schema: Schema) -> Schema:
    if set(schema) <= {"type", "minimum", "maximum", "description"} and isinstance(
        schema.get("type"), str
    ):
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def enum(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


def const(value: str) -> Schema:
    return {"type": "string", "const": value}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None, **more: Any):
    """An object with these ``required`` and ``optional`` properties."""
    properties = {**required, **(optional or {})}
    schema: Schema = {"type": "object", "properties": properties, "required": list(required)}
    schema.update(more)
    return schema


# The turn clock's events (kit/clock.py), in every game's Events.
CLOCK_EVENTS: dict[str, Schema] = {
    "timed_out": obj(
        {
            "seat": {**SEAT, "description": "The seat whose time ran out."},
            "missed": {**INT, "description": "Its timeouts in a row, this one included."},
            "away": {**BOOL, "description": "Whether the seat is away now."},
        },
        description="A seat's turn clock ran out: its default move follows (the rules page "
        "says which), in the next events, with any secret detail only its seat sees.",
    ),
    "seat_back": obj(
        {"seat": SEAT}, description="An away seat's owner is back: the game waits for it again."
    ),
}
