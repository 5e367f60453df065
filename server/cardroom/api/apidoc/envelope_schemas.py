"""The envelopes' schemas (the view, an event, an action's answer, a page of events), made
from their one declaration in table/envelopes.py: every field declared, no other allowed, so
a field the server sends and the declaration lacks is refused where it is shaped and by the
document (tests/api/test_view_envelope.py)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from cardroom.api.apidoc.names import Schema, prefix, ref
from cardroom.kit.base import Game
from cardroom.table.envelopes import EVENT, Envelope


@dataclass(frozen=True)
class DocumentContext:
    """The components a field's schema names, for one game (and one event type)."""

    game: Game | None = None
    kind: str = ""

    @property
    def game_type(self) -> str:
        assert self.game is not None, "a field typed by the game, in an envelope of no game"
        return self.game.game_type

    def component(self, name: str) -> Schema:
        return ref(name)

    def game_component(self, part: str) -> Schema:
        assert self.game is not None, "a field typed by the game, in an envelope of no game"
        return ref(prefix(self.game) + part)


def envelope_schema(envelope: Envelope, game: Game | None = None, **more: Any) -> Schema:
    """An envelope's schema: every field declared, no other allowed."""
    context = DocumentContext(game)
    return {
        "type": "object",
        **more,
        "properties": {field.name: field.json_schema(context) for field in envelope.fields},
        "required": [field.name for field in envelope.fields if field.required],
        "additionalProperties": False,
    }


def event_schema(game: Game, kind: str, shaped: Schema, replay: bool = False) -> Schema:
    """An event of ``kind``: the envelope, then its own fields (``shaped``). As your seat sees
    it, or (``replay``) unredacted, its secret details under ``private``."""
    context = DocumentContext(game, kind)
    properties = {field.name: field.json_schema(context) for field in EVENT.fields}
    properties.update(copy.deepcopy(shaped.get("properties", {})))
    if replay:
        properties["private"] = {
            "type": "object",
            "description": 'Secret details by seat (`"2"`): fields of this event (declared '
            "above) that only that seat saw, added to the event as it was shown to it.",
            "additionalProperties": {"type": "object"},
        }
    required = [field.name for field in EVENT.fields if field.required]
    return {
        "type": "object",
        "properties": properties,
        "required": [*required, *shaped.get("required", [])],
        "additionalProperties": False,
    }
