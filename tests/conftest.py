"""Shared fixtures: a real Redis server (the embedded one) on a free port, the app, a client."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from cardroom.app import create_app
from cardroom.cli import GUNICORN_CONFIG
from cardroom.config import Settings
from cardroom.store.embedded import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture(scope="session")
def settings(redis_server: EmbeddedRedis) -> Settings:
    return Settings.from_env(redis_url=redis_server.url)


@pytest.fixture(scope="session")
def app(settings: Settings):
    return create_app(settings)


@pytest.fixture()
def client(app):
    return app.test_client()


def start_gunicorn(redis_url: str, port: int, **env_extra: str) -> subprocess.Popen[bytes]:
    """The server as the container runs it: gunicorn with the shared config."""
    env = dict(os.environ)
    env.update(
        REDIS_URL=redis_url,
        CARDROOM_BIND=f"127.0.0.1:{port}",
        CARDROOM_WORKERS="2",
        CARDROOM_LOG_LEVEL="warning",
        **env_extra,
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", GUNICORN_CONFIG],
        env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, so stop_gunicorn can end the workers
    )
    wait_healthy(f"http://127.0.0.1:{port}", process)
    return process


def wait_healthy(base_url: str, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            if requests.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    process.terminate()
    raise RuntimeError("server did not become healthy")


@pytest.fixture(scope="session")
def live_server(redis_server: EmbeddedRedis) -> Iterator[str]:
    """A gunicorn server on a free port, against the test Redis; yields its base URL."""
    port = free_port()
    process = start_gunicorn(redis_server.url, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_gunicorn(process)


def stop_gunicorn(process: subprocess.Popen[bytes]) -> None:
    """Stop at once, workers included: open event streams would hold a graceful stop."""
    process.send_signal(signal.SIGQUIT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # any worker still serving a stream
    if process.poll() is None:
        process.wait()
