"""The third-party internals cardroom still relies on, each guarded (docs/architecture.md,
"Borrowed internals"): every test here fails, rather than the server merely slowing down,
when a library changes what cardroom borrows from it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from gunicorn.config import Config
from gunicorn.workers.base import Worker as GunicornWorker
from gunicorn.workers.ggevent import GeventWorker as GunicornGeventWorker
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Message,
    Request,
    TextMessage,
)

from cardroom.serve import arrival
from cardroom.store import connection as store_connection
from cardroom.store.connection import cheap_ready_check
from cardroom.store.embedded import EmbeddedRedis, free_port

from gunicorns import start_gunicorn, stop_gunicorn

TIMEOUT = 5.0
# gunicorn's error lines and tracebacks, and the app's JSON lines at error level.
_BAD_LINE = re.compile(r"\[(ERROR|CRITICAL)\]|Traceback|\"level\":\"(error|critical)\"")


# --- redis-py: the pooled connection's ready check (store/connection.py) -------------------


def test_a_connected_redis_connection_holds_its_socket_in_sock(redis_client: redis.Redis) -> None:
    """``_sock`` (redis-py's attribute) is the socket the connection talks on."""
    pool = redis_client.connection_pool
    connection = pool.get_connection()
    try:
        connection.send_command("PING")
        connection.read_response()
        sock = connection._sock
        assert isinstance(sock, socket.socket)
        host, port = sock.getpeername()[:2]
        assert (host, port) == (connection.host, connection.port)
    finally:
        pool.release(connection)


def test_the_pool_checks_a_connection_without_waiting_each_time_it_hands_it_out(
    redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check cardroom answers cheaply is the one redis-py's pool makes on every command."""
    asked: list[float] = []
    checked_class = redis_client.connection_pool.connection_class
    own_check = checked_class.can_read

    def recording(self: Any, timeout: float = 0) -> bool:
        asked.append(timeout)
        return own_check(self, timeout)

    monkeypatch.setattr(checked_class, "can_read", recording)
    redis_client.ping()
    redis_client.ping()
    assert asked == [0, 0]


def test_an_idle_connections_check_is_answered_without_redis_pys_own(
    redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The saving itself: nothing waiting on the socket, and redis-py's check (gevent's
    ``poll`` under gevent) is not run. With ``_sock`` gone or always None it would be."""
    pool = redis_client.connection_pool
    connection = pool.get_connection()
    try:

        def not_to_be_asked(self: Any, timeout: float = 0) -> bool:
            raise AssertionError("redis-py's own ready check ran")

        for klass in type(connection).__mro__[2:]:
            if "can_read" in vars(klass):
                monkeypatch.setattr(klass, "can_read", not_to_be_asked)
        assert connection.can_read() is False
    finally:
        monkeypatch.undo()
        pool.release(connection)


def test_a_connection_class_without_sock_is_refused_at_start() -> None:
    class Reshaped(redis.Connection):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            del self._sock

    with pytest.raises(RuntimeError, match="_sock"):
        cheap_ready_check(Reshaped, {})


def test_a_connection_class_whose_check_takes_no_timeout_is_refused_at_start() -> None:
    class Reshaped(redis.Connection):
        def can_read(self) -> bool:  # type: ignore[override]
            return False

    with pytest.raises(RuntimeError, match="can_read"):
        cheap_ready_check(Reshaped, {})


def test_the_operating_systems_poll_is_at_hand() -> None:
    poll = store_connection.OS_POLL()
    left, right = socket.socketpair()
    try:
        poll.register(left, store_connection.select.POLLIN)
        assert poll.poll(0) == []
        right.send(b"x")
        assert poll.poll(1000)
    finally:
        left.close()
        right.close()


# --- gunicorn: the gevent worker's arrivals (arrival.py) -----------------------------------


def test_the_worker_methods_arrival_extends_are_gunicorns() -> None:
    arrival.check_worker_methods(GunicornGeventWorker)
    for name in arrival.EXTENDED_WORKER_METHODS:
        assert name in vars(arrival.GeventWorker), name


def test_a_gunicorn_whose_worker_methods_changed_is_refused() -> None:
    class Reshaped(GunicornGeventWorker):
        def handle(self, listener: Any, client: Any) -> None:  # type: ignore[override]
            pass

    with pytest.raises(RuntimeError, match="handle"):
        arrival.check_worker_methods(Reshaped)


def test_a_gunicorn_worker_holds_the_app_it_loaded_in_wsgi() -> None:
    """``worker.wsgi``, which gunicorn_conf.post_worker_init starts the progression loop for
    (and worker_exit stops it for)."""
    loaded = object()

    class Application:  # what a worker asks of gunicorn's application object
        def wsgi(self) -> object:
            return loaded

    worker = GunicornWorker(
        age=1, ppid=os.getpid(), sockets=[], app=Application(), timeout=30, cfg=Config(), log=None
    )
    try:
        worker.load_wsgi()
        assert worker.wsgi is loaded
    finally:
        worker.tmp.close()


def _bad_lines(log: Path) -> list[str]:
    return [line for line in log.read_text(errors="replace").splitlines() if _BAD_LINE.search(line)]


def _until_closed(sock: socket.socket) -> bytes:
    """What the server still sends before it drops the connection."""
    got = b""
    deadline = time.monotonic() + TIMEOUT
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            part = sock.recv(65536)
        except ConnectionResetError:
            return got
        except TimeoutError:
            break
        if not part:
            return got
        got += part
    raise AssertionError(f"the connection was not dropped within {TIMEOUT} s: {got!r}")


@contextlib.contextmanager
def logged_worker_at(redis_url: str, tmp_path: Path, **env: str) -> Iterator[tuple[int, Path]]:
    """One gunicorn worker (``env`` as its environment), its port and its log."""
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        process = start_gunicorn(redis_url, port, output, CARDROOM_WORKERS="1", **env)
        try:
            yield port, log
        finally:
            stop_gunicorn(process)


@pytest.fixture
def one_worker_log(single_redis: EmbeddedRedis, tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A gevent worker that lets at most two connections arrive at once, and its log."""
    with logged_worker_at(single_redis.url, tmp_path, CARDROOM_MAX_ARRIVING="2") as worker:
        yield worker


def test_the_longest_arriving_connection_is_closed_quietly(
    one_worker_log: tuple[int, Path],
) -> None:
    """Through the real worker: ``handle`` and ``handle_request`` are called as extended,
    and the evicted connection ends as if its client had closed (nothing logged)."""
    port, log = one_worker_log
    body_pending = (
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{"
    )
    trickling = []
    for _ in range(3):
        sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        sock.sendall(body_pending)
        trickling.append(sock)
        time.sleep(0.2)  # the first is the oldest
    try:
        assert _until_closed(trickling[0]) == b""
        assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=TIMEOUT).ok
    finally:
        for sock in trickling:
            sock.close()
    time.sleep(0.3)
    assert not _bad_lines(log), _bad_lines(log)


# --- gunicorn: dropping a connection a game socket took over (api/socket.py) ---------------


@pytest.fixture(params=["gevent", "gthread"])
def logged_worker(
    request: pytest.FixtureRequest, single_redis: EmbeddedRedis, tmp_path: Path
) -> Iterator[tuple[int, Path]]:
    with logged_worker_at(
        single_redis.url, tmp_path, CARDROOM_WORKER_CLASS=request.param, CARDROOM_THREADS="4"
    ) as worker:
        yield worker


def _events(sock: socket.socket, ws: WSConnection, wanted: type) -> list[Any]:
    seen: list[Any] = []
    deadline = time.monotonic() + TIMEOUT
    while not any(isinstance(event, wanted) for event in seen):
        assert time.monotonic() < deadline, f"no {wanted.__name__} in {seen}"
        data = sock.recv(65536)
        assert data, f"the connection ended before a {wanted.__name__}: {seen}"
        ws.receive_data(data)
        seen.extend(ws.events())
    return seen


def test_a_closed_game_socket_drops_its_connection_quietly(
    logged_worker: tuple[int, Path],
) -> None:
    """The answer after a game socket closed raises StopIteration, which gunicorn's workers
    take as "close this connection" (not public API): the connection is dropped, the next
    request on it is not served, and nothing is logged as an error. Were StopIteration not
    taken so, gunicorn would write an HTTP answer on the closed socket (an error logged) or
    log the exception."""
    port, log = logged_worker
    base = f"http://127.0.0.1:{port}"
    game = requests.post(
        f"{base}/v1/games", json={"game_type": "mr-toast", "players": 2}, timeout=TIMEOUT
    ).json()
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    try:
        ws = WSConnection(ConnectionType.CLIENT)
        sock.sendall(ws.send(Request(host="127.0.0.1", target=f"/v1/games/{game['id']}/socket")))
        _events(sock, ws, AcceptConnection)
        sock.sendall(ws.send(TextMessage(data=json.dumps({"type": "hello"}))))
        messages = _events(sock, ws, Message)
        first = next(event for event in messages if isinstance(event, Message))
        assert json.loads(first.data)["type"] == "view"
        sock.sendall(ws.send(CloseConnection(code=1000)))
        _events(sock, ws, CloseConnection)
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        except OSError:
            pass  # dropped already
        else:
            assert _until_closed(sock) == b""
    finally:
        sock.close()
    time.sleep(0.3)
    assert not _bad_lines(log), _bad_lines(log)
