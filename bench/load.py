"""The load generators of every benchmark, and the interleaved windows they are measured in.

- **HTTP, closed loop** (``http_window``): several processes, each one event loop over
  keep-alive sockets, sending precomputed request bytes and parsing only status lines and
  lengths. It costs a few per cent of a core at the rates cardroom serves, so on a 2-core
  machine the server, not the client, sets the pace; every result says how much CPU the
  client used. Two kinds of work: ``streams``, lists of requests that run in order on one
  connection (the actions of one game: a connection plays a stream to its end or its first
  non-2xx answer, then takes the next; the window closes when the first connection runs out,
  so figures are taken at full concurrency), and ``pool``, independent requests drawn at
  random (views of random seats). Given several ports, every request goes to one drawn at
  random, as a balancer without sticky sessions sends them.
- **Game sockets, closed loop** (``socket_window``): Node processes (bench/peer's
  ``load-cardroom.js``, ``load-bgio.js``) that play N games as fast as the server confirms
  their moves, every seat following its game as the SDK (or boardgame.io's client) does;
  they talk to this process over stdin/stdout (``load-common.js``).
- **A probe** (``Prober``): ``GET /healthz`` at a fixed pace while another load runs.
- **Interleaved windows** (``interleave``): rounds of one window of each load in turn, each
  load's median window counting, so that every load meets the machine's same slow and fast
  spells.
"""

from __future__ import annotations

import contextlib
import json
import math
import multiprocessing
import os
import queue
import random
import selectors
import socket
import subprocess
import threading
import time
from array import array
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import redis
import requests

from bench.launch import PEER_DIR, CpuMeter, machine_busy, trees_cpu

Result = TypeVar("Result")


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``values`` (NaN if there are none)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]


def median_of(values: list[float]) -> float:
    clean = sorted(value for value in values if not math.isnan(value))
    if not clean:
        return math.nan
    middle = len(clean) // 2
    return clean[middle] if len(clean) % 2 else (clean[middle - 1] + clean[middle]) / 2


def interleave(
    rounds: int,
    windows_of_round: Callable[[int], Iterable[tuple[Hashable, Callable[[], Result]]]],
    measured: Callable[[int, Result], None] | None = None,
) -> dict[Hashable, list[Result]]:
    """Run ``rounds`` rounds, each one window of every load ``windows_of_round(round)``
    declares, one after the other; every load's windows, by its key.

    A ratio compares two loads, and a shared machine's speed drifts by 10 % and more over
    minutes: measured minutes apart, a load taken in a slow spell fails against a floor
    taken in a fast one. Interleaved, every load meets the same spells.
    """
    windows: dict[Hashable, list[Result]] = {}
    for round_no in range(rounds):
        for key, run in windows_of_round(round_no):
            result = run()
            if measured is not None:
                measured(round_no, result)
            windows.setdefault(key, []).append(result)
    return windows


# --- HTTP, closed loop ------------------------------------------------------------------------


def request_bytes(
    method: str,
    path: str,
    port: int,
    token: str | None = None,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body is not None or method in ("POST", "PUT", "PATCH"):
        body = body or b""
        lines.append("Content-Type: application/json")
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")


@dataclass
class HttpResult:
    name: str
    connections: int
    processes: int
    window_s: float
    requests: int
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    statuses: dict[str, int]
    errors: list[str]
    # share of all cores (0..1) used by: client, server, redis, the whole machine, other work
    cpu: dict[str, float] = field(default_factory=dict)
    # CPU µs per measured request: server (gunicorn master + workers), redis
    cpu_us_per_request: dict[str, float] = field(default_factory=dict)
    exhausted: bool = False
    streams_finished: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Conn:
    __slots__ = (
        "buf",
        "failed",
        "head",
        "idle",
        "port",
        "request",
        "reused",
        "sent_at",
        "sock",
        "stream",
        "where",
    )

    def __init__(self, port: int):
        self.port = port
        self.sock: socket.socket | None = None
        # With several instances: the kept-alive sockets not in use, by port; the request in
        # flight (sent again on a fresh socket if a kept one turns out closed) and whether
        # its socket was a kept one.
        self.idle: dict[int, socket.socket] = {}
        self.request = b""
        self.reused = False
        self.buf = bytearray()
        # status, body start, chunked, content length, connection: close
        self.head: tuple[int, int, bool, int, bool] | None = None
        self.stream: int | None = None
        self.where = 0
        self.sent_at = 0.0
        self.failed = False

    def connect(self) -> socket.socket:
        """A new socket to ``self.port``; it becomes ``self.sock``."""
        sock = socket.create_connection(("127.0.0.1", self.port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self.buf.clear()
        self.head = None
        return sock

    def response(self) -> tuple[int, bytes, bool] | None:
        """(status, body, close) once a whole response is in the buffer, else None."""
        buf = self.buf
        if self.head is None:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return None
            lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            length, chunked, close = 0, False, False
            for line in lines[1:]:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                if name == "content-length":
                    length = int(value)
                elif name == "transfer-encoding":
                    chunked = "chunked" in value.lower()
                elif name == "connection":
                    close = value.strip().lower() == "close"
            if status in (204, 304) or status < 200:
                length, chunked = 0, False
            self.head = (status, end + 4, chunked, length, close)
        status, start, chunked, length, close = self.head
        if chunked:
            body = bytearray()
            at = start
            while True:
                eol = buf.find(b"\r\n", at)
                if eol < 0:
                    return None
                size = int(bytes(buf[at:eol]).split(b";")[0], 16)
                if size == 0:
                    if buf.find(b"\r\n", eol + 2) < 0:
                        return None
                    consumed = buf.find(b"\r\n", eol + 2) + 2
                    break
                if len(buf) < eol + 2 + size + 2:
                    return None
                body += buf[eol + 2 : eol + 2 + size]
                at = eol + 2 + size + 2
            del buf[:consumed]
            self.head = None
            return status, bytes(body), close
        if len(buf) < start + length:
            return None
        body = bytes(buf[start : start + length])
        del buf[: start + length]
        self.head = None
        return status, body, close


def _worker(
    conn_count: int,
    ports: list[int],
    stream_ids: list[int],
    streams: list[list[bytes]] | None,
    pool: list[bytes] | None,
    times: tuple[float, float, float],
    exhausted_flag: Any,
    seed: int,
    out: Any,
) -> None:
    t_start, t_warm, t_end = times
    rng = random.Random(seed)
    queue = list(reversed(stream_ids))
    done_at = array("d")
    latency = array("d")
    statuses: Counter[int] = Counter()
    errors: list[str] = []
    finished = 0
    exhausted_at = 0.0
    cpu_warm: float | None = None
    sel = selectors.DefaultSelector()
    conns = [_Conn(ports[0]) for _ in range(conn_count)]
    spread = len(ports) > 1

    def next_request(conn: _Conn) -> bytes | None:
        nonlocal exhausted_at
        if pool is not None:
            return pool[rng.randrange(len(pool))]
        assert streams is not None
        while True:
            if conn.stream is not None and not conn.failed:
                requests = streams[conn.stream]
                if conn.where < len(requests):
                    return requests[conn.where]
            if not queue:
                if not exhausted_at:
                    exhausted_at = time.monotonic()
                    with exhausted_flag.get_lock():
                        if not exhausted_flag.value or exhausted_at < exhausted_flag.value:
                            exhausted_flag.value = exhausted_at
                conn.stream = None
                return None
            conn.stream = queue.pop()
            conn.where = 0
            conn.failed = False

    def send(conn: _Conn) -> bool:
        request = next_request(conn)
        if request is None:
            return False
        conn.sent_at = time.monotonic()
        if spread:  # a random instance: its kept socket, or a new one
            conn.port = rng.choice(ports)
            kept = conn.idle.pop(conn.port, None)
            conn.reused = kept is not None
            if kept is None:
                conn.connect()
            else:
                conn.sock = kept
            conn.request = request
            sel.register(conn.sock, selectors.EVENT_READ, conn)
        assert conn.sock is not None
        conn.sock.sendall(request)
        return True

    while time.monotonic() < t_start:
        time.sleep(0.001)
    active = 0
    for conn in conns:
        if not spread:
            sel.register(conn.connect(), selectors.EVENT_READ, conn)
        if send(conn):
            active += 1
    while active:
        now = time.monotonic()
        if cpu_warm is None and now >= t_warm:
            cpu_warm = sum(os.times()[:2])
        if now >= t_end:
            break
        for key, _ in sel.select(timeout=min(0.05, t_end - now)):
            conn = key.data
            assert conn.sock is not None
            try:
                data = conn.sock.recv(262144)
            except ConnectionError:
                data = b""
            if data:
                conn.buf += data
                answer = conn.response()
                if answer is None:
                    continue
                status, body, close = answer
            elif spread and conn.reused and not conn.buf:
                # A kept socket the server had closed meanwhile: send again on a new one.
                sel.unregister(conn.sock)
                conn.sock.close()
                conn.reused = False
                sel.register(conn.connect(), selectors.EVENT_READ, conn)
                conn.sock.sendall(conn.request)
                continue
            else:
                status, body, close = 0, b"connection closed before the answer", True
            now = time.monotonic()
            done_at.append(now)
            latency.append(now - conn.sent_at)
            statuses[status] += 1
            if streams is not None and conn.stream is not None:
                if 200 <= status < 300:
                    conn.where += 1
                    if conn.where == len(streams[conn.stream]):
                        finished += 1
                else:
                    conn.failed = True
                    if len(errors) < 20:
                        errors.append(f"{status} {body[:300]!r}")
            elif not 200 <= status < 300 and status != 304 and len(errors) < 20:
                errors.append(f"{status} {body[:300]!r}")
            if spread:  # park the socket until its instance is drawn again
                sel.unregister(conn.sock)
                if close:
                    conn.sock.close()
                else:
                    conn.idle[conn.port] = conn.sock
                conn.sock = None
            elif close:
                sel.unregister(conn.sock)
                conn.sock.close()
                sel.register(conn.connect(), selectors.EVENT_READ, conn)
            if not send(conn):
                # Out of work: close, or the server's keep-alive timeout would later look
                # like an answer on this socket.
                if conn.sock is not None:
                    sel.unregister(conn.sock)
                    conn.sock.close()
                    conn.sock = None
                active -= 1
    cpu_end = sum(os.times()[:2])
    for conn in conns:
        for sock in [conn.sock, *conn.idle.values()]:
            if sock is not None:
                sock.close()
    out.send(
        {
            "done_at": done_at,
            "latency": latency,
            "statuses": dict(statuses),
            "errors": errors,
            "finished": finished,
            "exhausted_at": exhausted_at,
            "cpu": cpu_end - (cpu_warm if cpu_warm is not None else cpu_end),
        }
    )
    out.close()


def http_window(
    name: str,
    port: int | list[int],
    *,
    streams: list[list[bytes]] | None = None,
    pool: list[bytes] | None = None,
    connections: int = 32,
    processes: int = 2,
    duration: float = 5.0,
    warmup: float = 1.0,
    cpu_roots: dict[str, list[int]] | None = None,
) -> HttpResult:
    """Run one closed-loop HTTP load and summarise its measured window.

    ``port``: the server's, or several servers' (each request to one drawn at random).
    ``cpu_roots``: the process trees whose CPU is measured, by name (``server``, ``redis``).
    """
    ports = port if isinstance(port, list) else [port]
    assert (streams is None) != (pool is None)
    ctx = multiprocessing.get_context("fork")
    processes = max(1, min(processes, connections))
    exhausted_flag = ctx.Value("d", 0.0)
    t_start = time.monotonic() + 0.3
    times = (t_start, t_start + warmup, t_start + warmup + duration)
    workers = []
    for index in range(processes):
        share = connections // processes + (1 if index < connections % processes else 0)
        ids = list(range(index, len(streams), processes)) if streams is not None else []
        receive, send = ctx.Pipe(duplex=False)
        process = ctx.Process(
            target=_worker,
            args=(share, ports, ids, streams, pool, times, exhausted_flag, index + 1, send),
            daemon=True,
        )
        process.start()
        send.close()
        workers.append((process, receive))
    meter = CpuMeter(cpu_roots or {})
    while time.monotonic() < times[1]:
        time.sleep(0.005)
    meter.start()
    cpu_started = time.monotonic()
    while time.monotonic() < times[2] and not exhausted_flag.value:
        time.sleep(0.01)
    server_cpu = meter.stop()
    cpu_wall = time.monotonic() - cpu_started
    parts = []
    for process, receive in workers:
        parts.append(receive.recv())
        process.join()
    window_start = times[1]
    exhausted_ats = [part["exhausted_at"] for part in parts if part["exhausted_at"]]
    window_end = min([times[2], *exhausted_ats])
    window = max(1e-9, window_end - window_start)
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    errors: list[str] = []
    for part in parts:
        for done, took in zip(part["done_at"], part["latency"], strict=True):
            if window_start <= done <= window_end:
                latencies.append(took)
        statuses.update(part["statuses"])
        errors += part["errors"]
    latencies.sort()
    cores = os.cpu_count() or 1
    client_wall = max(1e-9, times[2] - times[1] if not exhausted_ats else window)
    cpu = {"client": sum(part["cpu"] for part in parts) / (client_wall * cores)}
    cpu.update({key: value / (max(cpu_wall, 1e-9) * cores) for key, value in server_cpu.items()})
    # Busy time nobody of this run accounts for: other work on the machine (noise).
    known = sum(value for key, value in cpu.items() if key != "machine")
    cpu["other"] = max(0.0, cpu["machine"] - known)
    per_request = {
        key: server_cpu[key] / max(1, len(latencies)) * 1e6
        for key in ("server", "redis")
        if key in server_cpu
    }
    return HttpResult(
        name=name,
        cpu_us_per_request=per_request,
        connections=connections,
        processes=processes,
        window_s=round(window, 3),
        requests=len(latencies),
        rps=len(latencies) / window,
        p50_ms=percentile(latencies, 0.50) * 1000,
        p90_ms=percentile(latencies, 0.90) * 1000,
        p99_ms=percentile(latencies, 0.99) * 1000,
        max_ms=(latencies[-1] * 1000) if latencies else float("nan"),
        statuses={str(key): value for key, value in sorted(statuses.items())},
        errors=errors[:5],
        cpu=cpu,
        exhausted=bool(exhausted_ats) and min(exhausted_ats) < times[2],
        streams_finished=sum(part["finished"] for part in parts),
    )


def median_window(results: list[HttpResult]) -> dict[str, Any]:
    """The window of median rps, with every window's rps and server CPU per request."""
    data = sorted(results, key=lambda result: result.rps)[len(results) // 2].to_dict()
    data["windows_rps"] = [result.rps for result in results]
    data["windows_server_us"] = [result.cpu_us_per_request.get("server", 0.0) for result in results]
    return data


def describe(result: HttpResult) -> str:
    """One line of progress for a window."""
    cpu = result.cpu
    return (
        f"{result.name}: {result.rps:,.0f} rps, p50 {result.p50_ms:.1f} ms, p99"
        f" {result.p99_ms:.1f} ms ({result.requests} in {result.window_s:.1f} s; cpu client"
        f" {cpu.get('client', 0):.0%} server {cpu.get('server', 0):.0%} redis"
        f" {cpu.get('redis', 0):.0%} other {cpu.get('other', 0):.0%}; statuses {result.statuses})"
    )


# --- game sockets, closed loop (Node clients) ---------------------------------------------------

# The socket floor speaks the game socket's protocol: the cardroom load plays it.
SOCKET_LOADS = {
    "cardroom": "load-cardroom.js",
    "floor": "load-cardroom.js",
    "bgio": "load-bgio.js",
}
READY_TIMEOUT = 120.0
EXIT_TIMEOUT = 30.0


@dataclass(frozen=True)
class SocketTarget:
    """What a socket load plays against: a server (and its Redis, if any)."""

    name: str  # e.g. "cardroom-w1", "bgio-redis", "bgio-memory", "floor"
    kind: str  # "cardroom", "floor" or "bgio": which load client plays it
    url: str
    server_pid: int
    redis_pid: int | None
    redis_url: str | None
    log_path: Path

    def cpu_roots(self) -> dict[str, list[int]]:
        roots = {"server": [self.server_pid]}
        if self.redis_pid is not None:
            roots["redis"] = [self.redis_pid]
        return roots


@dataclass(frozen=True)
class SocketLoad:
    node: str
    games: int
    warmup: float
    duration: float
    client_processes: int
    seed: int
    cardroom_game: str
    transports: str | None


class NodeClient:
    """One Node load process, its stdout read by a thread into a queue."""

    def __init__(self, command: list[str], stderr_path: Path, cwd: Path = PEER_DIR):
        self.stderr = open(stderr_path, "ab")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
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


def socket_window(target: SocketTarget, load: SocketLoad, log_dir: Path) -> dict[str, Any]:
    """Play ``load.games`` concurrent games on ``target``: the load processes seat their
    games and say "ready"; after the warm-up every one gets "start", the CPU meter starts,
    and after the window every one gets "stop" and answers with its figures."""
    per_client, extra = divmod(load.games, load.client_processes)
    share = [per_client + (1 if index < extra else 0) for index in range(load.client_processes)]
    clients: list[NodeClient] = []
    try:
        for index, games in enumerate(share):
            if not games:
                continue
            command = [
                load.node,
                SOCKET_LOADS[target.kind],
                "--url",
                target.url,
                "--games",
                str(games),
                "--seed",
                str(load.seed * 100 + index),
            ]
            if target.kind == "cardroom":
                command += ["--game-type", load.cardroom_game]
            elif load.transports:
                command += ["--transports", load.transports]
            clients.append(NodeClient(command, log_dir / f"load-{target.kind}.log"))
        for client in clients:
            client.expect("ready", READY_TIMEOUT)
        time.sleep(load.warmup)
        roots = target.cpu_roots()
        roots["client"] = [client.process.pid for client in clients]
        redis_before = redis_counters(target.redis_url)
        cpu_before = trees_cpu(roots)
        busy_before = machine_busy()
        for client in clients:
            client.send("start")
        started = time.monotonic()
        time.sleep(load.duration)
        for client in clients:
            client.send("stop")
        cpu_after = trees_cpu(roots)
        busy_after = machine_busy()
        wall = time.monotonic() - started
        redis_after = redis_counters(target.redis_url)
        results = [client.expect("result", EXIT_TIMEOUT) for client in clients]
    finally:
        for client in clients:
            client.close()
    cpu = {name: max(0.0, cpu_after[name] - cpu_before[name]) for name in roots}
    cpu["machine"] = max(0.0, busy_after - busy_before)
    summary = _summarise(target, load, results, cpu, wall)
    summary["redis_per_move"] = _redis_per_move(redis_before, redis_after, summary["moves"])
    return summary


def _add(total: dict[str, int], part: dict[str, int]) -> None:
    for key, value in part.items():
        total[key] = total.get(key, 0) + value


def _summarise(
    target: SocketTarget,
    load: SocketLoad,
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
        "system": target.name,
        "games": load.games,
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


# --- a probe ----------------------------------------------------------------------------------


class Prober:
    """A timed probe every ``every`` seconds, one after another on a thread of its own, until
    stopped: by default ``GET /healthz`` on a fresh connection; ``probe`` (returning the
    seconds it took and the HTTP status) times anything else, e.g. a person's action."""

    def __init__(
        self,
        base: str,
        every: float = 0.05,
        timeout: float = 10.0,
        probe: Callable[[], tuple[float, int]] | None = None,
    ):
        self.base = base
        self.every = every
        self.timeout = timeout
        self.probe = probe or self.healthz
        self.times: list[float] = []
        self.failures: list[str] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def healthz(self) -> tuple[float, int]:
        started = time.perf_counter()
        answer = requests.get(
            f"{self.base}/healthz", timeout=self.timeout, headers={"Connection": "close"}
        )
        return time.perf_counter() - started, answer.status_code

    def _run(self) -> None:
        while not self.stopped.is_set():
            started = time.perf_counter()
            try:
                took, status = self.probe()
                if status != 200:
                    self.failures.append(str(status))
            except requests.RequestException as error:
                took = time.perf_counter() - started
                self.failures.append(error.__class__.__name__)
            self.times.append(took)
            self.stopped.wait(self.every)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(timeout=self.timeout + 1)

    def figures(self) -> dict[str, Any]:
        return {
            "probes": len(self.times),
            "failures": len(self.failures),
            "healthz_p50_ms": round(percentile(self.times, 0.5) * 1000, 1),
            "healthz_p99_ms": round(percentile(self.times, 0.99) * 1000, 1),
            "healthz_max_ms": round(max(self.times, default=math.nan) * 1000, 1),
        }


# --- open loops: a fixed pace, whatever the server answers --------------------------------------


class Paced:
    """``POST path`` with ``body`` every ``every`` seconds, each on a thread of its own, so a
    slow answer does not slow the pace; the statuses counted (0: no answer)."""

    def __init__(self, base: str, path: str, body: Any, every: float, timeout: float = 60.0):
        self.url = base + path
        self.body = body
        self.every = every
        self.timeout = timeout
        self.statuses: Counter[int] = Counter()
        self.lock = threading.Lock()
        self.senders: list[threading.Thread] = []

    def _send(self) -> None:
        try:
            status = requests.post(self.url, json=self.body, timeout=self.timeout).status_code
        except requests.RequestException:
            status = 0
        with self.lock:
            self.statuses[status] += 1

    def run(self, seconds: float) -> None:
        """Send for ``seconds`` (``wait`` then waits for the answers)."""
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            sender = threading.Thread(target=self._send, daemon=True)
            sender.start()
            self.senders.append(sender)
            time.sleep(self.every)

    def wait(self) -> None:
        for sender in self.senders:
            sender.join(timeout=self.timeout)


class SlowBodies:
    """``connections`` sockets that each send a POST's headers and then a byte of its body
    every ``every`` seconds, reconnecting when dropped, until stopped."""

    HEADERS = (
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 4000\r\n\r\n"
    )

    def __init__(self, port: int, connections: int, every: float = 2.0):
        self.port = port
        self.connections = connections
        self.every = every
        self.counts = {"opened": 0, "dropped": 0}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _connect(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=1)
            sock.sendall(self.HEADERS)
            sock.setblocking(False)
        except OSError:
            return None
        self.counts["opened"] += 1
        return sock

    def _run(self) -> None:
        socks = [self._connect() for _ in range(self.connections)]
        while not self.stopped.is_set():
            for index, sock in enumerate(socks):
                if self.stopped.is_set():
                    break
                if sock is not None:
                    try:
                        sock.send(b" ")
                        continue
                    except OSError:
                        self.counts["dropped"] += 1
                        sock.close()
                socks[index] = self._connect()
            self.stopped.wait(self.every)
        for sock in socks:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.close()

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(timeout=30)
