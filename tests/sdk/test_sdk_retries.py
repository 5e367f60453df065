"""Retries: a connection killed mid-action, non-idempotent requests, Retry-After, backoff."""

from __future__ import annotations

import json
import random
import socket
import threading
from collections.abc import Iterator
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from time import time
from typing import Any

import pytest
from relay import Connection, Relay

from cardroom_sdk import (
    Busy,
    Client,
    RateLimited,
    ServerError,
    ServerUnavailable,
)
from cardroom_sdk.retry import Repeat, backoff_delay, may_retry_answer, retry_delay

# --- a proxy that can drop a response on the floor --------------------------------------


class KillingProxy(Relay):
    """Forwards HTTP requests to ``upstream``; for the first ``kills`` requests whose path
    contains ``fragment`` it lets the server answer, then closes the client's connection
    instead of relaying the answer."""

    def __init__(self, upstream: str, fragment: str, kills: int = 1):
        self.fragment = fragment.encode()
        self.kills = kills
        self.requests: list[bytes] = []  # the head of every request seen
        self.killed: list[bytes] = []
        super().__init__(upstream)

    def forward(self, request: bytes, connection: Connection) -> bool:
        head = request.split(b"\r\n\r\n", 1)[0]
        with self.lock:
            self.requests.append(head)
            connection.swallow = self.fragment in head.split(b"\r\n", 1)[0] and self.kills > 0
            if connection.swallow:  # the server will answer; the client never hears of it
                self.kills -= 1
                self.killed.append(head)
        return True

    def header(self, head: bytes, name: str) -> str | None:
        for line in head.split(b"\r\n")[1:]:
            key, _, value = line.partition(b":")
            if key.strip().lower() == name.lower().encode():
                return value.strip().decode()
        return None


@pytest.fixture()
def action_proxy(live_server: str) -> Iterator[KillingProxy]:
    proxy = KillingProxy(live_server, "/actions")
    yield proxy
    proxy.close()


def test_action_retried_after_a_lost_response_is_applied_once(
    live_server: str, action_proxy: KillingProxy
) -> None:
    direct = Client(live_server)
    game = direct.create_game("mr-toast", 2, options={"first_seat": 0})
    seat = direct.join(game.id, "a")
    direct.join(game.id, "b")
    before = direct.game(game.id).version

    proxied = Client(action_proxy.url, retries=3, backoff=0.01)
    handle = proxied.seat(game.id, seat.seat, seat.token)
    result = handle.act({"type": "end_turn"})  # the first answer is lost: retried

    assert len(action_proxy.killed) == 1
    actions = [head for head in action_proxy.requests if b"/actions" in head.split(b"\r\n")[0]]
    assert len(actions) == 2
    keys = {action_proxy.header(head, "Idempotency-Key") for head in actions}
    assert keys == {result.idempotency_key} and None not in keys
    assert result.replayed  # the server answered the retry with the first answer
    assert result.version == before + 1
    assert direct.game(game.id).version == before + 1  # applied exactly once
    assert direct.view(game.id, seat.token).to_act == [1]


def test_action_without_lost_response_is_not_replayed(live_server: str) -> None:
    client = Client(live_server)
    game = client.create_game("mr-toast", 2, options={"first_seat": 0})
    seat = client.join(game.id, "a")
    client.join(game.id, "b")
    result = seat.act({"type": "end_turn"}, idempotency_key="my-own-key")
    assert not result.replayed and result.idempotency_key == "my-own-key"
    again = seat.act({"type": "end_turn"}, idempotency_key="my-own-key")  # a manual retry
    assert again.replayed and again.version == result.version
    assert client.game(game.id).version == result.version


def test_join_is_not_retried_once_sent(live_server: str) -> None:
    proxy = KillingProxy(live_server, "/join")
    try:
        direct = Client(live_server)
        game = direct.create_game("mr-toast", 2)
        with pytest.raises(ServerUnavailable, match="may have received it"):
            Client(proxy.url, retries=3, backoff=0.01).join(game.id, "once")
        joins = [head for head in proxy.requests if b"/join" in head.split(b"\r\n")[0]]
        assert len(joins) == 1  # not retried: a second join would take a second seat
        assert [seat.name for seat in direct.game(game.id).seats] == ["once", None]
    finally:
        proxy.close()


def test_create_is_not_retried_once_sent(live_server: str) -> None:
    proxy = KillingProxy(live_server, "/v1/games ")
    try:
        with pytest.raises(ServerUnavailable):
            Client(proxy.url, retries=3, backoff=0.01).create_game("mr-toast", 2)
        creates = [head for head in proxy.requests if head.startswith(b"POST /v1/games ")]
        assert len(creates) == 1
    finally:
        proxy.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_refused_is_retried_even_for_create() -> None:
    client = Client(f"http://127.0.0.1:{free_port()}", retries=2, backoff=0.01, timeout=2)
    slept: list[float] = []
    client._sleep = slept.append
    with pytest.raises(ServerUnavailable, match="3 attempt"):
        client.create_game("mr-toast", 2)  # never reached the server: safe to retry
    # exponential backoff with jitter: between half and all of 0.01 * 2**n
    assert len(slept) == 2 and 0.005 <= slept[0] <= 0.01 and 0.01 <= slept[1] <= 0.02
    with pytest.raises(ServerUnavailable):
        client.game("x")


# --- a scripted HTTP server for statuses the real one rarely gives ------------------------


class Scripted:
    """An HTTP server answering each request with the next scripted (status, headers, body)."""

    def __init__(self, script: list[tuple[int, dict[str, str], Any]]):
        self.script = list(script)
        self.seen: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                outer.seen.append((self.command, self.path))
                status, given, body = outer.script.pop(0) if outer.script else (500, {}, {})
                headers = dict(given)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                kind = "application/problem+json" if status >= 400 else "application/json"
                self.send_header("Content-Type", headers.pop("Content-Type", kind))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def problem(status: int, slug: str, detail: str) -> dict[str, Any]:
    return {"type": f"/problems/{slug}", "title": slug, "status": status, "detail": detail}


UNAVAILABLE = problem(503, "storage-unavailable", "the game store is unavailable")
GAME_TYPES = {"game_types": [{"game_type": "g", "title": "G", "future_field": 1}]}


@pytest.fixture()
def scripted() -> Iterator[Any]:
    servers: list[Scripted] = []

    def make(*script: tuple[int, dict[str, str], Any]) -> tuple[Scripted, Client, list[float]]:
        server = Scripted(list(script))
        servers.append(server)
        client = Client(server.url, retries=3, backoff=0.01, timeout=5)
        slept: list[float] = []
        client._sleep = slept.append
        return server, client, slept

    yield make
    for server in servers:
        server.close()


def test_get_retries_503_honouring_retry_after(scripted: Any) -> None:
    server, client, slept = scripted(
        (503, {"Retry-After": "0.3"}, UNAVAILABLE),
        (502, {"Content-Type": "text/html"}, b"<html>bad gateway</html>"),
        (200, {}, GAME_TYPES),
    )
    types = client.game_types()
    assert [t.game_type for t in types] == ["g"] and types[0].raw["future_field"] == 1
    # Retry-After (plus at most half the backoff interval), then backoff 0.01 * 2**1, jittered
    assert len(slept) == 2 and 0.3 <= slept[0] <= 0.305 and 0.01 <= slept[1] <= 0.02
    assert len(server.seen) == 3


def test_retry_after_as_http_date(scripted: Any) -> None:
    date = formatdate(time() + 2, usegmt=True)
    _, client, slept = scripted((503, {"Retry-After": date}, UNAVAILABLE), (200, {}, GAME_TYPES))
    client.game_types()
    assert 0.5 < slept[0] <= 2.01


def test_unavailable_after_the_retries(scripted: Any) -> None:
    server, client, slept = scripted(*[(503, {"Retry-After": "1"}, UNAVAILABLE)] * 4)
    with pytest.raises(ServerUnavailable) as caught:
        client.game("x")
    assert caught.value.status == 503 and caught.value.retry_after == 1.0
    assert caught.value.detail == "the game store is unavailable"
    assert len(server.seen) == 4 and len(slept) == 3
    for attempt, delay in enumerate(slept):  # never before Retry-After, spread above it
        assert 1.0 <= delay <= 1.0 + 0.01 * 2**attempt / 2


def test_retry_after_longer_than_max_backoff_is_not_waited(scripted: Any) -> None:
    server, client, slept = scripted((503, {"Retry-After": "3600"}, UNAVAILABLE))
    with pytest.raises(ServerUnavailable) as caught:
        client.game("x")
    assert caught.value.retry_after == 3600 and slept == [] and len(server.seen) == 1


def test_action_retried_on_503_with_the_same_key(scripted: Any) -> None:
    server, client, _ = scripted(
        (503, {}, UNAVAILABLE),
        (200, {"Idempotent-Replayed": "true"}, {"version": 4, "events": [], "view": None}),
    )
    result = client.act("g", "token", {"type": "end_turn"})
    assert result.version == 4 and result.replayed
    assert [path for _, path in server.seen] == ["/v1/games/g/actions"] * 2


def test_create_and_join_not_retried_on_503(scripted: Any) -> None:
    server, client, slept = scripted((503, {}, UNAVAILABLE), (503, {}, UNAVAILABLE))
    with pytest.raises(ServerUnavailable):
        client.create_game("mr-toast", 2)
    with pytest.raises(ServerUnavailable):
        client.join("g", "me")
    assert len(server.seen) == 2 and slept == []


def test_join_retried_when_busy(scripted: Any) -> None:
    server, client, _ = scripted(
        (409, {"Retry-After": "0"}, problem(409, "busy", "too many concurrent changes; retry")),
        (201, {}, {"game_id": "g", "seat": 1, "token": "t0k", "status": "active"}),
    )
    seat = client.join("g", "me")
    assert (seat.game_id, seat.seat, seat.token) == ("g", 1, "t0k")
    assert "t0k" not in repr(seat) and "t0k" not in repr(seat.joined)
    assert len(server.seen) == 2


def test_busy_raised_after_the_retries(scripted: Any) -> None:
    busy = (409, {}, problem(409, "busy", "too many concurrent changes; retry"))
    _, client, _ = scripted(*[busy] * 4)
    with pytest.raises(Busy):
        client.view("g", "t")


def test_rate_limited(scripted: Any) -> None:
    server, client, _ = scripted((429, {"Retry-After": "7"}, problem(429, "slow-down", "easy")))
    with pytest.raises(RateLimited) as caught:
        client.game("x")
    assert caught.value.retry_after == 7 and caught.value.detail == "easy"
    assert len(server.seen) == 1


def test_internal_error_and_non_json_bodies(scripted: Any) -> None:
    _, client, _ = scripted(
        (500, {}, problem(500, "internal-error", "an unexpected error occurred")),
        *[(504, {"Content-Type": "text/plain"}, b"gateway timeout")] * 4,
    )
    with pytest.raises(ServerError, match="an unexpected error occurred"):
        client.game("x")
    with pytest.raises(ServerUnavailable, match="gateway timeout") as caught:
        client.game("x")
    assert caught.value.status == 504 and caught.value.type is None


def test_health_reports_unavailable_without_raising(scripted: Any) -> None:
    _, client, slept = scripted((503, {}, {"status": "unavailable", "redis": "TimeoutError"}))
    health = client.health()
    assert not health.ok and health.redis == "TimeoutError" and slept == []


# --- what to retry, how long to wait: the named functions ---------------------------------


def test_what_is_retried() -> None:
    busy = Busy("busy", status=409)
    unavailable = ServerUnavailable("down", status=503)
    assert may_retry_answer(busy, Repeat.IF_UNSENT, 30)  # busy: nothing was applied
    assert may_retry_answer(unavailable, Repeat.SAFE, 30)
    assert not may_retry_answer(unavailable, Repeat.IF_UNSENT, 30)  # a create may have happened
    assert not may_retry_answer(ServerError("oops", status=500), Repeat.SAFE, 30)
    assert not may_retry_answer(RateLimited("slow", status=429, retry_after=1), Repeat.SAFE, 30)
    later = ServerUnavailable("down", status=503, retry_after=60)
    assert not may_retry_answer(later, Repeat.SAFE, 30)  # longer than we would wait: raised
    assert may_retry_answer(later, Repeat.SAFE, 60)


def test_backoff_doubles_with_jitter_and_retry_after_is_a_floor() -> None:
    rng = random.Random(1)
    for attempt in range(7):
        ceiling = min(1.0, 0.1 * 2**attempt)
        draws = [backoff_delay(attempt, 0.1, 1.0, rng) for _ in range(200)]
        assert all(ceiling / 2 <= delay <= ceiling for delay in draws)
        assert max(draws) - min(draws) > ceiling / 4  # spread, not one value
    waits = [retry_delay(0, 2.0, 0.2, 30.0, rng) for _ in range(200)]
    assert all(2.0 <= wait <= 2.1 for wait in waits)  # never sooner than Retry-After
    assert max(waits) - min(waits) > 0.05  # and not all at the same instant
    assert 0.1 <= retry_delay(0, 0.01, 0.2, 30.0, rng) <= 0.2  # a shorter Retry-After: backoff


def test_clients_refused_together_do_not_retry_in_lockstep() -> None:
    busy = (409, {"Retry-After": "0"}, problem(409, "busy", "too many concurrent changes"))
    joined = (201, {}, {"game_id": "g", "seat": 1, "token": "t", "status": "active"})
    server = Scripted([busy, joined] * 10)
    try:
        delays = []
        for _ in range(10):  # ten clients (ten processes: each its own random generator)
            client = Client(server.url, retries=3, backoff=0.2, timeout=5)
            slept: list[float] = []
            client._sleep = slept.append
            client.join("g", "me")
            delays += slept
    finally:
        server.close()
    assert len(delays) == 10 and all(0.1 <= delay <= 0.2 for delay in delays)
    assert len(set(delays)) == 10  # no two alike
    assert max(delays) - min(delays) > 0.02  # spread over the interval (fails ~1 in 10**5)


def test_health_of_a_degraded_cluster_is_ok_and_says_so(scripted: Any) -> None:
    body = {"status": "degraded", "redis": "cluster degraded", "cluster": {"state": "degraded"}}
    _, client, _ = scripted((200, {}, body))
    health = client.health()
    assert health.ok and health.degraded and health.raw["cluster"]["state"] == "degraded"
