"""A seat's game socket: the cheapest way to follow a game and act in it.

``GET /v1/games/{id}/socket`` is a WebSocket on which the server sends the seat's view each
time the game changes and answers the seat's actions (the server's docs/api.md, "The game
socket"). :class:`~cardroom_sdk.Seat` opens one for :meth:`~cardroom_sdk.Seat.wait_for_turn`
and :meth:`~cardroom_sdk.Seat.play`: no request per move, where the events long-poll and a
view cost two or three.

An action sent on the socket carries its Idempotency-Key as ``id``; when the socket breaks
before the answer came, the SDK opens a new one and sends the same action with the same key,
so it is applied at most once, as over HTTP.

The socket needs the ``websocket-client`` package: ``pip install 'cardroom-sdk[socket]'``.
Without it (``AVAILABLE`` is False) the SDK depends on requests alone and seats follow games
over HTTP, with held view requests.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

try:
    import websocket
except ImportError:  # the SDK without its "socket" extra: HTTP only
    websocket = None  # type: ignore[assignment]

from cardroom_sdk.errors import error_from_response
from cardroom_sdk.models import ActionResult, View
from cardroom_sdk.protocols import Connection

__all__ = ["AVAILABLE", "SOCKET_ERRORS", "GameSocket", "SocketRefused", "newer"]

AVAILABLE = websocket is not None
"""Whether game sockets can be opened here (the ``websocket-client`` package is installed)."""

SOCKET_ERRORS: tuple[type[BaseException], ...] = (
    (websocket.WebSocketException, OSError) if websocket is not None else (OSError,)
)
"""The socket broke, timed out or could not be opened."""


class SocketRefused(Exception):
    """The server (or a proxy before it) does not open game sockets: use HTTP instead."""


def newer(one: View | None, other: View | None) -> View | None:
    """The later of two views of one game (by version, then last event)."""
    if one is None:
        return other
    if other is None:
        return one
    key_one = (one.version, one.last_seq or 0)
    key_other = (other.version, other.last_seq or 0)
    return other if key_other > key_one else one


def socket_url(base_url: str, game_id: str) -> str:
    parts = urlsplit(base_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    path = parts.path.rstrip("/") + f"/v1/games/{quote(str(game_id), safe='')}/socket"
    return f"{scheme}://{parts.netloc}{path}"


class GameSocket:
    """One open game socket of one seat. Not thread-safe: one per thread, as a Seat."""

    def __init__(self, client: Connection, game_id: str, token: str | None):
        self.client = client
        self.game_id = game_id
        self.url = socket_url(client.base_url, game_id)
        self.token = token
        self.latest: View | None = None  # the newest view the server sent
        self.fresh = False  # a view arrived that the caller has not taken yet
        self.socket: websocket.WebSocket | None = None
        self._connect()

    def _connect(self) -> None:
        try:
            self.socket = websocket.create_connection(
                self.url,
                timeout=self.client.timeout,
                header=[f"User-Agent: {self.client.user_agent}"],
                enable_multithread=False,
                suppress_origin=True,
            )
        except websocket.WebSocketBadStatusException as refused:
            raise SocketRefused(str(refused)) from None
        hello: dict[str, Any] = {"type": "hello"}
        if self.token is not None:
            hello["token"] = self.token
        self._send(hello)

    def close(self) -> None:
        if self.socket is not None:
            with contextlib.suppress(SOCKET_ERRORS):
                self.socket.close(timeout=1)
            self.socket = None

    # --- views --------------------------------------------------------------------------

    def next_view(self, after: View | None, seconds: float | None) -> View | None:
        """A view newer than ``after`` (the newest the server sent), waiting up to
        ``seconds`` (None: as long as it takes); None if none came in time."""
        ends = None if seconds is None else time.monotonic() + seconds
        while True:
            if self.latest is not None and newer(after, self.latest) is not after:
                self.fresh = False
                return self.latest
            left = None if ends is None else ends - time.monotonic()
            if left is not None and left <= 0:
                return None
            self._receive(left)

    def look(self, seconds: float) -> View:
        """The view as it is now: asked for on the socket (views sent before it are read)."""
        key = f"look-{time.monotonic_ns()}"
        self._send({"type": "look", "id": key})
        ends = time.monotonic() + seconds
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                raise websocket.WebSocketTimeoutException("no view in time")
            answer = self._receive(left)
            if answer is not None and answer.get("id") == key and answer.get("type") == "view":
                view = View.from_json(answer.get("view") or {})
                self.latest = newer(self.latest, view)
                return view

    # --- actions ------------------------------------------------------------------------

    def act(self, action: Mapping[str, Any], if_match: str | None, key: str) -> ActionResult:
        """Send an action and read until its answer (views that come first are kept).
        Raises the server's refusal as the SDK's typed error."""
        message: dict[str, Any] = {"type": "act", "id": key, "action": dict(action)}
        if if_match:
            message["if_match"] = if_match.strip('"')
        self._send(message)
        ends = time.monotonic() + self.client.timeout
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                raise websocket.WebSocketTimeoutException("no answer to the action in time")
            answer = self._receive(left)
            if answer is None or answer.get("id") != key:
                continue
            if answer.get("type") == "result":
                body = answer.get("result") or {}
                result = ActionResult.from_json(
                    body, replayed=bool(answer.get("replayed")), idempotency_key=key
                )
                self.latest = newer(self.latest, result.view)
                return result
            problem = answer.get("problem") or {}
            status = int(problem.get("status") or 500)
            raise error_from_response(status, problem, json.dumps(problem))

    # --- plumbing -----------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        if self.socket is None:
            raise websocket.WebSocketConnectionClosedException("the socket is closed")
        self.socket.send(json.dumps(message, separators=(",", ":")))

    def _receive(self, seconds: float | None) -> dict[str, Any] | None:
        """Read one message; a view is kept as ``latest``; an answer is returned."""
        if self.socket is None:
            raise websocket.WebSocketConnectionClosedException("the socket is closed")
        self.socket.settimeout(seconds)
        try:
            text = self.socket.recv()
        except websocket.WebSocketTimeoutException:
            return None
        if not text:
            raise websocket.WebSocketConnectionClosedException("the server closed the socket")
        message = json.loads(text)
        if not isinstance(message, dict):
            return None
        kind = message.get("type")
        if kind == "view" and isinstance(message.get("view"), dict) and "id" not in message:
            self.latest = newer(self.latest, View.from_json(message["view"]))
            self.fresh = True
            return None
        if kind == "problem" and message.get("id") is None:
            problem = message.get("problem") or {}
            raise error_from_response(int(problem.get("status") or 500), problem, text)
        return message
