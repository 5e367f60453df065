"""Each operation's docs: ``operation(...)`` marks on the view functions, and the apispec
plugin that writes them into the document (``OperationDocs``)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from apispec import BasePlugin
from flask import Flask

from cardroom.api.apidoc.document import components
from cardroom.api.apidoc.names import PROBLEM_JSON, Schema, ref
from cardroom.registry import registry

HEADERS: dict[str, Schema] = {
    "X-Request-ID": {
        "description": "The request's id: yours when you sent a sane one (1-128 of "
        "`A-Z a-z 0-9 . _ : -`), else a fresh one. Also in problems and logs.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    },
    "Location": {
        "description": "The new game's URL.",
        "schema": {"type": "string", "pattern": "^/v1/games/[A-Za-z0-9]+$"},
    },
    "ETag": {
        "description": "The view's ETag: send it as If-None-Match (304) or If-Match (an action).",
        "schema": {"type": "string"},
    },
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer", "minimum": 1},
    },
    "Idempotent-Replayed": {
        "description": "`true` when this is the stored answer to an Idempotency-Key sent "
        "before (nothing was applied again).",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "WWW-Authenticate": {
        "description": "The scheme to authenticate with: a seat token as a bearer token.",
        "schema": {"type": "string"},
    },
    "Upgrade": {
        "description": "The protocol this address needs, `websocket` (with `Connection: Upgrade`).",
        "schema": {"type": "string", "enum": ["websocket"]},
    },
}

PARAMETERS: dict[str, Schema] = {
    "X-Request-ID": {
        "in": "header",
        "name": "X-Request-ID",
        "required": False,
        "description": "Your id for the request (1-128 of `A-Z a-z 0-9 . _ : -`); "
        "another value is replaced by a fresh id.",
        "schema": {"type": "string"},
    },
    "wait": {
        "in": "query",
        "name": "wait",
        "required": False,
        "description": "With If-None-Match: seconds to hold the request while the view is the "
        "one you hold (≤ 30). It answers with the new view as soon as the game changes, or 304 "
        "when `wait` passes first.",
        "schema": {"type": "number", "minimum": 0, "maximum": 30, "default": 0},
    },
    "If-None-Match": {
        "in": "header",
        "name": "If-None-Match",
        "required": False,
        "description": "The ETag of a view you hold: 304 Not Modified while it is current.",
        "schema": {"type": "string"},
    },
    "If-Match": {
        "in": "header",
        "name": "If-Match",
        "required": False,
        "description": "The ETag of the view you decided on: 412 if the game changed since.",
        "schema": {"type": "string"},
    },
    "Idempotency-Key": {
        "in": "header",
        "name": "Idempotency-Key",
        "required": False,
        "description": "Retry safely: the same key and body return the first answer "
        "(Idempotent-Replayed: true) and apply nothing twice; the same key with another "
        "body is a 422. Kept an hour (`CARDROOM_IDEMPOTENCY_TTL`), per seat token.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    },
    "Last-Event-ID": {
        "in": "header",
        "name": "Last-Event-ID",
        "required": False,
        "description": "Resume after this event (`seq`); overrides `after`.",
        "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
    },
}

PROBLEM_DOCS = {
    400: "Malformed JSON (problem `malformed-json`).",
    401: "Missing or wrong seat token (problem `unauthorized`).",
    404: "No such game (problem `game-not-found`).",
    409: "Not your turn, game over, not started, seat taken, or busy (see `type`).",
    412: "If-Match is stale (problem `stale-version`).",
    413: "The body is too large (problem `payload-too-large`).",
    422: "A field that cannot be accepted (`field`, `errors` name it), or an illegal action "
    "(`rule` names the ruling).",
    426: "A plain request of a WebSocket's address (problem `upgrade-required`).",
    429: "Too many creates or joins from your address (problem `rate-limited`).",
    503: "The game store is unavailable (problem `storage-unavailable`), or the game's type"
    " is not installed on this server (problem `game-type-unavailable`) or plays other rules"
    " than the game was recorded under (problem `game-rules-changed`).",
}
_PROBLEM_HEADERS = {
    401: ["WWW-Authenticate"],
    409: ["Retry-After"],
    426: ["Upgrade"],
    429: ["Retry-After"],
    503: ["Retry-After"],
}


def operation(**doc: Any) -> Callable[[Any], Any]:
    """Mark a view function with its operation's docs (read by ``OperationDocs``).

    ``operation_id``; ``problems`` (statuses); ``parameters`` (names in PARAMETERS);
    ``response`` (``(status, component or None, [header names], description)``);
    ``request`` (a component for the JSON body); ``examples`` (of the JSON body);
    ``stream`` (a component for each Server-Sent Event); ``not_modified`` (a 304);
    ``problem_docs`` (this operation's own words for a problem status).
    """

    def mark(func: Any) -> Any:
        func.operation_doc = doc
        return func

    return mark


def _header_refs(names: list[str]) -> Schema:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


class OperationDocs(BasePlugin):
    """Writes each view function's ``operation(...)`` marks into the document."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def init_spec(self, spec: Any) -> None:
        super().init_spec(spec)
        for name, schema in components(list(registry().values())).items():
            spec.components.schema(name, schema)
        for name, header in HEADERS.items():
            spec.components.header(name, header)
        spec.components.response(
            "Problem",
            {
                "description": "Problem details (RFC 9457), whatever the status.",
                "content": {PROBLEM_JSON: {"schema": ref("Problem")}},
                "headers": _header_refs(["X-Request-ID"]),
            },
        )

    def operation_helper(self, path: str | None = None, operations: Any = None, **kwargs: Any):
        rule = kwargs.get("rule")
        if rule is None or not operations:
            return
        view = self.app.view_functions[rule.endpoint]
        owner = getattr(view, "view_class", None)
        for method, op in operations.items():
            func = getattr(owner, method, None) if owner is not None else view
            doc = getattr(func, "operation_doc", None)
            if doc is None:
                raise ValueError(f"{method.upper()} {rule.rule} has no operation(...) docs")
            self._document(op, doc)

    def _document(self, op: Schema, doc: dict[str, Any]) -> None:
        op["operationId"] = doc["operation_id"]
        if "security" in doc:
            op["security"] = doc["security"]
        responses: dict[Any, Any] = {str(k): v for k, v in op.get("responses", {}).items()}
        parameters = op.setdefault("parameters", [])
        for name in ["X-Request-ID", *doc.get("parameters", [])]:
            parameters.append(copy.deepcopy(PARAMETERS[name]))
        if "response" in doc:
            status, component, headers, description = doc["response"]
            response = responses.get(str(status))
            if not isinstance(response, dict):
                response = {}
            response["description"] = description or response.get("description", "OK")
            if component is not None:
                response["content"] = {"application/json": {"schema": ref(component)}}
            response["headers"] = _header_refs(["X-Request-ID", *headers])
            responses[str(status)] = response
        elif "stream" in doc:
            responses["200"] = {
                "description": doc["stream_description"],
                "content": {"text/event-stream": {"schema": ref(doc["stream"])}},
                "headers": _header_refs(["X-Request-ID"]),
            }
        else:
            for response in responses.values():
                if isinstance(response, dict):
                    response.setdefault("headers", {}).update(_header_refs(["X-Request-ID"]))
        if doc.get("not_modified"):
            responses["304"] = {
                "description": "Not modified: the ETag in If-None-Match is current.",
                "headers": _header_refs(["X-Request-ID", "ETag"]),
            }
        for status in doc.get("problems", ()):
            responses[str(status)] = {
                "description": doc.get("problem_docs", {}).get(status, PROBLEM_DOCS[status]),
                "content": {PROBLEM_JSON: {"schema": ref("Problem")}},
                "headers": _header_refs(["X-Request-ID", *_PROBLEM_HEADERS.get(status, [])]),
            }
        responses["default"] = {"$ref": "#/components/responses/Problem"}
        op["responses"] = responses
        if "request" in doc:
            body = op.setdefault("requestBody", {"required": True})
            media: Schema = {"schema": ref(doc["request"])}
            if "examples" in doc:
                media["examples"] = doc["examples"]
            body["content"] = {"application/json": media}
        elif "examples" in doc:
            media = op["requestBody"]["content"]["application/json"]
            media["examples"] = doc["examples"]
