"""python -m bench.peer: cardroom against boardgame.io, per move (bench/peer/README.md)."""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import redis

from bench import launch
from bench.load import SocketLoad, SocketTarget, interleave, median_of, socket_window
from bench.peer import sdk_check
from bench.report import NOISY_OTHER_CPU, commit, log
from bench.report import table as _table
from bench.scenarios import game_bytes

DEFAULT_OUT = launch.ROOT / "bench" / "results" / "peer-latest.json"
SYSTEM_KINDS = ("cardroom", "bgio-redis", "bgio-memory")
# Run only when asked (--systems …,floor): the socket floor (floor_app.py, README "The floor").
OPTIONAL_KINDS = ("floor",)
BYTES_SAMPLE = 5  # finished games sized in Redis after each window
BGIO_PREFIX = "bgio"  # redis-storage.js's keys: bgio:<match id>:<kind>
BGIO_KINDS = ("state", "initial", "metadata", "log")
# The Node client follows a game as the SDK does when their messages per move (requests and
# socket messages of these kinds, and views pushed to them) agree within this fraction; the
# mixes of two games of random play differ by a few per cent.
STEADY_KINDS = ("act", "view", "view (held)", "events (wait)", "look")
PUSHED_KIND = "view (pushed)"
SDK_DRIFT = 0.15
# Every load client comes from 127.0.0.1: the per-address limits on creating and joining
# games (600 and 1,200 a minute) would refuse the load's own setup. boardgame.io has none.
CARDROOM_ENV = {"CARDROOM_RATE_LIMIT_CREATE": "off", "CARDROOM_RATE_LIMIT_JOIN": "off"}


def _ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.peer", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="1 round of 5 s windows (2 s warm-up): proves it runs"
    )
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 3)")
    parser.add_argument("--window", type=float, help="measured seconds per window (default 20)")
    parser.add_argument("--warmup", type=float, help="seconds of play before each window (5)")
    parser.add_argument("--games", default="16,64", help="concurrent games, comma-separated")
    parser.add_argument(
        "--systems",
        default=",".join(SYSTEM_KINDS),
        help=f"comma-separated subset of {','.join(SYSTEM_KINDS + OPTIONAL_KINDS)}"
        " (floor: the socket floor, one worker, README 'The floor')",
    )
    parser.add_argument(
        "--cardroom-workers", default="1,2", help="gunicorn workers, one cardroom system each"
    )
    parser.add_argument("--cardroom-game", default="exact-plays", help="cardroom's game type")
    parser.add_argument(
        "--client-processes", type=int, default=2, help="Node load processes per window (2)"
    )
    parser.add_argument(
        "--transports",
        help="boardgame.io clients' socket.io transports, e.g. 'websocket'"
        " (default: socket.io's, long-polling upgraded to a WebSocket)",
    )
    parser.add_argument(
        "--sdk-check-games",
        type=int,
        default=4,
        help="games the SDK itself plays to check the Node client's request mix (0: skip)",
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for cardroom's servers (repeatable), e.g. CARDROOM_KEPT_GAMES=0",
    )
    parser.add_argument(
        "--cardroom-python",
        metavar="PYTHON",
        help="the Python that runs cardroom's servers, with cardroom installed (default: this"
        " one); bench/peer/README.md, 'Which Python'",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file of the figures")
    args = parser.parse_args(argv)
    args.cardroom_python = args.cardroom_python or sys.executable
    problem = interpreter_problem(args.cardroom_python)
    if problem:
        parser.error(problem)
    quick = args.quick
    args.rounds = args.rounds or (1 if quick else 3)
    args.window = args.window or (5.0 if quick else 20.0)
    args.warmup = args.warmup if args.warmup is not None else (2.0 if quick else 5.0)
    args.games = _ints(args.games)
    args.cardroom_workers = _ints(args.cardroom_workers)
    args.systems = [name.strip() for name in args.systems.split(",") if name.strip()]
    unknown = set(args.systems) - set(SYSTEM_KINDS + OPTIONAL_KINDS)
    if unknown:
        parser.error(f"unknown system(s): {', '.join(sorted(unknown))}")
    if not args.games or min(args.games) < 1 or args.client_processes < 1:
        parser.error("--games and --client-processes must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    node = launch.node_binary()
    if node is None:
        print(
            "bench.peer: skipped: Node.js (node >= 18, with npm) is not installed; it runs"
            " boardgame.io. Debian: apt-get install -y nodejs npm"
        )
        return 0
    launch.ensure_packages(log)
    started = time.time()
    report: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "settings": {
            key: value for key, value in vars(args).items() if key not in ("out", "quick")
        },
        "machine": machine(node, args.cardroom_python),
    }
    with tempfile.TemporaryDirectory(prefix="cardroom-peer-") as scratch:
        report.update(run(args, node, Path(scratch)))
    report["seconds"] = time.time() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(_clean(report), indent=2, default=str) + "\n")
    print(render(report))
    print(f"\nfigures written to {args.out} ({report['seconds']:.0f} s)")
    return 0


def _clean(value: Any) -> Any:
    """The report with NaN (a figure nothing measured) as null: strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(item) for item in value]
    return value


_DESCRIBE = (
    "import json, sys, sysconfig, cardroom, gunicorn; "
    "print(json.dumps({'version': sys.version.split()[0], 'executable': sys.executable, "
    "'configure': sysconfig.get_config_var('CONFIG_ARGS') or ''}))"
)


def describe_python(python: str) -> dict[str, Any]:
    """The Python at ``python``: its version, its executable, and how it was configured."""
    done = subprocess.run(
        [python, "-c", _DESCRIBE], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(done.stdout)


def interpreter_problem(python: str) -> str | None:
    """Why ``python`` cannot run cardroom's servers, or None."""
    try:
        describe_python(python)
    except (OSError, subprocess.SubprocessError, ValueError):
        return (
            f"--cardroom-python {python}: not a Python with cardroom and gunicorn installed"
            f" (make one: {python} -m venv DIR && DIR/bin/pip install -e .)"
        )
    return None


def machine(node: str, cardroom_python: str) -> dict[str, Any]:
    return {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "cardroom_python": describe_python(cardroom_python),
        "node": launch.node_version(node),
        "boardgame.io": launch.installed_version("boardgame.io"),
        "ioredis": launch.installed_version("ioredis"),
        "commit": commit("server", "bench/peer"),
        "loadavg_before": os.getloadavg(),
    }


# --- the run ---------------------------------------------------------------------------------


def start_systems(
    args: argparse.Namespace, node: str, scratch: Path, stack: list[Any]
) -> list[SocketTarget]:
    """Every system of the run, started, each on a Redis of its own (but boardgame.io in
    memory); ``stack`` gets what to stop, in order.

    A Redis per cardroom server, as each boardgame.io system has: every cardroom process
    hears every game's changes on its Redis, so a server idle between its windows would
    otherwise spend CPU (outside this system's count) on the other's moves.
    """
    out: list[SocketTarget] = []
    server_env = dict(item.split("=", 1) for item in args.server_env)
    if "cardroom" in args.systems:
        for workers in args.cardroom_workers:
            env = {**CARDROOM_ENV, **server_env, "CARDROOM_WORKERS": str(workers)}
            out.append(_system(args, node, scratch, stack, f"cardroom-w{workers}", env=env))
    if "floor" in args.systems:
        env = {"CARDROOM_WORKERS": "1"}
        out.append(_system(args, node, scratch, stack, "floor", env=env))
    for storage in ("redis", "memory"):
        if f"bgio-{storage}" in args.systems:
            out.append(_system(args, node, scratch, stack, f"bgio-{storage}"))
    return out


def _system(
    args: argparse.Namespace,
    node: str,
    scratch: Path,
    stack: list[Any],
    name: str,
    env: dict[str, str] | None = None,
) -> SocketTarget:
    """One system: cardroom (or the floor, another WSGI app) under gunicorn with cardroom's
    config, or boardgame.io's Node server."""
    store = None
    if name != "bgio-memory":
        store = launch.start_redis(scratch / f"redis-{name}")
        stack.append(store.stop)
        assert store.process is not None
    redis_url = store.url if store else None
    log_path = scratch / f"{name}.log"
    if name.startswith("bgio-"):
        kind = "bgio"
        server = launch.start_bgio(node, name.removeprefix("bgio-"), log_path, redis_url)
    else:
        assert store is not None and env is not None
        kind = "floor" if name == "floor" else "cardroom"
        app = launch.SOCKET_FLOOR if kind == "floor" else None
        server = launch.start_gunicorn(
            store.url, app=app, log_path=log_path, python=args.cardroom_python, **env
        )
    stack.append(server.stop)
    return SocketTarget(
        name=name,
        kind=kind,
        url=server.url,
        server_pid=server.pid,
        redis_pid=store.process.pid if store and store.process else None,
        redis_url=redis_url,
        log_path=log_path,
    )


def run(args: argparse.Namespace, node: str, scratch: Path) -> dict[str, Any]:
    stack: list[Any] = []
    windows: list[dict[str, Any]] = []  # in the order they ran
    sizes: dict[str, list[dict[str, int]]] = {}
    out: dict[str, Any] = {}
    try:
        log("starting the servers: " + ", ".join(args.systems))
        running = start_systems(args, node, scratch, stack)
        cardroom = [system for system in running if system.kind == "cardroom"]
        if cardroom and args.sdk_check_games:
            log(f"SDK check: the SDK plays {args.sdk_check_games} games on {cardroom[0].name}")
            out["sdk_check"] = sdk_check.run(
                cardroom[0].url, args.sdk_check_games, args.cardroom_game, args.seed * 7919
            )
            log(
                f"SDK check: {out['sdk_check']['requests_total_per_move']:.2f} requests per move"
                f" ({_mix(out['sdk_check']['requests_per_move'])})"
            )
        per_round = len(args.games) * len(running)

        def window(system: SocketTarget, games: int, round_no: int, number: int) -> Any:
            spec = SocketLoad(
                node=node,
                games=games,
                warmup=args.warmup,
                duration=args.window,
                client_processes=args.client_processes,
                seed=args.seed * 1000 + round_no * 10 + number,
                cardroom_game=args.cardroom_game,
                transports=args.transports,
            )

            def measure() -> dict[str, Any]:
                result = socket_window(system, spec, scratch)
                result["round"] = round_no + 1
                windows.append(result)
                log(f"round {round_no + 1}/{args.rounds} " + _line(result))
                if system.redis_url and system.kind != "floor":
                    sample = result["finished_ids"][:BYTES_SAMPLE]
                    sizes.setdefault(system.name, []).extend(measure_bytes(system, sample))
                return result

            return measure

        def windows_of_round(round_no: int) -> list[tuple[Hashable, Any]]:
            """Every system at every game count, the order of the systems rotated."""
            loads: list[tuple[Hashable, Any]] = []
            for games in args.games:
                shift = round_no % len(running)
                for system in running[shift:] + running[:shift]:
                    number = round_no * per_round + len(loads)
                    loads.append((system.name, window(system, games, round_no, number)))
            return loads

        interleave(args.rounds, windows_of_round)
        out["unusual_log_lines"] = unusual_lines(running)
    finally:
        for stop in reversed(stack):
            stop()
    for result in windows:
        result.pop("finished_ids", None)
    out["windows"] = windows
    out["bytes_per_finished_game"] = {
        name: _median_parts(rows) for name, rows in sizes.items() if rows
    }
    out["table"] = table(windows)
    out["ratios"] = ratios(out["table"])
    return out


def measure_bytes(system: SocketTarget, ids: list[str]) -> list[dict[str, int]]:
    assert system.redis_url is not None
    client = redis.Redis.from_url(system.redis_url, socket_timeout=30)
    try:
        measure = cardroom_game_bytes if system.kind == "cardroom" else bgio_game_bytes
        return [measure(client, game_id) for game_id in ids]
    finally:
        client.close()


def _memory(client: redis.Redis, key: str) -> int:
    return int(client.memory_usage(key, samples=0) or 0)


def cardroom_game_bytes(client: redis.Redis, game_id: str) -> dict[str, int]:
    """MEMORY USAGE of a game's hash, and of the stored answers of its Idempotency-Keys."""
    parts = game_bytes(client, game_id)
    return {"game": parts["hash"], "idempotency": parts["idempotency"]}


def bgio_game_bytes(client: redis.Redis, match_id: str) -> dict[str, int]:
    """MEMORY USAGE of each key the adapter wrote for a match (redis-storage.js)."""
    parts = {kind: _memory(client, f"{BGIO_PREFIX}:{match_id}:{kind}") for kind in BGIO_KINDS}
    parts["game"] = sum(parts.values())
    return parts


def _median_parts(rows: list[dict[str, int]]) -> dict[str, Any]:
    """The game of median size (its parts stay consistent), and how many were sized."""
    ordered = sorted(rows, key=lambda row: row["game"])
    return {**ordered[len(ordered) // 2], "sampled": len(rows)}


def unusual_lines(running: list[SocketTarget]) -> dict[str, list[str]]:
    """Warnings and errors in the servers' logs (the last 20 of each)."""
    out = {}
    for system in running:
        path = system.log_path
        if not path.exists():
            continue
        lines = path.read_text(errors="replace").splitlines()
        if system.kind in ("cardroom", "floor"):
            odd = [line for line in lines if line.strip() and '"level":"info"' not in line]
            odd = [line for line in odd if "[INFO]" not in line]
        else:
            odd = [line for line in lines if line.strip() and not line.startswith("listening")]
        if odd:
            out[system.name] = odd[-20:]
    return out


# --- figures -----------------------------------------------------------------------------------


def table(windows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (games, system): medians over its windows, and their ranges."""
    groups: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for window in windows:
        groups.setdefault((window["games"], window["system"]), []).append(window)
    rows = []
    for (games, name), group in groups.items():

        def med(key: str, group: list[dict[str, Any]] = group) -> float:
            return median_of([window[key] for window in group])

        cpu_keys = group[0]["cpu_us_per_move"].keys()
        cpu = {key: median_of([w["cpu_us_per_move"][key] for w in group]) for key in cpu_keys}
        rows.append(
            {
                "games": games,
                "system": name,
                "windows": len(group),
                "moves_per_s": med("moves_per_s"),
                "act_p50_ms": med("act_p50_ms"),
                "act_p99_ms": med("act_p99_ms"),
                "cycle_p50_ms": med("cycle_p50_ms"),
                "cycle_p99_ms": med("cycle_p99_ms"),
                "cpu_us_per_move": cpu,
                "to_server_total_per_move": med("to_server_total_per_move"),
                "from_server_total_per_move": med("from_server_total_per_move"),
                "moves_per_finished_game": med("moves_per_finished_game"),
                "other_cpu_share": max(w["cpu_share"]["other"] for w in group),
                "range_moves_per_s": [
                    min(w["moves_per_s"] for w in group),
                    max(w["moves_per_s"] for w in group),
                ],
                "range_cpu_server_redis": [
                    min(w["cpu_us_per_move"]["server+redis"] for w in group),
                    max(w["cpu_us_per_move"]["server+redis"] for w in group),
                ],
                "problems": sum(
                    entry["count"] for w in group for kind, entry in w["problems"].items()
                ),
            }
        )
    return rows


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """cardroom / boardgame.io (and the floor / boardgame.io, cardroom / the floor), per game
    count: CPU per move, moves/s, p99s."""
    by = {(row["games"], row["system"]): row for row in rows}
    out = []
    for row in rows:
        if row["system"] == "floor":
            peers: tuple[str, ...] = ("bgio-redis", "bgio-memory")
        elif row["system"].startswith("cardroom"):
            peers = ("bgio-redis", "bgio-memory", "floor")
        else:
            continue
        for peer in peers:
            other = by.get((row["games"], peer))
            if other is None:
                continue
            out.append(
                {
                    "games": row["games"],
                    "cardroom": row["system"],
                    "peer": peer,
                    "cpu_server_redis": _ratio(
                        row["cpu_us_per_move"]["server+redis"],
                        other["cpu_us_per_move"]["server+redis"],
                    ),
                    "moves_per_s": _ratio(row["moves_per_s"], other["moves_per_s"]),
                    "act_p99": _ratio(row["act_p99_ms"], other["act_p99_ms"]),
                    "cycle_p99": _ratio(row["cycle_p99_ms"], other["cycle_p99_ms"]),
                }
            )
    return out


def _ratio(a: float, b: float) -> float:
    return a / b if b and not math.isnan(a) and not math.isnan(b) else math.nan


# --- rendering ---------------------------------------------------------------------------------


def _mix(per_move: dict[str, float]) -> str:
    return ", ".join(f"{kind} {value:.2f}" for kind, value in per_move.items())


def _steady(mix: dict[str, float]) -> float:
    """Requests per move that follow the game (not the setup of games)."""
    return sum(value for kind, value in mix.items() if kind in STEADY_KINDS)


def sdk_drift(check: dict[str, Any], windows: list[dict[str, Any]]) -> float | None:
    """How far the Node client's messages per move are from the SDK's (a fraction)."""
    node = [
        _steady(window["to_server_per_move"]) + window["from_server_per_move"].get(PUSHED_KIND, 0.0)
        for window in windows
        if window["system"].startswith("cardroom") and window["moves"]
    ]
    sdk = _steady(check["requests_per_move"]) + check.get("pushed_per_move", 0.0)
    if not node or not sdk:
        return None
    return abs(median_of(node) - sdk) / sdk


def _line(result: dict[str, Any]) -> str:
    cpu = result["cpu_us_per_move"]
    share = result["cpu_share"]
    return (
        f"{result['system']} {result['games']} games: {result['moves_per_s']:,.0f} moves/s,"
        f" act p50/p99 {result['act_p50_ms']:.1f}/{result['act_p99_ms']:.1f} ms, cycle p50/p99"
        f" {result['cycle_p50_ms']:.1f}/{result['cycle_p99_ms']:.1f} ms; CPU µs/move server"
        f" {cpu['server']:,.0f} redis {cpu.get('redis', 0):,.0f} client {cpu['client']:,.0f};"
        f" to server {result['to_server_total_per_move']:.2f}/move"
        f" ({_mix(result['to_server_per_move'])}); refused {result['refused_per_move']:.3f}/move;"
        f" other cpu {share['other']:.0%}"
        + (f"; problems {result['problems']}" if result["problems"] else "")
    )


def _num(value: float, digits: int = 0) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:,.{digits}f}"


def python_line(python: dict[str, Any]) -> str:
    """Python 3.11.2 (/usr/bin/python3.11): how it was built is in the JSON (``configure``)."""
    return f"Python {python['version']} ({python['executable']})"


def render(report: dict[str, Any]) -> str:
    settings = report["settings"]
    machine_info = report["machine"]
    out = [
        f"peer benchmark: cardroom (commit {machine_info['commit']}) and boardgame.io"
        f" {machine_info['boardgame.io']} (node {machine_info['node']}), {machine_info['cores']}"
        f" cores; {settings['rounds']} interleaved round(s) of {settings['window']:g} s windows"
        f" after {settings['warmup']:g} s of play; cardroom game {settings['cardroom_game']},"
        " every cardroom action with its Idempotency-Key (as the SDK);"
        " rows: medians over the windows",
        f"cardroom runs on {python_line(machine_info['cardroom_python'])}",
        "",
    ]
    sized = report.get("bytes_per_finished_game", {})
    rows = []
    noisy = False
    for row in sorted(report["table"], key=lambda r: (r["games"], r["system"])):
        cpu = row["cpu_us_per_move"]
        noisy = noisy or row["other_cpu_share"] > NOISY_OTHER_CPU
        game_bytes = sized.get(row["system"], {}).get("game")
        rows.append(
            [
                f"{row['system']}, {row['games']} games",
                _num(row["moves_per_s"]),
                _num(row["act_p50_ms"], 1),
                _num(row["act_p99_ms"], 1),
                _num(row["cycle_p50_ms"], 1),
                _num(row["cycle_p99_ms"], 1),
                _num(cpu["server"]),
                _num(cpu.get("redis", math.nan)) if "redis" in cpu else "-",
                _num(cpu["server+redis"]),
                f"{_num(row['range_cpu_server_redis'][0])}-{_num(row['range_cpu_server_redis'][1])}",
                _num(cpu["client"]),
                f"{row['to_server_total_per_move']:.2f}/{row['from_server_total_per_move']:.2f}",
                _num(row["moves_per_finished_game"]),
                "-" if game_bytes is None else f"{game_bytes:,}",
                f"{row['other_cpu_share']:.0%}",
                str(row["problems"]),
            ]
        )
    out.append(
        _table(
            [
                "system, concurrent games",
                "moves/s",
                "act p50",
                "act p99",
                "cycle p50",
                "cycle p99",
                "server µs",
                "redis µs",
                "srv+redis µs",
                "range",
                "client µs",
                "msgs in/out",
                "moves/game",
                "B/game",
                "other",
                "problems",
            ],
            rows,
        )
    )
    out.append(
        "act: ms from sending a move to its confirmation (cardroom: the action's answer;"
        " boardgame.io: the pushed state that holds it). cycle: ms between consecutive moves"
        " of one game (learning of the turn + choosing + act). µs: CPU per move (server ="
        " gunicorn master and workers, or the Node server; redis = its Redis, AOF rewrites"
        " included; client = the load processes). range: server+redis over the windows."
        " msgs in/out: messages the server received/sent per move (cardroom: HTTP requests"
        " and answers; boardgame.io: socket.io events and lobby requests). B/game: Redis"
        " MEMORY USAGE of a finished game (cardroom: its hash; boardgame.io: its four keys)."
        " other: the largest share of the machine used by work outside this run."
    )
    if noisy:
        out.append(
            f"WARNING: other work used more than {NOISY_OTHER_CPU:.0%} of the machine in some"
            " windows: rates are rough; CPU per move is steadier. Run again on a quiet machine."
        )
    out.append("")
    if report.get("ratios"):
        out.append(
            _table(
                [
                    "system / peer",
                    "games",
                    "CPU/move (srv+redis)",
                    "moves/s",
                    "act p99",
                    "cycle p99",
                ],
                [
                    [
                        f"{ratio['cardroom']} / {ratio['peer']}",
                        str(ratio["games"]),
                        _num(ratio["cpu_server_redis"], 2),
                        _num(ratio["moves_per_s"], 2),
                        _num(ratio["act_p99"], 2),
                        _num(ratio["cycle_p99"], 2),
                    ]
                    for ratio in report["ratios"]
                ],
            )
        )
        out.append("CPU/move below 1: cardroom is cheaper per move; the goal of issue 16.")
        out.append("")
    mixes = {}
    for window in report["windows"]:
        if window["system"].startswith("cardroom"):
            mixes.setdefault(
                window["system"],
                (window["to_server_per_move"], window["from_server_per_move"].get(PUSHED_KIND, 0)),
            )
    for name, (mix, pushed) in mixes.items():
        out.append(
            f"requests and messages per move, {name} (Node client, first window): {_mix(mix)};"
            f" views pushed {pushed:.2f}"
        )
    check = report.get("sdk_check")
    if check:
        out.append(
            f"requests and messages per move, the SDK itself ({check['games']} games,"
            f" {check['moves']} moves, Seat.play with RandomBot):"
            f" {check['requests_total_per_move']:.2f} ({_mix(check['requests_per_move'])});"
            f" views pushed {check.get('pushed_per_move', 0.0):.2f}"
            + (f"; errors: {check['errors']}" if check["errors"] else "")
        )
        drift = sdk_drift(check, report["windows"])
        if drift is not None and drift > SDK_DRIFT:
            out.append(
                f"WARNING: the Node client's messages per move (act, view, look, views pushed)"
                f" differ from the SDK's by {drift:.0%}: load-cardroom.js no longer follows a"
                " game as the SDK does; update its waitForTurn/playSeat to the SDK's Seat.play."
            )
    redis_mixes = {}
    for window in report["windows"]:
        if window.get("redis_per_move"):
            redis_mixes.setdefault(window["system"], window["redis_per_move"])
    for name, mix in redis_mixes.items():
        top = ", ".join(f"{cmd} {n:.2f}" for cmd, n in list(mix["calls"].items())[:8])
        out.append(
            f"Redis per move, {name} (first window): {mix['commands']:.1f} commands ({top}),"
            f" {mix['connections']:.2f} new connections"
        )
    for name, parts in sized.items():
        detail = ", ".join(f"{key} {value:,}" for key, value in parts.items() if key != "game")
        out.append(f"bytes per finished game, {name}: {parts['game']:,} ({detail})")
    unusual = report.get("unusual_log_lines", {})
    for name, lines in unusual.items():
        out.append(f"server log {name}: {len(lines)} unusual line(s), e.g. {lines[-1][:200]}")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
