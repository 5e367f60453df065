"""The socket floor: the least a move could cost cardroom on its stack, with no game at all.

A bench-only WSGI app (``python -m bench.peer --systems …,floor``; bench/peer/README.md, "The
floor"), served by cardroom's own gunicorn config file (only the WSGI app is overridden: the
same gevent worker, garbage-collector settings and keep-alive), that speaks the game socket's
protocol (docs/api.md, "The game socket") well enough for ``load-cardroom.js`` to play it.
Its game has no rules: four seats take turns, any of the listed actions is accepted, and it
ends after ``MOVES`` moves (cardroom's Exact Plays games have about 73).

Per move it does what cardroom's socket path must do on this stack, built the way cardroom
builds it, and nothing else: a WebSocket message in (wsproto, read by the seat's reader
greenlet), a compare-and-set script that writes the game and ``PUBLISH``es the change
(redis-py with hiredis), the answer, the change heard once per process through one pattern
subscription, and a view the size of an Exact Plays view (about 2 KB of JSON, orjson) sent
by each following seat's greenlet. No engine, no checks of the action, no Idempotency-Key
stored, no events, no HTTP framework on the socket path. What cardroom costs above this is
its own work; what this costs is the stack's.

    python -m gunicorn --config python:cardroom.serve.gunicorn_conf \
        'bench.peer.floor_app:create_app()'
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson
import redis
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Ping, Request, TextMessage

MOVES = 72
PLAYERS = 4
PING_SECONDS = 25.0
KEY = "floor:game:{%s}"
CHANNEL = "floor:game:{%s}:changed"
PATTERN = "floor:game:*:changed"

# version, new version, state, write id -> 1 (and "<new version> <write id>" published), or 0
# and the stored state when the version moved on.
COMMIT = """
local version = redis.call('HGET', KEYS[1], 'version')
if version ~= ARGV[1] then return {0, redis.call('HGET', KEYS[1], 'state')} end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3])
redis.call('PUBLISH', KEYS[2], ARGV[2] .. ' ' .. ARGV[4])
return {1}
"""

# What an Exact Plays view carries besides the seat's hand and actions, in its shape.
_SEATS = [
    {"seat": seat, "name": f"p{seat}", "bot": None, "taken": True, "away": False}
    for seat in range(PLAYERS)
]
_PUBLIC = {
    "players": [
        {"seat": seat, "cards": 8, "declaration": 1, "plays": 0, "tokens": 0, "score": 0}
        for seat in range(PLAYERS)
    ],
    "trick": [{"seat": 0, "cards": ["4A", "4B"], "combo": "pair"}],
    "round": 1,
    "leader": 0,
    "phase": "play",
    "history": [{"round": r, "scores": [-10, -20, -5, 0]} for r in range(15)],
}
_OPTIONS = {"tiebreak": "rps", "turn_limit": 2000, "away_after": 2, "turn_seconds": None}
_HAND = [
    {"id": f"{n}{s}", "code": f"{n}{s}", "number": n, "suit": suit}
    for n in range(2, 6)
    for s, suit in (("A", "acorn"), ("B", "bolt"))
]


class Game:
    """The floor's game, as stored (JSON) and kept by each process."""

    def __init__(self, state: dict[str, Any]):
        self.state = state

    @property
    def version(self) -> int:
        return int(self.state["version"])

    def after(self) -> dict[str, Any]:
        state = self.state
        return {**state, "version": state["version"] + 1, "turn": (state["turn"] + 1) % PLAYERS}

    def view(self, seat: int) -> dict[str, Any]:
        state = self.state
        finished = state["version"] > MOVES
        mine = not finished and state["turn"] == seat
        return {
            "game_id": state["id"],
            "game_type": "floor",
            "status": "finished" if finished else "active",
            "version": state["version"],
            "last_seq": state["version"],
            "to_act": [] if finished else [state["turn"]],
            "awaiting": [] if finished else [state["turn"]],
            "you": {"seat": seat, "hand": _HAND, "declaration": 1, "play_tokens": 0},
            "legal_actions": (
                [{"type": "play", "cards": [card["id"]]} for card in _HAND] if mine else []
            ),
            "deadline": None,
            "seats": _SEATS,
            "options": _OPTIONS,
            "public": _PUBLIC,
            "etag": f"{state['version']}-{seat}",
        }


# The rest of a stored game, so that a write is the size of an Exact Plays record (about
# 1.3 KB of JSON).
_RECORD_REST = {
    "seats": _SEATS,
    "options": _OPTIONS,
    "hands": [[f"{n}{s}" for n in range(2, 10) for s in "AB"][seat::PLAYERS] for seat in range(4)],
    "public": _PUBLIC,
}


class Follower:
    """A socket following a game: woken by each change, with the newest version heard."""

    def __init__(self) -> None:
        self.woken = threading.Event()
        self.heard = 0
        self.write = ""  # the write id of the newest version heard

    def wake(self, version: int, write: str) -> None:
        if version > self.heard:
            self.heard, self.write = version, write
        self.woken.set()


class Floor:
    """One process's games, their followers, and the change feed that wakes them."""

    def __init__(self, client: redis.Redis, feed_client: redis.Redis):
        self.client = client
        self.feed_client = feed_client
        self.commit = client.register_script(COMMIT)
        self.kept: dict[str, Game] = {}
        # Games this process is committing, by write id: a follower woken by the change
        # before the commit's answer came back takes the game from here, not from Redis.
        self.writing: dict[str, Game] = {}
        self.followers: dict[str, set[Follower]] = {}
        self.lock = threading.Lock()
        self.feed: threading.Thread | None = None

    def create(self) -> str:
        game_id = secrets.token_urlsafe(9)
        state = {"id": game_id, "version": 1, "turn": 0, "rest": _RECORD_REST}
        self.client.hset(KEY % game_id, mapping={"version": 1, "state": orjson.dumps(state)})
        return game_id

    def join(self, game_id: str) -> int:
        return int(self.client.hincrby(KEY % game_id, "seats", 1)) - 1

    def game(self, game_id: str, heard: int = 0, write: str = "") -> Game:
        """The game as this process last saw or wrote it, or as stored if a newer one was
        heard."""
        kept = self.kept.get(game_id)
        if kept is None or kept.version < heard:
            kept = self.writing.get(write) or self._load(game_id)
            self.kept[game_id] = kept
        return kept

    def _load(self, game_id: str) -> Game:
        return Game(orjson.loads(self.client.hget(KEY % game_id, "state") or b"{}"))

    def act(self, game_id: str, seat: int, if_match: str | None) -> Game | None:
        """The game after ``seat``'s move, committed; None if refused (stale, not its turn)."""
        game = self.game(game_id)
        if game.state["turn"] != seat or (if_match and if_match != f"{game.version}-{seat}"):
            return None
        after = Game(game.after())
        write = secrets.token_hex(6)
        self.writing[write] = after
        try:
            done = self.commit(
                keys=[KEY % game_id, CHANNEL % game_id],
                args=[game.version, after.version, orjson.dumps(after.state), write],
            )
        finally:
            del self.writing[write]
        if done[0] != 1:
            self.kept[game_id] = Game(orjson.loads(done[1]))
            return None
        self.kept[game_id] = after
        return after

    @contextlib.contextmanager
    def follow(self, game_id: str) -> Iterator[Follower]:
        follower = Follower()
        with self.lock:
            self.followers.setdefault(game_id, set()).add(follower)
            if self.feed is None:
                self.feed = threading.Thread(target=self._listen, daemon=True)
                self.feed.start()
        try:
            yield follower
        finally:
            with self.lock:
                following = self.followers.get(game_id, set())
                following.discard(follower)
                if not following:
                    self.followers.pop(game_id, None)
                    self.kept.pop(game_id, None)

    def _listen(self) -> None:
        subscription = self.feed_client.pubsub()
        subscription.psubscribe(PATTERN)
        while True:
            message = subscription.get_message(timeout=5.0)
            if message is None or message["type"] != "pmessage":
                continue
            game_id = message["channel"].decode()[len("floor:game:{") : -len("}:changed")]
            with self.lock:
                following = list(self.followers.get(game_id, ()))
            version, write = message["data"].decode().split(" ")
            for follower in following:
                follower.wake(int(version), write)


def create_app() -> Callable[..., Iterable[bytes]]:
    url = os.environ["REDIS_URL"]
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=1100, timeout=5.0)
    floor = Floor(redis.Redis(connection_pool=pool), redis.Redis.from_url(url))

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
        parts = path.strip("/").split("/")
        if path == "/healthz":
            floor.client.ping()
            return _json(start_response, "200 OK", {"status": "ok"})
        if method == "POST" and path == "/v1/games":
            return _json(start_response, "201 Created", {"id": floor.create()})
        if method == "POST" and len(parts) == 4 and parts[3] == "join":
            seat = floor.join(parts[2])
            return _json(start_response, "201 Created", {"seat": seat, "token": str(seat)})
        if method == "GET" and len(parts) == 4 and parts[3] == "socket":
            _serve_socket(floor, parts[2], environ)
            raise StopIteration()  # gunicorn drops the connection (api/socket.py's _Upgraded)
        return _json(start_response, "404 Not Found", {"status": 404})

    return app


def _json(start_response: Callable[..., Any], status: str, body: Any) -> list[bytes]:
    start_response(status, [("Content-Type", "application/json")])
    return [orjson.dumps(body)]


def _serve_socket(floor: Floor, game_id: str, environ: dict[str, Any]) -> None:
    sock = environ["gunicorn.socket"]
    connection = WSConnection(ConnectionType.SERVER)
    lines = [f"GET {environ.get('RAW_URI', '/')} HTTP/1.1"] + [
        f"{key[5:].replace('_', '-').title()}: {value}"
        for key, value in environ.items()
        if key.startswith("HTTP_")
    ]
    connection.receive_data(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    if not any(isinstance(event, Request) for event in connection.events()):
        return
    sock.sendall(connection.send(AcceptConnection()))
    Session(floor, game_id, sock, connection).serve()


class Session:
    """One seat's socket: a reader greenlet for its messages, this one for its views."""

    def __init__(self, floor: Floor, game_id: str, sock: Any, connection: WSConnection):
        self.floor = floor
        self.game_id = game_id
        self.sock = sock
        self.connection = connection
        self.seat: int | None = None
        self.sent_etag: str | None = None
        self.send_lock = threading.Lock()
        self.closed = threading.Event()

    def serve(self) -> None:
        with self.floor.follow(self.game_id) as follower:
            self.follower = follower
            woken = follower.woken
            reader = threading.Thread(target=self._read, daemon=True)
            reader.start()
            try:
                while not self.closed.is_set():
                    if not woken.wait(PING_SECONDS):
                        self._write(Ping())
                        continue
                    woken.clear()
                    if self.seat is not None and not self.closed.is_set():
                        game = self.floor.game(self.game_id, follower.heard, follower.write)
                        view = game.view(self.seat)
                        self._send({"type": "view", "view": view}, view["etag"])
            except OSError:
                pass
            finally:
                self.closed.set()
                with contextlib.suppress(OSError):
                    self.sock.close()
            reader.join(timeout=1)

    def _read(self) -> None:
        try:
            while not self.closed.is_set():
                data = self.sock.recv(65536)
                if not data:
                    break
                self.connection.receive_data(data)
                for event in self.connection.events():
                    if isinstance(event, TextMessage):
                        self._handle(orjson.loads(event.data))
                    elif isinstance(event, Ping):
                        self._write(event.response())
                    elif isinstance(event, CloseConnection):
                        return
        except OSError:
            pass
        finally:
            self.closed.set()
            self.follower.woken.set()

    def _handle(self, message: dict[str, Any]) -> None:
        if message.get("type") == "hello":
            self.seat = int(message["token"])
            self.follower.woken.set()
            return
        assert self.seat is not None
        after = self.floor.act(self.game_id, self.seat, message.get("if_match"))
        if after is None:
            problem = {"status": 412, "title": "Precondition Failed"}
            self._send({"type": "problem", "id": message["id"], "problem": problem})
            return
        view = after.view(self.seat)
        result = {"view": view, "events": []}
        reply = {"type": "result", "id": message["id"], "status": 200, "replayed": False}
        self._send({**reply, "result": result}, view["etag"])

    def _send(self, message: dict[str, Any], etag: str | None = None) -> None:
        with self.send_lock:
            if etag is not None:
                if etag == self.sent_etag and message["type"] == "view":
                    return
                self.sent_etag = etag
            self._write_locked(TextMessage(data=orjson.dumps(message).decode()))

    def _write(self, event: Any) -> None:
        with self.send_lock:
            self._write_locked(event)

    def _write_locked(self, event: Any) -> None:
        data = memoryview(self.connection.send(event))
        while data:
            data = data[self.sock.send(data) :]
