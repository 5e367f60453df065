"""Finding 1: one request cannot burn seconds of CPU on bot play (docs/operations.md, "Bot
play"). Bots play at most the request's budget; the rest is due work, continued by the next
request or by the progression loop, which any worker runs, with the same compare-and-set.

Bot actions per request are counted by the game's version: every action, a bot's included,
makes one version (docs/api.md).
"""

from __future__ import annotations

import itertools
import time

import pytest
import redis
import requests
from hardening_kit import stored_game

from cardroom.config import Settings
from cardroom.progress import LEASE_SECONDS, Progression
from cardroom.serve.app import create_app
from cardroom.store import Conflict
from cardroom.store.due import RETRY_SECONDS, bucket_of
from cardroom.store.embedded import EmbeddedRedis, free_port
from cardroom.table import Tables
from cardroom.thinking import Thinking

from gunicorns import start_gunicorn, stop_gunicorn
from helpers import auth, create_game, join_all, view

BUDGET = 25


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory):
    """A Redis of this module's own: the suite's gunicorn servers run progression loops on
    the shared one, and would play these games too, so steps could not be counted."""
    with EmbeddedRedis(tmp_path_factory.mktemp("budget-redis")) as server:
        yield server


@pytest.fixture(scope="module")
def budget_app(own_redis):
    return create_app(
        Settings.from_env(
            redis_url=own_redis.url,
            bot_actions_per_request=BUDGET,
            bot_seconds_per_request=60.0,  # the action bound alone: deterministic counts
            rate_limit_create="off",
        )
    )


def all_bots(players: int, policy: str = "random") -> list[dict[str, object]]:
    return [{"seat": seat, "policy": policy} for seat in range(players)]


@pytest.mark.parametrize(("game_type", "players"), [("mr-toast", 4), ("exact-plays", 4)])
def test_an_all_bot_create_plays_at_most_the_budget_and_the_loop_finishes_it(
    budget_app, own_redis, game_type, players
):
    client = budget_app.test_client()
    tables = budget_app.extensions["cardroom.tables"]
    game = create_game(client, game_type, players, bots=all_bots(players), seed=11)
    assert game["status"] == "active", "a whole game was played inside the create"
    assert 1 <= game["version"] <= BUDGET
    assert tables.store.due.due_at(game["id"]) is not None, "the rest is due work"

    # No request: the progression loop alone plays the game to its end, a budget a step.
    loop = Progression(tables, share=1.0)
    version, steps = game["version"], 0
    while True:
        record, _ = stored_game(own_redis.url, game["id"])
        assert record.version - version <= BUDGET, "one step of the loop went over the budget"
        version = record.version
        if record.status == "finished":
            break
        steps += 1
        assert steps < 2_000, "the game did not finish"
        loop.run_once()
    assert steps >= 1 and tables.store.due.due_at(game["id"]) is None
    summary = client.get(f"/v1/games/{game['id']}").get_json()
    assert summary["status"] == "finished" and summary["result"]["winners"]


def test_the_next_request_continues_bot_play_within_its_own_budget(budget_app):
    client = budget_app.test_client()
    players = 4
    bots = [{"seat": seat, "policy": "greedy"} for seat in range(1, players)]
    game = create_game(client, "exact-plays", players, bots=bots, seed=3)
    tokens = join_all(client, game)
    assert list(tokens) == [0]
    joined = client.get(f"/v1/games/{game['id']}").get_json()
    played = 0
    # Every request (a view, an action) plays at most BUDGET bot actions, plus the seat's own.
    for _ in range(400):
        before = view(client, game["id"])  # a spectator's view is a request too
        if before["status"] == "finished":
            break
        if 0 in before["awaiting"]:
            mine = view(client, game["id"], tokens[0])
            answer = client.post(
                f"/v1/games/{game['id']}/actions",
                json=mine["legal_actions"][0],
                headers=auth(tokens[0]),
            )
            assert answer.status_code == 200, answer.get_json()
            assert answer.get_json()["version"] - mine["version"] <= 1 + BUDGET
            played += 1
        after = client.get(f"/v1/games/{game['id']}").get_json()
        assert after["version"] - before["version"] <= 1 + 2 * BUDGET
    else:
        pytest.fail("the game did not finish")
    assert played >= 1 and joined["version"] <= BUDGET


def test_bot_budget_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("CARDROOM_BOT_ACTIONS_PER_REQUEST", "7")
    monkeypatch.setenv("CARDROOM_BOT_SECONDS_PER_REQUEST", "0.01")
    settings = Settings.from_env()
    assert (settings.bot_actions_per_request, settings.bot_seconds_per_request) == (7, 0.01)
    monkeypatch.setenv("CARDROOM_BOT_ACTIONS_PER_REQUEST", "0")
    with pytest.raises(ValueError, match="at least 1"):
        Settings.from_env()


def test_all_bot_games_finish_with_no_request_under_gunicorn_without_double_steps(
    own_redis, budget_app, tmp_path
):
    """Two gunicorn servers (two workers each), each worker running the loop: every game
    ends with nobody polling, and each stored log replays to its state (no step twice)."""
    ports = [free_port(), free_port()]
    env = {"CARDROOM_BOT_ACTIONS_PER_REQUEST": "40", "CARDROOM_RATE_LIMIT_CREATE": "off"}
    logs = tmp_path / "servers.log"
    with logs.open("wb") as output:
        servers = [start_gunicorn(own_redis.url, port, output, **env) for port in ports]
    try:
        ids = []
        for index in range(8):
            game_type, players = [("mr-toast", 4), ("exact-plays", 4)][index % 2]
            created = requests.post(
                f"http://127.0.0.1:{ports[index % 2]}/v1/games",
                json={"game_type": game_type, "players": players, "bots": all_bots(players)},
                timeout=10,
            )
            assert created.status_code == 201
            assert created.json()["version"] <= 40
            ids.append(created.json()["id"])
        deadline = time.monotonic() + 60
        waiting: dict[str, tuple[str, int]] = {game_id: ("", 0) for game_id in ids}
        while waiting and time.monotonic() < deadline:
            for game_id in list(waiting):
                record, events = stored_game(own_redis.url, game_id)  # replays the log
                waiting[game_id] = (record.status, record.version)
                if record.status == "finished":
                    versions = [event["version"] for event in events if "actor" in event]
                    assert sorted(set(versions)) == list(range(1, record.version + 1))
                    del waiting[game_id]
            time.sleep(0.2)
        due = budget_app.extensions["cardroom.tables"].store.due
        stuck = {
            game_id: (*seen, due.due_at(game_id), time.time()) for game_id, seen in waiting.items()
        }
        assert not waiting, (
            f"{len(waiting)} all-bot games did not finish with no request "
            f"(status, version, due at, now): {stuck}; the servers' log ends: "
            f"{logs.read_text(errors='replace')[-4000:]}"
        )
    finally:
        for server in servers:
            stop_gunicorn(server)


def test_the_due_set_leases_keeps_the_earlier_time_and_releases_only_its_lease(budget_app):
    """The rules cardroom.store.due states, which turn clocks will rely on too."""
    due = budget_app.extensions["cardroom.tables"].store.due
    game_id = "dueSetTest01"
    due.schedule(game_id, 2000.0)
    due.schedule(game_id, 3000.0)
    assert due.due_at(game_id) == 2000.0, "the earlier time stays"
    bucket = bucket_of(game_id)
    assert due.claim(bucket, now=1000.0, lease=30, most=10) == [], "not due yet"
    assert (game_id, 2030.0) in due.claim(bucket, now=2000.0, lease=30, most=100)
    assert due.due_at(game_id) == 2030.0, "leased"
    assert game_id not in [g for g, _ in due.claim(bucket, now=2010.0, lease=30, most=100)]
    due.schedule(game_id, 2005.0)  # a request left work due sooner than the lease ends
    assert not due.release(game_id, 2030.0, None), "the lease is no longer the entry"
    assert due.due_at(game_id) == 2005.0
    assert (game_id, 2040.0) in due.claim(bucket, now=2010.0, lease=30, most=100)
    assert due.release(game_id, 2040.0, 5000.0) and due.due_at(game_id) == 5000.0
    leased = dict(due.claim(bucket, now=5000.0, lease=30, most=100))
    assert due.release(game_id, leased[game_id], None) and due.due_at(game_id) is None


# Due entries this old are the next tests' alone: real games are due at the Unix time now.
PAST = 1000.0


def ids_in_one_bucket(prefix: str, count: int) -> list[str]:
    """``count`` game ids whose due entries share a bucket, so one claim takes them all."""
    by_bucket: dict[int, list[str]] = {}
    for n in itertools.count():
        ids = by_bucket.setdefault(bucket_of(f"{prefix}{n:04d}"), [])
        ids.append(f"{prefix}{n:04d}")
        if len(ids) == count:
            return ids
    raise AssertionError("unreachable")


@pytest.mark.parametrize("failure", ["outage", "race", "fault"])
def test_a_step_that_fails_hands_back_the_games_claimed_with_it(budget_app, monkeypatch, failure):
    """A claim takes up to eight games for LEASE_SECONDS (30 s). When one game's step fails,
    the games claimed after it are due again at once, and the failed one RETRY_SECONDS later
    after an outage or a race lost at every attempt (a fault in code waits for its lease),
    instead of every one of them standing still for its whole lease."""
    store = budget_app.extensions["cardroom.tables"].store
    tables = Tables(store, clock=lambda: PAST)
    ids = ids_in_one_bucket(f"handBack{failure}", 3)
    injected = {
        "outage": redis.exceptions.TimeoutError("injected"),
        "race": Conflict(ids[0]),
        "fault": ValueError("injected"),
    }[failure]
    advanced: list[str] = []

    def advance(game_id: str) -> tuple[int, float | None]:
        advanced.append(game_id)
        if len(advanced) == 1:
            raise injected
        return 0, None  # nothing more is due

    monkeypatch.setattr(tables, "advance", advance)
    for game_id in ids:
        store.due.schedule(game_id, PAST)
    try:
        loop = Progression(tables, share=1.0)
        if failure == "race":
            assert loop.run_once() == 3, "a lost race ends only that game's step"
            assert [store.due.due_at(game_id) for game_id in advanced[1:]] == [None, None]
        else:
            with pytest.raises(type(injected)):
                loop.run_once()
            assert [store.due.due_at(game_id) for game_id in ids if game_id != advanced[0]] == [
                PAST,
                PAST,
            ], "the games claimed after the failed one are due again at once"
        failed_due = PAST + (LEASE_SECONDS if failure == "fault" else RETRY_SECONDS)
        assert store.due.due_at(advanced[0]) == failed_due
    finally:
        for game_id in ids:
            if (at := store.due.due_at(game_id)) is not None:
                store.due.release(game_id, at, None)


def test_a_loop_stopped_during_a_claim_hands_back_the_games_it_did_not_start(
    budget_app, monkeypatch
):
    """A loop told to stop (``Progression.stop``) leaves the rest of its claim to the other
    loops at once."""
    store = budget_app.extensions["cardroom.tables"].store
    tables = Tables(store, clock=lambda: PAST)
    loop = Progression(tables, share=1.0)
    ids = ids_in_one_bucket("handBackStop", 3)

    def advance(game_id: str) -> tuple[int, float | None]:
        loop.stop()
        return 0, None

    monkeypatch.setattr(tables, "advance", advance)
    for game_id in ids:
        store.due.schedule(game_id, PAST)
    try:
        assert loop.run_once() == 1
        assert sorted(
            store.due.due_at(game_id) for game_id in ids if store.due.due_at(game_id)
        ) == [
            PAST,
            PAST,
        ], "the two games not started are due again at once"
    finally:
        for game_id in ids:
            if (at := store.due.due_at(game_id)) is not None:
                store.due.release(game_id, at, None)


@pytest.mark.parametrize("failure", ["outage", "race"])
def test_a_thinking_turn_that_fails_waits_again_soon(budget_app, monkeypatch, failure):
    """The thinking loop leases one game at a time: after an outage or a race lost at every
    attempt the game waits again RETRY_SECONDS later, not for the rest of its lease (a
    person playing against a search bot would wait 30 s for its move)."""
    store = budget_app.extensions["cardroom.tables"].store
    tables = Tables(store, clock=lambda: PAST)
    game_id = f"thinkAgain{failure}"
    injected = (
        redis.exceptions.TimeoutError("injected") if failure == "outage" else Conflict(game_id)
    )

    def pending_thought(game: str) -> None:
        raise injected

    monkeypatch.setattr(tables, "pending_thought", pending_thought)
    store.thinking.schedule(game_id, PAST)
    thinking = Thinking(tables)
    try:
        if failure == "outage":
            with pytest.raises(redis.exceptions.TimeoutError):
                thinking.run_once()
        else:
            assert thinking.run_once() == 0
        assert store.thinking.due_at(game_id) == PAST + RETRY_SECONDS
    finally:
        thinking.stop()
        if (at := store.thinking.due_at(game_id)) is not None:
            store.thinking.release(game_id, at, None)
