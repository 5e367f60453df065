"""Finding 8: operations (docs/operations.md): the embedded Redis's socket, its durability
setting, backups true for the Redis that ships (6.2), the health check's port, pinned
dependencies for the image.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import redis
import requests
from packaging.requirements import Requirement
from packaging.version import Version

from cardroom.serve.cli import build_parser
from cardroom.store.embedded import AOF_NAME, EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parents[2]


def test_the_served_embedded_redis_listens_on_a_private_socket_only(tmp_path):
    with EmbeddedRedis(tmp_path / "data", unix_socket=True) as server:
        assert server.url.startswith("unix://") and server.socket_path is not None
        mode = server.socket_path.stat().st_mode
        assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) & 0o077 == 0, oct(mode)
        client = redis.Redis.from_url(server.url)
        assert client.config_get("port") == {"port": "0"}, "no TCP port"
        client.close()


def test_a_data_dir_too_long_for_a_socket_gets_a_password(tmp_path):
    with EmbeddedRedis(tmp_path / ("d" * 120), unix_socket=True) as server:
        assert server.password and server.url.startswith("redis://:")
        anonymous = redis.Redis(port=server.port, socket_timeout=2)
        with pytest.raises(redis.exceptions.AuthenticationError):
            anonymous.ping()
        assert redis.Redis.from_url(server.url).ping()


def test_appendfsync_always_is_a_setting_of_serve(tmp_path):
    args = build_parser().parse_args(["serve", "--appendfsync", "always"])
    assert args.appendfsync == "always"
    assert build_parser().parse_args(["serve"]).appendfsync == "everysec"
    assert build_parser().parse_args(["serve"]).redis_maxmemory == "512mb"
    with EmbeddedRedis(tmp_path / "data", appendfsync="always", maxmemory="64mb") as server:
        client = redis.Redis.from_url(server.url)
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}


def test_the_backup_instructions_hold_for_redis_6_2(tmp_path):
    """docs/operations.md, "Backups": copy appendonly.aof while the server runs; a server
    started on a folder holding the copy has every game."""
    data = tmp_path / "data"
    with EmbeddedRedis(data, unix_socket=True) as server:
        store = redis.Redis.from_url(server.url)
        assert store.info("server")["redis_version"].startswith("6.2.")
        for index in range(50):
            store.hset(f"cardroom:game:{{g{index}}}", mapping={"rev": 1, "rec": "x" * 100})
        store.execute_command("BGREWRITEAOF")
        for index in range(50, 60):  # appended after the rewrite
            store.hset(f"cardroom:game:{{g{index}}}", mapping={"rev": 1, "rec": "y"})
        assert not (data / "appendonlydir").exists(), "Redis 6.2 writes one file"
        backup = tmp_path / "backup"
        backup.mkdir()
        shutil.copy2(data / AOF_NAME, backup / AOF_NAME)  # while it runs
        store.close()
    with EmbeddedRedis(backup, unix_socket=True) as restored:
        store = redis.Redis.from_url(restored.url)
        assert len(list(store.scan_iter("cardroom:game:*"))) == 60
        store.close()


def test_the_health_check_takes_its_port_from_cardroom_bind(live_server):
    port = live_server.rsplit(":", 1)[1]
    command = [sys.executable, "-m", "cardroom.serve.cli", "healthcheck"]
    healthy = subprocess.run(
        command, env={**os.environ, "CARDROOM_BIND": f"0.0.0.0:{port}"}, timeout=30, check=False
    )
    assert healthy.returncode == 0
    nobody = subprocess.run(
        command,
        env={**os.environ, "CARDROOM_BIND": f"0.0.0.0:{free_port()}"},
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert nobody.returncode == 1 and b"unhealthy" in nobody.stderr
    assert requests.get(f"{live_server}/healthz", timeout=5).status_code == 200
    dockerfile = (ROOT / "Dockerfile").read_text()
    check = dockerfile[dockerfile.index("HEALTHCHECK") :].split("\nCMD")[0]
    assert '"cardroom", "healthcheck"' in check and "8000" not in check


def test_the_image_installs_exactly_pinned_dependencies():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "--constraint image-constraints.txt" in dockerfile
    assert "image-constraints.txt" in dockerfile.split("RUN pip")[0], "copied before install"
    pins = {}
    for line in (ROOT / "image-constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[re.sub(r"[-_.]+", "-", name).lower()] = Version(version)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for dependency in project["dependencies"]:
        requirement = Requirement(dependency)
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        assert name in pins, f"{name} is not pinned in image-constraints.txt"
        assert requirement.specifier.contains(pins[name]), f"{name} {pins[name]} is not allowed"
    assert os.access(ROOT / "scripts" / "lock-image-deps", os.X_OK)
