"""What the server builds around a game's own parts, declared once: the view around `public`
and `you`, an event around its type's own fields, an action's answer around a view and
events, a page of events.

Each envelope lists its fields in the order they are sent, each with its JSON Schema and
description. The same declaration checks what is sent where it is shaped
(``Envelope.checked``: a field missing or not declared is refused) and makes the API
document's schema, which forbids any other field (``api/apidoc/envelope_schemas.py``).
Pure declarations: nothing here knows the API, the store or the rest of the table.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

Schema = dict[str, Any]


class SchemaContext(Protocol):
    """What a field's schema may name: the API document's components, for one game (and, for
    an event, one event type)."""

    game_type: str
    kind: str

    def component(self, name: str) -> Schema:
        """A reference to a component every game shares (``Clock``, ``View``)."""
        ...

    def game_component(self, part: str) -> Schema:
        """A reference to the game's own component (``You``: ``MrToastYou``)."""
        ...


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


@dataclass(frozen=True)
class Field:
    """One field of an envelope. ``schema`` is a JSON Schema, or a function of the
    ``SchemaContext`` for a field typed by the game. ``required``: always present (an event's
    ``actor`` is not). ``shaped``: set where the envelope is shaped; a field that is not is
    added later by another hand (the view's ETag, by whoever sends the view; an event's
    ``type``, by the engine)."""

    name: str
    schema: Schema | Callable[[SchemaContext], Schema]
    description: str = ""
    required: bool = True
    shaped: bool = True

    def json_schema(self, context: SchemaContext) -> Schema:
        schema = self.schema(context) if callable(self.schema) else copy.deepcopy(self.schema)
        return {**schema, "description": self.description} if self.description else schema


class EnvelopeMismatch(TypeError):
    """A shaping site and its envelope's declaration disagree on the fields."""


class Envelope:
    """An envelope's fields, in order, and the check of an instance against them."""

    def __init__(self, name: str, *fields: Field) -> None:
        self.name = name
        self.fields = fields
        self._shaped = frozenset(field.name for field in fields if field.shaped)
        self._count = len(self._shaped)

    def checked(self, instance: dict[str, Any]) -> dict[str, Any]:
        """``instance``, as its shaping site builds it, if it has exactly the fields shaped
        there (all of them: a field that may be absent is checked by the document only);
        else ``EnvelopeMismatch``. It runs on every view of every move, so it is a length and
        a set comparison, no copy: about 4,500 instructions a view (callgrind), where shaping
        the view takes 70,000 and a whole view request 1.6 million; building the view from
        keyword arguments instead cost 12,000."""
        if len(instance) != self._count or not self._shaped.issuperset(instance):
            raise EnvelopeMismatch(
                f"{self.name} as shaped: missing {sorted(self._shaped - instance.keys())}, "
                f"unexpected {sorted(instance.keys() - self._shaped)} (table/envelopes.py)"
            )
        return instance


SEAT_LIST: Schema = {"type": "array", "items": {"type": "integer", "minimum": 0}}
DEAL = ("random", "seeded", "stacked")

VIEW = Envelope(
    "View",
    Field("game_id", {"type": "string"}, "The game's id, as in its URL."),
    Field(
        "game_type",
        lambda doc: {"type": "string", "const": doc.game_type},
        "The game type: it tells which game's view this is.",
    ),
    Field(
        "status",
        {"type": "string", "enum": ["waiting", "active", "finished"]},
        "`waiting` until every seat is taken, then `active`, then `finished`.",
    ),
    Field("version", {"type": "integer"}, "The number of accepted actions."),
    Field(
        "last_seq",
        {"type": "integer"},
        "The game's latest event `seq`: long-poll events `after` it.",
    ),
    Field(
        "to_act",
        SEAT_LIST,
        "Who may act now (empty unless the game is `active`), by seat, ascending.",
    ),
    Field(
        "awaiting",
        SEAT_LIST,
        "Who the game waits for: in a simultaneous phase a seat that has answered may still "
        "change its answer (it is in `to_act`) but is not awaited. It is your turn when your "
        "seat is here.",
    ),
    Field(
        "you",
        lambda doc: nullable(doc.game_component("You")),
        "Your own part: your seat and your hand. Null for a spectator.",
    ),
    Field(
        "legal_actions",
        lambda doc: {"type": "array", "items": doc.game_component("Action")},
        "What you may submit now, exactly as listed (empty unless you may act).",
    ),
    Field(
        "deadline",
        {"type": ["number", "null"]},
        "Unix time of the next deadline, if any: a timed reaction window closes, or a seat's "
        "turn clock runs out (`clock` says whose).",
    ),
    Field(
        "clock",
        lambda doc: nullable(doc.component("Clock")),
        "The turn clock of a game with `turn_seconds` or `bank_seconds`, while it is "
        "`active`; null otherwise.",
    ),
    Field(
        "rematch",
        {"type": ["string", "null"]},
        "The id of this game's rematch, once a seat asked for one.",
    ),
    Field(
        "result",
        lambda doc: nullable(doc.game_component("Result")),
        "How the game ended: null until it is `finished`.",
    ),
    Field(
        "deal",
        {"type": "string", "enum": list(DEAL)},
        "How the cards were dealt, shown from the start so a player can tell before "
        "joining: `random` (the server's secret seed: nobody knows the hands), `seeded` (the "
        "creator chose `seed`, so may know every hand) or `stacked` (the creator set the "
        "deck).",
    ),
    Field(
        "seats",
        lambda doc: {"type": "array", "items": doc.component("Seat")},
        "Every seat, by seat: who sits there, or the bot policy that plays it.",
    ),
    Field("scores", {"type": "array", "items": {"type": "integer"}}, "Each seat's score."),
    Field(
        "options",
        lambda doc: doc.game_component("Options"),
        "The game's options with their values (a stacked deck reads `stacked` until the end).",
    ),
    Field(
        "public",
        lambda doc: doc.game_component("Public"),
        "The table as everyone sees it: the same in every seat's view and a spectator's.",
    ),
    # The ETag depends on the version the sender answers for (an action's answer is made
    # before its commit), so the sender adds it.
    Field(
        "etag",
        {"type": "string"},
        "The view's ETag, for If-Match on the next action: bare here (`3f2a…`), quoted in "
        'the `ETag` header (`"3f2a…"`).',
        shaped=False,
    ),
)

# These fields, then the event type's own (the game's shapes, or the table's own events).
EVENT = Envelope(
    "Event",
    Field(
        "type",
        lambda doc: {"type": "string", "const": doc.kind},
        "What happened: the event type.",
        shaped=False,
    ),
    Field("seq", {"type": "integer", "minimum": 1}, "Numbers the game's events from 1."),
    Field("version", {"type": "integer"}, "The game version the event belongs to."),
    Field(
        "actor",
        {"type": "integer", "minimum": 0},
        "The seat whose action it was (absent when no seat acted: a deadline, the game).",
        required=False,
    ),
)

# An action's answer (`POST …/actions`, and `result` on the game socket).
ACTION_RESULT = Envelope(
    "ActionResult",
    Field("version", {"type": "integer"}, "The game's version after your action and the bots'."),
    Field(
        "events",
        lambda doc: {"type": "array", "items": doc.component("Event")},
        "Your new events: the action's, and the bots' it led to, as your seat may see them.",
    ),
    Field("view", lambda doc: doc.component("View"), "Your view after the action."),
)

# A page of events (`GET …/events`).
EVENT_LIST = Envelope(
    "EventList",
    Field("game_id", {"type": "string"}),
    Field(
        "events",
        lambda doc: {"type": "array", "items": doc.component("Event")},
        "The events after `after`, as your seat may see them, oldest first.",
    ),
    Field(
        "last_seq",
        {"type": "integer"},
        "Pass as `after` next time (covers hidden events too).",
    ),
)
