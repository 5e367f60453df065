"""The shapes of what an engine gives out, declared as JSON Schema (2020-12, as OpenAPI 3.1
reads it): its cards, its view's public part and private part (``you``), its result and its
events. The API document (api/apidoc.py) publishes them; the conformance test checks every
view and event of random games against them.

A game's shapes are one dict of named schemas; they refer to each other as
``{"$ref": "#/$defs/Card"}`` (``ref("Card")``). Each must have ``Card``, ``Public``, ``You``,
``Result`` and ``Events`` (a dict: event type -> the schema of its other fields).
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

INT: Schema = {"type": "integer"}
SEAT: Schema = {"type": "integer", "minimum": 0}
NUMBER: Schema = {"type": "number"}
STRING: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
SEATS: Schema = {"type": "array", "items": SEAT}
INTS: Schema = {"type": "array", "items": INT}


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
