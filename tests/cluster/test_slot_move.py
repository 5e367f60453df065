"""A slot holding live games moves to another master while clients play (SETSLOT IMPORTING
and MIGRATING, MIGRATE a few keys at a time, SETSLOT NODE: what ``redis-cli --cluster
reshard`` does). Afterwards every action a client was told was accepted is in its game
exactly once, and nothing else is (hardening_kit.replay_matches replays each game from its
seed with exactly the acknowledged actions)."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
import requests

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store import buckets
from cardroom.store.connection import plain_client
from cardroom.store.embedded import free_port
from cardroom.store.embedded_cluster import EmbeddedCluster
from cardroom.store.listing import index_key
from cardroom.table import seating

from cluster_kit import Accepted, replay_matches
from gunicorns import start_gunicorn, stop_gunicorn
from helpers import create_game, join_all

GAMES = 8
TIMEOUT = 10


@dataclass
class Table:
    """One game and what its client was told."""

    game_id: str
    tokens: dict[int, str]
    keyed: bool  # actions sent with an Idempotency-Key (retried on 503) or without
    acknowledged: list[Accepted] = field(default_factory=list)
    acknowledged_at: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)


@pytest.fixture()
def cluster(tmp_path):
    with EmbeddedCluster(tmp_path / "cluster") as started:
        yield started


def play(base: str, table: Table, stop: threading.Event, seed: int) -> None:
    """Random legal actions until ``stop``. A keyed action answered 503 is sent again with
    its key until it is answered; an unkeyed one would have an unknown outcome (none must
    get a 503: one key, so a moving slot only redirects it with ASK)."""
    rng = random.Random(seed)
    session = requests.Session()
    url = f"{base}/v1/games/{table.game_id}"
    sent = 0
    while not stop.is_set():
        public = session.get(f"{url}/view", timeout=TIMEOUT).json()
        if public["status"] == "finished":
            return
        seat = rng.choice(public["to_act"])
        auth = {"Authorization": f"Bearer {table.tokens[seat]}"}
        mine = session.get(f"{url}/view", headers=auth, timeout=TIMEOUT).json()
        if not mine["legal_actions"]:
            continue
        action = rng.choice(mine["legal_actions"])
        sent += 1
        headers = {**auth, "Idempotency-Key": f"a{sent}"} if table.keyed else auth
        for _ in range(200):
            answer = session.post(f"{url}/actions", json=action, headers=headers, timeout=TIMEOUT)
            table.statuses[answer.status_code] += 1
            if answer.status_code != 503 or not table.keyed:
                break
            time.sleep(0.05)
        if answer.status_code == 200:
            table.acknowledged.append(Accepted(seat, action, answer.json()["version"]))
            table.acknowledged_at.append(time.monotonic())


def test_moving_a_slot_of_live_games_loses_and_doubles_no_acknowledged_action(cluster, monkeypatch):
    settings = Settings.from_env(
        redis_url=cluster.url, rate_limit_create="off", rate_limit_join="off"
    )
    setup = create_app(settings).test_client()
    bucket = 5
    slot = buckets.bucket_slot(bucket)
    source = cluster.node_of_slot(slot)
    target = next(node for node in cluster.primaries if node is not source)
    # Every game of the test in one bucket, so in the slot that moves.
    monkeypatch.setattr(seating, "new_game_id", lambda: buckets.new_game_id(bucket))
    tables = []
    for index in range(GAMES):
        game = create_game(setup, "mr-toast", 3)
        assert buckets.bucket_of(game["id"]) == bucket
        tables.append(Table(game["id"], join_all(setup, game), keyed=index % 2 == 0))

    port = free_port()
    server = start_gunicorn(cluster.url, port)
    base = f"http://127.0.0.1:{port}"
    stop = threading.Event()
    players = [
        threading.Thread(target=play, args=(base, table, stop, seed))
        for seed, table in enumerate(tables)
    ]
    created_during_move: list[str] = []

    def create_in_the_moving_bucket() -> None:
        # The first id of each is in the moving bucket: TRYAGAIN, so made in another one.
        while not stop.is_set() and len(created_during_move) < 5:
            created_during_move.append(create_game(setup, "mr-toast", 2)["id"])

    try:
        for player in players:
            player.start()
        time.sleep(1.0)
        move_started = time.monotonic()
        creator = threading.Thread(target=create_in_the_moving_bucket)
        moved_keys = cluster.move_slot(slot, target, batch=2, pause=0.05, on_open=creator.start)
        move_ended = time.monotonic()
        creator.join(timeout=30)
        time.sleep(1.0)
    finally:
        stop.set()
        for player in players:
            player.join(timeout=60)
        stop_gunicorn(server)

    assert cluster.node_of_slot(slot) is target
    source_client = source.client()
    try:
        assert source_client.execute_command("CLUSTER COUNTKEYSINSLOT", slot) == 0
    finally:
        source_client.close()
    assert moved_keys >= GAMES + 1, "the games and their index moved"

    acknowledged = found = 0
    statuses: Counter[int] = Counter()
    for table in tables:
        record = replay_matches(cluster.url, table.game_id, table.acknowledged)
        acknowledged += len(table.acknowledged)
        found += record.version
        statuses += table.statuses
        if not table.keyed:
            assert 503 not in table.statuses, "an unkeyed action got 503: outcome unknown"
    during = sum(
        move_started <= at <= move_ended for table in tables for at in table.acknowledged_at
    )
    after = sum(at > move_ended for table in tables for at in table.acknowledged_at)
    assert acknowledged == found
    assert during > 0 and after > 0, "the clients did not play through the move"

    # Creates aimed at the moving bucket were all made, elsewhere, and each is listed.
    assert len(created_during_move) == 5
    raw = plain_client(cluster.url)
    try:
        for game_id in created_during_move:
            elsewhere = buckets.bucket_of(game_id)
            assert elsewhere is not None and elsewhere != bucket
            assert raw.zscore(index_key(elsewhere), game_id) is not None
    finally:
        raw.close()
    print(
        f"\nslot {slot} ({moved_keys} keys) moved in {move_ended - move_started:.1f} s:"
        f" {acknowledged} actions acknowledged, {found} found, {during} acknowledged during"
        f" the move; answers {dict(statuses)}"
    )
