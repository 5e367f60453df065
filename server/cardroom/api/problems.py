"""RFC 9457 problem details for every error the API can give, 404/405/500 included."""

from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Flask, Response, current_app, g, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing.exceptions import WebsocketMismatch

from cardroom.api.jsonio import COMPACT
from cardroom.api.observability import count_redis_error
from cardroom.kit.base import GameOver, IllegalAction, InvalidOptions, NotYourTurn
from cardroom.registry import RulesChanged, UnavailableGameType
from cardroom.table import (
    Conflict,
    GameFull,
    GameNotFinished,
    GameNotStarted,
    IdempotencyKeyReused,
    InvalidRequest,
    NotFound,
    OutcomeUnknown,
    PreconditionFailed,
    SeatReserved,
    SeatTaken,
    Unauthorized,
)

log = logging.getLogger("cardroom.api")

PROBLEM_MEDIA_TYPE = "application/problem+json"

# slug -> (title, what it means); served at /problems/<slug> and used as `type`.
PROBLEM_TYPES: dict[str, tuple[str, str]] = {
    "invalid-request": (
        "Invalid request",
        "The request does not have the form the API document gives it: a field is missing, "
        "unknown, of the wrong JSON type, or past a general limit (a length, a count, a "
        "range every game shares). `errors` names each field.",
    ),
    "malformed-json": ("Malformed JSON", "The request body is not valid JSON."),
    "invalid": (
        "Invalid value",
        "A field's value cannot be accepted, such as an unknown game type, bot policy or "
        "option, a number of players or a seat the game does not have, or an option's value "
        "out of its bounds. `field` names it and `detail` says what would be accepted.",
    ),
    "unauthorized": (
        "Unauthorized",
        "This request needs the seat token given by join, as `Authorization: Bearer <token>`.",
    ),
    "not-found": ("Not found", "There is no such resource (a game may also have expired)."),
    "game-not-found": ("Game not found", "No game has this id, or it expired after inactivity."),
    "method-not-allowed": ("Method not allowed", "This path does not take this method."),
    "not-your-turn": (
        "Not your turn",
        "The seat may not act now: it is another seat's turn, or the game is in another phase.",
    ),
    "game-finished": ("Game finished", "The game is over; it takes no more actions."),
    "game-not-started": ("Game not started", "The game waits for every seat to be taken."),
    "game-full": ("Game full", "Every seat of the game is taken."),
    "game-not-finished": (
        "Game not finished",
        "This needs a finished game (a replay, a rematch): the game is still waiting or active.",
    ),
    "seat-reserved": (
        "Seat reserved",
        "The seat is kept for the player who had it in the game before this rematch: it is "
        "taken with that player's token from the previous game.",
    ),
    "seat-taken": ("Seat taken", "The seat asked for is taken; join another or omit `seat`."),
    "illegal-action": (
        "Illegal action",
        "The rules refuse this action; `rule` names the rule or ruling and `detail` says why.",
    ),
    "stale-version": (
        "Stale version",
        "If-Match named an older version of the game: fetch the view and decide again.",
    ),
    "idempotency-key-reused": (
        "Idempotency key reused",
        "The same Idempotency-Key was sent before with a different body.",
    ),
    "busy": ("Busy", "The game is changing too fast to apply this now; retry shortly."),
    "payload-too-large": ("Payload too large", "The request body exceeds the size limit."),
    "rate-limited": (
        "Rate limited",
        "Too many games created or seats joined from your address; retry after Retry-After.",
    ),
    "game-type-unavailable": (
        "Game type unavailable",
        "No package installed on this server plays this game's type (never installed, "
        "removed, or refused at start: `cardroom games` says why). The game is kept; an "
        "instance that has the package may serve it. The listing shows it as unavailable.",
    ),
    "game-rules-changed": (
        "Game rules changed",
        "The game was recorded under another version of its game's rules than the package "
        "installed here plays (`rules_version`). Replaying it under these rules could give "
        "another game, so it is not served here; an instance with the version it was "
        "recorded under may serve it. The listing shows it as unavailable.",
    ),
    "storage-unavailable": (
        "Storage unavailable",
        "The game store (Redis) cannot be reached; retry after Retry-After. A write is one "
        "atomic script, so it happened whole or not at all: retry actions with the same "
        "Idempotency-Key.",
    ),
    "outcome-unknown": (
        "Outcome unknown",
        "The change was sent to the game store (Redis) but no answer came back: it may have "
        "been applied, or not. Do not send it again as it is. To learn what happened, read "
        "the game (GET /v1/games/{id}/view: its `version` and `events` tell), or send the "
        "same request with the same Idempotency-Key: that answers the first outcome if it "
        "was applied and applies it once if it was not. A create or join may have happened "
        "too: an unjoined game expires by itself; a seat taken without its token is lost.",
    ),
    "storage-full": (
        "Storage full",
        "The game store (Redis) is at its memory ceiling and refuses new data; nothing was "
        "changed. Retry later; the operator must make room (docs/operations.md).",
    ),
    "request-timeout": (
        "Request timeout",
        "The request body did not arrive within the time allowed; nothing was changed.",
    ),
    "internal-error": ("Internal error", "An unexpected error. It has been logged."),
    "http-error": ("HTTP error", "A protocol-level error; `status` says which."),
    "upgrade-required": (
        "Upgrade required",
        "This address is a WebSocket (the game socket): it answers only a WebSocket upgrade "
        "request (`Upgrade: websocket`, RFC 6455), not a plain request. See docs/api.md, "
        '"The game socket".',
    ),
}

_HTTP_SLUGS = {
    404: "not-found",
    405: "method-not-allowed",
    413: "payload-too-large",
    429: "rate-limited",
}


def problem(
    status: int,
    slug: str,
    detail: str,
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    title = PROBLEM_TYPES.get(slug, (slug.replace("-", " ").capitalize(), ""))[0]
    body: dict[str, Any] = {
        "type": f"/problems/{slug}",
        "title": title,
        "status": status,
        "detail": detail,
        "instance": request.path,
    }
    request_id = getattr(g, "request_id", None)
    if request_id:
        body["request_id"] = request_id
    body.update({key: value for key, value in extra.items() if value is not None})
    text = current_app.json.dumps(body, **COMPACT)
    response = Response(text, status=status, mimetype=PROBLEM_MEDIA_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _field_errors(messages: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten webargs' {location: {field: [msg] | {nested…}}} into a list naming each field."""
    flat: list[dict[str, Any]] = []

    def walk(location: str, prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(location, f"{prefix}.{key}" if prefix else str(key), value)
        else:
            texts = node if isinstance(node, list) else [node]
            flat.append(
                {
                    "field": prefix or "(body)",
                    "location": location,
                    "messages": list(map(str, texts)),
                }
            )

    for location, fields_ in messages.items():
        walk(location, "", fields_)
    return flat


def _asks_for_websocket() -> bool:
    """Whether the request is a WebSocket upgrade (as werkzeug's routing tells one)."""
    connection = {part.strip().lower() for part in request.headers.get("Connection", "").split(",")}
    return "upgrade" in connection and request.headers.get("Upgrade", "").lower() == "websocket"


def handle_http_exception(error: HTTPException) -> Response:
    if isinstance(error, WebsocketMismatch):
        if _asks_for_websocket():
            return problem(
                400,
                "http-error",
                "this address is not a WebSocket: the game socket is GET /v1/games/{id}/socket",
            )
        # A plain request of a WebSocket's address: 426 (RFC 9110 §15.5.22) names the upgrade.
        return problem(
            426,
            "upgrade-required",
            "this address is a WebSocket (the game socket): open it with a WebSocket upgrade "
            'request (Upgrade: websocket), as docs/api.md, "The game socket", describes',
            headers={"Upgrade": "websocket", "Connection": "Upgrade"},
        )
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages") or data.get("errors")
    headers = dict(data.get("headers") or {})
    if status == 422 and messages:
        errors = _field_errors(messages)
        first = errors[0]
        detail = f"{first['field']}: {'; '.join(first['messages'])}"
        return problem(422, "invalid-request", detail, errors=errors, field=first["field"])
    if status == 400 and messages:
        errors = _field_errors(messages)
        text = "; ".join(m for e in errors for m in e["messages"])
        slug = "malformed-json" if "json" in text.lower() else "invalid-request"
        return problem(400, slug, text or "bad request", errors=errors)
    if status == 405:
        headers["Allow"] = ", ".join(getattr(error, "valid_methods", None) or [])
    if status in (304, 412):  # smorest's own ETag handling never reaches here, but be safe
        return Response(status=status)
    slug = _HTTP_SLUGS.get(status, "http-error")
    detail = data.get("message") or error.description or error.name
    return problem(status, slug, str(detail), headers=headers)


def is_out_of_memory(error: redis.exceptions.RedisError) -> bool:
    """Redis refused a write at its ``maxmemory`` (inside a script, the refusal arrives as the
    script's error, naming OOM)."""
    if isinstance(error, redis.exceptions.OutOfMemoryError):
        return True
    return isinstance(error, redis.exceptions.ResponseError) and "OOM command not" in str(error)


# The one table from a domain error (the engine's, the table's, the store's) to its answer:
# status and problem type. An error's more specific class comes first.
DOMAIN_ERRORS: dict[type[Exception], tuple[int, str]] = {
    IllegalAction: (422, "illegal-action"),
    NotYourTurn: (409, "not-your-turn"),
    GameOver: (409, "game-finished"),
    InvalidOptions: (422, "invalid"),
    IdempotencyKeyReused: (422, "idempotency-key-reused"),
    InvalidRequest: (422, "invalid"),
    GameNotStarted: (409, "game-not-started"),
    GameFull: (409, "game-full"),
    GameNotFinished: (409, "game-not-finished"),
    SeatReserved: (409, "seat-reserved"),
    SeatTaken: (409, "seat-taken"),
    NotFound: (404, "game-not-found"),
    Unauthorized: (401, "unauthorized"),
    PreconditionFailed: (412, "stale-version"),
    Conflict: (409, "busy"),
    UnavailableGameType: (503, "game-type-unavailable"),
    RulesChanged: (503, "game-rules-changed"),
}

# What a problem adds to the error's own text, per problem type.
_HEADERS = {
    "unauthorized": {"WWW-Authenticate": 'Bearer realm="cardroom"'},
    "busy": {"Retry-After": "1"},
}
_DETAILS = {
    "game-not-found": lambda error: f"no game {error.args[0]!r} (or it expired)",
    "stale-version": lambda error: "If-Match does not match the game's current ETag",
    "busy": lambda error: "too many concurrent changes; retry",
    "game-type-unavailable": lambda error: (
        f"this server cannot play {error.game_type!r} games: no package installed here"
        " serves that game type"
    ),
    "game-rules-changed": lambda error: (
        f"this game was recorded under rules version {error.recorded['rules_version']} of"
        f" {error.game_type!r}; this server has {error.installed.package}"
        f" {error.installed.version}, which plays rules version"
        f" {error.installed.plugin.rules_version}, so it will not replay the game under other"
        " rules"
    ),
}


def answer_domain_error(error: Exception) -> Response:
    """The problem for a domain error of DOMAIN_ERRORS."""
    status, slug = next(
        DOMAIN_ERRORS[kind] for kind in type(error).__mro__ if kind in DOMAIN_ERRORS
    )
    detail = _DETAILS[slug](error) if slug in _DETAILS else getattr(error, "message", str(error))
    headers = dict(_HEADERS.get(slug, {}))
    if getattr(error, "replayed", False):  # an Idempotency-Key's first answer, again
        headers["Idempotent-Replayed"] = "true"
    return problem(
        status,
        slug,
        detail,
        headers=headers or None,
        rule=getattr(error, "rule", None),
        field=getattr(error, "field", None),
    )


def register(app: Flask) -> None:
    for kind in DOMAIN_ERRORS:
        app.register_error_handler(kind, answer_domain_error)

    @app.errorhandler(OutcomeUnknown)
    def outcome_unknown(error: OutcomeUnknown) -> Response:
        log.warning("redis gave no answer to a write of game %s", error.game_id)
        count_redis_error(error.__cause__ or error)
        return problem(
            504,
            "outcome-unknown",
            "the game store did not answer after the change was sent: it may or may not "
            "have been applied. Read the game to learn which, or repeat the request with the "
            "same Idempotency-Key; do not repeat it without one",
        )

    @app.errorhandler(redis.exceptions.RedisError)
    @app.errorhandler(redis.exceptions.RedisClusterException)  # no reachable node, …
    def storage_down(error: Exception) -> Response:
        log.warning("redis error: %s", error.__class__.__name__)
        count_redis_error(error)
        if is_out_of_memory(error):
            return problem(
                507,
                "storage-full",
                "the game store is full (its memory ceiling); nothing was changed",
                headers={"Retry-After": "60"},
            )
        return problem(
            503,
            "storage-unavailable",
            "the game store is unavailable; retry after Retry-After",
            headers={"Retry-After": "2"},
        )

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        return handle_http_exception(error)

    @app.errorhandler(Exception)
    def internal(error: Exception) -> Response:
        log.exception("unhandled error")
        return problem(500, "internal-error", "an unexpected error occurred; it has been logged")
