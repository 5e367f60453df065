"""Game sockets closed, dropped or raced at any moment (docs/api.md, "The game socket"): the
server ends that socket's handling quietly. Pushed games of both games, with server bots,
seats and spectators on sockets that each close at a moment and in a manner drawn from a
seeded generator; then the server's own log (gunicorn's gevent worker, its error log, its
access log and the app's request log) holds no error, no traceback and no 5xx."""

from __future__ import annotations

import base64
import collections
import contextlib
import json
import os
import random
import re
import socket
import struct
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import websocket

from cardroom.store.embedded import EmbeddedRedis, free_port

from gunicorns import start_gunicorn, stop_gunicorn

TIMEOUT = 10  # seconds for any one answer
DEADLINE = 30  # seconds for every game to be played out (they take about 5)
GAMES_PER_TYPE = 8
SPECTATORS = 4  # sockets per game besides its two seats'
SEED = 31

# When a client closes: before the answer to its upgrade request, right after its hello,
# after its nth pushed view (another client of the game may close then too, while the same
# change is being pushed to it), right after sending an act, on seeing `finished` (and then
# every other client of the game closes at once).
MOMENTS = ("upgrading", "hello", "pushed", "acted", "finished")
# How: a close frame (1000) with the close handshake; a close frame and the connection cut at
# once; the connection cut with no close frame (FIN); the connection reset (RST).
MANNERS = ("close", "close-and-cut", "cut", "reset")


@pytest.fixture(scope="module")
def logged_server(single_redis: EmbeddedRedis, tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """A gunicorn of its own whose stdout and stderr (every log it writes) go to a file."""
    log_path = tmp_path_factory.mktemp("server-log") / "server.log"
    port = free_port()
    with log_path.open("wb") as output:
        process = start_gunicorn(
            single_redis.url,
            port,
            output,
            CARDROOM_LOG_LEVEL="info",
            CARDROOM_REQUEST_LOG="all",
            CARDROOM_ACCESS_LOG="-",
        )
        try:
            yield f"http://127.0.0.1:{port}", log_path
        finally:
            stop_gunicorn(process)


def new_game(base: str, game_type: str, seed: int) -> tuple[str, dict[int, str]]:
    """Four seats, two of them server bots: the tokens of the other two."""
    body = {
        "game_type": game_type,
        "players": 4,
        "seed": seed,
        "bots": [{"seat": 2, "policy": "greedy"}, {"seat": 3, "policy": "random"}],
    }
    game = requests.post(f"{base}/v1/games", json=body, timeout=TIMEOUT).json()
    tokens = {}
    for seat in (0, 1):
        joined = requests.post(
            f"{base}/v1/games/{game['id']}/join",
            json={"name": f"p{seat}", "seat": seat},
            timeout=TIMEOUT,
        ).json()
        tokens[joined["seat"]] = joined["token"]
    return game["id"], tokens


def newer(view: dict[str, Any], than: dict[str, Any] | None) -> bool:
    return than is None or (view["version"], view["last_seq"]) > (than["version"], than["last_seq"])


def end(ws: websocket.WebSocket, manner: str) -> None:
    """Close ``ws`` from the thread that reads it."""
    if manner == "close":
        ws.close(status=1000, timeout=1)
        return
    raw = ws.sock
    if manner == "close-and-cut":
        ws.send_close(status=1000)
    elif manner == "reset":
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    raw.close()


class Table:
    """The clients of one game: when one sees it finished it closes every other one's socket
    at once (as a client that holds every seat of a game does)."""

    def __init__(self, game_id: str):
        self.game_id = game_id
        self.clients: list[Client] = []
        self.finished = threading.Event()


class Client:
    """One person's sockets on one game (a seat's, or a spectator's if ``token`` is None):
    opened again and again, each closed at a drawn moment in a drawn manner, until the game
    is finished."""

    def __init__(self, base: str, table: Table, token: str | None, seed: int):
        self.url = base.replace("http://", "ws://") + f"/v1/games/{table.game_id}/socket"
        self.table = table
        self.token = token
        self.rng = random.Random(seed)
        self.view: dict[str, Any] | None = None
        self.closes: collections.Counter[str] = collections.Counter()
        self._ws: websocket.WebSocket | None = None
        self._lock = threading.Lock()
        table.clients.append(self)

    def run(self, stop_at: float) -> None:
        while not self.table.finished.is_set():
            if time.monotonic() > stop_at:
                raise AssertionError("the game did not finish in time")
            moments = MOMENTS if self.token else ("upgrading", "hello", "pushed", "finished")
            moment = self.rng.choice(moments)
            if moment == "upgrading":
                self.leave_upgrading(self.rng.choice(MANNERS[2:]))
                continue
            ws = websocket.create_connection(self.url, timeout=TIMEOUT)
            with self._lock:
                self._ws = ws
            try:
                self.one_socket(ws, moment, self.rng.choice(MANNERS))
            except (websocket.WebSocketConnectionClosedException, OSError):
                if self._ws is ws:  # not cut by another client: the server's doing
                    raise
            finally:
                with self._lock:
                    self._ws = None

    def leave_upgrading(self, manner: str) -> None:
        """Send the upgrade request and leave before its answer."""
        host, port = self.url.split("/")[2].split(":")
        path = "/" + self.url.split("/", 3)[3]
        with socket.create_connection((host, int(port)), timeout=TIMEOUT) as raw:
            key = base64.b64encode(os.urandom(16)).decode()
            raw.sendall(
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n".encode()
            )
            if manner == "reset":
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.closes.update(["upgrading", manner])

    def end(self, ws: websocket.WebSocket, moment: str, manner: str) -> None:
        self.closes.update([moment, manner])
        end(ws, manner)

    def cut(self, manner: str) -> None:
        """Close this client's socket from another thread, whatever it is doing."""
        with self._lock:
            ws, self._ws = self._ws, None
        if ws is None:
            return
        self.closes.update(["by another client", manner])
        with contextlib.suppress(OSError, websocket.WebSocketException):
            if manner.startswith("close"):
                ws.send_close(status=1000)
            sock = ws.sock  # None once its own thread has closed it meanwhile
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)  # wakes its reader, which closes it

    def one_socket(self, ws: websocket.WebSocket, moment: str, manner: str) -> None:
        hello: dict[str, Any] = {"type": "hello"}
        if self.token:
            hello["token"] = self.token
        ws.send(json.dumps(hello))
        if moment == "hello":
            self.end(ws, moment, manner)
            return
        views_left = self.rng.randint(1, 6)
        pending: str | None = None
        while True:
            text = ws.recv()
            if not text:  # a close frame
                raise websocket.WebSocketConnectionClosedException("closed by the server")
            message = json.loads(text)
            if message["type"] == "view":
                views_left -= 1
                if message.get("id") == pending:  # the answer to a look
                    pending = None
                if newer(message["view"], self.view):
                    self.view = message["view"]
            elif message["type"] == "result":
                pending = None
                if newer(message["result"]["view"], self.view):
                    self.view = message["result"]["view"]
            elif message["type"] == "problem":
                # Stale (another seat or a bot moved first): ask for the view as it is now.
                assert message["problem"]["status"] in (409, 412), message
                pending = "look-" + uuid.uuid4().hex
                ws.send(json.dumps({"type": "look", "id": pending}))
                continue
            assert self.view is not None
            if self.view["status"] == "finished":
                self.table.finished.set()
                for other in self.table.clients:
                    if other is not self:
                        other.cut(self.rng.choice(MANNERS))
                self.end(ws, "finished", manner)
                return
            if moment == "pushed" and views_left <= 0:
                # And another socket of the game, to which this change may be on its way.
                others = [other for other in self.table.clients if other is not self]
                self.rng.choice(others).cut(self.rng.choice(MANNERS))
                self.end(ws, moment, manner)
                return
            if pending is None and self.token and self.view["legal_actions"]:
                pending = uuid.uuid4().hex
                action = self.rng.choice(self.view["legal_actions"])
                ws.send(
                    json.dumps(
                        {
                            "type": "act",
                            "id": pending,
                            "action": action,
                            "if_match": self.view["etag"],
                        }
                    )
                )
                if moment == "acted":
                    self.end(ws, moment, manner)
                    return


# A line of the server's log that tells of a failure: gunicorn's own error lines and
# tracebacks, the app's JSON lines at error level, and any 5xx in either access log.
_BAD_LINE = re.compile(
    r"\[(ERROR|CRITICAL)\]|Traceback|unhandled|\"level\":\"(error|critical)\""
    r"|\"status\":5\d\d|\" 5\d\d "
)


def bad_lines(log_path: Path) -> list[str]:
    text = log_path.read_text(errors="replace")
    return [line for line in text.splitlines() if _BAD_LINE.search(line)]


def test_sockets_closed_at_any_moment_end_quietly(logged_server):
    base, log_path = logged_server
    rng = random.Random(SEED)
    tables: list[Table] = []
    clients: list[Client] = []
    for game_type in ("mr-toast", "exact-plays"):
        for _ in range(GAMES_PER_TYPE):
            game_id, tokens = new_game(base, game_type, rng.randrange(1 << 30))
            table = Table(game_id)
            tables.append(table)
            for token in (tokens[0], tokens[1], *[None] * SPECTATORS):
                clients.append(Client(base, table, token, rng.randrange(1 << 30)))
    stop_at = time.monotonic() + DEADLINE
    errors: list[str] = []

    def run(client: Client) -> None:
        try:
            client.run(stop_at)
        except Exception as error:  # reported by the main thread
            seen = client.view and (client.view["status"], client.view["version"])
            errors.append(f"{client.url} (last view: {seen}): {error!r}")

    threads = [threading.Thread(target=run, args=(client,), daemon=True) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:  # a client past the deadline fails within TIMEOUT
        thread.join(max(0.1, stop_at + TIMEOUT - time.monotonic()))
    assert not any(thread.is_alive() for thread in threads), "a client hung"
    assert not errors, "\n".join(errors)
    for table in tables:
        summary = requests.get(f"{base}/v1/games/{table.game_id}", timeout=TIMEOUT).json()
        assert summary["status"] == "finished"
    closes = sum((client.closes for client in clients), collections.Counter())
    assert set(closes) == {*MOMENTS, *MANNERS, "by another client"}, closes
    time.sleep(1)  # the server notices the last closes
    requests.get(f"{base}/healthz", timeout=TIMEOUT)
    assert not bad_lines(log_path), "\n".join(bad_lines(log_path)[:40])
