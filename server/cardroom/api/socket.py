"""A seat's game socket: a WebSocket on which the seat acts and is sent its new view each
time the game changes (docs/api.md, "The game socket").

``GET /v1/games/{id}/socket`` upgrades to a WebSocket (RFC 6455, ``wsproto`` over the socket
gunicorn hands the request). The client's first message says who it is::

    {"type": "hello", "token": "<seat token>", "events_after": 0}

(``token`` may be left out when the upgrade request carried ``Authorization: Bearer``; with
none the client is a spectator; ``events_after`` asks for the events after that ``seq`` with
each view). The server answers with the seat's view and sends a new one whenever the game is
written::

    {"type": "view", "view": {…}, "events": […]}

An action is a message too, answered on the socket once it is committed, exactly as
``POST …/actions`` answers it (the same code path: compare-and-set, bots, the stored answer
of its key); ``id`` is its Idempotency-Key, ``if_match`` an ETag as If-Match::

    {"type": "act", "id": "<key>", "action": {…}, "if_match": "<etag>"}
    {"type": "result", "id": "<key>", "status": 200, "replayed": false, "result": {…}}
    {"type": "problem", "id": "<key>", "problem": {…problem details…}}

The view of an action's result is not sent again as a ``view``. A refused hello closes the
socket with code ``4000 + status`` (4401, 4404) after a ``problem``.

One process hears every game's writes once (``cardroom.store.changes``) and each socket
wakes on its game's: the view it sends is shaped from the game as this process last read or
wrote it when that is current, so a change costs a process at most one load however many
sockets follow the game here.

The client may close or drop the socket at any moment, a view half sent or an answer on its
way: whichever greenlet notices first (the reader, the follower, an action's answer) raises
``_Closed``, and the session ends quietly, with nothing logged and nothing more written.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any

from flask import Response, copy_current_request_context, current_app, request
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    Request,
    TextMessage,
)
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from cardroom.api.actions import ActionRequest, checked_key
from cardroom.api.jsonio import dumps_bytes, loads
from cardroom.table import Follow, GameRecord, InvalidRequest, Tables, etag_for, redacted

log = logging.getLogger("cardroom.socket")

HELLO_SECONDS = 10.0
# A ping when the socket has been quiet this long, so proxies keep it open.
PING_SECONDS = 25.0
MAX_MESSAGE = 64 * 1024
_RECEIVE = 65536


class _Closed(Exception):
    """The other side closed the socket, or it broke."""


def open_socket(tables: Tables, game_id: str, header_token: str | None) -> Response:
    """Upgrade this request to a game socket and serve it until it closes."""
    environ = request.environ
    sock = environ.get("gunicorn.socket")
    if sock is None:
        raise InvalidRequest("game sockets are served by gunicorn (cardroom serve)", "Upgrade")
    connection = WSConnection(ConnectionType.SERVER)
    try:
        connection.receive_data(_request_bytes(environ))
        upgrade = next((e for e in connection.events() if isinstance(e, Request)), None)
    except RemoteProtocolError as error:
        raise InvalidRequest(f"not a WebSocket upgrade: {error}", "Upgrade") from None
    if upgrade is None:
        raise InvalidRequest("not a WebSocket upgrade", "Upgrade")
    try:
        if _accept(sock, connection):
            _Session(tables, game_id, header_token, sock, connection).serve()
    finally:
        with contextlib.suppress(OSError):
            sock.close()
    return _Upgraded(status=101)


def _accept(sock: Any, connection: WSConnection) -> bool:
    """Answer the upgrade (False: the client left before the answer)."""
    try:
        sock.sendall(connection.send(AcceptConnection()))
    except OSError:
        return False
    return True


class _Upgraded(Response):
    """The answer after a socket closed: nothing more may be written to the connection, so
    gunicorn is told to drop it (as flask-sock does): StopIteration closes its keep-alive
    loop."""

    def __call__(self, environ: Any, start_response: Any) -> Any:
        raise StopIteration()


def _request_bytes(environ: dict[str, Any]) -> bytes:
    """The upgrade request as it came (gunicorn parsed it), for wsproto to check."""
    lines = [f"GET {environ.get('RAW_URI') or environ.get('PATH_INFO', '/')} HTTP/1.1"]
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            lines.append(f"{key[5:].replace('_', '-').title()}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class _Session:
    def __init__(
        self,
        tables: Tables,
        game_id: str,
        token: str | None,
        sock: Any,
        connection: WSConnection,
    ):
        self.tables = tables
        self.game_id = game_id
        self.token = token
        self.sock = sock
        self.connection = connection
        self.seat: int | None = None
        self.events_after: int | None = None
        self.closed = threading.Event()
        self._send_lock = threading.Lock()
        self._sent_etag: str | None = None
        self._last_sent = time.monotonic()
        self._partial: list[str] = []
        self._inbox: list[dict[str, Any] | None] = []
        self._following: Follow | None = None

    # --- the session --------------------------------------------------------------------

    def serve(self) -> None:
        hello = self._first_message()
        if hello is None:
            return
        with contextlib.ExitStack() as stack:
            try:
                self._greet(hello)
                # The game read once its watch began is the one the hello is judged on.
                following = stack.enter_context(self.tables.follow(self.game_id))
                self.seat = self.tables.seat_of(following.record, self.token)
            except Exception as error:
                status = self._send_problem(None, error)
                self._close(4000 + status if 400 <= status < 600 else 1011, "refused")
                return
            self._following = following
            reader = threading.Thread(target=copy_current_request_context(self._read), daemon=True)
            reader.start()
            try:
                self._follow(following)
            except _Closed:
                pass
            except Exception as error:
                self._send_problem(None, error)
                self._close(1011, "server error")
            finally:
                self.closed.set()
                following.wake()
        reader.join(timeout=1)

    def _follow(self, following: Follow) -> None:
        """Send the view now and after every write, until the socket closes."""
        self._push(following.record)
        while not self.closed.is_set():
            waited = max(0.0, PING_SECONDS - (time.monotonic() - self._last_sent))
            changed = following.next(waited)
            if self.closed.is_set():
                return
            if changed:
                self._push(following.record)
            elif time.monotonic() - self._last_sent >= PING_SECONDS:
                self._transmit(Ping())

    def _push(self, record: GameRecord) -> None:
        etag = etag_for(record, self.seat)
        if etag == self._sent_etag:
            return
        view = self.tables.shape_view(record, self.seat)
        view["etag"] = etag
        message: dict[str, Any] = {"type": "view", "view": view}
        if self.events_after is not None:
            raw = self.tables.events_after(record, self.events_after, 1000)
            if raw:
                self.events_after = raw[-1]["seq"]
            message["events"] = redacted(raw, self.seat)
        self._send(message, etag)

    # --- messages in ----------------------------------------------------------------------

    def _first_message(self) -> dict[str, Any] | None:
        """The hello, read here before the reader starts (None: the socket closed)."""
        self.sock.settimeout(HELLO_SECONDS)
        try:
            while not self._inbox:
                self._receive()
        except (_Closed, TimeoutError, OSError):
            self._close(1008, "no hello")
            return None
        finally:
            with contextlib.suppress(OSError):
                self.sock.settimeout(None)
        return self._inbox.pop(0)

    def _greet(self, hello: dict[str, Any] | None) -> None:
        if not isinstance(hello, dict) or hello.get("type") != "hello":
            raise InvalidRequest('the first message must be {"type": "hello", …}', "type")
        token = hello.get("token")
        if token is not None:
            if not isinstance(token, str):
                raise InvalidRequest("token must be a string", "token")
            self.token = token
        after = hello.get("events_after")
        if after is not None:
            if not isinstance(after, int) or isinstance(after, bool) or after < 0:
                raise InvalidRequest("events_after must be a whole number ≥ 0", "events_after")
            self.events_after = after

    def _read(self) -> None:
        try:
            while not self.closed.is_set():
                while self._inbox:
                    self._handle(self._inbox.pop(0))
                self._receive()
        except _Closed:
            pass
        except Exception:
            log.exception("game socket: unexpected error")
        finally:
            self.closed.set()
            if self._following is not None:
                self._following.wake()

    def _receive(self) -> None:
        """Read from the socket once; complete messages go to the inbox (None: not JSON)."""
        try:
            data = self.sock.recv(_RECEIVE)
        except OSError:
            raise _Closed() from None
        if not data:
            raise _Closed()
        try:
            self.connection.receive_data(data)
            for event in self.connection.events():
                if isinstance(event, TextMessage):
                    self._partial.append(event.data)
                    if sum(len(part) for part in self._partial) > MAX_MESSAGE:
                        self._close(1009, "message too big")
                        raise _Closed()
                    if event.message_finished:
                        text, self._partial = "".join(self._partial), []
                        try:
                            self._inbox.append(loads(text))
                        except ValueError:
                            self._inbox.append(None)
                elif isinstance(event, BytesMessage):
                    self._close(1003, "text messages only")
                    raise _Closed()
                elif isinstance(event, Ping):
                    self._transmit(event.response())
                elif isinstance(event, CloseConnection):
                    with contextlib.suppress(_Closed):
                        self._transmit(event.response())
                    raise _Closed()
        except RemoteProtocolError:
            self._close(1002, "protocol error")
            raise _Closed() from None
        except LocalProtocolError:  # data after the close handshake ended
            raise _Closed() from None

    def _handle(self, message: dict[str, Any] | None) -> None:
        key = message.get("id") if isinstance(message, dict) else None
        try:
            if not isinstance(message, dict):
                raise InvalidRequest("a message is a JSON object", "message")
            if message.get("type") not in ("act", "look"):
                raise InvalidRequest('a message after the hello is an "act" or a "look"', "type")
            if message["type"] == "look":
                self._look(checked_key(key, "id"))
                return
            answer = ActionRequest.from_socket(self.game_id, self.token, message).submit(
                self.tables
            )
        except _Closed:
            raise
        except Exception as error:
            self._send_problem(key if isinstance(key, str) else None, error)
            return
        # A replay's view is an old one: the view last sent stays the one to compare with.
        self._send(answer.to_socket(key), None if answer.replayed else answer.etag)

    def _look(self, key: str) -> None:
        """The view as it is now, answered to a ``look`` (sent even if it was sent before)."""
        if self._following is None:
            record = self.tables.snapshot(self.game_id)
        else:
            record = self._following.look()
        view = self.tables.shape_view(record, self.seat)
        view["etag"] = etag_for(record, self.seat)
        self._send({"type": "view", "id": key, "view": view}, view["etag"], always=True)

    # --- messages out ---------------------------------------------------------------------

    def _send_problem(self, key: str | None, error: Exception) -> int:
        """Send the problem the REST API would answer ``error`` with; its status."""
        response = current_app.handle_user_exception(error)
        try:
            problem = loads(response.get_data())
        except ValueError:
            problem = {"status": response.status_code, "detail": str(error)}
        with contextlib.suppress(_Closed):
            self._send({"type": "problem", "id": key, "problem": problem})
        return int(response.status_code)

    def _send(self, message: dict[str, Any], etag: str | None = None, always: bool = False) -> None:
        text = dumps_bytes(message).decode()
        with self._send_lock:
            if etag is not None:
                if etag == self._sent_etag and message["type"] == "view" and not always:
                    return
                self._sent_etag = etag
            self._write(TextMessage(data=text))

    def _transmit(self, event: Any) -> None:
        """Frame one event and send it (one sender at a time: the reader answers pings)."""
        with self._send_lock:
            self._write(event)

    def _write(self, event: Any) -> None:
        """``_transmit`` with the send lock held. Once the close handshake has begun (a close
        frame from either side) or the connection broke, this raises ``_Closed``."""
        try:
            data = memoryview(self.connection.send(event))
        except LocalProtocolError:
            self.closed.set()
            raise _Closed() from None
        try:
            # send, not sendall: gevent's sendall asks the kernel for the send buffer's
            # size before every message (a system call); send waits as sendall would.
            while data:
                data = data[self.sock.send(data) :]
        except OSError:
            self.closed.set()
            raise _Closed() from None
        self._last_sent = time.monotonic()

    def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(_Closed):
            self._transmit(CloseConnection(code=code, reason=reason))
        self.closed.set()


__all__ = ["open_socket"]
