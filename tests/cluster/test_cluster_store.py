"""cardroom on a real three-master Redis Cluster (the ``redis_cluster`` fixture): creates
spread over the masters and are never orphaned, listings page exactly over the buckets,
health, rate limits, and a REDIS_URL that cannot work."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter

import pytest
import redis

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.serve.cli import GUNICORN_CONFIG
from cardroom.store import RedisURLError, buckets
from cardroom.store.connection import plain_client
from cardroom.store.embedded_cluster import EmbeddedCluster
from cardroom.store.listing import index_key

from cluster_kit import master_port_of, page_all, stored_index
from helpers import create_game, new_table

UNLIMITED = {"rate_limit_create": "off", "rate_limit_join": "off"}


@pytest.fixture(scope="module")
def cluster_app(redis_cluster):
    settings = Settings.from_env(redis_url=redis_cluster.url, **UNLIMITED)
    return create_app(settings)


@pytest.fixture()
def raw(redis_server):
    client = plain_client(redis_server.url)
    yield client
    client.close()


def test_creates_spread_over_every_master_and_each_is_indexed_with_its_game(
    cluster_app, redis_cluster
):
    client = cluster_app.test_client()
    made = [create_game(client, "mr-toast", 2)["id"] for _ in range(150)]  # all 201
    per_master = Counter(master_port_of(redis_cluster, game_id) for game_id in made)
    assert set(per_master) == set(redis_cluster.ports), per_master
    assert min(per_master.values()) >= 25, f"50 a master expected: {per_master}"
    raw = plain_client(redis_cluster.url)
    try:
        for game_id in made:
            bucket = buckets.bucket_of(game_id)
            assert bucket is not None
            assert raw.zscore(index_key(bucket), game_id) is not None, "an unlisted game"
    finally:
        raw.close()
    print(f"\ncreates per master (port: games): {dict(per_master)}")


def test_listing_pages_exactly_over_every_bucket(client, raw, redis_backend):
    for _ in range(40):
        create_game(client, "exact-plays", 2)
    truth = [game_id for game_id, _ in stored_index(raw)]
    assert len(truth) >= 40
    assert page_all(client, "", limit=9) == truth, "a page skipped, repeated or reordered"
    # A cursor keeps its place while games are created.
    first = client.get("/v1/games?limit=5").get_json()
    second = client.get(f"/v1/games?limit=5&cursor={first['next_cursor']}").get_json()
    create_game(client, "exact-plays", 2)
    again = client.get(f"/v1/games?limit=5&cursor={first['next_cursor']}").get_json()
    assert again == second
    assert [game["id"] for game in first["games"] + second["games"]] == truth[:10]


def test_cluster_clients_follow_redirections_but_never_send_a_command_again(cluster_app):
    """As with one Redis: a commit whose answer was lost may have been applied."""
    store = cluster_app.extensions["cardroom.tables"].store
    for deferred in (store.client, store.blocking_client):
        client = deferred.client  # built on first use
        assert client.retry.get_retries() == 0
        pool = client.get_redis_connection(client.get_primaries()[0]).connection_pool
        assert isinstance(pool, redis.BlockingConnectionPool)
        assert pool.max_connections == cluster_app.config["CARDROOM_SETTINGS"].redis_pool_size


def test_health_reports_the_cluster(cluster_app):
    response = cluster_app.test_client().get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "ok",
        "redis": "ok",
        "cluster": {"state": "ok", "primaries": 3, "reachable": 3},
    }


def test_rate_limits_count_across_processes_on_a_cluster(redis_cluster):
    settings = Settings.from_env(redis_url=redis_cluster.url, rate_limit_create="3/minute")
    first, second = create_app(settings), create_app(settings)
    body = {"game_type": "mr-toast", "players": 2}
    address = {"REMOTE_ADDR": "10.13.13.13"}

    def create(app):
        return app.test_client().post("/v1/games", json=body, environ_base=address)

    assert [create(first).status_code, create(second).status_code] == [201, 201]
    assert create(first).status_code == 201
    assert create(second).status_code == 429
    assert create(first).status_code == 429


def test_a_server_started_before_its_cluster_answers_503_then_serves(tmp_path):
    cluster = EmbeddedCluster(tmp_path / "late")  # ports chosen, nothing started yet
    app = create_app(Settings.from_env(redis_url=cluster.url, **UNLIMITED))
    client = app.test_client()
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["status"] == "unavailable"
    for response in (
        client.post("/v1/games", json={"game_type": "mr-toast", "players": 2}),
        client.get("/v1/games"),
        client.get("/v1/games/abcdefabcdef"),
    ):
        assert response.status_code == 503, response.get_data(as_text=True)
        assert response.get_json()["type"] == "/problems/storage-unavailable"
    with cluster:
        assert client.get("/healthz").status_code == 200
        game_id, tokens = new_table(client, "mr-toast", 2)
        assert len(tokens) == 2
        assert client.get("/v1/games?limit=1").get_json()["games"][0]["id"] == game_id
        # A primary goes away: health says so at once, and stays 200 while the others can
        # serve their games; once they mark the cluster failed (a master without a replica,
        # cluster-require-full-coverage yes), 503.
        cluster.nodes[2].process.kill()
        cluster.nodes[2].process.wait()
        health = client.get("/healthz")
        assert health.status_code == 200
        assert health.get_json()["status"] == "degraded"
        assert health.get_json()["cluster"] == {"state": "degraded", "primaries": 3, "reachable": 2}
        deadline = time.monotonic() + 20
        while client.get("/healthz").status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        health = client.get("/healthz")
        assert health.status_code == 503
        assert health.get_json()["cluster"]["state"] == "fail"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis://127.0.0.1:6379/0?cluster=true", "use redis+cluster://"),
        ("redis+cluster://127.0.0.1:7000/2", "only database 0"),
        ("redis+cluster://127.0.0.1:notaport", "not a port number"),
        ("http://127.0.0.1:6379", "unknown scheme 'http'"),
        ("rediss+cluster://user:s3cret@127.0.0.1:7000?nonsense=1", "'nonsense'"),
    ],
)
def test_a_redis_url_that_cannot_work_stops_the_server_at_start(url, says):
    with pytest.raises(RedisURLError) as refused:
        create_app(Settings.from_env(redis_url=url))
    message = str(refused.value)
    assert says in message and "\n" not in message and "s3cret" not in message


def test_gunicorn_with_a_bad_redis_url_exits_with_one_line(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "REDIS_URL": "redis://127.0.0.1:6379/0?cluster=true",
        "CARDROOM_BIND": "127.0.0.1:0",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
    }
    ran = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--config", GUNICORN_CONFIG],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode != 0
    errors = [line for line in ran.stderr.splitlines() if "cardroom:" in line]
    assert errors == [
        "cardroom: REDIS_URL has an option no connection takes: 'cluster';"
        " for a Redis Cluster use redis+cluster://host:port[,host:port…]"
    ]
    assert "Traceback" not in ran.stderr
