"""Slow clients cannot hold the server (docs/operations.md, "Slow clients").

A request *arrives* from its first byte until its body is read whole. Two limits bound it:

- Headers: gunicorn's gevent worker reads every request's headers under a timeout of
  ``keepalive`` seconds (5), the first request's too; past it, the connection is closed.
- Body: gunicorn has no body timeout. ``ArrivalGuard`` (WSGI) reads the whole body before the
  app runs, within ``CARDROOM_BODY_TIMEOUT`` seconds of the headers (a ``gevent.Timeout``
  around the reads: one deadline for the whole body, however it trickles in), and answers
  408 ``request-timeout`` past it.

Timeouts alone do not stop a client that opens connections faster than they expire and fills
a worker's ``worker_connections``. So the worker (``GeventWorker``) also keeps at most
``CARDROOM_MAX_ARRIVING`` connections arriving at once (default: half of
``worker_connections``); past that it closes the one that has been arriving longest, if it
is reading its body or has been arriving for at least ``MIN_ARRIVING_SECONDS``. A request
that arrives at once (a health check, any ordinary client) is never the oldest for long, and a
fresh connection whose headers are not in yet (a slow link, a loaded host) is not closed in
its first second, so a flood of new connections cannot push it out; a connection that
trickles its body always is the oldest. Idle keep-alive connections count as arriving (they
are waiting for their next request).

Each request, once it has arrived and before the app runs, also lets the worker's other
greenlets run first (``gevent.sleep(0)``). redis-py's check of a pooled connection used to
give every command such a turn of the event loop, at about 18 µs (gevent's ``poll``); the
check no longer does (``cardroom.store.connection``), and without any turn a gevent worker
served some requests over and over while others waited: under many concurrent actions their
p50 fell and their p99 rose from about 50 to 90-130 ms. One turn per request brings p99 / p50
back to 3-4 in most runs (2.8-5.9 over a night's runs on a busy 2-core machine; a turn per
command gave 2.8-3.4: docs/benchmark-history.md, "Request-path shortcuts") and costs the game
socket's messages nothing: they are not HTTP requests, and their p99 did not need it.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import os
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

import gevent
from gevent import monkey
from gunicorn.workers.ggevent import GeventWorker as _GeventWorker

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_CHUNK = 64 * 1024

StartResponse = Callable[..., Any]


# The standard library's socket class, also where gevent patched the module.
_OS_SOCKET: type[socket.socket] = monkey.get_original("socket", "socket")

# A connection whose request headers are not in yet is not closed as too slow before it has
# been arriving this long (a body that trickles can be closed at once).
MIN_ARRIVING_SECONDS = 1.0


def _read(stream: Any, wanted: int) -> bytes:
    """Up to ``wanted`` bytes of ``stream``, fewer if it ends first."""
    parts: list[bytes] = []
    got = 0
    while got < wanted:
        part = stream.read(min(_CHUNK, wanted - got))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


class Arrivals:
    """The connections of this process that are arriving, oldest first."""

    def __init__(self, most: int = 0, grace: float = MIN_ARRIVING_SECONDS):
        self.most = most  # 0: no limit
        self.grace = grace
        # id(socket) -> [socket, when it began arriving, whether its body is being read]
        self._waiting: dict[int, list[Any]] = {}
        self.evicted = 0

    def begin(self, sock: Any) -> None:
        self._waiting.pop(id(sock), None)
        now = time.monotonic()
        self._waiting[id(sock)] = [sock, now, False]
        while self.most and len(self._waiting) > self.most:
            oldest = next(
                (
                    key
                    for key, (_, began, in_body) in self._waiting.items()
                    if in_body or now - began >= self.grace
                ),
                None,
            )
            if oldest is None:
                break  # every arriving connection is fresh and has sent no body yet
            self._evict(self._waiting.pop(oldest)[0])

    def reading_body(self, sock: Any) -> None:
        """The request's headers are in and its body is being read."""
        entry = self._waiting.get(id(sock))
        if entry is not None:
            entry[2] = True

    def end(self, sock: Any) -> None:
        self._waiting.pop(id(sock), None)

    def _evict(self, sock: Any) -> None:
        self.evicted += 1
        descriptor = sock.fileno()
        if descriptor < 0:
            return  # closed meanwhile
        # Shut down through a standard library socket on the same descriptor, not gevent's:
        # the connection's reader wakes to the end of the stream, as if the client had
        # closed (gevent's shutdown would wake it with EBADF, which gunicorn logs as an error).
        twin = _OS_SOCKET(fileno=descriptor)
        try:
            with contextlib.suppress(OSError):
                twin.shutdown(socket.SHUT_RDWR)
        finally:
            twin.detach()  # the descriptor stays the connection's, to close

    def __len__(self) -> int:
        return len(self._waiting)


ARRIVALS = Arrivals()


# The methods of gunicorn's worker that GeventWorker extends: not gunicorn's public API
# (docs/architecture.md, "Borrowed internals"). Were one renamed or reshaped, the limit on
# arriving connections would silently stop applying, so the worker refuses to start instead.
EXTENDED_WORKER_METHODS = {
    "init_process": ("self",),
    "handle": ("self", "listener", "client", "addr"),
    "handle_request": ("self", "listener_name", "req", "sock", "addr"),
}


def check_worker_methods(worker_class: type = _GeventWorker) -> None:
    for name, expected in EXTENDED_WORKER_METHODS.items():
        method = getattr(worker_class, name, None)
        found = tuple(inspect.signature(method).parameters) if callable(method) else None
        if found != expected:
            raise RuntimeError(
                f"gunicorn's {worker_class.__name__}.{name} is not the method"
                f" cardroom.serve.arrival extends (parameters {found}, expected {expected}):"
                " this gunicorn is not supported"
            )


class GeventWorker(_GeventWorker):
    """gunicorn's gevent worker, keeping at most CARDROOM_MAX_ARRIVING connections arriving."""

    def init_process(self) -> None:
        check_worker_methods()
        default = max(1, self.cfg.worker_connections // 2)
        ARRIVALS.most = int(os.environ.get("CARDROOM_MAX_ARRIVING") or default)
        super().init_process()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        ARRIVALS.begin(client)
        try:
            super().handle(listener, client, addr)
        finally:
            ARRIVALS.end(client)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        try:
            return super().handle_request(listener_name, req, sock, addr)
        finally:
            ARRIVALS.begin(sock)  # kept alive: waiting for its next request


class BodyTimeout(Exception):
    pass


class ArrivalGuard:
    """WSGI middleware: the body is read whole, within ``timeout`` seconds, before the app."""

    def __init__(self, app: Callable[..., Iterable[bytes]], timeout: float, max_body: int):
        self.app = app
        self.timeout = timeout
        self.max_body = max_body

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Any:
        sock = environ.get("gunicorn.socket")
        if sock is not None and monkey.is_module_patched("socket"):
            gevent.sleep(0)  # the worker's other greenlets first: see the module's doc
        try:
            if environ.get("REQUEST_METHOD") in _BODY_METHODS:
                try:
                    self._read_body(environ)
                except BodyTimeout:
                    return self._too_slow(environ, start_response)
        finally:
            if sock is not None:
                ARRIVALS.end(sock)
        return self.app(environ, start_response)

    def _read_body(self, environ: dict[str, Any]) -> None:
        length_text = environ.get("CONTENT_LENGTH") or ""
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if not chunked and not length_text:
            return
        if environ.get("gunicorn.socket") is not None:
            ARRIVALS.reading_body(environ["gunicorn.socket"])
        try:
            length = int(length_text) if length_text else None
        except ValueError:
            return  # the app answers it
        if length is not None and length > self.max_body:
            return  # 413 without reading
        wanted = self.max_body + 1 if length is None else length
        stream = environ["wsgi.input"]
        body = self._read_within(stream, wanted, environ.get("gunicorn.socket"))
        if length is not None and len(body) < length:
            raise BodyTimeout()  # the client went away (or was closed as too slow)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ.pop("wsgi.input_terminated", None)

    def _read_within(self, stream: Any, wanted: int, sock: Any) -> bytes:
        if monkey.is_module_patched("socket"):
            timer = gevent.Timeout(self.timeout, BodyTimeout)
            timer.start()
            try:
                return _read(stream, wanted)
            finally:
                timer.close()
        # Threads (gthread): a timeout on each read of the socket, not one for the whole body.
        previous = sock.gettimeout() if sock is not None else None
        if sock is not None:
            sock.settimeout(self.timeout)
        try:
            return _read(stream, wanted)
        except TimeoutError:
            raise BodyTimeout() from None
        finally:
            if sock is not None:
                sock.settimeout(previous)

    def _too_slow(self, environ: dict[str, Any], start_response: StartResponse) -> list[bytes]:
        body = json.dumps(
            {
                "type": "/problems/request-timeout",
                "title": "Request timeout",
                "status": 408,
                "detail": f"the request body did not arrive within {self.timeout:g} s",
                "instance": environ.get("PATH_INFO", ""),
            }
        ).encode()
        start_response(
            "408 Request Timeout",
            [
                ("Content-Type", "application/problem+json"),
                ("Content-Length", str(len(body))),
                ("Connection", "close"),
            ],
        )
        return [body]
