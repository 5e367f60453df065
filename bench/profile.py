"""Profile the action and view paths in-process: `python -m bench.profile [--requests N]`.

The app from ``create_app()`` against a real (embedded) Redis; WSGI environs are built
before the profiler starts, so what is profiled is what gunicorn calls: ``app(environ,
start_response)`` and the body it returns (not gunicorn's own HTTP parsing). Prints, per
path: the wall time per request without the profiler, the top functions by own time, the
own time grouped by layer, and micro-timings of the pieces the path is made of.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import dataclasses
import io
import json
import os
import pstats
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from werkzeug.test import EnvironBuilder

from bench import launch, plans
from cardroom.api.schemas import ActionBodySchema
from cardroom.config import Settings
from cardroom.kit.base import redact_event
from cardroom.registry import get_game
from cardroom.serve.app import create_app
from cardroom.store.record import GameRecord, game_key

GAME_TYPES = ("mr-toast", "exact-plays")

# (layer, test on "file:function") in order; the first that matches names the layer.
LAYERS: list[tuple[str, Callable[[str], bool]]] = [
    ("engine (cardroom.games, bots)", lambda k: "/cardroom/games/" in k or "/cardroom/bots/" in k),
    ("cardroom.table", lambda k: "/cardroom/table/" in k),
    ("cardroom.store", lambda k: "/cardroom/store/" in k),
    ("cardroom.api", lambda k: "/cardroom/api/" in k or "/cardroom/serve/app.py" in k),
    ("marshmallow", lambda k: "/marshmallow/" in k),
    ("flask-smorest, webargs", lambda k: "/flask_smorest/" in k or "/webargs/" in k),
    ("redis-py", lambda k: "/redis/" in k),
    (
        "socket I/O (wait for Redis)",
        lambda k: k.startswith("~") and any(w in k for w in ("socket", "recv", "send", "poll")),
    ),
    (
        "json encode/decode",
        lambda k: (
            "/json/" in k
            or (
                k.startswith("~") and any(w in k for w in ("_json", "encode_basestring", "scanner"))
            )
        ),
    ),
    ("hashlib, hmac, secrets", lambda k: "hashlib" in k or "hmac" in k or "sha" in k),
    ("flask", lambda k: "/flask/" in k),
    ("werkzeug", lambda k: "/werkzeug/" in k),
    ("copy", lambda k: "/copy.py" in k or "deepcopy" in k),
]


def layer_of(key: str) -> str:
    for name, test in LAYERS:
        if test(key):
            return name
    return "other (stdlib, builtins)"


def _key(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    return f"{filename}:{line}({name})"


def _short(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    if filename == "~":
        return name
    for marker in ("/site-packages/", "/server/", "/lib/python3"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            break
    return f"{filename}:{line}({name})"


def call(app: Any, environ: dict[str, Any]) -> tuple[str, bytes]:
    status: list[str] = []

    def start_response(code: str, headers: Any, exc_info: Any = None) -> None:
        status.append(code)

    body = b"".join(app(environ, start_response))
    return status[0], body


def environ_for(method: str, path: str, token: str | None, action: Any = None) -> dict[str, Any]:
    builder = EnvironBuilder(
        path=path,
        method=method,
        headers={"Authorization": f"Bearer {token}"} if token else {},
        json=action,
    )
    try:
        return builder.get_environ()
    finally:
        builder.close()


def profile_path(
    app: Any, environs: list[dict[str, Any]], label: str, top: int, out: io.StringIO
) -> dict[str, Any]:
    half = len(environs) // 2
    # Unprofiled first: honest wall time per request (median; this process, one thread).
    wall_us = median_us(app, environs[:half], label)
    profiler = cProfile.Profile()
    profiler.enable()
    for environ in environs[half:]:
        call(app, environ)
    profiler.disable()
    count = len(environs) - half
    stats = pstats.Stats(profiler)
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = []
    layers: dict[str, float] = {}
    for func, (_cc, ncalls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append((tottime, cumtime, ncalls, func))
        layer = layer_of(_key(func))
        layers[layer] = layers.get(layer, 0.0) + tottime
    rows.sort(key=lambda row: row[0], reverse=True)
    print(
        f"\n=== {label}: {wall_us:,.0f} µs per request unprofiled (median), {count} profiled",
        file=out,
    )
    print(f"top {top} by own time (µs per request; cum = with callees):", file=out)
    print(f"{'own µs':>8} {'own %':>6} {'cum µs':>8} {'calls/req':>9}  function", file=out)
    top_rows = []
    for tottime, cumtime, ncalls, func in rows[:top]:
        entry = {
            "function": _short(func),
            "own_us": tottime / count * 1e6,
            "own_pct": tottime / total * 100,
            "cum_us": cumtime / count * 1e6,
            "calls_per_request": ncalls / count,
        }
        top_rows.append(entry)
        print(
            f"{entry['own_us']:8.1f} {entry['own_pct']:5.1f}% {entry['cum_us']:8.1f}"
            f" {entry['calls_per_request']:9.1f}  {entry['function']}",
            file=out,
        )
    print("own time by layer:", file=out)
    by_layer = sorted(layers.items(), key=lambda item: item[1], reverse=True)
    for name, seconds in by_layer:
        print(f"{seconds / count * 1e6:8.1f} µs {seconds / total * 100:5.1f}%  {name}", file=out)
    cumulative = sorted(rows, key=lambda row: row[1], reverse=True)
    print(f"top {top} cardroom functions by cumulative time:", file=out)
    shown = 0
    for _tottime, cumtime, ncalls, func in cumulative:
        if "/cardroom/" not in func[0]:
            continue
        print(
            f"{cumtime / count * 1e6:8.1f} µs {cumtime / total * 100:5.1f}%"
            f" {ncalls / count:6.1f}/req  {_short(func)}",
            file=out,
        )
        shown += 1
        if shown == top:
            break
    return {
        "wall_us_per_request": wall_us,
        "profiled_requests": count,
        "top": top_rows,
        "layers_us": {name: seconds / count * 1e6 for name, seconds in by_layer},
    }


def timeit(func: Callable[[], Any], repeat: int = 300) -> float:
    """Median µs of ``func``."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    times.sort()
    return times[len(times) // 2] * 1e6


def pieces(app: Any, tables: Any, seated: plans.Seated) -> dict[str, float]:
    """Micro-timings of what one action and one view are made of (µs, median)."""
    store = tables.store
    record = store.load(seated.id).record
    game = get_game(record.game_type)
    seat = min(game.to_act(record.state))
    token = seated.tokens[seat]
    raw = store.client.hgetall(game_key(seated.id))
    view = tables.shape_view(record, seat)
    view["etag"] = "0" * 20
    seat_no, next_action = seated.plan.steps[seated.done]
    engine_state = json.loads(json.dumps(record.state))
    events = game.apply(engine_state, seat_no, json.loads(json.dumps(next_action)), time.time())
    stamped = [{"seq": 100 + i, "version": 9, **event} for i, event in enumerate(events)]
    response = {"version": 9, "events": stamped, "view": view}
    action_schema = ActionBodySchema()
    with app.app_context():
        out = {
            "redis: load (pipeline HGETALL) + GameRecord.from_hash": timeit(
                lambda: store.load(seated.id)
            ),
            "redis: PING round trip": timeit(store.client.ping),
            "GameRecord.from_hash (json.loads of rec)": timeit(
                lambda: GameRecord.from_hash(seated.id, raw)
            ),
            "GameRecord.to_json (json.dumps of rec)": timeit(record.to_json),
            "seat_for_token (sha256 + compare)": timeit(lambda: record.seat_for_token(token)),
            "Tables.shape_view": timeit(lambda: tables.shape_view(record, seat)),
            "engine.view": timeit(lambda: game.view(record.state, seat)),
            "engine.legal_actions": timeit(lambda: game.legal_actions(record.state, seat)),
            "engine.to_act + result + scores + deadline": timeit(
                lambda: (
                    game.to_act(record.state),
                    game.result(record.state),
                    game.scores(record.state),
                    game.deadline(record.state),
                )
            ),
            "engine.apply (one action, on a copy)": timeit(
                lambda: game.apply(
                    json.loads(json.dumps(record.state)),
                    seat_no,
                    dict(next_action),
                    time.time(),
                )
            )
            - timeit(lambda: json.loads(json.dumps(record.state))),
            "ActionSchema().load (webargs parse of the body)": timeit(
                lambda: action_schema.load(next_action)
            ),
            "json.dumps(view) alone": timeit(lambda: json.dumps(view)),
            "json.loads(action response)  [observability re-reads it]": timeit(
                lambda: json.loads(json.dumps(response))
            )
            - timeit(lambda: json.dumps(response)),
            "json.dumps(action response) alone": timeit(lambda: json.dumps(response)),
            "redact_event x events of one action": timeit(
                lambda: [redact_event(event, seat) for event in stamped]
            ),
            "json.dumps per event (commit args)": timeit(
                lambda: [json.dumps(event, separators=(",", ":")) for event in stamped]
            ),
        }
    out.update(commit_timings(tables, seated))
    out["(events per action in this sample)"] = float(len(stamped))
    out["(view JSON bytes)"] = float(len(json.dumps(view)))
    out["(action response JSON bytes)"] = float(len(json.dumps(response)))
    return out


def commit_timings(tables: Any, seated: plans.Seated) -> dict[str, float]:
    """The write of one action as the store does it, against a plain HSET (µs)."""
    store = tables.store
    client = store.client
    fresh = plans.seat(tables, seated.plan)
    record = store.load(fresh.id).record

    def one_action() -> None:
        record.log([0, {"type": "end_turn"}, 1500])
        store.commit(record)

    def hset_only() -> None:
        client.hset(game_key(record.id), mapping={"rev": record.rev, "rec": record.to_json()})

    return {
        "store.commit (EVALSHA: CAS, HSET rec + log tail, EXPIRE, PUBLISH)": timeit(one_action),
        "plain HSET rev+rec (no Lua, no log)": timeit(hset_only),
    }


def floor_app_for(url: str, blob: bytes) -> Any:
    """The floor app (GET + SET of a record-sized blob), in-process."""
    from bench import floor_app

    os.environ["REDIS_URL"] = url
    os.environ["BENCH_BLOB_BYTES"] = str(len(blob))
    return floor_app.create_app()


def settings_variants() -> dict[str, dict[str, Any]]:
    """Production defaults, every request logged, and each optional per-request feature
    switched off (only the settings this version of the server has)."""
    known = {field.name for field in dataclasses.fields(Settings)}
    wanted = {
        "production defaults": {},
        "request log: all": {"request_log": "all"},
        "request log off": {"request_log": "off"},
        "metrics off": {"metrics": False},
        "rate limits off": {"rate_limit_create": "off", "rate_limit_join": "off"},
    }
    variants = {name: o for name, o in wanted.items() if set(o) <= known}
    everything = {key: value for o in list(variants.values())[2:] for key, value in o.items()}
    if everything:
        variants["all of these off"] = everything
    if "kept_games" in known:  # not a per-request cost: every action loads its game again
        variants["kept games off"] = {"kept_games": 0}
    return variants


def kept_games_cost(url: str, game_type: str, count: int, rounds: int = 3) -> dict[str, float]:
    """CPU µs per action (the best of ``rounds``), one thread: with every game's load (kept
    games off), with each game's actions in the process that wrote it last (every kept game
    current), and alternating between two processes (every kept game stale)."""
    off = create_app(Settings.from_env(redis_url=url, kept_games=0))
    one, two = (create_app(Settings.from_env(redis_url=url)) for _ in range(2))
    setups = {
        "kept games off": [off],
        "kept game current (one process)": [one],
        "kept game stale (two processes, alternating)": [one, two],
    }
    best: dict[str, float] = {}
    seed = 90_000
    for _ in range(rounds):
        for name, apps in setups.items():
            seed += 1000
            environs = action_environs(url, game_type, count, seed)
            served: Counter[str] = Counter()
            started = time.process_time()
            for environ in environs:
                game = environ["PATH_INFO"]
                status, body = call(apps[served[game] % len(apps)], environ)
                served[game] += 1
                if not status.startswith("200"):
                    raise RuntimeError(f"{name}: {status} {body[:300]!r}")
            took = (time.process_time() - started) / len(environs) * 1e6
            best[name] = min(best.get(name, took), took)
    return best


def action_environs(url: str, game_type: str, count: int, first_seed: int) -> list[Any]:
    """``count`` action requests over enough fresh games, round-robin (never run out)."""
    games = plans.seat_all(url, plans.make_plans(game_type, 4, max(10, count // 25), first_seed))
    queue: list[dict[str, Any]] = []
    cursors = [0] * len(games)
    while len(queue) < count:
        progressed = False
        for index, game in enumerate(games):
            if cursors[index] < len(game.plan.steps) and len(queue) < count:
                seat_no, action = game.plan.steps[cursors[index]]
                path = f"/v1/games/{game.id}/actions"
                queue.append(environ_for("POST", path, game.tokens[seat_no], action))
                cursors[index] += 1
                progressed = True
        if not progressed:
            break
    return queue


def view_environs(url: str, game_type: str, count: int, first_seed: int) -> list[Any]:
    """``count`` view requests of random seats of 50 games, each at a random point."""
    tables = plans.tables_for(url)
    rng = random.Random(first_seed)
    games = plans.seat_all(url, plans.make_plans(game_type, 4, 50, first_seed))
    for game in games:
        steps = len(game.plan.steps)
        plans.fast_forward(tables, game, rng.randint(steps // 10, steps * 9 // 10))
    environs = []
    for _ in range(count):
        game = rng.choice(games)
        environs.append(environ_for("GET", f"/v1/games/{game.id}/view", rng.choice(game.tokens)))
    return environs


def median_us(app: Any, environs: list[Any], label: str) -> float:
    times = []
    for environ in environs:
        started = time.perf_counter()
        status, body = call(app, environ)
        times.append(time.perf_counter() - started)
        if not status.startswith("200"):
            raise RuntimeError(f"{label}: {status} {body[:300]!r}")
    times.sort()
    return times[len(times) // 2] * 1e6


def compare(url: str, blob: bytes, rounds: int, per_round: int) -> dict[str, dict[str, float]]:
    """Wall µs per request (median, the best of ``rounds`` interleaved rounds, so that other
    work on the machine hits every variant alike): the floor, /healthz (the middleware
    alone), and the action and view paths, per settings variant."""
    variants = settings_variants()
    apps = {name: create_app(Settings.from_env(redis_url=url, **o)) for name, o in variants.items()}
    total = rounds * per_round
    work: dict[str, dict[str, list[Any]]] = {}
    work["floor app (Flask, GET + SET)"] = {
        "production defaults": [
            EnvironBuilder(path=f"/floor/k{n % 100}", method="POST").get_environ()
            for n in range(total)
        ]
    }
    work["GET /healthz (1 PING)"] = {
        name: [environ_for("GET", "/healthz", None) for _ in range(total)] for name in variants
    }
    seed = 50_000
    for game_type in GAME_TYPES:
        for kind in ("action", "view"):
            label = f"{kind} {game_type} 4p"
            work[label] = {}
            for name in variants:
                seed += 100
                make = action_environs if kind == "action" else view_environs
                work[label][name] = make(url, game_type, total, seed)
    floor = floor_app_for(url, blob)
    best: dict[str, dict[str, float]] = {}
    for index in range(rounds):
        for label, by_variant in work.items():
            for name, environs in by_variant.items():
                app = floor if label.startswith("floor") else apps[name]
                chunk = environs[index * per_round : (index + 1) * per_round]
                took = median_us(app, chunk, f"{label}, {name}")
                row = best.setdefault(label, {})
                row[name] = min(row.get(name, took), took)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__)
    parser.add_argument("--requests", type=int, default=2000, help="profiled requests per path")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the comparison")
    parser.add_argument("--per-round", type=int, default=200, help="requests per round")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    out = io.StringIO()
    report: dict[str, Any] = {}
    # The app logs a JSON line per request to stderr (production default): keep the cost,
    # drop the lines.
    with (
        tempfile.TemporaryDirectory(prefix="cardroom-profile-") as scratch,
        open(os.devnull, "w") as devnull,
        contextlib.redirect_stderr(devnull),
    ):
        redis_server = launch.start_redis(Path(scratch) / "redis")
        try:
            url = redis_server.url
            tables = plans.tables_for(url)
            sample = plans.seat(tables, plans.make_plan("mr-toast", 4, 99))
            plans.fast_forward(tables, sample, len(sample.plan.steps) // 2)
            blob = tables.store.client.hget(game_key(sample.id), "rec") or b""
            app = create_app(Settings.from_env(redis_url=url))
            seed = 1000
            for game_type in GAME_TYPES:
                seed += 1000
                environs = action_environs(url, game_type, args.requests, seed)
                report[f"action {game_type}"] = profile_path(
                    app, environs, f"action {game_type} 4p", args.top, out
                )
                environs = view_environs(url, game_type, args.requests, seed + 500)
                report[f"view {game_type}"] = profile_path(
                    app, environs, f"view {game_type} 4p", args.top, out
                )
                view_game = plans.seat(tables, plans.make_plan(game_type, 4, seed + 77))
                plans.fast_forward(tables, view_game, len(view_game.plan.steps) // 2)
                timings = pieces(app, tables, view_game)
                report[f"pieces {game_type}"] = timings
                print(f"\n=== pieces of a {game_type} 4p request (median µs):", file=out)
                for name, value in timings.items():
                    print(f"{value:9.1f}  {name}", file=out)
            print("\n=== kept games: CPU µs per action, one thread, in-process", file=out)
            for game_type in GAME_TYPES:
                costs = kept_games_cost(url, game_type, args.per_round * 3)
                report[f"kept games {game_type}"] = costs
                for name, value in costs.items():
                    print(f"{value:9.0f}  {game_type} 4p, {name}", file=out)
            summary = compare(url, blob, args.rounds, args.per_round)
            report["median_us_per_request"] = summary
            names = list(settings_variants())
            print(
                "\n=== wall µs per request (median; best of"
                f" {args.rounds} interleaved rounds of {args.per_round}), one thread, in-process;"
                " columns: settings",
                file=out,
            )
            print(f"{'':28}" + "".join(f"{name[:18]:>20}" for name in names), file=out)
            for label, row in summary.items():
                cells = "".join(
                    f"{row[name]:20.0f}" if name in row else f"{'':20}" for name in names
                )
                print(f"{label[:28]:28}{cells}", file=out)
        finally:
            redis_server.stop()
    sys.stdout.write(out.getvalue())
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
