"""python -m bench [--quick | --full] [--out FILE] [--only a,b] — docs/benchmarks.md."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import launch, load, scenarios
from bench.report import NOISY_OTHER_CPU, commit, log
from bench.report import table as _table

DEFAULT_OUT = launch.ROOT / "bench" / "results" / "latest.json"
SCENARIOS = ("engine", "floor", "action", "view", "storage", "growth", "scale")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="about a minute (default)")
    size.add_argument("--full", action="store_true", help="about five to ten minutes")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON file of the figures")
    parser.add_argument("--only", help=f"comma-separated subset of {','.join(SCENARIOS)}")
    parser.add_argument("--connections", type=int, help="concurrent connections of each load")
    parser.add_argument("--duration", type=float, help="measured seconds of each load")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the servers, for experiments (e.g. CARDROOM_WORKERS=3)",
    )
    args = parser.parse_args(argv)

    mode = scenarios.FULL if args.full else scenarios.QUICK
    changes: dict[str, Any] = {}
    if args.connections:
        changes["connections"] = args.connections
    if args.duration:
        changes["duration"] = args.duration
    mode = dataclasses.replace(mode, **changes)
    chosen = set(args.only.split(",")) if args.only else set(SCENARIOS)
    unknown = chosen - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")

    server_env = dict(item.split("=", 1) for item in args.server_env)
    started = time.time()
    report: dict[str, Any] = {
        "mode": mode.name,
        "settings": dataclasses.asdict(mode),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "machine": machine(),
        "server_env": server_env,
        "results": {},
    }
    results = report["results"]
    with tempfile.TemporaryDirectory(prefix="cardroom-bench-") as scratch:
        redis_server = launch.start_redis(Path(scratch) / "redis")
        try:
            ctx = scenarios.Context(mode, redis_server, Path(scratch), log, server_env)
            run(ctx, chosen, results)
        finally:
            redis_server.stop()
    report["seconds"] = time.time() - started
    report["targets"] = targets(results, mode)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=float) + "\n")
    print(render(report))
    print(f"\nfigures written to {args.out} ({report['seconds']:.0f} s)")
    return 0


def run(ctx: scenarios.Context, chosen: set[str], results: dict[str, Any]) -> None:
    if "engine" in chosen:
        log("engine: in-process, no HTTP, no Redis")
        results["engine"] = scenarios.engine(ctx)
    if chosen & {"floor", "storage", "action", "view", "growth", "scale"}:
        results["record"] = scenarios.record_sizes(ctx)
        log(f"record sizes: {results['record']}")
    if "storage" in chosen:
        log("storage: MEMORY USAGE per game")
        results["storage"] = scenarios.storage(ctx)
    if chosen & {"floor", "action", "view"}:
        log(
            f"floor, action and view loads: {ctx.mode.rounds} interleaved rounds"
            " (floor = a minimal Flask app, GET + SET of a record-sized blob)"
        )
        results.update(
            scenarios.interleaved_loads(ctx, chosen, results["record"]["floor_blob_file"])
        )
    if "growth" in chosen:
        server = ctx.start_server()
        try:
            results["growth"] = scenarios.growth(ctx, server)
        finally:
            server.stop()
    if "scale" in chosen:
        log("scale-out: one Redis and a three-master cluster, one instance and two (random)")
        results["scale"] = scenarios.scale_out(ctx, results["record"]["floor_blob_file"])
    text = ctx.server_log.read_text(errors="replace") if ctx.server_log.exists() else ""
    # The server logs a line per request (production default); keep what is not routine.
    routine = ('"level":"info"', "] [INFO] ")  # the app's JSON lines and gunicorn's own
    unusual = [
        line
        for line in text.splitlines()
        if line.strip() and not any(mark in line for mark in routine)
    ]
    if unusual:
        results["server_log_unusual"] = unusual[-30:]


def machine() -> dict[str, Any]:
    from cardroom.serve import gunicorn_conf

    return {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": commit("server", label="server files"),
        "gunicorn": {
            "workers": gunicorn_conf.workers,
            "threads": gunicorn_conf.threads,
            "worker_connections": gunicorn_conf.worker_connections,
            "worker_class": gunicorn_conf.worker_class,
        },
        "loadavg_before": os.getloadavg(),
    }


# --- targets ---------------------------------------------------------------------------------


def targets(results: dict[str, Any], mode: scenarios.Mode) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def add(
        name: str,
        value: float | None,
        limit: float,
        at_least: bool,
        unit: str,
        by_cpu: float | None = None,
    ) -> None:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            rows.append(
                {
                    "target": name,
                    "value": None,
                    "limit": limit,
                    "at_least": at_least,
                    "unit": unit,
                    "verdict": "n/a",
                }
            )
            return
        passed = value >= limit if at_least else value <= limit
        rows.append(
            {
                "target": name,
                "value": value,
                "limit": limit,
                "at_least": at_least,
                "unit": unit,
                "verdict": "PASS" if passed else "FAIL",
                # the same ratio from server CPU per request: steadier on a shared machine
                "by_server_cpu": by_cpu,
            }
        )

    floor = results.get("floor", {}).get("rps")

    def server_us(data: dict[str, Any] | None) -> float | None:
        """Server CPU µs per request: the median over the load's windows."""
        if not data:
            return None
        if data.get("windows_server_us"):
            return load.median_of(data["windows_server_us"])
        return data.get("cpu_us_per_request", {}).get("server")

    floor_us = server_us(results.get("floor"))

    def by_cpu(data: dict[str, Any] | None) -> float | None:
        used = server_us(data)
        return floor_us / used if floor_us and used else None

    for kind, limit in (("action", 0.6), ("view", 0.8)):
        for game_type in scenarios.GAME_TYPES:
            data = results.get(kind, {}).get(game_type)
            add(
                f"{kind} rps / floor, {game_type} 4p",
                data["rps"] / floor if data and floor else None,
                limit,
                True,
                "x",
                by_cpu(data),
            )
    for game_type in scenarios.GAME_TYPES:
        act = results.get("action", {}).get(game_type)
        add(
            f"action p99 / p50, {game_type} 4p",
            act["p99_ms"] / act["p50_ms"] if act else None,
            5.0,
            False,
            "x",
        )
    for game_type in scenarios.GAME_TYPES:
        rows_of_type = [
            row
            for row in results.get("storage", {}).get("games", [])
            if row["game_type"] == game_type and row["players"] == 4
        ]
        add(
            f"Redis bytes per active game, {game_type} 4p",
            rows_of_type[0]["active"]["total"] if rows_of_type else None,
            4096,
            False,
            "B",
        )
    growth = results.get("growth")
    stored = growth["large"]["stored_games"] if growth else mode.growth_stored
    add(
        f"action rps @ {stored:,} / @ {mode.growth_games} stored games"
        + ("" if stored >= 100_000 else " (quick: not 100,000)"),
        growth["ratio"] if growth else None,
        0.9,
        True,
        "x",
        growth.get("ratio_by_server_cpu") if growth else None,
    )
    return rows


# --- rendering -------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def render(report: dict[str, Any]) -> str:
    results = report["results"]
    mode = report["settings"]
    gunicorn = report["machine"]["gunicorn"]
    concurrency = (
        f"{gunicorn.get('worker_connections')} connections"
        if "gevent" in gunicorn["worker_class"].lower()  # gevent, or cardroom's GeventWorker
        else f"{gunicorn['threads']} threads"
    )
    out = [
        f"cardroom benchmark ({report['mode']}): {report['machine']['cores']} cores,"
        f" gunicorn {gunicorn['workers']} workers x {concurrency}"
        f" ({gunicorn['worker_class']}),"
        f" {mode['connections']} connections from {mode['processes']} client processes,"
        f" {mode['duration']:g} s measured after {mode['warmup']:g} s warm-up"
        f" per window; floor, action and view in {mode.get('rounds', 1)} interleaved rounds"
        " (rows: each load's median window)"
        f" (commit {report['machine']['commit'] or '?'})",
        "",
    ]
    loads: list[tuple[str, dict[str, Any]]] = []
    if "floor" in results:
        blob = results["record"]["floor_blob_bytes"]
        loads.append((f"floor (GET+SET {blob:,} B)", results["floor"]))
    for game_type, data in results.get("view", {}).items():
        loads.append((f"view {game_type} 4p", data))
    for game_type, data in results.get("action", {}).items():
        loads.append((f"action {game_type} 4p", data))
    if "growth" in results:
        for label in ("small", "large", "small_again"):
            data = results["growth"][label]
            loads.append((f"action mr-toast @ {data['stored_games']:,} games", data))
    noisy = False
    if loads:
        rows = []
        for name, data in loads:
            cpu = data["cpu"]
            noisy = noisy or cpu.get("other", 0) > NOISY_OTHER_CPU
            bad = sum(n for status, n in data["statuses"].items() if not status.startswith("2"))
            rows.append(
                [
                    name,
                    f"{data['rps']:,.0f}",
                    f"{data['p50_ms']:.1f}",
                    f"{data['p99_ms']:.1f}",
                    f"{data['p99_ms'] / data['p50_ms']:.1f}",
                    f"{data['requests']:,}",
                    str(bad),
                    f"{data['cpu_us_per_request'].get('server', 0):,.0f}",
                    _pct(cpu.get("client")),
                    _pct(cpu.get("server")),
                    _pct(cpu.get("redis")),
                    _pct(cpu.get("other")),
                ]
            )
        out.append(
            _table(
                [
                    "load (HTTP, closed loop)",
                    "rps",
                    "p50 ms",
                    "p99 ms",
                    "p99/p50",
                    "requests",
                    "non-2xx",
                    "server µs/req",
                    "client cpu",
                    "server cpu",
                    "redis cpu",
                    "other cpu",
                ],
                rows,
            )
        )
        out.append(
            "server µs/req: CPU time of gunicorn's processes per answered request."
            " cpu: share of all cores during the measured window (client = the load generator;"
            " other = work on the machine outside this run)."
        )
        if noisy:
            out.append(
                f"WARNING: other work used more than {NOISY_OTHER_CPU:.0%} of the machine during"
                " a load: those figures are noisy; run again on a quiet machine."
            )
        out.append("")
    if "engine" in results:
        rows = [
            [
                f"{game_type} {data['players']}p",
                f"{data['actions_per_s']:,.0f}",
                f"{data['us_per_action']:.1f}",
                f"{data['games_per_s']:,.1f}",
                f"{data['actions_per_game']:.0f}",
            ]
            for game_type, data in results["engine"].items()
        ]
        out.append(
            _table(
                ["engine (in-process)", "actions/s", "µs/action", "games/s", "actions/game"],
                rows,
            )
        )
        out.append("")
    if "storage" in results:
        storage = results["storage"]
        rows = []
        for row in storage["games"]:
            active, finished = row["active"], row["finished"]
            rows.append(
                [
                    f"{row['game_type']} {row['players']}p",
                    f"{active['total']:,.0f}",
                    f"{active['rec_json']:,.0f}",
                    f"{active['log_bytes']:,.0f}",
                    f"{active['log_entries']:.0f}",
                    f"{active['events_count']:.0f}",
                    f"{finished['total']:,.0f}",
                    f"{finished['log_bytes']:,.0f}",
                    f"{finished['events_count']:.0f}",
                ]
            )
        out.append(
            _table(
                [
                    "storage (Redis MEMORY USAGE)",
                    "active B",
                    "rec JSON",
                    "log B",
                    "log#",
                    "events#",
                    "finished B",
                    "log B",
                    "events#",
                ],
                rows,
            )
        )
        idem = ", ".join(
            f"{game_type} {data['bytes_per_keyed_action']:,.0f} B"
            f" ({data['whole_game_keyed_bytes'] / 1024:,.0f} KiB per game if every action has one)"
            for game_type, data in storage["idempotency"].items()
        )
        out.append(
            "active = halfway through the game, finished = at its end; the median game of"
            f" {report['settings']['storage_seeds']} per row; no Idempotency-Key used."
            " Each action sent with an Idempotency-Key adds (for an hour,"
            f" CARDROOM_IDEMPOTENCY_TTL): {idem}."
            f" Index entry: {storage['index_bytes_per_game']:,.0f} B per game."
        )
        layouts = storage.get("layouts_active_4p", {})
        if layouts:
            names = list(next(iter(layouts.values())))
            rows = [
                [name, *[f"{layouts[game_type][name]:,}" for game_type in layouts]]
                for name in names
            ]
            out.append("")
            out.append(
                _table(
                    ["other layouts, one active 4p game (bytes)", *[str(t) for t in layouts]],
                    rows,
                )
            )
        out.append("")
    if "growth" in results:
        fill = results["growth"]["large"]["fill"]
        growth_windows = "; ".join(
            f"{label} "
            + ", ".join(f"{rps:,.0f}" for rps in results["growth"][label].get("windows_rps", []))
            for label in ("small", "large", "small_again")
        )
        out.append(
            f"growth: {fill['games']:,} stored games ({fill['keys']:,} keys,"
            f" {fill['used_memory_bytes'] / 2**20:,.0f} MiB) filled in"
            f" {fill['fill_seconds']:.1f} s by DUMP/RESTORE of real games, AOF rewritten"
            " before measuring. Each store size is measured in several windows (after one"
            " warm-up window); the rows show each size's median window, and the ratio compares"
            " the median of the large windows with the median of the small windows around them"
            f" (rps of the windows: {growth_windows})."
        )
        out.append("")
    if "scale" in results:
        out.append(render_scale(results["scale"]))
        out.append("")
    if results.get("server_log_unusual"):
        out.append(
            f"server log: {len(results['server_log_unusual'])} unusual lines (see the JSON file)"
        )
        out.append("")
    rows = []
    for target in report["targets"]:
        value = target["value"]
        if value is None:
            shown, limit = "-", f"{target['limit']:g}"
        elif target["unit"] == "B":
            shown, limit = f"{value:,.0f} B", f"{target['limit']:,.0f} B"
        else:
            shown, limit = f"{value:.2f}", f"{target['limit']:g}"
        sign = "≥" if target.get("at_least") else "≤"
        cpu_ratio = target.get("by_server_cpu")
        rows.append(
            [
                target["target"],
                shown,
                f"{sign} {limit}",
                target["verdict"],
                "" if cpu_ratio is None else f"{cpu_ratio:.2f}",
            ]
        )
    out.append(
        _table(
            ["acceptance target (same run)", "measured", "target", "verdict", "by CPU/req"],
            rows,
        )
    )
    out.append(
        "by CPU/req: the same ratio from server CPU per request (floor µs / path µs),"
        " steadier than rps when other work shares the machine; the verdict uses rps."
    )
    return "\n".join(out)


def render_scale(scale: dict[str, Any]) -> str:
    floor = scale["floor"]
    rows = [
        [
            f"{data['store']} Redis" if data["store"] == "single" else "cluster (3 masters)",
            f"{data['instances']} ({data['routing']})",
            f"{data['rps']:,.0f}",
            f"{data['ratio']:.2f}",
            f"{data['server_us']:,.0f}",
            f"{data['redis_us']:,.0f}",
            f"{data['p50_ms']:.1f}",
            f"{data['p99_ms']:.1f}",
            str(sum(n for status, n in data["statuses"].items() if not status.startswith("2"))),
        ]
        for data in scale["loads"].values()
    ]
    table = _table(
        [
            "scale-out: action mr-toast 4p",
            "instances",
            "rps",
            "/ floor",
            "server µs/action",
            "redis µs/action",
            "p50 ms",
            "p99 ms",
            "non-2xx",
        ],
        rows,
    )
    noisy = any(
        data["cpu"].get("other", 0) > NOISY_OTHER_CPU for data in [floor, *scale["loads"].values()]
    )
    warning = (
        f"\nWARNING: other work used more than {NOISY_OTHER_CPU:.0%} of the machine during a"
        " load: those figures are noisy; run again on a quiet machine."
        if noisy
        else ""
    )
    return (
        f"{table}{warning}\n/ floor: the load's rps over the floor's"
        f" ({floor['rps']:,.0f} rps, one Redis, same rounds)."
        " server µs/action: CPU of every instance's gunicorn per answered action;"
        " redis µs/action: of every Redis process (all three masters for the cluster). All"
        " processes share this machine's cores: on one machine a cluster adds CPU, not cores."
    )


if __name__ == "__main__":
    raise SystemExit(main())
