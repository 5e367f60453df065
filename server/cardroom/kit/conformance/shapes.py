"""A game's declared shapes (``Game.shapes``) as validators of every view and event."""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from cardroom.kit.base import Game
from cardroom.kit.conformance.problems import expect
from cardroom.kit.contract_types import Event

# What a step of the server adds to an event (cardroom's table stamps each one).
STAMPED = {"type": {"type": "string"}, "seq": {}, "version": {}, "actor": {}}
# The events the server's table adds itself (seats taken, the game started).
TABLE_EVENTS = frozenset({"game_created", "seat_taken", "game_started"})


def strict(schema: Any) -> Any:
    """The schema with no undocumented property allowed anywhere (the API document may let
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
    """Validators for a game's declared shapes (``Game.shapes``)."""

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
        expect(error is None, "shape not as declared", f"{name}: {error}")

    def check_view(self, view: dict[str, Any]) -> None:
        public = {key: value for key, value in view.items() if key != "you"}
        self.check("Public", public)
        if view["you"] is not None:
            self.check("You", view["you"])

    def check_event(self, event: Event) -> None:
        if event["type"] in TABLE_EVENTS:
            return
        expect(event["type"] in self.kinds, "undeclared event", repr(event["type"]))
        self.check(f"event:{event['type']}", event)
