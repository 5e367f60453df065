"""Shared fixtures: a real Redis on free ports (the embedded one, or a three-master Redis
Cluster from the same redis-server binary), the app, a client, a gunicorn server.

Every test that uses Redis runs against a single Redis. Tests in ALSO_ON_CLUSTER run against
the cluster too: the ``redis_backend`` fixture is parametrised for them (ids ``single`` and
``cluster``), and ``redis_server``, ``settings``, ``app``, ``client`` and ``live_server``
follow it. Both servers, and one gunicorn per server, live for the whole session.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store.connection import make_client, parse_redis_url
from cardroom.store.embedded import EmbeddedRedis, free_port
from cardroom.store.embedded_cluster import EmbeddedCluster

from gunicorns import start_gunicorn, stop_gunicorn
from plugin_venv import EXAMPLES, PluginVenv, make_plugin_venv

ROOT = Path(__file__).resolve().parent.parent
# Test files and folders (relative to the repository) whose tests run on both backends.
ALSO_ON_CLUSTER = (
    "tests/api/test_games_api.py",
    "tests/api/test_deadlines.py",
    "tests/live/",
    "tests/hardening/test_hardening_concurrency.py",
    "tests/cluster/",
)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "redis_backend" not in metafunc.fixturenames:
        return
    where = metafunc.definition.path.relative_to(ROOT).as_posix()
    if where.startswith(ALSO_ON_CLUSTER):
        # None is the single Redis: the same cache key as a test that is not parametrised,
        # so both share one server, app and gunicorn.
        metafunc.parametrize(
            "redis_backend", [None, "cluster"], ids=["single", "cluster"], indirect=True
        )


@pytest.fixture(scope="session")
def redis_backend(request: pytest.FixtureRequest) -> str:
    """``single`` or ``cluster``: the Redis this test's server uses."""
    return getattr(request, "param", None) or "single"


@pytest.fixture(scope="session")
def single_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedCluster]:
    """Three masters on free ports, the slots split in equal ranges."""
    with EmbeddedCluster(tmp_path_factory.mktemp("cluster"), masters=3) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def redis_server(
    request: pytest.FixtureRequest, redis_backend: str
) -> EmbeddedRedis | EmbeddedCluster:
    """The Redis of this test: ``.url`` is its REDIS_URL."""
    name = "redis_cluster" if redis_backend == "cluster" else "single_redis"
    return request.getfixturevalue(name)


@pytest.fixture(scope="session")
def settings(redis_server: EmbeddedRedis | EmbeddedCluster) -> Settings:
    return Settings.from_env(redis_url=redis_server.url)


@pytest.fixture(scope="session")
def app(settings: Settings):
    return create_app(settings)


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture
def redis_client(single_redis: EmbeddedRedis) -> Iterator[redis.Redis]:
    """A client over cardroom's connection pool (store/connection.py), to one Redis."""
    made = make_client(parse_redis_url(single_redis.url), pool_size=2, wait=1, socket_timeout=5)
    assert isinstance(made, redis.Redis)
    yield made
    made.close()


@pytest.fixture(scope="session")
def gunicorns() -> Iterator[dict[str, str]]:
    """One gunicorn per Redis URL, started on first use, stopped at the end: base URLs."""
    running: dict[str, tuple[subprocess.Popen[bytes], str]] = {}

    class Servers(dict):
        def __missing__(self, redis_url: str) -> str:
            port = free_port()
            running[redis_url] = (start_gunicorn(redis_url, port), f"http://127.0.0.1:{port}")
            self[redis_url] = running[redis_url][1]
            return self[redis_url]

    try:
        yield Servers()
    finally:
        for process, _ in running.values():
            stop_gunicorn(process)


@pytest.fixture(scope="session")
def live_server(redis_server: EmbeddedRedis | EmbeddedCluster, gunicorns: dict[str, str]) -> str:
    """A gunicorn server on a free port, against the test's Redis; its base URL."""
    return gunicorns[redis_server.url]


@pytest.fixture(scope="session")
def plugin_venv(tmp_path_factory: pytest.TempPathFactory) -> PluginVenv:
    """The one throwaway virtual environment the plug-in tests share (tests/plugin_venv.py):
    cardroom installed as a user installs it; a game installed there stays out of ours."""
    return make_plugin_venv(tmp_path_factory.mktemp("plugin-venv") / "venv")


@pytest.fixture(scope="session")
def example_game_server(
    plugin_venv: PluginVenv, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """`cardroom serve` from the plug-in venv with the example game installed there as a user
    installs it (``pip install ./examples/crazy-eights``): its base URL."""
    if not plugin_venv.installed("cardroom-crazy-eights"):
        plugin_venv.pip_install(EXAMPLES / "crazy-eights")
    with plugin_venv.serve(tmp_path_factory.mktemp("example-game-data"), free_port()) as base:
        yield base
