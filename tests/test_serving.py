"""The server as operators run it: gunicorn with the shared config, `cardroom serve`, Docker."""

from __future__ import annotations

import dataclasses
import gc
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import requests

from cardroom import progress
from cardroom.serve import gunicorn_conf
from cardroom.serve.app import create_app
from cardroom.store.embedded import free_port

from gunicorns import wait_healthy

ROOT = Path(__file__).resolve().parent.parent


def test_gunicorn_serves_the_api_as_the_image_does(live_server):
    """`live_server` is gunicorn started with the image's config
    (python:cardroom.serve.gunicorn_conf)."""
    assert requests.get(f"{live_server}/healthz", timeout=5).json() == {
        "status": "ok",
        "redis": "ok",
    }
    created = requests.post(
        f"{live_server}/v1/games", json={"game_type": "mr-toast", "players": 2}, timeout=5
    )
    assert created.status_code == 201
    assert requests.get(f"{live_server}/docs", timeout=5).status_code == 200


def test_a_worker_freezes_what_it_made_at_start_and_collects_young_objects_less_often():
    """docs/operations.md, "Garbage collection": the worker's start-up objects are out of
    the collector's sight, and its youngest generation is collected every
    GC_YOUNG_THRESHOLD new objects."""
    before = gc.get_threshold()
    worker = SimpleNamespace(wsgi=object())  # an app without cardroom settings: no loop
    try:
        gunicorn_conf.post_worker_init(worker)
        assert gc.get_freeze_count() > 1000
        assert gc.get_threshold() == (gunicorn_conf.GC_YOUNG_THRESHOLD, *before[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_a_leaving_worker_stops_its_progression_loop(settings):
    """docs/operations.md, "Bot play": gunicorn's worker_exit stops the worker's loop, which
    then hands back the due games it claimed and did not start
    (tests/hardening/test_hardening_budget.py), instead of leaving them to their lease."""
    app = create_app(dataclasses.replace(settings, progression=True))
    before = set(threading.enumerate())
    assert progress.start_for_app(app) is not None
    (loop,) = [thread for thread in set(threading.enumerate()) - before if thread.is_alive()]
    assert loop.name == "cardroom-progress"
    gunicorn_conf.worker_exit(None, SimpleNamespace(wsgi=app))
    assert not loop.is_alive(), "the loop has ended"


def test_dockerfile_uses_the_shared_config_and_passes_hadolint():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert '"--config", "python:cardroom.serve.gunicorn_conf"' in dockerfile
    assert "HEALTHCHECK" in dockerfile and "\nUSER " in dockerfile
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    result = subprocess.run(
        [hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_cardroom_serve_runs_on_an_embedded_redis_and_keeps_games_across_restarts(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    command = [
        sys.executable, "-m", "cardroom.serve.cli", "serve",
        "--port", str(port), "--data-dir", str(tmp_path / "data"), "--workers", "1",
    ]  # fmt: skip

    def start() -> subprocess.Popen[bytes]:
        process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL)
        wait_healthy(base, process)
        return process

    def stop(process: subprocess.Popen[bytes]) -> None:
        process.terminate()
        assert process.wait(timeout=30) is not None

    server = start()
    try:
        game = requests.post(
            f"{base}/v1/games", json={"game_type": "exact-plays", "players": 2}, timeout=5
        ).json()
        join = requests.post(f"{base}/v1/games/{game['id']}/join", json={"name": "a"}, timeout=5)
        token = join.json()["token"]
    finally:
        stop(server)
    assert (tmp_path / "data" / "appendonlydir").exists() or list(
        (tmp_path / "data").glob("*.aof")
    ), "the embedded Redis writes an append-only file"
    server = start()
    try:
        summary = requests.get(f"{base}/v1/games/{game['id']}", timeout=5).json()
        assert summary["seats"][0]["taken"] is True
        view = requests.get(
            f"{base}/v1/games/{game['id']}/view",
            headers={"Authorization": f"Bearer {token}"},
            timeout=5,
        )
        assert view.status_code == 200 and view.json()["you"]["seat"] == 0
    finally:
        stop(server)
