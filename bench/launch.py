"""Every process a benchmark starts, and the CPU each one uses.

- Redis: the embedded ``redis-server`` exactly as ``cardroom serve`` runs it (append-only
  file, fsync every second), or a Redis Cluster of the same binary;
- gunicorn with cardroom's production config file, serving cardroom or another WSGI app
  (the floors: ``HTTP_FLOOR``, ``SOCKET_FLOOR``), optionally under a wrapper (valgrind);
- boardgame.io's Node server (bench.peer), after ``npm ci`` of its pinned packages;
- CPU time of process trees from /proc (Linux), reaped children included (a Redis's
  append-only-file rewrite is a child), and of the whole machine; instruction counts of a
  process under callgrind.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cardroom.serve.cli import GUNICORN_CONFIG
from cardroom.store.embedded import EmbeddedRedis, free_port
from cardroom.store.embedded_cluster import EmbeddedCluster

ROOT = Path(__file__).resolve().parent.parent
PEER_DIR = ROOT / "bench" / "peer"
NODE_MODULES = PEER_DIR / "node_modules"
MIN_NODE_MAJOR = 18
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CARDROOM_APP = "cardroom.serve.app:create_app()"
# The least an action could cost on this stack (docs/benchmarks.md, "Targets") and the least
# a move could cost on the game socket (bench/peer/README.md, "The floor").
HTTP_FLOOR = "bench.floor_app:create_app()"
SOCKET_FLOOR = "bench.peer.floor_app:create_app()"


def embedded_redis(
    data_dir: str | os.PathLike[str], appendfsync: str = "everysec"
) -> EmbeddedRedis:
    """The embedded Redis as ``cardroom serve`` runs it (append-only file, ``everysec``), not
    started yet: ``with embedded_redis(...) as server`` or ``start_redis``."""
    return EmbeddedRedis(data_dir, appendfsync=appendfsync)


def start_redis(data_dir: str | os.PathLike[str], appendfsync: str = "everysec") -> EmbeddedRedis:
    return embedded_redis(data_dir, appendfsync).start()


def embedded_cluster(
    data_dir: str | os.PathLike[str], masters: int = 3, appendonly: bool = True
) -> EmbeddedCluster:
    """``masters`` masters of the same redis-server, each with an append-only file (fsync
    every second) unless ``appendonly`` is false; not started yet."""
    return EmbeddedCluster(data_dir, masters=masters, appendonly=appendonly)


def start_cluster(
    data_dir: str | os.PathLike[str], masters: int = 3, appendonly: bool = True
) -> EmbeddedCluster:
    return embedded_cluster(data_dir, masters, appendonly).start()


@dataclass
class Server:
    """A server process listening on ``port``."""

    process: subprocess.Popen[bytes]
    port: int
    name: str
    log_path: Path | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self, timeout: float = 30) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _start(
    command: list[str],
    name: str,
    port: int,
    env: dict[str, str],
    cwd: Path,
    log_path: Path | None,
    ready_path: str,
    timeout: float,
) -> Server:
    output = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=output, stderr=output
    )
    if log_path:
        output.close()  # the child keeps its own
    server = Server(process, port, name, log_path)
    try:
        wait_answers(port, process, ready_path, timeout)
    except BaseException:
        server.stop()
        raise
    return server


def wait_answers(
    port: int, process: subprocess.Popen[bytes], path: str = "/healthz", timeout: float = 30
) -> None:
    """Until ``GET path`` answers 200 (raises if the process exits or time runs out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            status = conn.getresponse().status
            conn.close()
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{process.args!r} did not answer GET {path} in {timeout:.0f} s")


def start_gunicorn(
    redis_url: str,
    app: str | None = None,
    log_path: Path | None = None,
    python: str | None = None,
    wrapper: Sequence[str] = (),
    boot_timeout: float = 30,
    **env_extra: str,
) -> Server:
    """gunicorn with cardroom's config file; ``app`` overrides only the WSGI app.

    Only REDIS_URL and CARDROOM_BIND are set (plus ``env_extra``, for experiments): every
    other setting, logging included, is the production default. Its output goes to
    ``log_path``. ``python``: the interpreter (default: this one), one with cardroom
    installed. ``wrapper``: a command that runs it (``valgrind --tool=callgrind …``).
    """
    port = free_port()
    env = dict(os.environ)
    env.update(REDIS_URL=redis_url, CARDROOM_BIND=f"127.0.0.1:{port}", **env_extra)
    command = [*wrapper, python or sys.executable, "-m", "gunicorn", "--config", GUNICORN_CONFIG]
    if app:
        command.append(app)
    return _start(command, app or CARDROOM_APP, port, env, ROOT, log_path, "/healthz", boot_timeout)


# --- Node.js: boardgame.io's server -------------------------------------------------------


def node_binary() -> str | None:
    """`node` on PATH if it is recent enough, else None."""
    found = shutil.which("node")
    if found is None:
        return None
    try:
        version = node_version(found)
    except (OSError, subprocess.SubprocessError):
        return None
    major = version.lstrip("v").split(".", 1)[0]
    return found if major.isdigit() and int(major) >= MIN_NODE_MAJOR else None


def node_version(node: str) -> str:
    return subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()


def ensure_packages(log: Callable[[str], None]) -> None:
    """`npm ci` in bench/peer when node_modules is missing or older than the lockfile."""
    marker = NODE_MODULES / ".package-lock.json"
    lock = PEER_DIR / "package-lock.json"
    if marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm not found: it installs bench/peer's pinned packages (npm ci)")
    log("npm ci in bench/peer (boardgame.io and ioredis, pinned by package-lock.json)")
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=PEER_DIR,
        check=True,
        timeout=600,
    )


def installed_version(package: str) -> str:
    data = json.loads((NODE_MODULES / package / "package.json").read_text())
    return str(data["version"])


def start_bgio(node: str, storage: str, log_path: Path, redis_url: str | None) -> Server:
    """boardgame.io's Server on a free port, NODE_ENV=production; waits for its lobby API."""
    port = free_port()
    command = [node, "server.js", "--port", str(port), "--storage", storage]
    if redis_url:
        command += ["--redis-url", redis_url]
    env = dict(os.environ, NODE_ENV="production")
    return _start(command, f"bgio-{storage}", port, env, PEER_DIR, log_path, "/games", 30)


# --- CPU and instructions -----------------------------------------------------------------


def _stats() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds of the process and of its reaped children)."""
    out: dict[int, tuple[int, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        # utime, stime, cutime, cstime: a finished child (a Redis AOF rewrite) counts too
        ticks = sum(int(value) for value in fields[11:15])
        out[int(entry)] = (int(fields[1]), ticks / CLOCK_TICKS)
    return out


def trees_cpu(roots: dict[str, list[int]]) -> dict[str, float]:
    """CPU seconds so far of each named group of process trees (one /proc scan)."""
    stats = _stats()
    owner: dict[int, str] = {}
    for name, pids in roots.items():
        for pid in pids:
            owner[pid] = name
    totals = dict.fromkeys(roots, 0.0)
    for pid, (_, cpu) in stats.items():
        walk = pid
        while walk and walk not in owner:
            walk = stats.get(walk, (0, 0.0))[0]
        if walk in owner:
            totals[owner[walk]] += cpu
    return totals


def machine_busy() -> float:
    """CPU seconds all cores spent busy (not idle, not waiting for I/O) since boot."""
    with open("/proc/stat") as handle:
        ticks = [int(value) for value in handle.readline().split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / CLOCK_TICKS


class CpuMeter:
    """CPU seconds of named groups of process trees, and of the whole machine ("machine"),
    between start() and stop()."""

    def __init__(self, roots: dict[str, list[int]]):
        self.roots = roots
        self.before: dict[str, float] = {}

    def _sample(self) -> dict[str, float]:
        sample = trees_cpu(self.roots)
        sample["machine"] = machine_busy()
        return sample

    def start(self) -> None:
        self.before = self._sample()

    def stop(self) -> dict[str, float]:
        after = self._sample()
        return {name: max(0.0, after[name] - self.before[name]) for name in after}


def callgrind_instructions(pid: int) -> int:
    """Instructions callgrind has counted so far in process ``pid`` (every thread)."""
    out = subprocess.run(
        ["callgrind_control", "-e", "Ir", str(pid)], capture_output=True, text=True, check=True
    ).stdout
    # One line per thread; none before anything was counted.
    counts = re.findall(r"^\s*Th\s+\d+\s+([\d,]+)", out, re.MULTILINE)
    if "Totals" not in out and not counts:
        raise RuntimeError(f"no instruction count in callgrind_control's answer: {out!r}")
    return sum(int(count.replace(",", "")) for count in counts)


def callgrind_counting(pid: int, on: bool) -> None:
    """Switch callgrind's counting in process ``pid`` on or off."""
    subprocess.run(
        ["callgrind_control", "-i", "on" if on else "off", str(pid)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
