"""The scenarios of one benchmark run. Each returns plain data (it goes to the JSON file)."""

from __future__ import annotations

import contextlib
import json
import random
import time
import zlib
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from bench import launch, load, plans
from cardroom.bots import next_bot_seat
from cardroom.registry import get_game
from cardroom.store import buckets
from cardroom.store.listing import index_key
from cardroom.store.record import GameRecord, game_key
from cardroom.table.steps import Replay

FLOOR_KEYS = 1000
GAME_TYPES = ("mr-toast", "exact-plays")
# Player counts of each game type measured by the storage scenario.
PLAYER_COUNTS = {"mr-toast": (2, 3, 4, 5, 6), "exact-plays": (2, 3, 4)}


@dataclass(frozen=True)
class Mode:
    name: str
    duration: float  # measured seconds of each load
    warmup: float  # seconds of load before measuring
    connections: int  # concurrent keep-alive connections (closed loop)
    processes: int  # client processes
    action_games: int  # games per game type prepared for the action load
    view_games: int  # active games per game type for the view load
    storage_seeds: int  # games per (game type, player count) for the storage figures
    growth_games: int  # games played by the growth loads
    growth_stored: int  # games in Redis for the second growth load
    engine_seconds: float  # per game type
    growth_windows: int  # measured windows per store size (the median counts)
    rounds: int  # interleaved rounds of the floor, action and view loads (the median counts)


QUICK = Mode("quick", 3.0, 1.0, 32, 2, 600, 250, 5, 100, 10_000, 1.5, 2, 3)
FULL = Mode("full", 8.0, 2.0, 32, 2, 1500, 1000, 15, 100, 100_000, 8.0, 4, 3)


class Context:
    """What the scenarios share: the mode, the Redis, a scratch folder."""

    def __init__(
        self,
        mode: Mode,
        redis_server: Any,
        scratch: Path,
        log: Any,
        server_env: dict[str, str] | None = None,
    ):
        self.mode = mode
        self.redis_server = redis_server
        self.redis_url: str = redis_server.url
        self.client = redis.Redis.from_url(self.redis_url, socket_timeout=600)
        self.scratch = scratch
        self.log = log
        self.server_log = scratch / "gunicorn.log"
        self.next_seed = 1
        self.server_env = server_env or {}

    def start_server(
        self, app: str | None = None, redis_url: str | None = None, **env: str
    ) -> launch.Server:
        return launch.start_gunicorn(
            redis_url or self.redis_url, app, self.server_log, **{**self.server_env, **env}
        )

    def seeds(self, count: int) -> int:
        first = self.next_seed
        self.next_seed += count
        return first

    def load(
        self,
        name: str,
        servers: list[launch.Server],
        redis_pids: list[int] | None = None,
        **work: Any,
    ) -> load.HttpResult:
        """One closed-loop HTTP window of the mode's size on ``servers`` (each request to one
        at random), measuring their CPU and their Redis's (default: the run's Redis)."""
        mode = self.mode
        if redis_pids is None:
            assert self.redis_server.process is not None
            redis_pids = [self.redis_server.process.pid]
        return load.http_window(
            name,
            [server.port for server in servers],
            connections=mode.connections,
            processes=mode.processes,
            duration=mode.duration,
            warmup=mode.warmup,
            cpu_roots={"server": [server.pid for server in servers], "redis": redis_pids},
            **work,
        )


# --- engine: no HTTP, no Redis ----------------------------------------------------------------


def engine(ctx: Context) -> dict[str, Any]:
    """Drive each engine as Tables._run_bots does (awaited seat, view, random policy)."""
    out: dict[str, Any] = {}
    for game_type in GAME_TYPES:
        game = get_game(game_type)
        options = game.validate_options(4, {})
        actions = games = 0
        seed = 0
        started = time.perf_counter()
        deadline = started + ctx.mode.engine_seconds
        while time.perf_counter() < deadline:
            seed += 1
            rng = random.Random(seed)
            state = game.new_game(4, options, seed)
            while game.result(state) is None:
                seat = next_bot_seat(game, state, range(4))
                legal = game.legal_actions(state, seat)
                game.view(state, seat)  # the bots' loop builds the policy's view too
                game.apply(state, seat, rng.choice(legal), 0.0)
                actions += 1
            games += 1
        took = time.perf_counter() - started
        out[game_type] = {
            "players": 4,
            "actions_per_s": actions / took,
            "games_per_s": games / took,
            "actions_per_game": actions / games,
            "us_per_action": took / actions * 1e6,
        }
        ctx.log(f"engine {game_type}: {actions / took:,.0f} actions/s, {games / took:,.1f} games/s")
    return out


# --- the record size, for the floor --------------------------------------------------------


def record_sizes(ctx: Context) -> dict[str, Any]:
    """HGET rec of real 4-player games halfway through; the floor's blob is the largest."""
    tables = plans.tables_for(ctx.redis_url)
    sizes: dict[str, Any] = {}
    biggest = b""
    for game_type in GAME_TYPES:
        found = []
        for plan in plans.make_plans(game_type, 4, 5, ctx.seeds(5)):
            seated = plans.seat(tables, plan)
            plans.fast_forward(tables, seated, len(plan.steps) // 2)
            rec = ctx.client.hget(game_key(seated.id), "rec") or b""
            found.append(len(rec))
            if len(rec) > len(biggest):
                biggest = rec
        sizes[game_type] = {"median_bytes": sorted(found)[len(found) // 2], "max_bytes": max(found)}
    blob_file = ctx.scratch / "record.json"
    blob_file.write_bytes(biggest)
    sizes["floor_blob_bytes"] = len(biggest)
    sizes["floor_blob_file"] = str(blob_file)
    return sizes


# --- HTTP loads ---------------------------------------------------------------------------------


def interleaved_loads(ctx: Context, chosen: set[str], blob_file: str) -> dict[str, Any]:
    """The floor, the action loads and the view loads, in ``mode.rounds`` interleaved rounds
    (``load.interleave``); each load's median window counts. Both servers run all along;
    only one is loaded at a time."""
    mode = ctx.mode
    floor_server = server = None
    try:
        if "floor" in chosen:
            floor_server = ctx.start_server(launch.HTTP_FLOOR, BENCH_BLOB_FILE=blob_file)
            floor_pool = _floor_pool(ctx, floor_server, Path(blob_file).read_bytes())
        if chosen & {"action", "view"}:
            server = ctx.start_server()
        action_plans = {
            game_type: plans.make_plans(
                game_type, 4, mode.action_games, ctx.seeds(mode.action_games)
            )
            for game_type in GAME_TYPES
            if "action" in chosen
        }
        view_pools = {
            game_type: _view_pool(ctx, server, game_type)
            for game_type in GAME_TYPES
            if "view" in chosen and server is not None
        }
        per_window = mode.action_games // mode.rounds

        def windows_of_round(round_no: int) -> list[tuple[Hashable, Any]]:
            loads: list[tuple[Hashable, Any]] = []
            if floor_server is not None:
                loads.append(
                    (("floor", ""), lambda: ctx.load("floor", [floor_server], pool=floor_pool))
                )
            for game_type in GAME_TYPES:
                if game_type in action_plans and server is not None:
                    chunk = action_plans[game_type][
                        round_no * per_window : (round_no + 1) * per_window
                    ]
                    loads.append(
                        (("action", game_type), _action_window(ctx, [server], game_type, chunk))
                    )
                if game_type in view_pools and server is not None:
                    pool = view_pools[game_type]
                    name = f"view {game_type}"
                    loads.append((("view", game_type), _pool_window(ctx, server, name, pool)))
            return loads

        windows = load.interleave(mode.rounds, windows_of_round, _progress(ctx, "round"))
    finally:
        for running in (floor_server, server):
            if running is not None:
                running.stop()
        if floor_server is not None:
            ctx.client.delete(*[f"bench:floor:k{index}" for index in range(FLOOR_KEYS)])
    out: dict[str, Any] = {}
    for (kind, game_type), results in windows.items():  # type: ignore[misc]
        data = load.median_window(results)
        if kind == "floor":
            out["floor"] = data
            continue
        data.update(game_type=game_type, players=4)
        if kind == "action":
            chosen_plans = action_plans[game_type]
            data["actions_per_game"] = sum(len(p.steps) for p in chosen_plans) / len(chosen_plans)
        else:
            data["games"] = mode.view_games
        out.setdefault(kind, {})[game_type] = data
    return out


def _progress(ctx: Context, label: str) -> Any:
    def measured(round_no: int, result: load.HttpResult) -> None:
        ctx.log(f"{label} {round_no + 1}/{ctx.mode.rounds} " + load.describe(result))

    return measured


def _floor_pool(ctx: Context, server: launch.Server, blob: bytes) -> list[bytes]:
    pipe = ctx.client.pipeline(transaction=False)
    for index in range(FLOOR_KEYS):
        pipe.set(f"bench:floor:k{index}", blob)
    pipe.execute()
    return [
        load.request_bytes("POST", f"/floor/k{index}", server.port) for index in range(FLOOR_KEYS)
    ]


def _action_window(
    ctx: Context,
    servers: list[launch.Server],
    game_type: str,
    chunk: list[plans.Plan],
    redis_url: str | None = None,
    redis_pids: list[int] | None = None,
    name: str | None = None,
) -> Any:
    """A load that plays ``chunk``'s games to the end (seated when the window starts)."""

    def run() -> load.HttpResult:
        games = plans.seat_all(redis_url or ctx.redis_url, chunk)
        streams = plans.action_streams(games, servers[0].port)
        return ctx.load(name or f"action {game_type}", servers, redis_pids, streams=streams)

    return run


def _pool_window(ctx: Context, server: launch.Server, name: str, pool: list[bytes]) -> Any:
    return lambda: ctx.load(name, [server], pool=pool)


def _view_pool(ctx: Context, server: launch.Server, game_type: str) -> list[bytes]:
    """Views of random seats of many games, each at a random point of its game."""
    count = ctx.mode.view_games
    game_plans = plans.make_plans(game_type, 4, count, ctx.seeds(count))
    games = plans.seat_all(ctx.redis_url, game_plans)
    tables = plans.tables_for(ctx.redis_url)
    rng = random.Random(7)
    for game in games:
        steps = len(game.plan.steps)
        plans.fast_forward(tables, game, rng.randint(steps // 10, steps * 9 // 10))
    return plans.view_pool(games, server.port)


# --- scale-out: a Redis Cluster, several instances ------------------------------------------

# (store, instances): one instance keeps each game's connection on one worker (kept games
# are current); two instances get every request at random (kept games mostly are not).
SCALE_LOADS = (("single", 1), ("single", 2), ("cluster", 1), ("cluster", 2))


def scale_out(ctx: Context, blob_file: str) -> dict[str, Any]:
    """Mr Toast 4p actions on one Redis and on a three-master cluster, through one instance
    (a game's actions on one keep-alive connection, as the action load plays them) and
    through two instances with each request sent to one at random (no sticky sessions).

    Measured in ``mode.rounds`` interleaved rounds with the floor (on the single Redis), each
    round playing the same games (same seeds and actions, new ids) in all four ways; each
    row is the median window. The ratio is rps over the floor's rps of the same run.
    """
    mode = ctx.mode
    cluster = launch.start_cluster(ctx.scratch / "cluster")
    started: list[launch.Server] = []
    try:
        floor = ctx.start_server(launch.HTTP_FLOOR, BENCH_BLOB_FILE=blob_file)
        started.append(floor)
        floor_pool = _floor_pool(ctx, floor, Path(blob_file).read_bytes())
        urls = {"single": ctx.redis_url, "cluster": cluster.url}
        instances: dict[str, list[launch.Server]] = {}
        for store, url in urls.items():
            instances[store] = [ctx.start_server(redis_url=url) for _ in range(2)]
            started += instances[store]
        assert ctx.redis_server.process is not None
        redis_pids = {
            "single": [ctx.redis_server.process.pid],
            "cluster": [node.process.pid for node in cluster.nodes],
        }
        per_window = max(1, mode.action_games // mode.rounds // 2)
        game_plans = plans.make_plans(
            "mr-toast", 4, per_window * mode.rounds, ctx.seeds(per_window * mode.rounds)
        )

        def windows_of_round(round_no: int) -> list[tuple[Hashable, Any]]:
            chunk = game_plans[round_no * per_window : (round_no + 1) * per_window]
            loads: list[tuple[Hashable, Any]] = [
                ("floor", lambda: ctx.load("floor", [floor], pool=floor_pool))
            ]
            for store, count in SCALE_LOADS:
                name = f"action mr-toast, {store}, {count} instance(s)"
                window = _action_window(
                    ctx,
                    instances[store][:count],
                    "mr-toast",
                    chunk,
                    urls[store],
                    redis_pids[store],
                    name,
                )
                loads.append((f"{store}-{count}", window))
            return loads

        windows = load.interleave(mode.rounds, windows_of_round, _progress(ctx, "scale round"))
    finally:
        for server in started:
            server.stop()
        cluster.stop()
        ctx.client.delete(*[f"bench:floor:k{index}" for index in range(FLOOR_KEYS)])
    out: dict[str, Any] = {"floor": load.median_window(windows["floor"]), "loads": {}}
    floor_rps = out["floor"]["rps"]
    for store, count in SCALE_LOADS:
        data = load.median_window(windows[f"{store}-{count}"])
        data.update(
            store=store,
            instances=count,
            routing="one connection per game" if count == 1 else "each request at random",
            ratio=data["rps"] / floor_rps,
            server_us=load.median_of(data["windows_server_us"]),
            redis_us=data["cpu_us_per_request"].get("redis", 0.0),
        )
        out["loads"][f"{store}-{count}"] = data
    return out


# --- storage --------------------------------------------------------------------------------


def game_bytes(client: redis.Redis, game_id: str) -> dict[str, int]:
    """MEMORY USAGE (every element sampled) of each key of one game, and what its hash holds."""
    idem = list(client.scan_iter(match=f"{game_key(game_id)}:idem:*", count=1000))
    parts = {
        "hash": client.memory_usage(game_key(game_id), samples=0) or 0,
        "idempotency": sum(client.memory_usage(key, samples=0) or 0 for key in idem),
    }
    parts["total"] = sum(parts.values())
    data = client.hgetall(game_key(game_id))
    record = GameRecord.from_hash(game_id, data)
    parts["rec_json"] = len(data.get(b"rec", b""))
    parts["log_bytes"] = len(data.get(b"log", b"")) + len(data.get(b"tail", b""))
    parts["log_entries"] = len(record.log_lines())
    parts["events_count"] = record.seq
    return parts


def layouts(client: redis.Redis, game_id: str) -> dict[str, int]:
    """What one game would take in other layouts (bytes, MEMORY USAGE), built in scratch keys
    from its real record and log: the layout before the log, and levers not pulled yet."""
    data = client.hgetall(game_key(game_id))
    record = GameRecord.from_hash(game_id, data)
    replay = Replay(record)
    replay.advance(record.log_lines())
    scratch = "bench:scratch"
    client.delete(*[f"{scratch}:{n}" for n in range(4)])

    def compact(value: Any) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode()

    out: dict[str, int] = {"now: the game's hash (record, log, tokens)": 0}
    out["now: the game's hash (record, log, tokens)"] = (
        client.memory_usage(game_key(game_id), samples=0) or 0
    )
    out["now: the log (zlib part + tail), bytes"] = len(data.get(b"log", b"")) + len(
        data.get(b"tail", b"")
    )
    # The layout before the log: every event in a stream, one entry each.
    for event in replay.events:
        client.xadd(f"{scratch}:0", {"e": compact(event)}, id=f"{event['seq']}-0")
    out["before: events stream, one entry per event"] = (
        client.memory_usage(f"{scratch}:0", samples=0) or 0
    )
    out["events JSON bytes (payload only)"] = sum(len(compact(e)) for e in replay.events)
    client.set(f"{scratch}:1", zlib.compress(compact(replay.events)))
    out["events: all in one zlib string"] = client.memory_usage(f"{scratch}:1", samples=0) or 0
    client.set(f"{scratch}:2", zlib.compress(data[b"rec"]))
    out["record: rec zlib-compressed string"] = client.memory_usage(f"{scratch}:2", samples=0) or 0
    client.delete(*[f"{scratch}:{n}" for n in range(4)])
    return {key: int(value or 0) for key, value in out.items()}


def _median(rows: list[dict[str, int]]) -> dict[str, float]:
    """The game of median total size (its parts stay consistent with each other)."""
    return dict(sorted(rows, key=lambda row: row["total"])[len(rows) // 2])


def storage(ctx: Context) -> dict[str, Any]:
    """Bytes per game halfway through ("active") and at the end ("finished")."""
    tables = plans.tables_for(ctx.redis_url)
    seeds = ctx.mode.storage_seeds
    rows: list[dict[str, Any]] = []
    alternatives: dict[str, dict[str, int]] = {}
    for game_type in GAME_TYPES:
        for players in PLAYER_COUNTS[game_type]:
            active, finished = [], []
            game_plans = plans.make_plans(game_type, players, seeds, ctx.seeds(seeds))
            for plan in game_plans:
                seated = plans.seat(tables, plan)
                plans.fast_forward(tables, seated, len(plan.steps) // 2)
                active.append(game_bytes(ctx.client, seated.id))
                if players == 4 and game_type not in alternatives:
                    alternatives[game_type] = layouts(ctx.client, seated.id)
                plans.fast_forward(tables, seated, len(plan.steps) - seated.done)
                finished.append(game_bytes(ctx.client, seated.id))
            rows.append(
                {
                    "game_type": game_type,
                    "players": players,
                    "actions_per_game": sum(len(p.steps) for p in game_plans) / seeds,
                    "active": _median(active),
                    "finished": _median(finished),
                }
            )
            ctx.log(
                f"storage {game_type} {players}p: active {rows[-1]['active']['total']:,.0f} B,"
                f" finished {rows[-1]['finished']['total']:,.0f} B"
            )
    # Idempotency-Key: each action with a key stores its answer (without its view) for an hour.
    idem: dict[str, Any] = {}
    for game_type in GAME_TYPES:
        plan = plans.make_plan(game_type, 4, ctx.seeds(1))
        seated = plans.seat(tables, plan)
        sample = min(20, len(plan.steps))
        for index, (seat_no, action_body) in enumerate(plan.steps[:sample]):
            tables.act(seated.id, seated.tokens[seat_no], action_body, None, f"bench-{index}")
        per_action = game_bytes(ctx.client, seated.id)["idempotency"] / sample
        idem[game_type] = {
            "bytes_per_keyed_action": per_action,
            "whole_game_keyed_bytes": per_action * len(plan.steps),
        }
    index_memory = sum(
        ctx.client.memory_usage(index_key(bucket), samples=0) or 0
        for bucket in range(buckets.BUCKETS)
    )
    index_bytes = index_memory / max(1, plans.index_count(ctx.client))
    return {
        "games": rows,
        "idempotency": idem,
        "index_bytes_per_game": index_bytes,
        "layouts_active_4p": alternatives,
    }


# --- growth ----------------------------------------------------------------------------------


def _wait_aof_rewrite(client: redis.Redis) -> None:
    with contextlib.suppress(redis.ResponseError):  # one is already running
        client.bgrewriteaof()
    while True:
        info = client.info("persistence")
        if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
            return
        time.sleep(0.2)


def fill(ctx: Context, total: int) -> dict[str, Any]:
    """Bring Redis to ``total`` stored games: copies (DUMP/RESTORE) of real games, half of
    them halfway through, half finished, each with its log, TTL and index entry."""
    dumps = plans.stored_templates(ctx.redis_url, ctx.client, GAME_TYPES, 8, ctx.seeds(16))
    ttl_ms = plans.tables_for(ctx.redis_url).store.ttl_seconds * 1000
    started = time.perf_counter()
    filled = plans.fill_store(ctx.client, dumps, total, ttl_ms, int(time.time() * 1000))
    _wait_aof_rewrite(ctx.client)
    info = ctx.client.info("memory")
    return {
        "games": plans.index_count(ctx.client),
        "keys": ctx.client.dbsize(),
        "used_memory_bytes": info["used_memory"],
        "fill_seconds": filled,
        "aof_rewrite_seconds": time.perf_counter() - started - filled,
    }


def unfill(ctx: Context, keep: set[str]) -> None:
    """Remove every stored game but ``keep`` (and their index entries)."""
    for bucket in range(buckets.BUCKETS):
        ids = [member.decode() for member in ctx.client.zrange(index_key(bucket), 0, -1)]
        drop = [game_id for game_id in ids if game_id not in keep]
        for start in range(0, len(drop), 1000):
            chunk = drop[start : start + 1000]
            pipe = ctx.client.pipeline(transaction=False)
            for game_id in chunk:  # one key a command: a cluster may hold them anywhere
                pipe.unlink(game_key(game_id))
            pipe.zrem(index_key(bucket), *chunk)
            pipe.execute()
    _wait_aof_rewrite(ctx.client)


def growth(ctx: Context, server: launch.Server) -> dict[str, Any]:
    """Action throughput of the same games (same seeds and actions, new ids each time) with
    100 games stored, then with many, then with 100 again (A-B-A: the two small phases
    bracket the large one, so drift of the machine shows).

    100 games over 32 connections last a few seconds, too short a window to resolve 10 %:
    each phase measures ``growth_windows`` windows and the median counts, after one unmeasured
    window that warms the server up (the first window of a run is always the slowest). In the
    small phases the played games are removed before each window, so 100 games are stored.
    """
    mode = ctx.mode
    ctx.client.flushall()
    _wait_aof_rewrite(ctx.client)
    game_plans = plans.make_plans("mr-toast", 4, mode.growth_games, ctx.seeds(mode.growth_games))
    out: dict[str, Any] = {"game_type": "mr-toast", "players": 4}

    def window(name: str) -> load.HttpResult:
        games = plans.seat_all(ctx.redis_url, game_plans)
        result = ctx.load(name, [server], streams=plans.action_streams(games, server.port))
        ctx.log(load.describe(result))
        return result

    window("action, warm-up window (not counted)")
    for label in ("small", "large", "small_again"):
        filled: dict[str, Any] = {}
        if label == "large":
            unfill(ctx, keep=set())
            filled = fill(ctx, mode.growth_stored - mode.growth_games)
        windows = []
        for _ in range(mode.growth_windows):
            if label != "large":
                unfill(ctx, keep=set())
            stored_now = plans.index_count(ctx.client) + mode.growth_games
            windows.append((window(f"action @ {stored_now:,} games"), stored_now))
        median = sorted(windows, key=lambda item: item[0].rps)[len(windows) // 2][0]
        out[label] = {
            "stored_games": windows[0][1],  # as the phase began; each window adds its 100
            **median.to_dict(),
            "fill": filled,
            "windows_rps": [item[0].rps for item in windows],
            "windows_server_us": [item[0].cpu_us_per_request["server"] for item in windows],
        }
    small_rps = sorted(out["small"]["windows_rps"] + out["small_again"]["windows_rps"])
    small_us = sorted(out["small"]["windows_server_us"] + out["small_again"]["windows_server_us"])
    large = out["large"]
    out["ratio"] = load.median_of(large["windows_rps"]) / load.median_of(small_rps)
    out["ratio_by_server_cpu"] = load.median_of(small_us) / load.median_of(
        large["windows_server_us"]
    )
    return out
