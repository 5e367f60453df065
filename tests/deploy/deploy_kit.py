"""Shared by the deploy tests: the shipped nginx config, run as a process on free ports."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = ROOT / "deploy"
NGINX_CONF = DEPLOY / "nginx" / "cardroom.conf"
# The two lines of the shipped file that name the compose network: the API service and the
# port nginx listens on inside its container.
UPSTREAM_LINE = "server api:8000 max_fails=3 fail_timeout=10s;"
LISTEN_LINE = "listen 8080;"


def nginx_binary() -> str:
    """nginx, or a skip that says how to get it (a failure where CARDROOM_REQUIRE_NGINX=1)."""
    found = shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(path).exists()),
        None,
    )
    if found is None:
        message = "nginx is not installed: apt-get install -y nginx (Debian), then run again"
        if os.environ.get("CARDROOM_REQUIRE_NGINX") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


def shipped_config(api_port: int, listen_port: int) -> str:
    """deploy/nginx/cardroom.conf with only its upstream and listen addresses changed."""
    text = NGINX_CONF.read_text()
    for line in (UPSTREAM_LINE, LISTEN_LINE):
        assert text.count(line) == 1, f"{NGINX_CONF} no longer has {line!r} once"
    text = text.replace(UPSTREAM_LINE, f"server 127.0.0.1:{api_port} max_fails=3 fail_timeout=10s;")
    return text.replace(LISTEN_LINE, f"listen 127.0.0.1:{listen_port};")


def main_config(folder: Path, included: Path) -> Path:
    """A minimal nginx.conf (as the official image's, with every path in ``folder``) that
    includes the server config in its http block, as the image includes conf.d/*.conf."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers can use the temp folders
    paths = "\n".join(
        f"    {name}_temp_path {folder / name};"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = folder / "nginx.conf"
    conf.write_text(
        f"{user}worker_processes 1;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} warn;\n"
        "events { worker_connections 1024; }\n"
        f"http {{\n    access_log {folder / 'access.log'};\n{paths}\n"
        f"    include {included};\n}}\n"
    )
    return conf


def write_configs(folder: Path, api_port: int, listen_port: int) -> Path:
    included = folder / "cardroom.conf"
    included.write_text(shipped_config(api_port, listen_port))
    return main_config(folder, included)


def start_nginx(folder: Path, api_port: int, listen_port: int) -> subprocess.Popen[bytes]:
    conf = write_configs(folder, api_port, listen_port)
    process = subprocess.Popen(
        [nginx_binary(), "-c", str(conf), "-e", str(folder / "error.log"), "-g", "daemon off;"],
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"nginx exited: {(folder / 'error.log').read_text()}")
        try:
            socket.create_connection(("127.0.0.1", listen_port), timeout=0.5).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("nginx did not listen in time")


def stop_nginx(process: subprocess.Popen[bytes]) -> None:
    process.terminate()  # a fast shutdown: the master stops its worker
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
