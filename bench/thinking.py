"""Never a slower server (issue 29): what 20 tables of search bots thinking at once do to
``GET /healthz`` and to a person's action at another table.

    .venv/bin/python -m bench.thinking            # about 80 s
    .venv/bin/python -m bench.thinking --quick    # about 35 s: proves it runs
    .venv/bin/python -m bench.thinking --tables 40 --policy search-strong --seconds 40

One gunicorn with the production config (2 gevent workers, each with its thinking loop and
deciding process: cardroom/thinking.py) on the embedded Redis, as bench/launch.py starts them
for every benchmark. Two probes run side by side, each one request at a time with a pause
of ``--every`` seconds between answers:

- **healthz**: ``GET /healthz`` on a fresh connection (bench/load.py's ``Prober``);
- **action**: a person's ``POST /v1/games/{id}/actions`` at a 2-player table against the
  game's ``greedy`` bot (which moves inside that request, as a fast bot may), on a
  keep-alive connection as a browser holds it. The person posts a legal action drawn from
  the view the previous answer returned; a finished game is replaced by a new table (its
  create, join and view are not timed).

Both are measured twice: **idle** (no other table), then **loaded**: ``--tables`` tables of
4 players, every seat a ``--policy`` bot (half Mr Toast, half Exact Plays), each replaced by a
new one when its game ends, so that as many keep thinking throughout. The loaded window
opens once every such table has moved (the deciding processes are running). The tables'
versions are read from Redis, not through the API, so watching them adds no request; every
version a table gains is one search bot's move.

Prints p50, p99 and the maximum of each probe in each window, the ratio of the loaded p99 to
the idle p99 against the target (at most 2), the search moves played in the loaded window
(moves/s, and how many tables moved: all of them, or the load was not real) and each
party's share of the machine's cores. Exits 1 if a target is missed. The figures go to
``bench/results/thinking.json`` (``--out``). The windows run one after the other, so a
slow spell of the machine can fall in one only: check *other* (CPU outside this run) first.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import orjson
import redis
import requests

from bench import launch
from bench.load import Prober, percentile
from bench.report import NOISY_OTHER_CPU, commit, log, table

DEFAULT_OUT = launch.ROOT / "bench" / "results" / "thinking.json"
# Issue 29, "Never a slower server": the loaded p99 within this factor of the idle p99.
TARGET_RATIO = 2.0
SEARCH_GAME_TYPES = ("mr-toast", "exact-plays")
SEARCH_PLAYERS = 4
# The deciding process's command line (cardroom/thinking.py, Mind).
MIND_COMMAND = b"cardroom.thinking"
# Who used the machine's cores in a window: gunicorn (master and workers), the deciding
# processes, Redis, this process, and work outside this run.
CPU_PARTIES = ("server", "minds", "redis", "client", "other")


@dataclass(frozen=True)
class Mode:
    name: str
    seconds: float  # each measured window
    warmup: float  # probes before the idle window, not counted
    tables: int
    every: float  # pause between a probe's answer and its next request
    moving_timeout: float  # at most this long for every search table to move once


DEFAULT = Mode("default", seconds=30.0, warmup=2.0, tables=20, every=0.05, moving_timeout=30.0)
QUICK = replace(DEFAULT, name="quick", seconds=10.0)


# --- the person's table ------------------------------------------------------------------------


class PersonTable:
    """A person at a 2-player table against the game's greedy bot, on one keep-alive session.

    ``act`` posts a legal action drawn from the person's view and returns the POST's round
    trip; a finished game is replaced by a new table first (not timed)."""

    def __init__(self, base: str, game_type: str, seed: int) -> None:
        self.base = base
        self.game_type = game_type
        self.rng = random.Random(seed)
        self.session = requests.Session()
        self.game_id = ""
        self.headers: dict[str, str] = {}
        self.view: dict[str, Any] = {}
        self.tables = 0

    def sit(self) -> None:
        created = self.session.post(
            f"{self.base}/v1/games",
            json={
                "game_type": self.game_type,
                "players": 2,
                "bots": [{"seat": 1, "policy": "greedy"}],
            },
            timeout=30,
        )
        created.raise_for_status()
        self.game_id = created.json()["id"]
        joined = self.session.post(
            f"{self.base}/v1/games/{self.game_id}/join", json={"name": "Ann"}, timeout=30
        )
        joined.raise_for_status()
        self.headers = {"Authorization": f"Bearer {joined.json()['token']}"}
        self.tables += 1
        self.look()

    def look(self) -> None:
        answer = self.session.get(
            f"{self.base}/v1/games/{self.game_id}/view", headers=self.headers, timeout=30
        )
        answer.raise_for_status()
        self.view = answer.json()

    def act(self) -> tuple[float, int]:
        """One timed action: (seconds, HTTP status)."""
        if self.view.get("status") != "active" or not self.view.get("legal_actions"):
            self.sit()
        action = self.rng.choice(self.view["legal_actions"])
        started = time.perf_counter()
        answer = self.session.post(
            f"{self.base}/v1/games/{self.game_id}/actions",
            json=action,
            headers=self.headers,
            timeout=30,
        )
        took = time.perf_counter() - started
        if answer.status_code == 200:
            self.view = answer.json()["view"]
        else:
            self.look()
        return took, answer.status_code

    def close(self) -> None:
        self.session.close()


# --- the search tables ---------------------------------------------------------------------------


class SearchTables:
    """``count`` tables whose every seat is a search bot, kept at that count: a table whose
    game ended is replaced by a new one. Their versions are read from Redis (one pipelined
    HGET per look), so watching them sends the server no request."""

    def __init__(self, base: str, redis_url: str, count: int, policy: str) -> None:
        self.base = base
        self.store = redis.Redis.from_url(redis_url)
        self.count = count
        self.policy = policy
        self.session = requests.Session()
        self.active: list[str] = []
        self.version: dict[str, int] = {}  # every table's latest version seen
        self.since: dict[str, int] = {}  # version at the window's start (or at creation in it)
        self.opened_with: list[str] = []  # the tables active when the window opened
        self.window_open = False
        self.window_started = self.window_seconds = 0.0
        self.created = 0
        self.finished_in_window = 0
        self.create_failures: list[str] = []
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def create(self) -> None:
        game_type = SEARCH_GAME_TYPES[self.created % len(SEARCH_GAME_TYPES)]
        bots = [{"seat": seat, "policy": self.policy} for seat in range(SEARCH_PLAYERS)]
        try:
            answer = self.session.post(
                f"{self.base}/v1/games",
                json={"game_type": game_type, "players": SEARCH_PLAYERS, "bots": bots},
                timeout=30,
            )
        except requests.RequestException as error:
            self.create_failures.append(error.__class__.__name__)
            return
        if answer.status_code != 201:
            self.create_failures.append(f"{answer.status_code} {answer.text[:200]}")
            return
        created = answer.json()
        self.created += 1
        with self.lock:
            self.active.append(created["id"])
            # A search bot never moves inside the request: this is the version before any move.
            self.version[created["id"]] = created["version"]
            if self.window_open:
                self.since[created["id"]] = created["version"]

    def look(self, replace_finished: bool = True) -> None:
        """Read every active table's status and version; replace the finished ones."""
        with self.lock:
            ids = list(self.active)
        pipe = self.store.pipeline(transaction=False)
        for game_id in ids:
            pipe.hget(f"cardroom:game:{{{game_id}}}", "rec")
        with self.lock:
            for game_id, raw in zip(ids, pipe.execute(), strict=True):
                record = orjson.loads(raw or b"{}")
                self.version[game_id] = record.get("version", self.version[game_id])
                if record.get("status", "gone") != "active":
                    self.active.remove(game_id)
                    self.finished_in_window += self.window_open
        for _ in range(self.count - len(self.active) if replace_finished else 0):
            self.create()

    def _run(self) -> None:
        while not self.stopped.is_set():
            self.look()
            self.stopped.wait(0.25)

    def start(self) -> None:
        self.look()  # creates the tables
        self.thread.start()

    def wait_all_moving(self, timeout: float) -> bool:
        """Until every table now active has moved at least once (True), or ``timeout``."""
        deadline = time.monotonic() + timeout
        with self.lock:
            first = {game_id: self.version[game_id] for game_id in self.active}
        while time.monotonic() < deadline:
            with self.lock:
                if all(self.version[game_id] > seen for game_id, seen in first.items()):
                    return True
            time.sleep(0.25)
        return False

    def open_window(self) -> None:
        with self.lock:
            self.since = {game_id: self.version[game_id] for game_id in self.active}
            self.opened_with = list(self.active)
            self.window_open = True
            self.window_started = time.monotonic()

    def close_window(self) -> dict[str, Any]:
        """Search moves played since ``open_window``, and how many of the tables active when
        it opened moved in it."""
        self.stopped.set()
        self.thread.join(timeout=30)
        self.look(replace_finished=False)
        self.window_seconds = time.monotonic() - self.window_started
        with self.lock:
            moves = sum(self.version[game_id] - seen for game_id, seen in self.since.items())
            moved = sum(self.version[game_id] > self.since[game_id] for game_id in self.opened_with)
            return {
                "tables": self.count,
                "tables_at_start": len(self.opened_with),
                "tables_moved": moved,
                "tables_created": self.created,
                "games_finished_in_window": self.finished_in_window,
                "moves": moves,
                "seconds": round(self.window_seconds, 2),
                "moves_per_s": round(moves / self.window_seconds, 1),
                "create_failures": self.create_failures[:5],
            }

    def close(self) -> None:
        self.stopped.set()
        self.session.close()
        self.store.close()


# --- windows ----------------------------------------------------------------------------------


def minds(server_pid: int) -> list[int]:
    """The deciding processes (``python -m cardroom.thinking``) under the server."""
    parents: dict[int, int] = {}
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        parents[int(entry)] = int(raw[raw.rindex(")") + 2 :].split()[1])
        if MIND_COMMAND in command:
            found.append(int(entry))
    under = []
    for pid in found:
        walk = parents.get(pid, 0)
        while walk and walk != server_pid:
            walk = parents.get(walk, 0)
        if walk == server_pid:
            under.append(pid)
    return under


def latency(times: list[float], failures: list[str]) -> dict[str, Any]:
    return {
        "samples": len(times),
        "failures": len(failures),
        "first_failures": failures[:5],
        "p50_ms": round(percentile(times, 0.5) * 1000, 2),
        "p90_ms": round(percentile(times, 0.9) * 1000, 2),
        "p99_ms": round(percentile(times, 0.99) * 1000, 2),
        "max_ms": round(max(times, default=math.nan) * 1000, 2),
    }


def window(
    server: launch.Server, redis_pid: int, person: PersonTable, mode: Mode, seconds: float
) -> dict[str, Any]:
    """Both probes for ``seconds``: their latencies and every party's share of the cores."""
    roots = {"server": [server.pid], "minds": minds(server.pid), "redis": [redis_pid]}
    meter = launch.CpuMeter(roots)
    healthz = Prober(server.url, every=mode.every)
    action = Prober(server.url, every=mode.every, timeout=30, probe=person.act)
    client_before = sum(os.times()[:2])
    meter.start()
    started = time.perf_counter()
    healthz.start()
    action.start()
    time.sleep(seconds)
    healthz.stop()
    action.stop()
    took = time.perf_counter() - started
    cpu = meter.stop()
    cpu["client"] = sum(os.times()[:2]) - client_before
    cores = (os.cpu_count() or 1) * took
    parties = ("server", "minds", "redis", "client")
    shares = {name: round(cpu[name] / cores, 3) for name in parties}
    shares["other"] = round(
        max(0.0, cpu["machine"] - sum(cpu[name] for name in parties)) / cores, 3
    )
    return {
        "seconds": round(took, 2),
        "healthz": latency(healthz.times, healthz.failures),
        "action": latency(action.times, action.failures),
        "cpu_share": shares,
        "minds": len(roots["minds"]),
    }


def targets(idle: dict[str, Any], loaded: dict[str, Any], search: dict[str, Any]) -> list[dict]:
    rows = []
    for probe in ("healthz", "action"):
        ratio = loaded[probe]["p99_ms"] / idle[probe]["p99_ms"]
        rows.append(
            {
                "target": f"{probe} p99 loaded / idle",
                "value": round(ratio, 2),
                "limit": f"at most {TARGET_RATIO:g}x",
                "verdict": "PASS" if ratio <= TARGET_RATIO else "FAIL",
            }
        )
    failures = sum(
        figures[probe]["failures"] for figures in (idle, loaded) for probe in ("healthz", "action")
    )
    rows.append(
        {
            "target": "probe failures (non-2xx or no answer)",
            "value": failures,
            "limit": "none",
            "verdict": "PASS" if failures == 0 else "FAIL",
        }
    )
    rows.append(
        {
            "target": "search tables that moved in the window",
            "value": f"{search['tables_moved']} of {search['tables_at_start']}",
            "limit": "all",
            "verdict": "PASS" if search["tables_moved"] == search["tables_at_start"] else "FAIL",
        }
    )
    return rows


def plural(count: int, word: str, words: str) -> str:
    return f"{count} {word if count == 1 else words}"


def render(report: dict[str, Any]) -> str:
    idle, loaded = report["idle"], report["loaded"]
    search = report["search"]
    rows = []
    for probe, label in (("healthz", "GET /healthz"), ("action", "person's POST /actions")):
        for name, figures in (("idle", idle), ("loaded", loaded)):
            got = figures[probe]
            rows.append(
                [
                    f"{label}, {name}",
                    f"{got['p50_ms']:.1f}",
                    f"{got['p99_ms']:.1f}",
                    f"{got['max_ms']:.1f}",
                    str(got["samples"]),
                    str(got["failures"]),
                ]
            )
    parts = [table(["probe", "p50 ms", "p99 ms", "max ms", "samples", "failures"], rows)]
    cpu_rows = [
        [name, *(f"{figures['cpu_share'][party]:.0%}" for party in CPU_PARTIES)]
        for name, figures in (("idle", idle), ("loaded", loaded))
    ]
    parts.append("share of all cores\n" + table(["window", *CPU_PARTIES], cpu_rows))
    parts.append(
        f"loaded: {search['tables']} tables of {SEARCH_PLAYERS} {report['settings']['policy']!r}"
        f" bots ({' and '.join(SEARCH_GAME_TYPES)}), {loaded['minds']} deciding processes;\n"
        f"{search['tables_moved']} of the {search['tables_at_start']} tables moved in the"
        f" {search['seconds']:.0f} s window: {search['moves']} search moves"
        f" ({search['moves_per_s']:.1f} moves/s);"
        f" {plural(search['games_finished_in_window'], 'game', 'games')} ended and"
        f" {'was' if search['games_finished_in_window'] == 1 else 'were'} replaced"
    )
    parts.append(
        table(
            ["target", "value", "limit", "verdict"],
            [
                [row["target"], str(row["value"]), row["limit"], row["verdict"]]
                for row in report["targets"]
            ],
        )
    )
    noisy = [
        name
        for name, figures in (("idle", idle), ("loaded", loaded))
        if figures["cpu_share"]["other"] > NOISY_OTHER_CPU
    ]
    if noisy:
        parts.append(
            f"warning: other work used more than {NOISY_OTHER_CPU:.0%} of the cores in the"
            f" {' and '.join(noisy)} {'window' if len(noisy) == 1 else 'windows'}:"
            " the figures are noisy"
        )
    return "\n\n".join(parts)


def unusual_log_lines(path: Path) -> list[str]:
    """The server log's lines that are not routine (warnings and errors), the last 30."""
    text = path.read_text(errors="replace") if path.exists() else ""
    routine = ('"level":"info"', "] [INFO] ")  # the app's JSON lines and gunicorn's own
    return [
        line for line in text.splitlines() if line.strip() and not any(m in line for m in routine)
    ][-30:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.thinking", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10 s windows (default 30 s)")
    parser.add_argument("--seconds", type=float, help="each measured window")
    parser.add_argument("--tables", type=int, help="tables of search bots (default 20)")
    parser.add_argument("--policy", default="search", help="the search tables' bot policy")
    parser.add_argument(
        "--person-game", default="mr-toast", choices=SEARCH_GAME_TYPES, help="the person's game"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file of the figures")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the server, for experiments (e.g. CARDROOM_WORKERS=3)",
    )
    args = parser.parse_args(argv)
    mode = QUICK if args.quick else DEFAULT
    if args.seconds:
        mode = replace(mode, seconds=args.seconds)
    if args.tables:
        mode = replace(mode, tables=args.tables)
    server_env = dict(item.split("=", 1) for item in args.server_env)

    started = time.time()
    report: dict[str, Any] = {
        "mode": mode.name,
        "settings": {**asdict(mode), "policy": args.policy, "person_game": args.person_game},
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "commit": commit("server", label="server files"),
            "loadavg_before": os.getloadavg(),
        },
        "server_env": server_env,
    }
    with tempfile.TemporaryDirectory(prefix="cardroom-thinking-") as scratch:
        server_log = Path(scratch) / "server.log"
        redis_server = launch.start_redis(Path(scratch) / "redis")
        try:
            assert redis_server.process is not None
            redis_pid = redis_server.process.pid
            server = launch.start_gunicorn(redis_server.url, log_path=server_log, **server_env)
            person = PersonTable(server.url, args.person_game, seed=29)
            search = SearchTables(server.url, redis_server.url, mode.tables, args.policy)
            try:
                person.sit()
                log(f"warm-up: {mode.warmup:g} s of both probes, not counted")
                window(server, redis_pid, person, mode, mode.warmup)
                log(f"idle: {mode.seconds:g} s")
                report["idle"] = window(server, redis_pid, person, mode, mode.seconds)
                log(f"{mode.tables} tables of {SEARCH_PLAYERS} {args.policy!r} bots")
                search.start()
                moving = time.monotonic()
                if search.wait_all_moving(mode.moving_timeout):
                    log(f"every table moved in {time.monotonic() - moving:.1f} s")
                else:
                    log(f"not every table moved in {mode.moving_timeout:g} s: measuring anyway")
                log(f"loaded: {mode.seconds:g} s")
                search.open_window()
                report["loaded"] = window(server, redis_pid, person, mode, mode.seconds)
                report["search"] = search.close_window()
                report["person_tables"] = person.tables
            finally:
                search.close()
                person.close()
                server.stop()
        finally:
            redis_server.stop()
        report["server_log_unusual"] = unusual_log_lines(server_log)
    report["targets"] = targets(report["idle"], report["loaded"], report["search"])
    report["seconds"] = round(time.time() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(render(report))
    if report["server_log_unusual"]:
        unusual = plural(len(report["server_log_unusual"]), "unusual line", "unusual lines")
        print(f"\nthe server logged {unusual} (server_log_unusual in the JSON file)")
    print(f"\nfigures written to {args.out} ({report['seconds']:.0f} s)")
    return 0 if all(row["verdict"] == "PASS" for row in report["targets"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
