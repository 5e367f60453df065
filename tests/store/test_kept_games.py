"""Games each process keeps as it last read or wrote them (cardroom.store.recent).

An action on a kept game skips its load; the commit's compare-and-set on ``rev`` and ``w``
proves the guess current. These tests run two or three apps on one Redis, as gunicorn runs
its workers, so that one process's kept game is stale because another wrote since.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
import redis

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store import Conflict, GameRecord
from cardroom.store.recent import RecentGames
from cardroom.store.record import game_key
from cardroom.table.steps import Replay

from helpers import auth, new_table, view


@pytest.fixture()
def raw(redis_server):
    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()


@pytest.fixture()
def solo(settings):
    """An API process of its own: no other test's actions moved its share of current games."""
    return create_app(settings).test_client()


@pytest.fixture()
def workers(settings):
    """Two more API processes on the same Redis, each keeping its own games."""
    return create_app(settings).test_client(), create_app(settings).test_client()


def calls(raw: redis.Redis) -> Counter[str]:
    stats = raw.info("commandstats")
    return Counter({name[len("cmdstat_") :]: row["calls"] for name, row in stats.items()})


def next_move(client: Any, game_id: str, tokens: dict[int, str], pick: int = 0) -> tuple[int, dict]:
    seat = view(client, game_id)["awaiting"][0]
    legal = view(client, game_id, tokens[seat])["legal_actions"]
    return seat, legal[pick % len(legal)]


def post(client: Any, game_id: str, token: str, action: dict) -> Any:
    return client.post(f"/v1/games/{game_id}/actions", json=action, headers=auth(token))


def stale_view_then_next_move(
    client: Any, game_id: str, tokens: dict[int, str]
) -> tuple[str, int, dict]:
    """The ETag of a waiting seat's view, made stale by one move; then the next move."""
    seat, action = next_move(client, game_id, tokens)
    waiting = next(other for other in tokens if other != seat)
    stale = view(client, game_id, tokens[waiting])["etag"]
    assert post(client, game_id, tokens[seat], action).status_code == 200
    return (stale, *next_move(client, game_id, tokens))


def stored_and_replayed(raw: redis.Redis, game_id: str) -> tuple[GameRecord, Replay]:
    record = GameRecord.from_hash(game_id, raw.hgetall(game_key(game_id)))
    replay = Replay(record)
    replay.advance(record.log_lines())
    return record, replay


def test_an_action_on_a_game_this_process_last_saw_needs_no_load(solo, raw):
    game_id, tokens = new_table(solo, "exact-plays", 3, seed=4)
    for _ in range(3):
        seat, action = next_move(solo, game_id, tokens)
        before = calls(raw)
        assert post(solo, game_id, tokens[seat], action).status_code == 200
        spent = calls(raw) - before
        assert spent["hgetall"] == 0, "a kept game is not loaded again"
        assert spent["evalsha"] == 1, "one round trip: the commit"


def test_without_kept_games_every_action_loads(settings, raw):
    client = create_app(Settings.from_env(redis_url=settings.redis_url, kept_games=0)).test_client()
    game_id, tokens = new_table(client, "exact-plays", 3, seed=4)
    seat, action = next_move(client, game_id, tokens)
    before = calls(raw)
    assert post(client, game_id, tokens[seat], action).status_code == 200
    assert (calls(raw) - before)["hgetall"] == 1


def test_a_kept_game_is_exactly_the_stored_one_after_every_write(settings):
    """Joins (tokens), actions, and the log's sealing every 16 entries."""
    app = create_app(settings)
    client = app.test_client()
    store = app.extensions["cardroom.tables"].store
    game_id, tokens = new_table(client, "mr-toast", 4, seed=11)
    assert store.recall(game_id) == store.load(game_id).record
    choices = random.Random(11)
    for _ in range(40):
        seat = view(client, game_id)["awaiting"][0]
        action = choices.choice(view(client, game_id, tokens[seat])["legal_actions"])
        assert post(client, game_id, tokens[seat], action).status_code == 200
        kept = store.recall(game_id)
        assert kept == store.load(game_id).record
    assert kept is not None and kept.log_sealed, "the log was sealed on the way"


def test_actions_through_processes_whose_kept_games_are_stale_all_count_once(client, workers, raw):
    """Moves are read through a third process; actions alternate between two others, so
    each of them acts on a game the other has written since it last saw it."""
    game_id, tokens = new_table(client, "exact-plays", 3, seed=5)
    one, two = workers
    for process in workers:  # both keep the game as it is now
        view(process, game_id)
    played = []
    for turn in range(30):
        if view(client, game_id)["status"] != "active":
            break
        seat, action = next_move(client, game_id, tokens, pick=turn)
        answer = post((one, two)[turn % 2], game_id, tokens[seat], action)
        assert answer.status_code == 200, answer.get_json()
        played.append((seat, action))
    record, replay = stored_and_replayed(raw, game_id)
    assert replay.record.state == record.state
    actions = [entry[:2] for entry in map(json.loads, record.log_lines()) if entry[0] != "j"]
    assert actions == [[seat, action] for seat, action in played]


def test_a_retry_sent_to_a_process_that_missed_the_first_is_refused_not_applied_again(
    client, workers, raw
):
    game_id, tokens = new_table(client, "exact-plays", 3, seed=6)
    one, two = workers
    for _ in range(30):
        seat, action = next_move(client, game_id, tokens)
        assert post(one, game_id, tokens[seat], action).status_code == 200
        seat, action = next_move(client, game_id, tokens)
        assert post(two, game_id, tokens[seat], action).status_code == 200
        if action not in view(client, game_id, tokens[seat])["legal_actions"]:
            break  # `one` keeps the game from before this action, where it was legal
    else:
        pytest.fail("no action that cannot be played twice in a row")
    version = view(client, game_id)["version"]
    retried = post(one, game_id, tokens[seat], action)
    assert retried.status_code in (409, 422), retried.get_json()
    assert view(client, game_id)["version"] == version


def test_a_kept_game_that_expired_is_not_found(solo, raw):
    game_id, tokens = new_table(solo, "exact-plays", 3, seed=7)
    seat, action = next_move(solo, game_id, tokens)
    raw.delete(game_key(game_id))
    answer = post(solo, game_id, tokens[seat], action)
    assert answer.status_code == 404, answer.get_json()
    assert answer.get_json()["type"] == "/problems/game-not-found"


def test_a_game_restored_from_an_older_snapshot_never_matches_a_record_kept_before(
    client, settings, raw
):
    """Its rev counts up again after a restore; the write id (``w``) tells the writes apart."""
    game_id, _ = new_table(client, "mr-toast", 2, seed=8)
    first = create_app(settings).extensions["cardroom.tables"].store
    second = create_app(settings).extensions["cardroom.tables"].store
    snapshot = raw.dump(game_key(game_id))
    record = first.load(game_id).record
    record.updated_at += 1
    first.commit(record)  # `first` keeps this write
    raw.restore(game_key(game_id), 0, snapshot, replace=True)
    other = second.load(game_id).record
    other.updated_at += 2
    second.commit(other)  # another write with the same rev
    guess = first.recall(game_id)
    assert guess is not None and guess.rev == other.rev and guess.write_id != other.write_id
    guess.updated_at += 3
    with pytest.raises(Conflict) as refused:
        first.commit(guess)
    assert refused.value.current == second.load(game_id).record
    assert second.load(game_id).record.updated_at == other.updated_at


def test_an_action_with_an_idempotency_key_on_a_kept_game_needs_no_load(solo, raw):
    game_id, tokens = new_table(solo, "exact-plays", 3, seed=9)
    seat, action = next_move(solo, game_id, tokens)
    headers = {**auth(tokens[seat]), "Idempotency-Key": "k1"}
    before = calls(raw)
    first = solo.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert first.status_code == 200
    spent = calls(raw) - before
    assert (spent["hgetall"], spent["get"], spent["evalsha"]) == (0, 1, 1), spent
    again = solo.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()


def test_a_refusal_with_an_idempotency_key_on_a_kept_game_needs_no_load(solo, raw):
    """The write that keeps the refusal as the key's answer proves the kept game current."""
    game_id, tokens = new_table(solo, "exact-plays", 3, seed=9)
    stale, seat, action = stale_view_then_next_move(solo, game_id, tokens)
    headers = {**auth(tokens[seat]), "Idempotency-Key": "stale-view", "If-Match": f'"{stale}"'}
    before = calls(raw)
    refused = solo.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert refused.status_code == 412, refused.get_json()
    spent = calls(raw) - before
    assert (spent["hgetall"], spent["evalsha"]) == (0, 1), spent
    again = solo.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert again.status_code == 412 and again.headers["Idempotent-Replayed"] == "true"


def test_a_refusal_judged_on_a_stale_kept_game_is_judged_again_on_the_game_as_stored(
    client, workers, raw
):
    """On the kept game it is another seat's turn (NotYourTurn, a refusal the key keeps);
    the write that would keep it finds the game moved on, and the action is legal there."""
    game_id, tokens = new_table(client, "exact-plays", 3, seed=11)
    one, two = workers
    view(two, game_id)  # `two` keeps the game as it is before the next action
    seat, action = next_move(client, game_id, tokens)
    assert post(one, game_id, tokens[seat], action).status_code == 200
    seat, action = next_move(client, game_id, tokens)
    headers = {**auth(tokens[seat]), "Idempotency-Key": "judged-again"}
    answer = two.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert answer.status_code == 200, answer.get_json()
    assert "Idempotent-Replayed" not in answer.headers


def test_a_retry_with_its_idempotency_key_sent_to_a_process_that_missed_the_first_is_answered_alike(
    client, workers, raw
):
    """The other process's kept game is from before the action, where it is legal: the
    commit script finds the first answer and writes nothing; one load gives the log, from
    which the answer's view is made again."""
    game_id, tokens = new_table(client, "exact-plays", 3, seed=10)
    one, two = workers
    view(two, game_id)  # `two` keeps the game as it is before the action
    seat, action = next_move(client, game_id, tokens)
    headers = {**auth(tokens[seat]), "Idempotency-Key": "retry-me"}
    first = one.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert first.status_code == 200
    version = view(client, game_id)["version"]
    before = calls(raw)
    again = two.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    made = calls(raw) - before
    assert made["evalsha"] == 1 and made["set"] == made["hset"] == 0, "nothing written"
    assert made["hgetall"] == 1, "one load, for the log the view is made again from"
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == first.get_data()
    assert view(client, game_id)["version"] == version
    other = two.post(f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=headers)
    assert other.status_code == 422
    assert other.get_json()["type"] == "/problems/idempotency-key-reused"


def test_a_process_whose_kept_games_are_stale_stops_guessing_until_they_are_current_again(
    client, workers, raw
):
    """Actions spread over processes at random make most guesses stale, and a stale guess
    costs a wasted attempt: a process guesses only while its kept games have lately been
    current (RecentGames.worth_guessing)."""
    game_id, tokens = new_table(client, "mr-toast", 4, seed=12)
    one, two = workers

    def act_through(process: Any) -> Counter[str]:
        seat, action = next_move(client, game_id, tokens)
        before = calls(raw)
        answer = post(process, game_id, tokens[seat], action)
        assert answer.status_code == 200, answer.get_json()
        return calls(raw) - before

    for turn in range(40):  # every kept game is stale when its next action comes
        act_through((one, two)[turn % 2])
    spent = act_through(two)
    assert (spent["hgetall"], spent["evalsha"]) == (1, 1), "a load, and no wasted commit"
    for _ in range(40):  # `one` alone: its kept game is current every time
        act_through(one)
    spent = act_through(one)
    assert (spent["hgetall"], spent["evalsha"]) == (0, 1), "guessing again"
    assert view(client, game_id)["status"] == "active"


def test_a_process_keeps_at_most_its_number_of_games_the_least_recently_used_go_first():
    recent = RecentGames(kept=2)
    for game_id in ("a", "b"):
        recent.keep(game_id, {b"rev": b"1"})
    assert recent.get("a") is not None  # "a" is now the most recently used
    recent.keep("c", {b"rev": b"1"})
    assert (recent.get("a"), recent.get("b"), recent.get("c")) == (
        {b"rev": b"1"},
        None,
        {b"rev": b"1"},
    )
    assert len(recent) == 2
    off = RecentGames(kept=0)
    off.keep("a", {b"rev": b"1"})
    assert off.get("a") is None and not off.worth_guessing()


def test_a_load_of_the_kept_write_keeps_its_decoded_copy_and_a_new_write_does_not():
    decoded: list[str] = []
    recent = RecentGames(kept=4, decode=lambda game_id, stored: decoded.append(game_id) or stored)
    recent.keep("g", {b"rev": b"3", b"w": b"ab", b"rec": b"{}"})
    first = recent.snapshot("g", 0)
    recent.keep("g", {b"rev": b"3", b"w": b"ab", b"rec": b"{}"})  # read again, same write
    assert recent.snapshot("g", 0) is first and decoded == ["g"]
    recent.keep("g", {b"rev": b"4", b"w": b"cd", b"rec": b"{}"})  # a newer write
    assert recent.snapshot("g", 0) is not first and decoded == ["g", "g"]
    recent.keep("g", {b"rev": b"4", b"w": b"ef", b"rec": b"{}"})  # same rev, another write
    assert recent.snapshot("g", 0)[b"w"] == b"ef"


def test_views_of_one_write_share_its_parts_and_a_move_is_seen_at_once(solo):
    """A view reads the game's hash each time; while the write is the same, the process's
    decoded copy (and the parts every seat's view shares) serve it, never after a move."""
    game_id, tokens = new_table(solo, "exact-plays", 3, seed=4)
    store = solo.application.extensions["cardroom.tables"].store
    view(solo, game_id, tokens[0])
    shared = store.snapshot(game_id, None)
    assert shared.view_parts is not None, "the parts were made once, for the first view"
    for seat in (1, 2):
        view(solo, game_id, tokens[seat])
        assert store.snapshot(game_id, None) is shared
    seat, action = next_move(solo, game_id, tokens)
    assert post(solo, game_id, tokens[seat], action).status_code == 200
    after = view(solo, game_id, tokens[seat])
    assert after["version"] == shared.version + 1
    assert store.snapshot(game_id, None) is not shared


def test_a_refusal_without_an_idempotency_key_on_a_kept_game_reads_two_fields_not_the_game(
    solo, raw
):
    """A refusal judged on a kept game is certain once the game as stored is still that
    write: one small read (``GameStore.confirm``), not a load of the whole game."""
    game_id, tokens = new_table(solo, "exact-plays", 3, seed=9)
    stale, seat, action = stale_view_then_next_move(solo, game_id, tokens)
    before = calls(raw)
    refused = solo.post(
        f"/v1/games/{game_id}/actions",
        json=action,
        headers={**auth(tokens[seat]), "If-Match": f'"{stale}"'},
    )
    assert refused.status_code == 412, refused.get_json()
    spent = calls(raw) - before
    assert (spent["hgetall"], spent["hmget"], spent["evalsha"]) == (0, 1, 0), spent


def test_a_refusal_without_an_idempotency_key_judged_on_a_stale_kept_game_is_judged_again(
    client, workers, raw
):
    """On the kept game it is another seat's turn; the game as stored has moved on, and the
    action is legal there."""
    game_id, tokens = new_table(client, "exact-plays", 3, seed=11)
    one, two = workers
    view(two, game_id)  # `two` keeps the game as it is before the next action
    seat, action = next_move(client, game_id, tokens)
    assert post(one, game_id, tokens[seat], action).status_code == 200
    seat, action = next_move(client, game_id, tokens)
    answer = post(two, game_id, tokens[seat], action)
    assert answer.status_code == 200, answer.get_json()
