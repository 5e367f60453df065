"""The processes a benchmark run starts: an embedded Redis (and, for the scale-out loads, a
Redis Cluster of the same binary) and gunicorn (production config).

Also CPU accounting for process trees, from /proc (Linux), so each figure can say who used
the machine's cores while it was measured.
"""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cardroom.cli import GUNICORN_CONFIG
from cardroom.store.embedded import EmbeddedRedis, free_port
from cardroom.store.embedded_cluster import EmbeddedCluster

ROOT = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def start_redis(data_dir: str | os.PathLike[str]) -> EmbeddedRedis:
    """The embedded Redis exactly as `cardroom serve` runs it (append-only file, everysec)."""
    return EmbeddedRedis(data_dir).start()


def start_cluster(data_dir: str | os.PathLike[str]) -> EmbeddedCluster:
    """Three masters of the same redis-server, each as the embedded Redis runs (append-only
    file, fsync every second)."""
    return EmbeddedCluster(data_dir, masters=3, appendonly=True).start()


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    app: str

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_gunicorn(
    redis_url: str,
    app: str | None = None,
    log_path: Path | None = None,
    python: str | None = None,
    **env_extra: str,
) -> Server:
    """gunicorn with cardroom's config file; ``app`` overrides only the WSGI app.

    Only REDIS_URL and CARDROOM_BIND are set (plus ``env_extra``, for experiments): every
    other setting, logging included, is the production default. Its output goes to
    ``log_path``. ``python``: the interpreter to run it (default: this one), one with cardroom
    installed.
    """
    port = free_port()
    env = dict(os.environ)
    env.update(REDIS_URL=redis_url, CARDROOM_BIND=f"127.0.0.1:{port}", **env_extra)
    command = [python or sys.executable, "-m", "gunicorn", "--config", GUNICORN_CONFIG]
    if app:
        command.append(app)
    stderr = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        command, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr
    )
    server = Server(process, port, app or "cardroom.app:create_app()")
    try:
        wait_healthy(port, process)
    except BaseException:
        server.stop()
        raise
    return server


def wait_healthy(port: int, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            status = conn.getresponse().status
            conn.close()
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("gunicorn did not become healthy in time")


# --- CPU accounting -------------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, user+system CPU seconds) of one process, or None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def tree_cpu(root_pid: int) -> float:
    """CPU seconds used so far by a process and all its living descendants."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _stat(int(entry))
            if found is not None:
                parents[int(entry)], cpu[int(entry)] = found
    total = 0.0
    for pid in cpu:
        walk = pid
        while walk and walk != root_pid:
            walk = parents.get(walk, 0)
        if walk == root_pid:
            total += cpu[pid]
    return total


def machine_busy() -> float:
    """CPU seconds all cores spent busy (not idle, not waiting for I/O) since boot."""
    with open("/proc/stat") as handle:
        ticks = [int(value) for value in handle.readline().split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / CLOCK_TICKS


class CpuMeter:
    """CPU seconds of named process trees, and of the whole machine ("machine"), between
    start() and stop()."""

    def __init__(self, roots: dict[str, int]):
        self.roots = roots
        self.before: dict[str, float] = {}
        self.used: dict[str, float] = {}

    def _sample(self) -> dict[str, float]:
        sample = {name: tree_cpu(pid) for name, pid in self.roots.items()}
        sample["machine"] = machine_busy()
        return sample

    def start(self) -> None:
        self.before = self._sample()

    def stop(self) -> dict[str, float]:
        after = self._sample()
        self.used = {name: max(0.0, after[name] - self.before[name]) for name in after}
        return self.used
