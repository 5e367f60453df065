"""The change feed (cardroom.store.changes): one pattern subscription per process, fanned out
to every waiter of the game written; a lost subscription wakes every waiter and is made
again; followers read the process's snapshot of a game instead of loading it each."""

from __future__ import annotations

import random
import threading
import time

import pytest
import redis

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store import GameRecord
from cardroom.store.changes import game_of
from cardroom.store.record import game_key
from cardroom.store.writes import written_after

from helpers import auth, new_table, view

WAIT = 5.0


@pytest.fixture()
def app(settings: Settings):
    """A process of its own: a feed no other test's waiters use."""
    return create_app(settings)


@pytest.fixture()
def raw(redis_server):
    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()


def calls(raw: redis.Redis, command: str) -> int:
    return raw.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0)


def test_the_channel_names_its_game():
    assert game_of("cardroom:game:{AbC123}:changed") == "AbC123"
    assert game_of("cardroom:other:{AbC123}:changed") is None


def test_every_waiter_of_a_game_is_woken_by_one_write_and_no_other_game_wakes_them(app):
    client = app.test_client()
    tables = app.extensions["cardroom.tables"]
    store = tables.store
    game_id, _ = new_table(client, "mr-toast", 2)
    other_id, _ = new_table(client, "mr-toast", 2)
    assert store.changes.live(WAIT)
    with store.watch(game_id) as first, store.watch(game_id) as second:
        record = store.load(other_id).record
        record.updated_at += 1
        store.commit(record)
        assert not first.wait(0.3) and not second.wait(0)  # another game: nobody woken
        record = store.load(game_id).record
        record.updated_at += 1
        store.commit(record)
        assert first.wait(WAIT) and second.wait(WAIT)
        assert first.heard == second.heard == record.rev


def test_one_subscription_serves_every_waiter_of_a_process(app, raw):
    client = app.test_client()
    store = app.extensions["cardroom.tables"].store
    game_id, _ = new_table(client, "mr-toast", 2)
    before = len(raw.client_list(_type="pubsub"))
    woken: list[bool] = []
    waiters = [
        threading.Thread(
            target=lambda: woken.append(store.wait_for_change(game_id, 10**9, 0.5)), daemon=True
        )
        for _ in range(50)
    ]
    for waiter in waiters:
        waiter.start()
    time.sleep(0.2)
    assert len(raw.client_list(_type="pubsub")) - before <= 1  # the feed's one connection
    for waiter in waiters:
        waiter.join(WAIT)
    assert len(woken) == 50 and all(woken)  # rev 10**9 is not the game's: changed at once


def test_a_lost_subscription_wakes_every_waiter_and_is_made_again(app, raw):
    client = app.test_client()
    store = app.extensions["cardroom.tables"].store
    game_id, _ = new_table(client, "mr-toast", 2)
    assert store.changes.live(WAIT)
    with store.watch(game_id) as watch:
        killed = raw.client_kill_filter(_type="pubsub")
        assert killed >= 1
        assert watch.wait(WAIT) and watch.heard is None  # may have missed a write: look again
        assert store.changes.live(WAIT)  # subscribed again (and every waiter woken once more)
        watch.wait(0)
        watch.heard = 0
        record = store.load(game_id).record
        record.updated_at += 1
        store.commit(record)
        assert watch.wait(WAIT) and watch.heard == record.rev


def test_followers_read_one_snapshot_of_the_game_as_written(app):
    client = app.test_client()
    store = app.extensions["cardroom.tables"].store
    game_id, _ = new_table(client, "mr-toast", 2)
    record = store.load(game_id).record
    record.updated_at += 1
    store.commit(record, final=True)
    # The committed record itself: no load, no decoding, the same object for every reader.
    assert store.snapshot(game_id, record.rev) is record
    assert store.snapshot(game_id, record.rev) is store.snapshot(game_id, record.rev)
    # A newer revision heard of than the one kept: loaded (once), then shared.
    newer = store.load(game_id).record
    newer.updated_at += 1
    store.commit(newer)  # written as another process would: this one keeps only its hash
    shared = store.snapshot(game_id, newer.rev + 1)
    assert shared.rev == newer.rev and shared is not record
    assert store.snapshot(game_id, newer.rev) is shared


def test_a_lost_subscription_nobody_waits_for_ends_the_feed_quietly_until_someone_waits(
    app, raw, caplog
):
    """A process whose Redis is gone and whom nobody asks does not retry, and log, for ever;
    the next waiter subscribes again."""
    feed = app.extensions["cardroom.tables"].store.changes
    assert feed.live(WAIT)
    thread = feed._thread
    with caplog.at_level("DEBUG", logger="cardroom.changes"):
        assert raw.client_kill_filter(_type="pubsub") >= 1
        thread.join(WAIT)
    assert not thread.is_alive()
    assert not [r for r in caplog.records if r.levelname == "WARNING"], caplog.text
    game_id, _ = new_table(app.test_client(), "mr-toast", 2)
    with feed.watch(game_id) as watch:
        assert feed.live(WAIT)  # subscribed again (its waiters woken once: look again)
        watch.wait(0)
        watch.heard = 0
        store = app.extensions["cardroom.tables"].store
        record = store.load(game_id).record
        record.updated_at += 1
        store.commit(record)
        assert watch.wait(WAIT) and watch.heard == record.rev


def test_a_follower_woken_before_this_process_has_its_commits_answer_reads_that_commit(app, raw):
    """The change a commit publishes may reach this process's followers before the commit's
    answer reaches its writer: a follower then waits for the answer and reads the game as
    this process wrote it, instead of loading it (Redis is held still here, so the answer
    comes after the follower asks)."""
    client = app.test_client()
    store = app.extensions["cardroom.tables"].store
    game_id, _ = new_table(client, "mr-toast", 2)
    record = store.load(game_id).record
    record.updated_at += 1
    heard = record.rev + 1  # what the commit's change says
    loads = raw.info("commandstats").get("cmdstat_hgetall", {}).get("calls", 0)
    stall = threading.Thread(target=lambda: raw.execute_command("DEBUG", "SLEEP", "0.4"))
    stall.start()
    time.sleep(0.1)
    writer = threading.Thread(target=lambda: store.commit(record, final=True))
    writer.start()
    time.sleep(0.1)  # the commit is sent; Redis answers it when the stall ends
    read = store.snapshot(game_id, heard)
    writer.join(WAIT)
    stall.join(WAIT)
    assert read is record, "the committed record itself"
    assert raw.info("commandstats").get("cmdstat_hgetall", {}).get("calls", 0) == loads


def test_a_process_that_kept_a_game_keeps_it_as_another_process_writes_it(
    app, settings, raw, monkeypatch
):
    """A change carries the write (store/writes.py, ``written_after``): a process that kept
    the game before it keeps it after, byte for byte as stored, without loading it, through
    joins (token fields), actions and the log's sealing every 16 entries."""
    writer = create_app(settings).test_client()
    store = app.extensions["cardroom.tables"].store
    game = writer.post("/v1/games", json={"game_type": "mr-toast", "players": 4, "seed": 3})
    game_id = game.get_json()["id"]
    store.load(game_id)
    loads: list[str] = []
    load = store.load
    monkeypatch.setattr(store, "load", lambda game, *rest: loads.append(game) or load(game, *rest))
    with store.watch(game_id) as watch:
        assert store.changes.live(WAIT)
        watch.wait(0)  # the wake a new subscription gives every waiter ("look again")
        watch.heard = 0
        tokens = {}
        for seat in range(4):
            joined = writer.post(f"/v1/games/{game_id}/join", json={"name": f"p{seat}"})
            tokens[joined.get_json()["seat"]] = joined.get_json()["token"]
            assert watch.wait(WAIT)
            assert store.recent.get(game_id) == raw.hgetall(game_key(game_id))
        choices = random.Random(3)
        for _ in range(40):
            seat = view(writer, game_id)["awaiting"][0]
            action = choices.choice(view(writer, game_id, tokens[seat])["legal_actions"])
            answer = writer.post(
                f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
            )
            assert answer.status_code == 200, answer.get_json()
            assert watch.wait(WAIT)
            stored = raw.hgetall(game_key(game_id))
            assert store.recent.get(game_id) == stored
            assert store.snapshot(game_id, watch.heard) == GameRecord.from_hash(game_id, stored)
    assert stored.get(b"log"), "the log was sealed on the way"
    assert loads == [], "never loaded"


def test_a_change_that_does_not_follow_the_kept_write_leaves_the_kept_game_alone():
    kept = {b"rev": b"4", b"w": b"aa", b"rec": b"{}", b"tail": b"[1]", b"t0": b"h0"}
    after = b'5 bb aa t1 h1 tail\n{"x":1}\n[2]\n[3]'
    assert written_after(kept, after) == {
        **kept,
        b"rev": b"5",
        b"w": b"bb",
        b"rec": b'{"x":1}',
        b"tail": b"[1]\n[2]\n[3]",
        b"t1": b"h1",
    }
    sealed = written_after(kept, b'5 bb aa - - sealed\n{"x":1}\nx\x9c\n\x00')
    assert sealed == {
        **kept,
        b"rev": b"5",
        b"w": b"bb",
        b"rec": b'{"x":1}',
        b"log": b"x\x9c\n\x00",
        b"tail": b"",
    }
    assert written_after(kept, b"5 bb") is None, "an earlier release's change: rev and id only"
    assert written_after(kept, b'5 bb zz - - tail\n{"x":1}\n') is None, "after another write"
    assert written_after(kept, b'6 bb aa - - tail\n{"x":1}\n') is None, "a write was missed"
    unwritten = {b"rev": b"1", b"rec": b"{}"}  # a game written before write ids were
    assert written_after(unwritten, b'2 bb - - - tail\n{"y":2}\n') == {
        b"rev": b"2",
        b"w": b"bb",
        b"rec": b'{"y":2}',
    }
