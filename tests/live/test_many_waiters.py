"""The server holds many waiting clients at once (gevent workers) and serves others meanwhile."""

from __future__ import annotations

import threading

import requests

WAITERS = 300  # more than 2 gthread workers x 32 threads could ever hold


def test_hundreds_of_long_polls_wait_while_other_requests_are_served(live_server):
    base = live_server
    game = requests.post(
        f"{base}/v1/games", json={"game_type": "mr-toast", "players": 2}, timeout=10
    ).json()
    tokens = [
        requests.post(f"{base}/v1/games/{game['id']}/join", json={"name": "p"}, timeout=10).json()
        for _ in range(2)
    ]
    last = requests.get(f"{base}/v1/games/{game['id']}/events", timeout=10).json()["last_seq"]
    results: list[int] = []
    lock = threading.Lock()
    started = threading.Barrier(WAITERS + 1)

    def wait_for_event() -> None:
        session = requests.Session()
        started.wait()
        body = session.get(
            f"{base}/v1/games/{game['id']}/events?after={last}&wait=20", timeout=30
        ).json()
        with lock:
            results.append(len(body["events"]))

    waiters = [threading.Thread(target=wait_for_event) for _ in range(WAITERS)]
    for waiter in waiters:
        waiter.start()
    started.wait()
    # While they all wait, the server still answers everyone else.
    for _ in range(5):
        assert requests.get(f"{base}/v1/games/{game['id']}", timeout=10).status_code == 200
    with lock:
        assert len(results) < WAITERS, "the long-polls returned without an event"
    seat = requests.get(f"{base}/v1/games/{game['id']}/view", timeout=10).json()["to_act"][0]
    token = next(t["token"] for t in tokens if t["seat"] == seat)
    headers = {"Authorization": f"Bearer {token}"}
    view = requests.get(f"{base}/v1/games/{game['id']}/view", headers=headers, timeout=10).json()
    acted = requests.post(
        f"{base}/v1/games/{game['id']}/actions",
        json=view["legal_actions"][0],
        headers=headers,
        timeout=10,
    )
    assert acted.status_code == 200
    for waiter in waiters:
        waiter.join(timeout=30)
    assert len(results) == WAITERS and all(count > 0 for count in results)
