"""Findings 5 and 7: honest answers (docs/api.md, "When the answer is lost").

- A write that reached Redis but got no answer is "outcome unknown" (504), never a 503 that
  invites a blind retry; a retry with the same Idempotency-Key applies it exactly once.
- An Idempotency-Key keeps its first answer, a refusal (409/412/422) too.
- A Redis at its memory ceiling answers 507 `storage-full`, never a 500.

Each test runs a Redis of its own: it is paused (SIGSTOP) or filled under the app.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store.embedded import EmbeddedRedis

from helpers import auth

SOCKET_TIMEOUT = 0.5


@pytest.fixture()
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        if server.process is not None:
            os.kill(server.process.pid, signal.SIGCONT)
        server.stop()


def quick_app(redis_url: str):
    settings = Settings.from_env(
        redis_url=redis_url,
        redis_socket_timeout=SOCKET_TIMEOUT,
        rate_limit_create="off",
        rate_limit_join="off",
    )
    return create_app(settings).test_client()


def declaring_table(client) -> tuple[str, dict[int, str]]:
    """An Exact Plays game of two people, both still to declare (seed fixed)."""
    game_id = client.post(
        "/v1/games", json={"game_type": "exact-plays", "players": 2, "seed": 5}
    ).get_json()["id"]
    tokens = {}
    for name in ("a", "b"):
        joined = client.post(f"/v1/games/{game_id}/join", json={"name": name}).get_json()
        tokens[joined["seat"]] = joined["token"]
    return game_id, tokens


def version_of(client, game_id: str) -> int:
    return client.get(f"/v1/games/{game_id}").get_json()["version"]


def act_while_redis_is_paused(client, redis: EmbeddedRedis, game_id: str, token: str, **headers):
    """The view keeps the game in this worker, so the action's first command is its write:
    sent, then unanswered while Redis is stopped; Redis runs it once it goes on."""
    assert client.get(f"/v1/games/{game_id}/view", headers=auth(token)).status_code == 200
    assert redis.process is not None
    os.kill(redis.process.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = client.post(
            f"/v1/games/{game_id}/actions",
            json={"type": "declare", "tokens": 3},
            headers={**auth(token), **headers},
        )
        elapsed = time.monotonic() - started
    finally:
        os.kill(redis.process.pid, signal.SIGCONT)
    return answer, elapsed


def test_a_write_without_an_answer_is_outcome_unknown_not_retry(own_redis):
    client = quick_app(own_redis.url)
    game_id, tokens = declaring_table(client)
    before = version_of(client, game_id)
    answer, elapsed = act_while_redis_is_paused(client, own_redis, game_id, tokens[0])
    assert answer.status_code == 504, answer.get_json()
    body = answer.get_json()
    assert body["type"] == "/problems/outcome-unknown"
    assert "Idempotency-Key" in body["detail"] and "Retry-After" not in answer.headers
    assert elapsed < 5 * SOCKET_TIMEOUT, "the write was re-sent"
    # Redis ran the write when it went on: the answer was right not to say "retry".
    time.sleep(0.2)
    assert version_of(client, game_id) == before + 1
    text = client.get("/problems/outcome-unknown").get_data(as_text=True)
    assert "Idempotency-Key" in text and "view" in text


def test_a_retry_with_the_same_key_after_an_unknown_outcome_applies_once(own_redis):
    client = quick_app(own_redis.url)
    game_id, tokens = declaring_table(client)
    before = version_of(client, game_id)
    key = {"Idempotency-Key": "declare-once"}
    answer, _ = act_while_redis_is_paused(client, own_redis, game_id, tokens[0], **key)
    assert answer.status_code == 504
    time.sleep(0.2)
    retry = client.post(
        f"/v1/games/{game_id}/actions",
        json={"type": "declare", "tokens": 3},
        headers={**auth(tokens[0]), **key},
    )
    assert retry.status_code == 200, retry.get_json()
    assert retry.headers.get("Idempotent-Replayed") == "true"
    assert retry.get_json()["version"] == before + 1 == version_of(client, game_id)


def test_a_refusal_judged_on_a_stale_kept_game_is_not_answered_when_redis_does_not_answer(
    own_redis,
):
    """A process's kept game is a guess that only a write proves current: when the write
    that would keep the refusal gets no answer, the refusal is not given as certain."""
    one, two = quick_app(own_redis.url), quick_app(own_redis.url)
    game_id, tokens = declaring_table(one)
    view_of_two = two.get(f"/v1/games/{game_id}/view", headers=auth(tokens[1]))
    assert view_of_two.status_code == 200  # `two` keeps the game before seat 0 declares
    declared = one.post(
        f"/v1/games/{game_id}/actions",
        json={"type": "declare", "tokens": 3},
        headers=auth(tokens[0]),
    )
    assert declared.status_code == 200, declared.get_json()
    current = one.get(f"/v1/games/{game_id}/view", headers=auth(tokens[1])).get_json()["etag"]
    headers = {
        **auth(tokens[1]),
        "If-Match": f'"{current}"',
        "Idempotency-Key": "judged-on-a-guess",
    }
    assert own_redis.process is not None
    os.kill(own_redis.process.pid, signal.SIGSTOP)
    try:
        answer = two.post(
            f"/v1/games/{game_id}/actions", json={"type": "declare", "tokens": 2}, headers=headers
        )
    finally:
        os.kill(own_redis.process.pid, signal.SIGCONT)
    # On `two`'s kept game the If-Match is stale (412), on the stored game it is current.
    assert answer.status_code == 503, answer.get_json()
    time.sleep(0.2)
    again = two.post(
        f"/v1/games/{game_id}/actions", json={"type": "declare", "tokens": 2}, headers=headers
    )
    assert again.status_code == 200, again.get_json()


def test_a_refusal_is_the_keys_answer_for_good(client):
    game_id, tokens = declaring_table(client)
    key = {"Idempotency-Key": "refused-first"}
    play = {"type": "pass", "switch": "none"}  # not a declaration: refused in this phase
    first = client.post(
        f"/v1/games/{game_id}/actions", json=play, headers={**auth(tokens[0]), **key}
    )
    assert first.status_code in (409, 422), first.get_json()
    refusal = first.get_json()
    before = version_of(client, game_id)
    again = client.post(
        f"/v1/games/{game_id}/actions", json=play, headers={**auth(tokens[0]), **key}
    )
    assert again.status_code == first.status_code
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert {k: v for k, v in again.get_json().items() if k not in ("request_id",)} == {
        k: v for k, v in refusal.items() if k not in ("request_id",)
    }
    assert version_of(client, game_id) == before

    # A refused declaration keeps its key's refusal even once it would be accepted: here,
    # one refused for a wrong If-Match.
    declare = {"type": "declare", "tokens": 3}
    stale = client.post(
        f"/v1/games/{game_id}/actions",
        json=declare,
        headers={**auth(tokens[1]), "Idempotency-Key": "k2", "If-Match": '"not-the-etag"'},
    )
    assert stale.status_code == 412
    later = client.post(
        f"/v1/games/{game_id}/actions",
        json=declare,
        headers={**auth(tokens[1]), "Idempotency-Key": "k2", "If-Match": '"not-the-etag"'},
    )
    assert later.status_code == 412 and later.headers.get("Idempotent-Replayed") == "true"
    fresh = client.post(
        f"/v1/games/{game_id}/actions",
        json=declare,
        headers={**auth(tokens[1]), "Idempotency-Key": "k3"},
    )
    assert fresh.status_code == 200 and version_of(client, game_id) == before + 1


def test_a_rule_refusal_is_not_applied_later_under_the_same_key(client):
    game_id, tokens = declaring_table(client)
    key = {"Idempotency-Key": "too-early"}
    for seat in (0, 1):
        accepted = client.post(
            f"/v1/games/{game_id}/actions",
            json={"type": "declare", "tokens": 3 + seat},  # no tie: no rock-paper-scissors
            headers=auth(tokens[seat]),
        )
        assert accepted.status_code == 200
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
    assert len(view["to_act"]) == 1, view["to_act"]
    mover = view["to_act"][0]
    waiting = 1 - mover
    action = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[mover])).get_json()[
        "legal_actions"
    ][0]
    early = client.post(
        f"/v1/games/{game_id}/actions", json=action, headers={**auth(tokens[waiting]), **key}
    )
    assert early.status_code in (409, 422)
    before = version_of(client, game_id)
    replay = client.post(
        f"/v1/games/{game_id}/actions", json=action, headers={**auth(tokens[waiting]), **key}
    )
    assert replay.status_code == early.status_code
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert version_of(client, game_id) == before


def test_a_full_redis_answers_507_storage_full_and_reads_go_on(tmp_path):
    redis = EmbeddedRedis(tmp_path / "full", maxmemory="3mb").start()
    try:
        client = quick_app(redis.url)
        game_id, tokens = declaring_table(client)
        answers = []
        for _ in range(5000):
            created = client.post("/v1/games", json={"game_type": "mr-toast", "players": 6})
            answers.append(created.status_code)
            if created.status_code != 201:
                break
        assert answers[-1] == 507, answers[-3:]
        assert set(answers) == {201, 507}
        # The refusal itself is checked, not one more write: Redis's used memory moves a
        # little between commands, so a smaller game may fit again just after.
        assert created.get_json()["type"] == "/problems/storage-full"
        assert client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).status_code == 200
        assert client.get("/healthz").status_code == 200
    finally:
        redis.stop()
