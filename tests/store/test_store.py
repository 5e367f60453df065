"""The Redis layout of docs/architecture.md "Storage": hash-tagged keys, hashed tokens, TTL, CAS."""

from __future__ import annotations

import hashlib
import json
import random
import zlib

import pytest
import redis

from cardroom.store import Conflict
from cardroom.store.record import dump_json, game_key, idempotency_key

from helpers import auth, new_table, view


@pytest.fixture()
def raw(redis_server):
    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()


def game_keys(raw, game_id: str) -> list[bytes]:
    return sorted(raw.scan_iter(match=f"cardroom:game:{{{game_id}}}*"))


def test_every_key_of_a_game_carries_its_hash_tag_and_expires(client, raw, settings):
    game_id, tokens = new_table(client, "mr-toast", 2, seed=1)
    seat = view(client, game_id)["to_act"][0]
    action = view(client, game_id, tokens[seat])["legal_actions"][0]
    headers = {**auth(tokens[seat]), "Idempotency-Key": "once"}
    assert (
        client.post(f"/v1/games/{game_id}/actions", json=action, headers=headers).status_code == 200
    )
    keys = game_keys(raw, game_id)
    assert game_key(game_id).encode() in keys
    assert any(b":idem:" in key for key in keys)
    assert len({key.split(b"}")[0] for key in keys}) == 1, "one hash tag: one cluster slot"
    for key in keys:
        ttl = raw.ttl(key)
        limit = settings.idempotency_ttl_seconds if b":idem:" in key else settings.game_ttl_seconds
        assert 0 < ttl <= limit, (key, ttl)


def test_tokens_are_stored_only_as_sha256_hashes(client, raw):
    game_id, tokens = new_table(client, "exact-plays", 3)
    stored = raw.hgetall(game_key(game_id))
    dumps = [raw.dump(key) or b"" for key in game_keys(raw, game_id)]
    everything = b"".join([*dumps, *stored.values()])
    for seat, token in tokens.items():
        assert token.encode() not in everything, "a token is stored in the clear"
        assert stored[f"t{seat}".encode()].decode() == hashlib.sha256(token.encode()).hexdigest()


def test_a_stale_revision_is_refused_and_changes_nothing(client, app):
    game_id, _ = new_table(client, "mr-toast", 2)
    store = app.extensions["cardroom.tables"].store
    first = store.load(game_id).record
    second = store.load(game_id).record
    first.updated_at += 1
    store.commit(first)
    second.updated_at += 2
    with pytest.raises(Conflict) as refused:
        store.commit(second)
    assert store.load(game_id).record.updated_at == first.updated_at
    assert refused.value.current == store.load(game_id).record, "the refusal carries the game"


def test_a_game_is_one_hash_holding_its_log_and_its_events_are_rebuilt_from_it(client, raw):
    """No event is stored: the log (a few hundred bytes) rebuilds every one
    (cardroom.table.steps)."""
    game_id, tokens = new_table(client, "mr-toast", 4, seed=3)
    choices = random.Random(3)
    for _ in range(40):
        seat = view(client, game_id)["awaiting"][0]
        action = choices.choice(view(client, game_id, tokens[seat])["legal_actions"])
        answer = client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
        )
        assert answer.status_code == 200
    assert game_keys(raw, game_id) == [game_key(game_id).encode()]
    stored = raw.hgetall(game_key(game_id))
    assert set(stored) <= {
        b"rev",
        b"w",
        b"rec",
        b"log",
        b"tail",
        *[f"t{s}".encode() for s in range(4)],
    }
    assert b"log" in stored, "40 actions: the oldest entries are compressed"
    assert len(stored.get(b"log", b"")) + len(stored.get(b"tail", b"")) < 1500
    events = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[0])).get_json()
    assert [event["seq"] for event in events["events"]] == list(range(1, events["last_seq"] + 1))
    assert events["last_seq"] > 40


def test_an_integer_beyond_64_bits_in_an_action_gets_a_problem_never_a_500(client):
    """Records and logs are written with orjson, which refuses such integers (the store falls
    back to the stdlib); the engine refuses the field first, and nothing is written."""
    game_id, tokens = new_table(client, "mr-toast", 2, seed=5)
    seat = view(client, game_id)["awaiting"][0]
    before = view(client, game_id, tokens[seat])
    for extra in ({"note": 10**30}, {"target": 10**30}, {"card": 10**30}):
        action = {**before["legal_actions"][0], **extra}
        answer = client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
        )
        assert answer.status_code == 422, answer.get_json()
    assert view(client, game_id, tokens[seat])["version"] == before["version"]
    assert client.get(f"/v1/games/{game_id}/events").status_code == 200


def act_once(client, game_id: str, token: str, action: dict, key: str):
    headers = {**auth(token), "Idempotency-Key": key}
    return client.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)


def test_a_stored_answer_keeps_no_view_and_is_replayed_alike(client, raw):
    """docs/architecture.md "An action's path": the key keeps the answer without its view (the
    seat, the ETag and the game's event count instead); a retry makes the view again from the
    game's log, byte for byte."""
    game_id, tokens = new_table(client, "exact-plays", 4, seed=3)
    seat = view(client, game_id)["awaiting"][0]
    action = view(client, game_id, tokens[seat])["legal_actions"][0]
    first = act_once(client, game_id, tokens[seat], action, "kept")
    assert first.status_code == 200
    (key,) = raw.scan_iter(match=f"{game_key(game_id)}:idem:*")
    kept = json.loads(raw.get(key))
    assert kept["seat"] == seat and kept["etag"] == first.get_json()["view"]["etag"]
    assert kept["seq"] == first.get_json()["view"]["last_seq"]
    assert kept["response"] == {k: v for k, v in first.get_json().items() if k != "view"}
    assert raw.memory_usage(key) < len(first.get_data()) / 2
    again = act_once(client, game_id, tokens[seat], action, "kept")
    assert again.get_data() == first.get_data()


def test_an_answer_stored_compressed_before_is_still_replayed(client, raw, settings):
    """Answers were stored zlib-compressed, whole, before; they live an hour, so a process
    that stores them otherwise still replays them (a rolling upgrade)."""
    game_id, tokens = new_table(client, "mr-toast", 2, seed=4)
    seat = view(client, game_id)["awaiting"][0]
    action = view(client, game_id, tokens[seat])["legal_actions"][0]
    digest = hashlib.sha256(
        json.dumps(action, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    response = {"version": 99, "events": [], "view": {"etag": "then"}}
    stored = {"body": digest, "status": 200, "response": response}
    key = idempotency_key(game_id, tokens[seat], "old")
    raw.set(key, zlib.compress(dump_json(stored), 1), ex=settings.idempotency_ttl_seconds)
    replayed = act_once(client, game_id, tokens[seat], action, "old")
    assert replayed.status_code == 200 and replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.get_json() == response
    assert view(client, game_id)["version"] == 0, "nothing applied"
