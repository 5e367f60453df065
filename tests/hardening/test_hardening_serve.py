"""Findings 3 and 4 (and issue 11's item 6): `cardroom serve` as one supervised server.

It tells the truth at start (a busy port: one line, exit 1), locks its data folder, restarts
its embedded Redis, takes its children down with it (kill -9 included) and stops on Ctrl-C
without a traceback, open event streams included (docs/operations.md, "Running").
Linux only: the children's death with their parent is the kernel's PR_SET_PDEATHSIG.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests

from cardroom.store.embedded import free_port

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="serve's supervision is tested on Linux"
)

STARTED = re.compile(r"serving on (http://\S+)")


class Serve:
    """`cardroom serve` in its own session (as a terminal would run it), its output kept."""

    def __init__(self, data_dir: Path, *extra: str, port: int = 0):
        env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
        env["CARDROOM_LOG_LEVEL"] = "warning"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cardroom.serve.cli", "serve", "--port", str(port),
             "--data-dir", str(data_dir), "--workers", "1", *extra],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def url(self, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if found := STARTED.search(line):
                    return found.group(1)
            if self.process.poll() is not None:
                self.reader.join(timeout=2)
                pytest.fail(f"serve exited with {self.process.returncode}:\n{self.output}")
            time.sleep(0.05)
        pytest.fail(f"serve did not say 'serving on' in time:\n{self.output}")

    def wait(self, timeout: float) -> int:
        code = self.process.wait(timeout=timeout)
        self.reader.join(timeout=2)
        return code

    def kill(self) -> None:
        for pid in [self.process.pid, *descendants(self.process.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)


def children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(FileNotFoundError, ProcessLookupError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):
                found += [int(child) for child in (task / "children").read_text().split()]
    return found


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def command_line(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    except (FileNotFoundError, ProcessLookupError):
        return []


def is_redis(pid: int) -> bool:
    try:
        return Path(os.readlink(f"/proc/{pid}/exe")).name == "redis-server"
    except OSError:
        return False


def is_gunicorn(pid: int) -> bool:
    return command_line(pid)[1:3] == ["-m", "gunicorn"]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def redis_pid(serve: Serve) -> int:
    return next(pid for pid in children(serve.process.pid) if is_redis(pid))


def gunicorn_pid(serve: Serve) -> int:
    return next(pid for pid in children(serve.process.pid) if is_gunicorn(pid))


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    pytest.fail(f"not within {timeout} s: {what}")


def healthy(url: str) -> bool:
    try:
        return requests.get(f"{url}/healthz", timeout=1).status_code == 200
    except requests.RequestException:
        return False


@pytest.fixture()
def serve(tmp_path: Path) -> Iterator[Serve]:
    server = Serve(tmp_path / "data")
    try:
        yield server
    finally:
        server.kill()


def new_game(url: str) -> str:
    created = requests.post(
        f"{url}/v1/games", json={"game_type": "mr-toast", "players": 2}, timeout=5
    )
    assert created.status_code == 201
    return created.json()["id"]


def test_a_busy_port_is_one_clear_line_and_exit_1_at_once(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        server = Serve(tmp_path / "data", port=port)
        try:
            assert server.wait(timeout=20) == 1
        finally:
            server.kill()
        assert time.monotonic() - started < 10
    assert server.lines == [
        f"cardroom: cannot listen on 127.0.0.1:{port}: the port is in use (by another server?): "
        f"choose another with --port, e.g. cardroom serve --port {port + 1}, or --port 0 for "
        "any free port"
    ]
    assert not (tmp_path / "data").exists(), "nothing starts before the port is bound"


def test_serving_on_is_said_once_the_server_answers(serve):
    url = serve.url()  # the first moment the line is there
    assert requests.get(f"{url}/healthz", timeout=2).status_code == 200
    assert sum("serving on" in line for line in serve.lines) == 1


def test_a_second_server_on_the_same_data_dir_refuses_to_start(serve, tmp_path):
    serve.url()
    second = Serve(tmp_path / "data")
    try:
        assert second.wait(timeout=20) != 0
    finally:
        second.kill()
    assert "is in use by another cardroom server" in second.output
    assert not any("serving on" in line for line in second.lines)
    assert healthy(serve.url()), "the first server is untouched"


def test_the_embedded_redis_is_restarted_when_killed(tmp_path):
    # appendfsync always: an acknowledged game is on disk, even when Redis is killed at
    # once (with everysec Redis may hold a write back while a sync is slow: "Durability").
    serve = Serve(tmp_path / "data", "--appendfsync", "always")
    try:
        restarted_with_the_games(serve)
    finally:
        serve.kill()


def restarted_with_the_games(serve: Serve) -> None:
    url = serve.url()
    game_id = new_game(url)
    first = redis_pid(serve)
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: healthy(url) and redis_pid(serve) != first, 20, "Redis back")
    assert requests.get(f"{url}/v1/games/{game_id}", timeout=5).status_code == 200
    assert "the embedded Redis exited with -9; restarting it" in serve.output


def test_a_redis_that_keeps_dying_stops_serve_with_exit_1(serve):
    serve.url()
    killed: set[int] = set()
    deadline = time.monotonic() + 60
    while serve.process.poll() is None and time.monotonic() < deadline:
        for pid in children(serve.process.pid):
            if is_redis(pid) and pid not in killed:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        time.sleep(0.05)
    assert serve.wait(timeout=30) == 1
    assert "the embedded Redis keeps failing" in serve.output
    assert len(killed) == 6


def test_killing_serve_with_sigkill_takes_every_child_down(serve, tmp_path):
    url = serve.url()
    game_id = new_game(url)
    family = descendants(serve.process.pid)
    assert len(family) >= 3  # Redis, gunicorn's master and its worker
    os.kill(serve.process.pid, signal.SIGKILL)
    wait_until(lambda: not any(alive(pid) for pid in family), 20, "the children gone")
    again = Serve(tmp_path / "data")  # the folder's lock went with them
    try:
        url = again.url()
        assert requests.get(f"{url}/v1/games/{game_id}", timeout=5).status_code == 200
    finally:
        again.kill()


def test_killing_gunicorn_with_sigkill_stops_serve_with_an_error(serve):
    serve.url()
    master = gunicorn_pid(serve)
    family = descendants(serve.process.pid)
    os.kill(master, signal.SIGKILL)
    assert serve.wait(timeout=30) != 0
    assert "gunicorn exited with -9; stopping" in serve.output
    wait_until(lambda: not any(alive(pid) for pid in family), 20, "the children gone")


def test_a_killed_worker_is_replaced_and_serving_goes_on(serve):
    url = serve.url()
    worker = children(gunicorn_pid(serve))[0]
    os.kill(worker, signal.SIGKILL)
    wait_until(lambda: children(gunicorn_pid(serve)) not in ([], [worker]), 20, "a new worker")
    wait_until(lambda: healthy(url), 20, "serving again")
    assert serve.process.poll() is None


def test_ctrl_c_stops_everything_without_a_traceback_open_streams_included(serve):
    url = serve.url()
    game_id = new_game(url)
    family = descendants(serve.process.pid)
    stream = requests.get(f"{url}/v1/games/{game_id}/events/stream", stream=True, timeout=30)
    assert stream.status_code == 200
    next(stream.iter_lines())  # the stream is open and waiting
    started = time.monotonic()
    os.killpg(serve.process.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
    assert serve.wait(timeout=20) == 0
    assert time.monotonic() - started < 15
    stream.close()
    wait_until(lambda: not any(alive(pid) for pid in family), 10, "the children gone")
    assert "Traceback" not in serve.output and "KeyboardInterrupt" not in serve.output
    assert serve.lines[-1].endswith("Shutting down: Master") or "cardroom: stopping" in serve.output


def test_metrics_are_served_on_the_metrics_port_only(tmp_path):
    metrics_port = free_port()
    server = Serve(tmp_path / "data", "--metrics-port", str(metrics_port))
    try:
        url = server.url()
        assert requests.get(f"{url}/metrics", timeout=5).status_code == 404
        scraped = requests.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5)
        assert scraped.status_code == 200 and "cardroom_http_requests" in scraped.text
    finally:
        server.kill()
