"""`cardroom serve`: the embedded Redis and gunicorn as one supervised server.

What it promises (docs/operations.md, "Running"):

- It binds the port itself, before anything starts: a busy port is one line and exit 1 at
  once. gunicorn gets the bound socket (``fd://N``); "serving on …" is printed only once the
  server answers on it.
- Without REDIS_URL it takes a lock on ``--data-dir`` (``cardroom.lock``, an ``flock`` that
  the embedded Redis inherits, so the folder stays locked while any process that writes it
  lives): a second server on the same folder refuses to start.
- Its children die with it, even when it is killed with SIGKILL: each asks the kernel for a
  signal when its parent dies (``PR_SET_PDEATHSIG``, Linux); gunicorn's workers leave when
  their master goes.
- The embedded Redis is restarted when it dies: on its socket and data, so gunicorn's
  workers reconnect by themselves and only the requests of that moment fail. Restarted
  ``MAX_RESTARTS`` times within ``RESTART_WINDOW`` seconds, it is not fixed by restarting
  (a full disk, a damaged file): serve stops and exits 1, for a supervisor or a person.
  If gunicorn's master dies, serve stops Redis and exits 1 likewise.
- Ctrl-C (SIGINT) or SIGTERM stops gunicorn at once (open event streams included), then
  Redis (which flushes its file), and exits 0 without a traceback. The children run in
  their own process group, so the terminal's Ctrl-C reaches serve alone, which stops them
  in order.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cardroom.serve.serve_config import GUNICORN_CONFIG

LOCK_NAME = "cardroom.lock"
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0
START_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
_PR_SET_PDEATHSIG = 1


class StartError(Exception):
    """Serve cannot start; the message is the one line it prints."""


def say(message: str) -> None:
    print(f"cardroom: {message}", file=sys.stderr, flush=True)


def die_with_parent(signum: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the child sent ``signum`` when its parent dies (Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()

    def setup() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signum)
        if os.getppid() != parent:  # the parent died before the request took effect
            os.kill(os.getpid(), signum)

    return setup


def bind(host: str, port: int, option: str = "--port") -> socket.socket:
    """A listening socket on host:port, as gunicorn would make it (``option`` chose the port:
    a busy port's message suggests another)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            other = port + 1 if 0 < port < 65535 else 0
            reason = (
                f"the port is in use (by another server?): choose another with {option},"
                f" e.g. cardroom serve {option} {other}, or {option} 0 for any free port"
            )
        else:
            reason = error.strerror
        raise StartError(f"cannot listen on {host}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def lock_data_dir(data_dir: Path) -> int:
    """An exclusive lock on the data folder (a file descriptor), or StartError."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = data_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = path.read_text().strip() or "?"
        os.close(fd)
        raise StartError(
            f"{data_dir} is in use by another cardroom server (pid {holder}); stop it, or"
            " give this one another --data-dir"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def url_host(host: str) -> str:
    """Where this machine reaches a server bound to ``host``."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


class Supervisor:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.stopping = False
        self.embedded: Any = None
        self.server: subprocess.Popen[bytes] | None = None
        self.restarts: deque[float] = deque()

    def run(self) -> int:
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._stop_requested)
        try:
            try:
                base = self._start()
            except StartError as error:
                say(str(error))
                return 1
            say(f"serving on {base} (docs at {base}/docs)")
            return self._supervise()
        finally:
            self._shutdown()

    def _stop_requested(self, _signum: int, _frame: object) -> None:
        self.stopping = True

    def _start(self) -> str:
        from cardroom.store.embedded import EmbeddedRedis

        args = self.args
        listener = bind(args.host, args.port)
        port = listener.getsockname()[1]
        env = dict(os.environ)
        listeners = [listener]
        if args.metrics_port is not None:
            listeners.append(bind(args.host, args.metrics_port, "--metrics-port"))
            env["CARDROOM_METRICS_BIND"] = f"{args.host}:{args.metrics_port}"  # for the app
        env["CARDROOM_BIND"] = ",".join(f"fd://{sock.fileno()}" for sock in listeners)
        if args.workers:
            env["CARDROOM_WORKERS"] = str(args.workers)
        if not env.get("REDIS_URL"):
            data_dir = Path(args.data_dir).resolve()
            lock = lock_data_dir(data_dir)
            self.embedded = EmbeddedRedis(
                data_dir,
                unix_socket=True,
                maxmemory=args.redis_maxmemory,
                appendfsync=args.appendfsync,
                child_setup=die_with_parent(signal.SIGTERM),
                pass_fds=[lock],
            )
            try:
                self.embedded.start()
            except RuntimeError as error:
                raise StartError(str(error)) from None
            env["REDIS_URL"] = self.embedded.url
            where = self.embedded.socket_path or f"127.0.0.1:{self.embedded.port} (password)"
            say(f"embedded Redis on {where}, data in {data_dir}")
        self.server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", GUNICORN_CONFIG],
            env=env,
            stdin=subprocess.DEVNULL,
            pass_fds=[sock.fileno() for sock in listeners],
            preexec_fn=die_with_parent(signal.SIGQUIT),
            process_group=0,  # the terminal's Ctrl-C reaches serve alone
        )
        for sock in listeners:
            sock.close()  # gunicorn has them now
        base = f"http://{url_host(args.host)}:{port}"
        self._wait_until_answering(base)
        return f"http://{args.host}:{port}" if args.host not in ("", "0.0.0.0") else base

    def _wait_until_answering(self, base: str) -> None:
        assert self.server is not None
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and not self.stopping:
            if self.server.poll() is not None:
                raise StartError(f"gunicorn exited with {self.server.returncode} at start")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                    return
            except urllib.error.HTTPError:
                return  # it answers (Redis may be down: /healthz says so)
            except OSError:
                time.sleep(0.1)
        if self.stopping:
            raise StartError("stopped while starting")
        raise StartError(f"the server did not answer within {START_TIMEOUT:.0f} s")

    def _supervise(self) -> int:
        assert self.server is not None
        while not self.stopping:
            code = self.server.poll()
            if code is not None:
                say(f"gunicorn exited with {code}; stopping")
                return code or 1
            redis_died = self.embedded is not None and not self.embedded.alive()
            if redis_died and not self._restart_redis():
                return 1
            time.sleep(0.2)
        say("stopping")
        return 0

    def _restart_redis(self) -> bool:
        now = time.monotonic()
        code = self.embedded.process.returncode if self.embedded.process else None
        while self.restarts and now - self.restarts[0] > RESTART_WINDOW:
            self.restarts.popleft()
        if len(self.restarts) >= MAX_RESTARTS:
            say(
                f"the embedded Redis keeps failing ({MAX_RESTARTS} restarts within"
                f" {RESTART_WINDOW:.0f} s; see {self.embedded.data_dir / 'redis.log'}); stopping"
            )
            return False
        self.restarts.append(now)
        say(f"the embedded Redis exited with {code}; restarting it")
        try:
            self.embedded.start()
        except RuntimeError as error:
            say(f"the embedded Redis did not restart: {error}")
        return True

    def _shutdown(self) -> None:
        server, self.server = self.server, None
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGQUIT)  # quick: open streams do not hold the stop
            try:
                server.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        if server is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)  # a worker that outlived its master
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None
