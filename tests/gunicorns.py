"""Gunicorn servers for the tests, as the container runs them (the shared config file).

Imported by test files as ``from gunicorns import …``: not from ``conftest``, because every
folder's ``conftest.py`` is a module called ``conftest`` and the last one loaded would win.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from typing import IO

import requests

from cardroom.serve.cli import GUNICORN_CONFIG

__all__ = ["GUNICORN_CONFIG", "start_gunicorn", "stop_gunicorn", "wait_healthy"]


def start_gunicorn(
    redis_url: str, port: int, output: IO[bytes] | None = None, **env_extra: str
) -> subprocess.Popen[bytes]:
    """The server as the container runs it: gunicorn with the shared config (its stdout and
    stderr to ``output`` if given, for a test that reads the server's logs)."""
    env = dict(os.environ)
    env.update(
        REDIS_URL=redis_url,
        CARDROOM_BIND=f"127.0.0.1:{port}",
        CARDROOM_WORKERS="2",
        CARDROOM_LOG_LEVEL="warning",
    )
    env.update(env_extra)
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", GUNICORN_CONFIG],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=output,
        stderr=output,
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


def stop_gunicorn(process: subprocess.Popen[bytes]) -> None:
    """Stop at once, workers included: open event streams would hold a graceful stop."""
    process.send_signal(signal.SIGQUIT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # any worker still serving a stream
    if process.poll() is None:
        process.wait()
