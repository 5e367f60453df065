"""Outages: Redis stopped mid-game and brought back; a gunicorn worker killed mid-request.

The Redis tests start a Redis of their own (never the session's) and stop it under the app.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import signal
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import requests
from hardening_kit import Accepted, replay_matches, stored_game

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store.embedded import EmbeddedRedis, free_port

from gunicorns import start_gunicorn, stop_gunicorn
from helpers import auth, play_random_game

QUICKLY = 3.0  # seconds: a generous bound on how long a 503 may take
# What a client sees of a request its worker died in: no answer, or half of one.
LOST = (requests.ConnectionError, requests.exceptions.ChunkedEncodingError)


def answer_in_time(call: Any) -> tuple[Any, float]:
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def assert_unavailable(response: Any, elapsed: float) -> None:
    assert response.status_code == 503, response.get_data(as_text=True)
    assert elapsed < QUICKLY, f"a 503 took {elapsed:.2f} s"
    if response.mimetype == "application/problem+json":
        body = response.get_json()
        assert body["type"] == "/problems/storage-unavailable" and body["request_id"]
        assert int(response.headers["Retry-After"]) >= 1
    else:
        assert response.get_json()["status"] == "unavailable"  # /healthz: not a problem


@pytest.fixture()
def own_redis(tmp_path: Path):
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


def test_redis_outage_answers_503_quickly_and_the_game_resumes_where_it_was(own_redis):
    app = create_app(Settings.from_env(redis_url=own_redis.url))
    client = app.test_client()
    game = client.post("/v1/games", json={"game_type": "exact-plays", "players": 2, "seed": 5})
    game_id = game.get_json()["id"]
    tokens = {}
    for _ in range(2):
        joined = client.post(f"/v1/games/{game_id}/join", json={"name": "a"}).get_json()
        tokens[joined["seat"]] = joined["token"]
    for seat in (0, 1):
        declared = client.post(
            f"/v1/games/{game_id}/actions",
            json={"type": "declare", "tokens": 3 + seat},
            headers=auth(tokens[seat]),
        )
        assert declared.status_code == 200
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[1])).get_json()
    mover = view["to_act"][0]
    action = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[mover])).get_json()[
        "legal_actions"
    ][0]
    before, events_before = stored_game(own_redis.url, game_id)
    waiting = client.get(f"/v1/games/{game_id}/events", query_string={"after": 0}).get_json()
    long_poll: dict[str, Any] = {}

    def poll() -> None:
        long_poll["response"], long_poll["elapsed"] = answer_in_time(
            lambda: app.test_client().get(
                f"/v1/games/{game_id}/events",
                query_string={"after": waiting["last_seq"], "wait": 20},
            )
        )

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.3)  # the long-poll is blocked in Redis (XREAD BLOCK)
    own_redis.stop()
    poller.join()
    assert_unavailable(long_poll["response"], long_poll["elapsed"])

    requests_during_outage = [
        lambda: client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[mover])),
        lambda: client.post(
            f"/v1/games/{game_id}/actions",
            json=action,
            headers={**auth(tokens[mover]), "Idempotency-Key": "during-outage"},
        ),
        lambda: client.get(f"/v1/games/{game_id}/events", query_string={"wait": 5}),
        lambda: client.get(f"/v1/games/{game_id}"),
        lambda: client.get("/v1/games"),
        lambda: client.post("/v1/games", json={"game_type": "mr-toast", "players": 2}),
        lambda: client.post(f"/v1/games/{game_id}/join", json={"name": "late"}),
        lambda: client.get("/healthz"),
    ]
    for call in requests_during_outage:
        assert_unavailable(*answer_in_time(call))

    # Redis comes back on the same data and port: nothing was half-written, nothing lost.
    restarted = EmbeddedRedis(own_redis.data_dir, port=own_redis.port).start()
    try:
        after, events_after = stored_game(restarted.url, game_id)
        assert (after.rev, after.version, after.state) == (before.rev, before.version, before.state)
        assert events_after == events_before
        assert client.get("/healthz").status_code == 200
        resumed = client.post(
            f"/v1/games/{game_id}/actions",
            json=action,
            headers={**auth(tokens[mover]), "Idempotency-Key": "during-outage"},
        )
        assert resumed.status_code == 200, resumed.get_json()
        assert resumed.get_json()["version"] == before.version + 1
        assert "Idempotent-Replayed" not in resumed.headers, "the refused try applied nothing"
        summary = play_random_game(client, game_id, tokens, random.Random(5), check_secrets=False)
        assert summary["status"] == "finished"
    finally:
        restarted.stop()


# --- a worker killed in the middle of requests ---------------------------------------------------


def workers_of(master: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid …: comm may hold spaces, so split after its closing paren.
        if int(stat.rsplit(")", 1)[1].split()[1]) == master:
            children.append(int(entry.name))
    return children


def test_a_worker_killed_mid_request_loses_and_corrupts_nothing(redis_server):
    port = free_port()
    server = start_gunicorn(redis_server.url, port)
    base = f"http://127.0.0.1:{port}"
    try:
        players = 4
        created = requests.post(
            f"{base}/v1/games",
            json={
                "game_type": "mr-toast",
                "players": players,
                "seed": 99,
                "options": {"turn_limit": 400},
            },
            timeout=10,
        ).json()
        game_id = created["id"]
        tokens = {}
        for _ in range(players):
            joined = requests.post(
                f"{base}/v1/games/{game_id}/join", json={"name": "k"}, timeout=10
            ).json()
            tokens[joined["seat"]] = joined["token"]

        accepted: list[Accepted] = []
        lost: Counter[str] = Counter()
        lock = threading.Lock()
        stop = threading.Event()
        keys = itertools.count()
        errors: list[BaseException] = []
        posting = threading.Semaphore(0)  # released while an action is on its way

        def send_until_answered(seat: int, action: dict[str, Any], etag: str) -> Any:
            """Retry a request whose connection died, with the same Idempotency-Key."""
            headers = {**auth(tokens[seat]), "If-Match": etag, "Idempotency-Key": f"k{next(keys)}"}
            for _ in range(100):
                posting.release()
                try:
                    return requests.post(
                        f"{base}/v1/games/{game_id}/actions",
                        json=action,
                        headers=headers,
                        timeout=10,
                    )
                except LOST:
                    with lock:
                        lost["actions"] += 1
                    time.sleep(0.05)
                finally:
                    posting.acquire(blocking=False)
            raise AssertionError("the server never came back")

        def client(seat: int, rng: random.Random) -> None:
            try:
                while not stop.is_set():
                    try:
                        view = requests.get(
                            f"{base}/v1/games/{game_id}/view",
                            headers=auth(tokens[seat]),
                            timeout=10,
                        )
                    except LOST:
                        with lock:
                            lost["views"] += 1
                        continue
                    body = view.json()
                    if body["status"] == "finished":
                        stop.set()
                        return
                    if not body["legal_actions"]:
                        time.sleep(0.002)
                        continue
                    action = rng.choice(body["legal_actions"])
                    answer = send_until_answered(seat, action, view.headers["ETag"])
                    if answer.status_code == 200:
                        with lock:
                            accepted.append(Accepted(seat, action, answer.json()["version"]))
                    else:
                        assert answer.status_code in (409, 412), answer.text
            except BaseException as error:
                errors.append(error)
                stop.set()

        threads = [
            threading.Thread(target=client, args=(seat, random.Random(seat * 7 + copy)))
            for seat in range(players)
            for copy in range(2)
        ]
        for thread in threads:
            thread.start()
        killed = []
        for threshold in (10, 25, 40, 70):
            while len(accepted) < threshold and not stop.is_set():
                time.sleep(0.002)
            if stop.is_set() or threshold == 70:
                break
            # Strike while an action is in flight (on this worker or the other one).
            posting.acquire(timeout=2)
            posting.release()
            victim = sorted(workers_of(server.pid))[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)
        stop.set()
        for thread in threads:
            thread.join()
        assert not errors, errors

        assert killed, "the game ended before a worker could be killed"
        record = replay_matches(redis_server.url, game_id, accepted)
        assert record.version == len(accepted)
        print(
            f"\nworker kills: {len(killed)} workers killed; {len(accepted)} actions accepted; "
            f"lost with the workers: {lost['actions']} action posts (retried with their "
            f"Idempotency-Key), {lost['views']} view reads"
        )
        assert not set(killed) & set(workers_of(server.pid)), "the killed workers were replaced"
        # The game plays on (unless it is over).
        spectator = requests.get(f"{base}/v1/games/{game_id}/view", timeout=10).json()
        if spectator["status"] == "finished":
            return
        seat = spectator["to_act"][0]
        view = requests.get(
            f"{base}/v1/games/{game_id}/view", headers=auth(tokens[seat]), timeout=10
        ).json()
        more = requests.post(
            f"{base}/v1/games/{game_id}/actions",
            json=view["legal_actions"][0],
            headers=auth(tokens[seat]),
            timeout=10,
        )
        assert more.status_code == 200 and more.json()["version"] == record.version + 1
    finally:
        workers = workers_of(server.pid)
        stop_gunicorn(server)
        for pid in workers:  # a worker caught mid-boot may outlive its master: ours to end
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
