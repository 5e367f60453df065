"""One measured window: the load clients (Node processes) play N games against one system
while /proc says how much CPU each party used.

The clients talk to this process over stdin/stdout (load-common.js): each says "ready" once
its games are seated; after the warm-up every client gets "start", the CPU meter starts, and
after the window every client gets "stop" and answers with its figures.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from bench import servers
from bench.peer.systems import PEER_DIR, System, trees_cpu

# The floor speaks the game socket's protocol: the cardroom load plays it.
LOAD_SCRIPTS = {"cardroom": "load-cardroom.js", "floor": "load-cardroom.js", "bgio": "load-bgio.js"}
READY_TIMEOUT = 120.0
EXIT_TIMEOUT = 30.0


@dataclass(frozen=True)
class WindowSpec:
    node: str
    games: int
    warmup: float
    duration: float
    client_processes: int
    seed: int
    cardroom_game: str
    transports: str | None


class _Client:
    """One Node load process, its stdout read by a thread into a queue."""

    def __init__(self, command: list[str], stderr_path: Path):
        self.stderr = open(stderr_path, "ab")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            command,
            cwd=PEER_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=dict(os.environ, NODE_ENV="production"),
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                continue
        self.lines.put(None)

    def expect(self, event: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"load client: no {event!r} within {timeout:.0f} s")
            try:
                message = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if message is None:
                self.stderr.flush()
                tail = Path(self.stderr.name).read_text(errors="replace")[-2000:]
                raise RuntimeError(
                    f"load client exited ({self.process.wait()}) before {event!r};"
                    f" the end of its log ({self.stderr.name}):\n{tail}"
                )
            if message.get("event") == event:
                return message

    def send(self, word: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{word}\n".encode())
        self.process.stdin.flush()

    def close(self) -> None:
        """Wait for the client to exit (closing its stdin stops it), killing it if need be."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        if self.process.poll() is None:
            try:
                self.process.wait(timeout=EXIT_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stderr.close()


def redis_counters(url: str | None) -> dict[str, Any]:
    """Connections accepted and commands run so far by a Redis (INFO stats, commandstats)."""
    if url is None:
        return {}
    client = redis.Redis.from_url(url, socket_timeout=10)
    try:
        stats = client.info("stats")
        commands = client.info("commandstats")
    finally:
        client.close()
    calls = {name.removeprefix("cmdstat_"): int(row["calls"]) for name, row in commands.items()}
    return {
        "connections": int(stats["total_connections_received"]),
        "commands": int(stats["total_commands_processed"]),
        "calls": calls,
    }


def _redis_per_move(before: dict[str, Any], after: dict[str, Any], moves: int) -> dict[str, Any]:
    if not before:
        return {}
    per_move = max(1, moves)
    calls = {
        name: (count - before["calls"].get(name, 0)) / per_move
        for name, count in after["calls"].items()
        if count > before["calls"].get(name, 0)
    }
    return {
        "connections": (after["connections"] - before["connections"]) / per_move,
        "commands": (after["commands"] - before["commands"]) / per_move,
        "calls": dict(sorted(calls.items(), key=lambda item: -item[1])),
    }


def run_window(system: System, spec: WindowSpec, log_dir: Path) -> dict[str, Any]:
    """Play ``spec.games`` concurrent games on ``system``; the figures of the window."""
    per_client, extra = divmod(spec.games, spec.client_processes)
    share = [per_client + (1 if index < extra else 0) for index in range(spec.client_processes)]
    clients: list[_Client] = []
    try:
        for index, games in enumerate(share):
            if not games:
                continue
            command = [
                spec.node,
                LOAD_SCRIPTS[system.kind],
                "--url",
                system.url,
                "--games",
                str(games),
                "--seed",
                str(spec.seed * 100 + index),
            ]
            if system.kind == "cardroom":
                command += ["--game-type", spec.cardroom_game]
            elif spec.transports:
                command += ["--transports", spec.transports]
            clients.append(_Client(command, log_dir / f"load-{system.kind}.log"))
        for client in clients:
            client.expect("ready", READY_TIMEOUT)
        time.sleep(spec.warmup)
        roots = system.cpu_roots()
        roots["client"] = [client.process.pid for client in clients]
        redis_before = redis_counters(system.redis_url)
        cpu_before = trees_cpu(roots)
        busy_before = servers.machine_busy()
        for client in clients:
            client.send("start")
        started = time.monotonic()
        time.sleep(spec.duration)
        for client in clients:
            client.send("stop")
        cpu_after = trees_cpu(roots)
        busy_after = servers.machine_busy()
        wall = time.monotonic() - started
        redis_after = redis_counters(system.redis_url)
        results = [client.expect("result", EXIT_TIMEOUT) for client in clients]
    finally:
        for client in clients:
            client.close()
    cpu = {name: max(0.0, cpu_after[name] - cpu_before[name]) for name in roots}
    cpu["machine"] = max(0.0, busy_after - busy_before)
    summary = summarise(system, spec, results, cpu, wall)
    summary["redis_per_move"] = _redis_per_move(redis_before, redis_after, summary["moves"])
    return summary


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    for key, value in part.items():
        total[key] = total.get(key, 0) + value


def summarise(
    system: System,
    spec: WindowSpec,
    results: list[dict[str, Any]],
    cpu: dict[str, float],
    wall: float,
) -> dict[str, Any]:
    moves = sum(result["moves"] for result in results)
    window = sum(result["window_s"] for result in results) / max(1, len(results))
    act = [value for result in results for value in result["act_ms"]]
    cycle = [value for result in results for value in result["cycle_ms"]]
    to_server: dict[str, int] = {}
    from_server: dict[str, int] = {}
    statuses: dict[str, int] = {}
    problems: dict[str, Any] = {}
    refused: dict[str, int] = {}
    for result in results:
        _add(refused, result["refused"])
        _add(to_server, result["to_server"])
        _add(from_server, result["from_server"])
        _add(statuses, result["statuses"])
        for kind, entry in result["problems"].items():
            seen = problems.setdefault(kind, {"count": 0, "first": entry["first"]})
            seen["count"] += entry["count"]
    finished = sum(result["finished_games"] for result in results)
    finished_moves = sum(result["finished_moves"] for result in results)
    per_move = max(1, moves)
    cores = os.cpu_count() or 1
    shares = {name: used / (wall * cores) for name, used in cpu.items()}
    known = sum(value for name, value in shares.items() if name != "machine")
    shares["other"] = max(0.0, shares["machine"] - known)
    us = {name: cpu[name] / per_move * 1e6 for name in ("server", "redis", "client") if name in cpu}
    us["server+redis"] = us["server"] + us.get("redis", 0.0)
    return {
        "system": system.name,
        "games": spec.games,
        "window_s": window,
        "moves": moves,
        "moves_per_s": moves / window if window else 0.0,
        "act_p50_ms": percentile(act, 0.50),
        "act_p99_ms": percentile(act, 0.99),
        "cycle_p50_ms": percentile(cycle, 0.50),
        "cycle_p99_ms": percentile(cycle, 0.99),
        "cpu_us_per_move": us,
        "cpu_share": shares,
        "to_server_per_move": {kind: n / per_move for kind, n in sorted(to_server.items())},
        "from_server_per_move": {kind: n / per_move for kind, n in sorted(from_server.items())},
        "to_server_total_per_move": sum(to_server.values()) / per_move,
        "from_server_total_per_move": sum(from_server.values()) / per_move,
        "statuses": statuses,
        "refused_per_move": sum(refused.values()) / per_move,
        "refused": refused,
        "problems": problems,
        "finished_games": finished,
        "moves_per_finished_game": finished_moves / finished if finished else math.nan,
        "finished_ids": [game_id for result in results for game_id in result["finished_ids"]],
    }
