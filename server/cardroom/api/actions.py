"""One front door for an action, whichever way it comes: ``POST …/actions`` (api/games.py) or
the game socket's ``act`` message (api/socket.py); docs/api.md, "Actions" and "The game
socket".

Both transports read an action into an ``ActionRequest`` by the same rules (the
Idempotency-Key's length, If-Match compared strongly, the action an object with a ``type``),
``submit`` runs it through the table and counts it, and the ``ActionAnswer`` renders what
each transport sends back. A refusal is raised as the table raised it: api/problems.py
answers it, over HTTP as over the socket.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Response, current_app, request
from werkzeug.http import parse_etags

from cardroom.api.jsonio import dumps_bytes
from cardroom.api.observability import count_action
from cardroom.table import ActionOutcome, InvalidRequest, Tables

IDEMPOTENCY_HEADER = "Idempotency-Key"
MAX_IDEMPOTENCY_KEY = 255


def checked_key(sent: object, field: str) -> str:
    """``sent`` as an Idempotency-Key, or InvalidRequest naming ``field`` (the header, or the
    socket message's ``id``, which is the key)."""
    if isinstance(sent, str) and 1 <= len(sent) <= MAX_IDEMPOTENCY_KEY:
        return sent
    # A header is text already; a JSON field may be anything, so its detail says "a string".
    form = "" if field == IDEMPOTENCY_HEADER else "a string of "
    raise InvalidRequest(f"{field} must be {form}1 to {MAX_IDEMPOTENCY_KEY} characters", field)


def if_match_tags(sent: str | None) -> set[str] | None:
    """An If-Match value as ``Tables.act`` takes it: None for no condition (absent, empty or
    ``*``), else its strong tags, bare or quoted. Weak tags are left out, since If-Match
    compares strongly (RFC 9110 §13.1.1): an If-Match of weak tags only is the empty set,
    which no version matches."""
    if not sent:
        return None
    tags = parse_etags(sent)
    if not tags or tags.star_tag:
        return None
    return tags.as_set()


@dataclass(frozen=True, slots=True)
class ActionAnswer:
    """What a transport sends for an action the table answered."""

    status: int
    body: dict[str, Any]
    replayed: bool

    @property
    def etag(self) -> str | None:
        """The ETag of the answer's view (bare), if it has one."""
        view = self.body.get("view")
        return view.get("etag") if isinstance(view, dict) else None

    def to_http(self) -> Response:
        headers = {}
        etag = self.etag
        if etag is not None:
            headers["ETag"] = f'"{etag}"'
        if self.replayed:
            headers["Idempotent-Replayed"] = "true"
        return Response(
            dumps_bytes(self.body), status=self.status, headers=headers, mimetype="application/json"
        )

    def to_socket(self, key: str) -> dict[str, Any]:
        return {
            "type": "result",
            "id": key,
            "status": self.status,
            "replayed": self.replayed,
            "result": self.body,
        }


@dataclass(frozen=True, slots=True)
class ActionRequest:
    """One action of one seat, read and checked, ready for the table."""

    game_id: str
    token: str | None
    action: dict[str, Any]
    # None: no condition; otherwise the strong tags one of which must be the view's ETag.
    if_match: set[str] | None
    idempotency_key: str | None

    @classmethod
    def from_http(cls, game_id: str, token: str | None, action: dict[str, Any]) -> ActionRequest:
        """From this request's headers; ``action`` is its body, which webargs read as
        ``ActionBodySchema`` (an object with a ``type``) for the API document."""
        headers = request.headers
        key = headers.get(IDEMPOTENCY_HEADER)
        return cls(
            game_id,
            token,
            action,
            if_match_tags(headers.get("If-Match")),
            None if key is None else checked_key(key, IDEMPOTENCY_HEADER),
        )

    @classmethod
    def from_socket(cls, game_id: str, token: str | None, message: dict[str, Any]) -> ActionRequest:
        """From an ``act`` message: ``id`` is its Idempotency-Key, ``if_match`` its If-Match."""
        key = checked_key(message.get("id"), "id")
        action = message.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise InvalidRequest("action must be an object with a type", "action")
        if_match = message.get("if_match")
        if if_match is not None and not isinstance(if_match, str):
            raise InvalidRequest("if_match must be an ETag", "if_match")
        return cls(game_id, token, action, if_match_tags(if_match), key)

    def submit(self, tables: Tables) -> ActionAnswer:
        """Run the action through the table; an accepted one (not a replay) is counted."""
        outcome: ActionOutcome = tables.act(
            self.game_id, self.token, self.action, self.if_match, self.idempotency_key
        )
        answer = ActionAnswer(outcome.status, outcome.body, outcome.replayed)
        if not answer.replayed and current_app.config["CARDROOM_SETTINGS"].metrics:
            count_action(answer.body["view"]["game_type"])
        return answer


__all__ = [
    "IDEMPOTENCY_HEADER",
    "MAX_IDEMPOTENCY_KEY",
    "ActionAnswer",
    "ActionRequest",
    "checked_key",
    "if_match_tags",
]
