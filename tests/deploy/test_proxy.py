"""The shipped nginx config (deploy/nginx/cardroom.conf) as a process in front of a gunicorn
on free ports of 127.0.0.1: the API works through it, and a bounded slow-body attack holds
no API worker while /healthz through the proxy keeps answering within a second."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import requests
import websocket

from cardroom.store.embedded import free_port

from deploy_kit import nginx_binary, start_nginx, stop_nginx
from helpers import auth

ATTACKERS = 100  # slow connections
PER_ADDRESS = 64  # what the config lets one address hold at once
ATTACK_SECONDS = 4.0
PROBE_EVERY = 0.1


@pytest.fixture()
def proxy(live_server, tmp_path) -> Iterator[str]:
    nginx_binary()  # skip (or fail, where nginx is required) before anything starts
    api_port = urlsplit(live_server).port
    listen = free_port()
    process = start_nginx(tmp_path, api_port, listen)
    try:
        yield f"http://127.0.0.1:{listen}"
    finally:
        stop_nginx(process)


def create_posts_seen_by_the_api(live_server: str) -> float:
    """POST /v1/games answered by gunicorn itself (its metrics, every worker added up)."""
    text = requests.get(f"{live_server}/metrics", timeout=10).text
    pattern = (
        r'cardroom_http_requests_total\{method="POST",route="/v1/games",status="(\d+)"\} (\S+)'
    )
    return sum(float(count) for _, count in re.findall(pattern, text))


def answered(sock: socket.socket) -> bytes:
    """What nginx has sent on an attacking connection so far (b"" if nothing), at once."""
    sock.setblocking(False)
    try:
        return sock.recv(64)
    except OSError:  # nothing yet (BlockingIOError), or reset
        return b""


def test_the_api_works_through_the_proxy(proxy):
    created = requests.post(
        f"{proxy}/v1/games",
        json={"game_type": "mr-toast", "players": 2},
        headers={"X-Request-ID": "through-the-proxy"},
        timeout=10,
    )
    assert created.status_code == 201
    assert created.headers["X-Request-ID"] == "through-the-proxy"
    game_id = created.json()["id"]
    tokens = [
        requests.post(f"{proxy}/v1/games/{game_id}/join", json={"name": "p"}, timeout=10).json()
        for _ in range(2)
    ]
    seat = requests.get(f"{proxy}/v1/games/{game_id}/view", timeout=10).json()["to_act"][0]
    token = next(item["token"] for item in tokens if item["seat"] == seat)
    view = requests.get(f"{proxy}/v1/games/{game_id}/view", headers=auth(token), timeout=10)
    acted = requests.post(
        f"{proxy}/v1/games/{game_id}/actions",
        json=view.json()["legal_actions"][0],
        headers=auth(token),
        timeout=10,
    )
    assert acted.status_code == 200
    assert requests.get(f"{proxy}/metrics", timeout=10).status_code == 404, "not public"
    too_big = requests.post(
        f"{proxy}/v1/games",
        data=b"[" * 70_000,
        headers={"Content-Type": "application/json"},
        timeout=10,
    )
    assert too_big.status_code == 413, "refused by nginx before the API reads it"


def test_a_seat_plays_on_its_game_socket_through_the_proxy(proxy):
    game_id = requests.post(
        f"{proxy}/v1/games", json={"game_type": "mr-toast", "players": 2}, timeout=10
    ).json()["id"]
    joined = [
        requests.post(f"{proxy}/v1/games/{game_id}/join", json={"name": "p"}, timeout=10).json()
        for _ in range(2)
    ]
    url = proxy.replace("http://", "ws://") + f"/v1/games/{game_id}/socket"
    sockets = [websocket.create_connection(url, timeout=10) for _ in joined]
    try:
        views = []
        for sock, seat in zip(sockets, joined, strict=True):
            sock.send(json.dumps({"type": "hello", "token": seat["token"]}))
            views.append(json.loads(sock.recv())["view"])
        mover = next(i for i, view in enumerate(views) if view["legal_actions"])
        action = {"type": "act", "id": "k1", "action": views[mover]["legal_actions"][0]}
        sockets[mover].send(json.dumps(action))
        answer = json.loads(sockets[mover].recv())
        assert answer["type"] == "result" and answer["status"] == 200
        pushed = json.loads(sockets[1 - mover].recv())  # the other seat's new view
        assert pushed["type"] == "view" and pushed["view"]["version"] == answer["result"]["version"]
    finally:
        for sock in sockets:
            sock.close()


def test_a_slow_body_attack_holds_no_api_worker_and_health_answers_within_a_second(
    proxy, live_server
):
    seen_before = create_posts_seen_by_the_api(live_server)
    host, port = "127.0.0.1", urlsplit(proxy).port
    stop = threading.Event()
    opened: list[socket.socket] = []
    lock = threading.Lock()

    def attack() -> None:
        """Headers of a 60,000-byte create, then the body a byte every half second."""
        sock = socket.create_connection((host, port), timeout=5)
        with lock:
            opened.append(sock)
        try:
            sock.sendall(
                b"POST /v1/games HTTP/1.1\r\nHost: cardroom\r\n"
                b"Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n"
            )
            while not stop.wait(0.5):
                sock.sendall(b" ")
        except OSError:
            pass  # cut off by nginx: what it may do

    probes: list[tuple[int, float]] = []
    attackers = [threading.Thread(target=attack) for _ in range(ATTACKERS)]
    for thread in attackers:
        thread.start()
    ends = time.monotonic() + ATTACK_SECONDS
    try:
        while time.monotonic() < ends:
            started = time.monotonic()
            try:
                status = requests.get(f"{proxy}/healthz", timeout=1).status_code
            except requests.RequestException:
                status = 0
            probes.append((status, time.monotonic() - started))
            time.sleep(PROBE_EVERY)
    finally:
        stop.set()
        for thread in attackers:
            thread.join(timeout=10)
        limited = sum(answered(sock).startswith(b"HTTP/1.1 429") for sock in opened)
        for sock in opened:
            sock.close()
    slowest = max(took for _, took in probes)
    assert len(probes) >= 10
    assert all(status == 200 for status, _ in probes), probes
    assert slowest < 1.0
    assert limited >= ATTACKERS - PER_ADDRESS, "the per-address connection limit held"
    assert create_posts_seen_by_the_api(live_server) == seen_before, (
        "a slow body reached the API: nginx must hold it until it is whole"
    )
    print(
        f"\nslow-body attack: {ATTACKERS} connections for {ATTACK_SECONDS:.0f} s"
        f" ({limited} answered 429 at once), {len(probes)} health probes through the proxy,"
        f" slowest {slowest * 1000:.0f} ms"
    )
