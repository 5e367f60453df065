"""Several API instances (gunicorn, two workers each) on one Redis Cluster, and clients that
send each request to an instance drawn at random: no acknowledged action is lost or doubled,
and a long-poll held by one instance wakes when another instance writes the game."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest
import requests

from cardroom.store.embedded import free_port

from cluster_kit import Accepted, replay_matches
from gunicorns import start_gunicorn, stop_gunicorn

INSTANCES = 2
TIMEOUT = 10
TARGET = 150  # acknowledged actions, then the clients stop


@pytest.fixture(scope="module")
def instances(redis_cluster) -> Iterator[list[str]]:
    started = []
    try:
        for _ in range(INSTANCES):
            port = free_port()
            started.append((start_gunicorn(redis_cluster.url, port), f"http://127.0.0.1:{port}"))
        yield [base for _, base in started]
    finally:
        for process, _ in started:
            stop_gunicorn(process)


def new_game(rng: random.Random, bases: list[str], players: int) -> tuple[str, dict[int, str]]:
    created = requests.post(
        f"{rng.choice(bases)}/v1/games",
        json={"game_type": "mr-toast", "players": players},
        timeout=TIMEOUT,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    tokens = {}
    for seat in range(players):
        joined = requests.post(
            f"{rng.choice(bases)}/v1/games/{game_id}/join", json={"name": f"p{seat}"}, timeout=10
        )
        assert joined.status_code == 201, joined.text
        tokens[joined.json()["seat"]] = joined.json()["token"]
    return game_id, tokens


def test_clients_spread_over_instances_at_random_lose_and_double_nothing(instances, redis_cluster):
    rng = random.Random(13)
    games = [new_game(rng, instances, 3) for _ in range(4)]
    accepted: dict[str, list[Accepted]] = {game_id: [] for game_id, _ in games}
    outcomes: Counter[int] = Counter()
    served_by: Counter[str] = Counter()
    lock = threading.Lock()
    stop = threading.Event()
    deadline = time.monotonic() + 8  # a bound on the test's length, not an assertion

    def client(game_id: str, seat: int, token: str, seed: int) -> None:
        """Two of these per seat race each other with If-Match, each request to any
        instance."""
        chooser = random.Random(seed)
        auth = {"Authorization": f"Bearer {token}"}
        while not stop.is_set() and time.monotonic() < deadline:
            base = chooser.choice(instances)
            view = requests.get(f"{base}/v1/games/{game_id}/view", headers=auth, timeout=TIMEOUT)
            assert view.status_code == 200, view.text
            body = view.json()
            if body["status"] == "finished":
                return
            if not body["legal_actions"]:
                time.sleep(0.005)
                continue
            action = chooser.choice(body["legal_actions"])
            base = chooser.choice(instances)
            answer = requests.post(
                f"{base}/v1/games/{game_id}/actions",
                json=action,
                headers={**auth, "If-Match": view.headers["ETag"]},
                timeout=TIMEOUT,
            )
            with lock:
                outcomes[answer.status_code] += 1
                served_by[base] += 1
                if answer.status_code == 200:
                    accepted[game_id].append(Accepted(seat, action, answer.json()["version"]))
                    if sum(len(actions) for actions in accepted.values()) >= TARGET:
                        stop.set()
                elif answer.status_code not in (409, 412):
                    stop.set()

    threads = [
        threading.Thread(target=client, args=(game_id, seat, token, hash((game_id, seat, copy))))
        for game_id, tokens in games
        for seat, token in tokens.items()
        for copy in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert set(outcomes) <= {200, 409, 412}, f"refusals must be 409 or 412: {outcomes}"
    assert outcomes[409] + outcomes[412] > 0, "the clients never raced: the test proves nothing"
    assert set(served_by) == set(instances)
    found = 0
    for game_id, actions in accepted.items():
        found += replay_matches(redis_cluster.url, game_id, actions).version
    acknowledged = sum(len(actions) for actions in accepted.values())
    assert acknowledged == found and acknowledged >= 40
    print(
        f"\n{INSTANCES} instances, {len(threads)} clients: {acknowledged} actions acknowledged,"
        f" {found} found; answers {dict(outcomes)}"
    )


def test_a_long_poll_on_one_instance_wakes_when_another_writes(instances):
    rng = random.Random(7)
    game_id, tokens = new_game(rng, instances, 2)
    woke_after = []
    for round_no in range(6):
        waiter_base, actor_base = instances[round_no % 2], instances[1 - round_no % 2]
        last = requests.get(f"{waiter_base}/v1/games/{game_id}/events", timeout=TIMEOUT).json()
        answer: dict = {}

        def wait(base: str = waiter_base, after: int = last["last_seq"], out: dict = answer):
            started = time.monotonic()
            out["body"] = requests.get(
                f"{base}/v1/games/{game_id}/events?after={after}&wait=20", timeout=30
            ).json()
            out["took"] = time.monotonic() - started

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.3)  # the waiter is subscribed
        public = requests.get(f"{actor_base}/v1/games/{game_id}/view", timeout=TIMEOUT).json()
        seat = public["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = requests.get(
            f"{actor_base}/v1/games/{game_id}/view", headers=auth, timeout=TIMEOUT
        ).json()
        acted = requests.post(
            f"{actor_base}/v1/games/{game_id}/actions",
            json=mine["legal_actions"][0],
            headers=auth,
            timeout=TIMEOUT,
        )
        assert acted.status_code == 200
        waiter.join(timeout=30)
        assert answer["body"]["events"], "the long-poll returned without the event"
        assert answer["took"] < 10, "woken by the write, not by its 20 s wait running out"
        woke_after.append(answer["took"])
    print(f"\nlong-polls woken across instances after {[round(t, 2) for t in woke_after]} s")
