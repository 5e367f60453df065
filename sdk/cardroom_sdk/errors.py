"""Typed errors: every problem-details answer (RFC 9457) of the server becomes one of these.

All of them derive from :class:`CardroomError`, which carries the HTTP ``status``, the problem
``type`` (``/problems/not-your-turn``) and its short ``slug`` (``not-your-turn``), the
server's ``detail`` message, the ``rule`` and ``field`` it names, field ``errors``, the
``request_id`` and the ``body`` as received.

::

    CardroomError
    ├── InvalidRequest      400/413/422: malformed JSON, schema errors, bad options (``field``)
    ├── IllegalAction       422 illegal-action: the rules refuse this action (``rule``)
    ├── Unauthorized        401: missing or wrong seat token
    ├── NotFound            404: no such game (or it expired)
    ├── Conflict            409
    │   ├── NotYourTurn         not-your-turn: another seat's turn, or another phase
    │   ├── GameFinished        game-finished
    │   ├── GameNotStarted      game-not-started
    │   ├── GameNotFinished     game-not-finished: a replay or rematch before the end
    │   ├── GameFull            game-full
    │   ├── SeatTaken           seat-taken
    │   ├── SeatReserved        seat-reserved: a rematch keeps the seat for its old player
    │   └── Busy                busy: too many concurrent changes, nothing applied
    ├── StaleVersion        412: If-Match named an older version
    ├── RateLimited         429 (``retry_after``)
    ├── ServerUnavailable   503, 502/504, or no connection, after the retries (``retry_after``)
    └── ServerError         500 and other unexpected statuses
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "Busy",
    "CardroomError",
    "Conflict",
    "GameFinished",
    "GameFull",
    "GameNotFinished",
    "GameNotStarted",
    "IllegalAction",
    "InvalidRequest",
    "NotFound",
    "NotYourTurn",
    "RateLimited",
    "SeatReserved",
    "SeatTaken",
    "ServerError",
    "ServerUnavailable",
    "StaleVersion",
    "Unauthorized",
    "error_from_response",
]


class CardroomError(Exception):
    """Base class of every error the SDK raises for the server's answers (or its absence)."""

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        type: str | None = None,
        title: str | None = None,
        rule: str | None = None,
        field: str | None = None,
        errors: list[dict[str, Any]] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ):
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.type = type
        self.title = title
        self.rule = rule
        self.field = field
        self.errors = errors or []
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body

    @property
    def message(self) -> str:
        """The server's message (``detail``)."""
        return self.detail

    @property
    def slug(self) -> str | None:
        """The last part of ``type``: ``not-your-turn`` for ``/problems/not-your-turn``."""
        return self.type.rstrip("/").rsplit("/", 1)[-1] if self.type else None

    def __str__(self) -> str:
        head = " ".join(str(part) for part in (self.status, self.slug) if part is not None)
        text = f"{head}: {self.detail}" if head else self.detail
        named = (("rule", self.rule), ("field", self.field))
        extras = [f"{name} {value}" for name, value in named if value]
        return f"{text} ({', '.join(extras)})" if extras else text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.detail!r}, status={self.status!r}, type={self.type!r})"


class InvalidRequest(CardroomError):
    """400/413/422: malformed JSON, a schema error or a value the server cannot accept."""


class IllegalAction(CardroomError):
    """422 ``illegal-action``: the rules refuse this action; ``rule`` names the rule."""


class Unauthorized(CardroomError):
    """401: the request needs this game's seat token (``Authorization: Bearer …``)."""


class NotFound(CardroomError):
    """404: no such game (never created, or expired after inactivity)."""


class Conflict(CardroomError):
    """409: the game is not in a state that allows this request."""


class NotYourTurn(Conflict):
    """409 ``not-your-turn``: another seat's turn, or the game is in another phase."""


class GameFinished(Conflict):
    """409 ``game-finished``: the game is over and takes no more actions."""


class GameNotStarted(Conflict):
    """409 ``game-not-started``: the game still waits for players to join."""


class GameNotFinished(Conflict):
    """409 ``game-not-finished``: a replay or a rematch of a game that has not ended."""


class GameFull(Conflict):
    """409 ``game-full``: every seat is taken."""


class SeatReserved(Conflict):
    """409 ``seat-reserved``: a rematch keeps the seat for its player of the finished game
    (join it with that game's token)."""


class SeatTaken(Conflict):
    """409 ``seat-taken``: the seat asked for is taken."""


class Busy(Conflict):
    """409 ``busy``: too many concurrent changes; nothing was applied (retried by the SDK)."""


class StaleVersion(CardroomError):
    """412 ``stale-version``: If-Match named an older version; fetch the view again."""


class RateLimited(CardroomError):
    """429: too many requests; ``retry_after`` says how long to wait (seconds), if known."""


class ServerUnavailable(CardroomError):
    """503 (or 502/504, or no connection at all), still so after the SDK's retries."""


class ServerError(CardroomError):
    """500 or another status the SDK does not expect."""


_BY_SLUG: dict[str, type[CardroomError]] = {
    "not-your-turn": NotYourTurn,
    "illegal-action": IllegalAction,
    "stale-version": StaleVersion,
    "unauthorized": Unauthorized,
    "game-not-found": NotFound,
    "not-found": NotFound,
    "game-finished": GameFinished,
    "game-not-started": GameNotStarted,
    "game-full": GameFull,
    "game-not-finished": GameNotFinished,
    "seat-reserved": SeatReserved,
    "seat-taken": SeatTaken,
    "busy": Busy,
    "rate-limited": RateLimited,
    "storage-unavailable": ServerUnavailable,
    "invalid-request": InvalidRequest,
    "malformed-json": InvalidRequest,
    "invalid": InvalidRequest,
    "idempotency-key-reused": InvalidRequest,
    "payload-too-large": InvalidRequest,
}

_BY_STATUS: dict[int, type[CardroomError]] = {
    400: InvalidRequest,
    401: Unauthorized,
    404: NotFound,
    409: Conflict,
    412: StaleVersion,
    413: InvalidRequest,
    422: InvalidRequest,
    429: RateLimited,
    502: ServerUnavailable,
    503: ServerUnavailable,
    504: ServerUnavailable,
}


def error_class(status: int, slug: str | None) -> type[CardroomError]:
    """The exception class for a status and problem slug (the slug wins if it is known)."""
    cls = _BY_SLUG.get(slug or "")
    if cls is not None:
        return cls
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if 400 <= status < 500:
        return InvalidRequest
    return ServerError


def error_from_response(
    status: int, body: Any, text: str = "", retry_after: float | None = None
) -> CardroomError:
    """Build the exception for an error answer: ``body`` is the parsed JSON (or None)."""
    problem = body if isinstance(body, dict) else {}
    problem_type = problem.get("type") if isinstance(problem.get("type"), str) else None
    slug = problem_type.rstrip("/").rsplit("/", 1)[-1] if problem_type else None
    detail = problem.get("detail") or problem.get("title") or text.strip()[:500]
    if not detail:
        detail = f"HTTP {status}"
    cls = error_class(status, slug)
    errors = problem.get("errors")
    return cls(
        str(detail),
        status=status,
        type=problem_type,
        title=problem.get("title"),
        rule=problem.get("rule"),
        field=problem.get("field"),
        errors=errors if isinstance(errors, list) else None,
        request_id=problem.get("request_id"),
        retry_after=retry_after,
        body=body if body is not None else (text or None),
    )
