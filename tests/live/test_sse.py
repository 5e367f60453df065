"""Server-Sent Events against gunicorn and Redis: resume with Last-Event-ID, miss nothing."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import requests


def sse_events(response: requests.Response) -> Iterator[tuple[int, dict]]:
    """Parse a text/event-stream into (id, data) pairs; comments and retry lines skipped."""
    event_id, data = None, []
    for line in response.iter_lines(decode_unicode=True):
        if line == "":
            if data:
                yield int(event_id), json.loads("\n".join(data))
            event_id, data = None, []
        elif line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("data: "):
            data.append(line[6:])


def act_randomly(base: str, game_id: str, tokens: dict[int, str], rng: random.Random) -> bool:
    """One legal action of a seat that is to act; False once the game is over."""
    views = {
        seat: requests.get(
            f"{base}/v1/games/{game_id}/view",
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        ).json()
        for seat, token in tokens.items()
    }
    some = next(iter(views.values()))
    if some["status"] == "finished":
        return False
    seat = rng.choice(some["to_act"])
    action = rng.choice(views[seat]["legal_actions"])
    response = requests.post(
        f"{base}/v1/games/{game_id}/actions",
        json=action,
        headers={"Authorization": f"Bearer {tokens[seat]}"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    return True


def test_sse_reconnect_with_last_event_id_misses_no_event(live_server):
    base = live_server
    game = requests.post(
        f"{base}/v1/games", json={"game_type": "mr-toast", "players": 2, "seed": 3}, timeout=10
    ).json()
    game_id = game["id"]
    tokens = {}
    for _ in range(2):
        joined = requests.post(f"{base}/v1/games/{game_id}/join", json={"name": "p"}, timeout=10)
        tokens[joined.json()["seat"]] = joined.json()["token"]
    rng = random.Random(5)
    seat0 = {"Authorization": f"Bearer {tokens[0]}"}
    received: list[int] = []
    last_id = None
    for _ in range(6):  # six connections, each dropped after a few events
        headers = dict(seat0)
        if last_id is not None:
            headers["Last-Event-ID"] = str(last_id)
        with requests.get(
            f"{base}/v1/games/{game_id}/events/stream", headers=headers, stream=True, timeout=10
        ) as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            for _ in range(3):
                act_randomly(base, game_id, tokens, rng)
            for count, (event_id, event) in enumerate(sse_events(stream), start=1):
                assert event["seq"] == event_id
                received.append(event_id)
                last_id = event_id
                if count == 4:
                    break  # the client goes away mid-stream
    everything = requests.get(
        f"{base}/v1/games/{game_id}/events?after=0&limit=1000", headers=seat0, timeout=10
    ).json()
    expected = [event["seq"] for event in everything["events"] if event["seq"] <= last_id]
    assert received == expected, "an event was missed or repeated across reconnects"
    assert len(received) >= 20


def test_sse_stream_ends_when_the_game_is_over(live_server):
    bots = [{"seat": s, "policy": "greedy"} for s in range(3)]
    game = requests.post(
        f"{live_server}/v1/games",
        json={"game_type": "mr-toast", "players": 3, "bots": bots, "seed": 1},
        timeout=30,
    ).json()
    assert game["status"] == "finished"
    with requests.get(
        f"{live_server}/v1/games/{game['id']}/events/stream", stream=True, timeout=10
    ) as stream:
        seqs = [event_id for event_id, _ in sse_events(stream)]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 10


def test_sse_with_a_bad_token_is_a_problem(live_server):
    game = requests.post(
        f"{live_server}/v1/games", json={"game_type": "mr-toast", "players": 2}, timeout=10
    ).json()
    response = requests.get(
        f"{live_server}/v1/games/{game['id']}/events/stream",
        headers={"Authorization": "Bearer nope", "Last-Event-ID": "0"},
        timeout=10,
    )
    assert response.status_code == 401
    assert response.headers["Content-Type"] == "application/problem+json"
