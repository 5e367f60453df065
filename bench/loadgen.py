"""A closed-loop HTTP/1.1 load generator: several processes, each one event loop over
keep-alive sockets, sending precomputed request bytes and parsing only status lines and
lengths. It costs a few per cent of a core at the rates cardroom serves, so on a 2-core
machine the server, not the client, sets the pace; every result says how much CPU the
client used.

Two kinds of work:

- ``streams``: lists of requests that must run in order, one after another on one
  connection (the actions of one game). A connection plays a stream to its end (or to its
  first non-2xx answer), then takes the next one. The measured window closes when the first
  connection runs out of streams, so the figures are always taken at full concurrency.
- ``pool``: independent requests, each drawn at random (views of random seats).

Given several ports (several API instances), every request goes to one drawn at random, as
a load balancer without sticky sessions sends them: each connection keeps one keep-alive
socket per instance and sends each request on the socket of the instance drawn.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import selectors
import socket
import time
from array import array
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any


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
class LoadResult:
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
    progress: dict[int, int] = field(default_factory=dict)  # stream index -> requests done

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("progress")
        return data


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


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
    progress: dict[int, int] = {}
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
                    progress[conn.stream] = conn.where
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
            "progress": progress,
            "finished": finished,
            "exhausted_at": exhausted_at,
            "cpu": cpu_end - (cpu_warm if cpu_warm is not None else cpu_end),
        }
    )
    out.close()


def run(
    name: str,
    port: int | list[int],
    *,
    streams: list[list[bytes]] | None = None,
    pool: list[bytes] | None = None,
    connections: int = 32,
    processes: int = 2,
    duration: float = 5.0,
    warmup: float = 1.0,
    cpu_roots: dict[str, int] | None = None,
) -> LoadResult:
    """Run one closed-loop load and summarise the measured window.

    ``port``: the server's, or several servers' (each request to one drawn at random).
    ``cpu_roots``: process trees whose CPU is measured, by name; ``server#2``, ``redis#3``…
    are added to ``server`` and ``redis``.
    """
    from bench.servers import CpuMeter

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
    server_cpu: Counter[str] = Counter()
    for key, used in meter.stop().items():
        server_cpu[key.split("#")[0]] += used
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
    progress: dict[int, int] = {}
    for part in parts:
        for done, took in zip(part["done_at"], part["latency"], strict=True):
            if window_start <= done <= window_end:
                latencies.append(took)
        statuses.update(part["statuses"])
        errors += part["errors"]
        progress.update(part["progress"])
    latencies.sort()
    cores = os.cpu_count() or 1
    client_wall = max(1e-9, times[2] - times[1] if not exhausted_ats else window)
    cpu = {"client": sum(part["cpu"] for part in parts) / (client_wall * cores)}
    cpu.update({key: value / (max(cpu_wall, 1e-9) * cores) for key, value in server_cpu.items()})
    if "machine" in cpu:
        # Busy time nobody of this run accounts for: other work on the machine (noise).
        known = sum(value for key, value in cpu.items() if key != "machine")
        cpu["other"] = max(0.0, cpu["machine"] - known)
    per_request = {
        key: server_cpu[key] / max(1, len(latencies)) * 1e6
        for key in ("server", "redis")
        if key in server_cpu
    }
    return LoadResult(
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
        progress=progress,
    )
