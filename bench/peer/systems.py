"""The systems a peer run compares, their processes, and what a finished game costs in Redis.

- cardroom: gunicorn with the production config (`bench.servers.start_gunicorn`), on an
  embedded Redis configured as `cardroom serve` runs it;
- boardgame.io with Redis storage: `node server.js --storage redis` on a second embedded
  Redis configured the same way (append-only file, fsync every second);
- boardgame.io in memory: `node server.js --storage memory` (boardgame.io's InMemory).

Also: finding Node.js, installing the pinned packages (`npm ci`), and the CPU time of a
process tree from /proc, reaped children included (Redis's AOF rewrites are children).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from bench import servers
from cardroom.store.embedded import free_port
from cardroom.store.games import game_key

PEER_DIR = Path(__file__).resolve().parent
NODE_MODULES = PEER_DIR / "node_modules"
MIN_NODE_MAJOR = 18
BGIO_PREFIX = "bgio"
BGIO_KINDS = ("state", "initial", "metadata", "log")


# --- Node.js -----------------------------------------------------------------------------


def node_binary() -> str | None:
    """`node` on PATH if it is recent enough, else None."""
    found = shutil.which("node")
    if found is None:
        return None
    try:
        version = subprocess.run(
            [found, "--version"], capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    major = version.lstrip("v").split(".", 1)[0]
    return found if major.isdigit() and int(major) >= MIN_NODE_MAJOR else None


def node_version(node: str) -> str:
    return subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()


def ensure_packages(log: Any) -> None:
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


# --- CPU ----------------------------------------------------------------------------------


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
        out[int(entry)] = (int(fields[1]), ticks / servers.CLOCK_TICKS)
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


# --- servers ------------------------------------------------------------------------------


@dataclass
class NodeServer:
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_bgio(node: str, storage: str, log_path: Path, redis_url: str | None) -> NodeServer:
    """boardgame.io's Server on a free port, NODE_ENV=production; waits for its lobby API."""
    port = free_port()
    command = [node, "server.js", "--port", str(port), "--storage", storage]
    if redis_url:
        command += ["--redis-url", redis_url]
    env = dict(os.environ, NODE_ENV="production")
    output = open(log_path, "ab")  # noqa: SIM115 - the child keeps it
    process = subprocess.Popen(
        command, cwd=PEER_DIR, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=output
    )
    output.close()
    server = NodeServer(process, port, log_path)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"boardgame.io server exited with {process.returncode}: {log_path}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/games")
            status = conn.getresponse().status
            conn.close()
            if status == 200:
                return server
        except OSError:
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"boardgame.io server did not answer in time: {log_path}")
        time.sleep(0.1)


@dataclass
class System:
    """One column of the comparison: a server (and its Redis, if any) the load is sent to."""

    name: str  # e.g. "cardroom-w1", "bgio-redis", "bgio-memory"
    kind: str  # "cardroom" or "bgio"
    url: str
    server_pid: int
    redis_pid: int | None
    redis_url: str | None
    stop: Any = field(repr=False, default=None)
    notes: dict[str, Any] = field(default_factory=dict)

    def cpu_roots(self) -> dict[str, list[int]]:
        roots = {"server": [self.server_pid]}
        if self.redis_pid is not None:
            roots["redis"] = [self.redis_pid]
        return roots


# --- bytes per finished game ------------------------------------------------------------


def _memory(client: redis.Redis, key: str) -> int:
    return int(client.memory_usage(key, samples=0) or 0)


def cardroom_game_bytes(client: redis.Redis, game_id: str) -> dict[str, int]:
    """MEMORY USAGE of a game's hash, and of the stored answers of its Idempotency-Keys."""
    idem = list(client.scan_iter(match=f"{game_key(game_id)}:idem:*", count=1000))
    return {
        "game": _memory(client, game_key(game_id)),
        "idempotency": sum(_memory(client, key) for key in idem),
    }


def bgio_game_bytes(client: redis.Redis, match_id: str) -> dict[str, int]:
    """MEMORY USAGE of each key the adapter wrote for a match (redis-storage.js)."""
    parts = {kind: _memory(client, f"{BGIO_PREFIX}:{match_id}:{kind}") for kind in BGIO_KINDS}
    parts["game"] = sum(parts.values())
    return parts
