"""Hostile loads (issue "Hostile load and honest operations"): what all-bot creates and slow
clients do to the health check, and what an all-bot create costs.

    .venv/bin/python -m bench.hostile                 # brief: about a minute
    .venv/bin/python -m bench.hostile --seconds 60 --games 10
    .venv/bin/python -m bench.hostile --tree /path/to/other/checkout   # the same, other code

Three phases, each against a fresh gunicorn (the production config: 2 gevent workers) on an
embedded Redis:

1. **cpu**: ``--games`` all-bot creates, one after another, of the longest game a create may
   ask for (Mr Toast, 6 random bots, ``turn_limit`` 10000, a deck of Take a Break cards
   only: about 30,000 bot actions). It waits until each game is finished in Redis (read
   there, so no API request helps it along) and reports the server's CPU seconds per game,
   the create's answer time and the bot actions per game.
2. **allbot**: the same creates at the create rate limit (600 a minute: 10 a second) for
   ``--seconds``, while /healthz is probed every 50 ms; reports its p50, p99 and maximum.
4. **bytes** (in-process, no gunicorn): Redis's own count (``MEMORY USAGE``, ``INFO
   used_memory``) of what one game, one action and one Idempotency-Key record cost.
5. **fsync** (in-process): ``--actions`` actions one after another on a Redis that syncs its
   file every second (``everysec``, the default) and on one that syncs every write
   (``always``): actions per second and p50/p99 of each, on the disk that holds the temporary
   folder (``TMPDIR``).

3. **slowbody**: ``--slow`` connections (2,100: more than both workers' connections) each
   sending a POST's headers and then a body byte every 2 s, reconnecting when dropped, for
   ``--seconds``, while /healthz is probed; reports its p50, p99, maximum and failures.

``--tree`` runs the server from another checkout's ``server/`` (PYTHONPATH), e.g. the code
before a change, for a before/after comparison with the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import redis
import requests

from bench.launch import start_gunicorn, start_redis, trees_cpu
from bench.load import Paced, Prober, SlowBodies, percentile

HOSTILE_GAME = {
    "game_type": "mr-toast",
    "players": 6,
    "options": {"turn_limit": 10000, "composition": [{"code": "TB", "count": 200}]},
    "bots": [{"seat": seat, "policy": "random"} for seat in range(6)],
}


def stored_status(store: redis.Redis, game_id: str) -> tuple[str, int]:
    body = orjson.loads(store.hget(f"cardroom:game:{{{game_id}}}", "rec") or b"{}")
    return body.get("status", "gone"), body.get("version", 0)


def server_cpu(server: Any) -> float:
    return trees_cpu({"server": [server.pid]})["server"]


def server_env(tree: str | None, **extra: str) -> dict[str, str]:
    env = dict(extra)
    if tree:
        env["PYTHONPATH"] = str(Path(tree).resolve() / "server")
    return env


def phase_cpu(redis_url: str, games: int, tree: str | None, log: Path) -> dict[str, Any]:
    server = start_gunicorn(redis_url, log_path=log, **server_env(tree))
    store = redis.Redis.from_url(redis_url)
    base = f"http://127.0.0.1:{server.port}"
    try:
        before = server_cpu(server)
        answers, actions = [], []
        started = time.perf_counter()
        for _ in range(games):
            sent = time.perf_counter()
            created = requests.post(f"{base}/v1/games", json=HOSTILE_GAME, timeout=600)
            answers.append(time.perf_counter() - sent)
            game_id = created.json()["id"]
            while (status := stored_status(store, game_id))[0] != "finished":
                time.sleep(0.2)
            actions.append(status[1])
        wall = time.perf_counter() - started
        cpu = server_cpu(server) - before
    finally:
        server.stop()
        store.close()
    return {
        "games": games,
        "cpu_s_per_game": round(cpu / games, 3),
        "wall_s_per_game": round(wall / games, 2),
        "create_answer_ms_max": round(max(answers) * 1000, 1),
        "bot_actions_per_game": round(sum(actions) / games),
    }


def phase_allbot(redis_url: str, seconds: float, tree: str | None, log: Path) -> dict[str, Any]:
    server = start_gunicorn(redis_url, log_path=log, **server_env(tree))
    prober = Prober(server.url)
    creates = Paced(server.url, "/v1/games", HOSTILE_GAME, every=0.1)  # the default limit
    try:
        prober.start()
        creates.run(seconds)
        prober.stop()
        creates.wait()
    finally:
        prober.stop()
        server.stop()
    return {"creates": dict(sorted(creates.statuses.items())), **prober.figures()}


def phase_slowbody(
    redis_url: str, seconds: float, connections: int, tree: str | None, log: Path
) -> dict[str, Any]:
    server = start_gunicorn(redis_url, log_path=log, **server_env(tree))
    attack = SlowBodies(server.port, connections)
    prober = Prober(server.url)
    try:
        attack.start()
        time.sleep(1.0)  # the connections are open
        prober.start()
        time.sleep(seconds)
    finally:
        prober.stop()
        attack.stop()
        server.stop()
    return {"connections": connections, **attack.counts, **prober.figures()}


def play_declarations(client: Any, game_id: str, tokens: dict[int, str], key: bool) -> int:
    """Exact Plays: every seat declares, again and again (a declaration may be changed while
    others have not declared: EP-3), so a 4-seat game takes any number of actions."""
    sent = 0
    for round_ in range(25):
        for seat, token in tokens.items():
            if seat == len(tokens) - 1:
                continue  # the last seat never declares: the phase stays open
            headers = {"Authorization": f"Bearer {token}"}
            if key:
                headers["Idempotency-Key"] = f"{seat}-{round_}"
            answer = client.post(
                f"/v1/games/{game_id}/actions",
                json={"type": "declare", "tokens": 1 + (round_ + seat) % 5},
                headers=headers,
            )
            assert answer.status_code == 200, answer.get_json()
            sent += 1
    return sent


def table(client: Any, players: int) -> tuple[str, dict[int, str]]:
    game = client.post(
        "/v1/games", json={"game_type": "exact-plays", "players": players}
    ).get_json()
    tokens = {}
    for seat in range(players):
        joined = client.post(f"/v1/games/{game['id']}/join", json={"name": f"p{seat}"})
        tokens[seat] = joined.get_json()["token"]
    return game["id"], tokens


def phase_bytes(folder: Path) -> dict[str, Any]:
    from cardroom.config import Settings
    from cardroom.serve.app import create_app

    server = start_redis(folder / "bytes")
    try:
        store = redis.Redis.from_url(server.url)
        app = create_app(Settings.from_env(redis_url=server.url, rate_limit_create="off"))
        client = app.test_client()
        before = store.info("memory")["used_memory"]
        created = 1000
        ids = [
            client.post("/v1/games", json={"game_type": "mr-toast", "players": 2}).get_json()["id"]
            for _ in range(created)
        ]
        per_empty_game = (store.info("memory")["used_memory"] - before) / created
        empty_hash = store.memory_usage(f"cardroom:game:{{{ids[0]}}}")
        game_id, tokens = table(client, 4)
        key = f"cardroom:game:{{{game_id}}}"
        joined = store.memory_usage(key)
        actions = play_declarations(client, game_id, tokens, key=False)
        per_action_game = (store.memory_usage(key) - joined) / actions
        keyed_id, keyed_tokens = table(client, 4)
        play_declarations(client, keyed_id, keyed_tokens, key=True)
        records = [
            store.memory_usage(name)
            for name in store.scan_iter(f"cardroom:game:{{{keyed_id}}}:idem:*")
        ]
        store.close()
    finally:
        server.stop()
    return {
        "unjoined_mr_toast_2_seats_hash_bytes": empty_hash,
        "used_memory_per_unjoined_game": round(per_empty_game),
        "joined_exact_plays_4_seats_hash_bytes": joined,
        "hash_bytes_per_action": round(per_action_game),
        "idempotency_record_bytes": round(sum(records) / len(records)),
    }


def phase_fsync(folder: Path, actions: int) -> dict[str, Any]:
    from cardroom.config import Settings
    from cardroom.serve.app import create_app

    figures: dict[str, Any] = {}
    for mode in ("everysec", "always"):
        server = start_redis(folder / f"fsync-{mode}", appendfsync=mode)
        try:
            app = create_app(Settings.from_env(redis_url=server.url, rate_limit_create="off"))
            client = app.test_client()
            times: list[float] = []
            while len(times) < actions:
                game_id, tokens = table(client, 4)
                for round_ in range(25):
                    for seat in (0, 1, 2):
                        started = time.perf_counter()
                        client.post(
                            f"/v1/games/{game_id}/actions",
                            json={"type": "declare", "tokens": 1 + (round_ + seat) % 5},
                            headers={"Authorization": f"Bearer {tokens[seat]}"},
                        )
                        times.append(time.perf_counter() - started)
            figures[mode] = {
                "actions_per_s": round(len(times) / sum(times)),
                "p50_ms": round(percentile(times, 0.5) * 1000, 2),
                "p99_ms": round(percentile(times, 0.99) * 1000, 2),
            }
        finally:
            server.stop()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.hostile", description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0, help="each load phase")
    parser.add_argument("--games", type=int, default=2, help="all-bot creates in phase cpu")
    parser.add_argument("--slow", type=int, default=2100, help="slow-body connections")
    parser.add_argument("--tree", default=None, help="run the server from this checkout")
    parser.add_argument("--actions", type=int, default=600, help="actions per fsync mode")
    parser.add_argument("--only", default="cpu,allbot,slowbody,bytes,fsync")
    parser.add_argument("--out", default=None, help="also write the figures as JSON here")
    args = parser.parse_args()
    phases = set(args.only.split(","))
    results: dict[str, Any] = {"tree": args.tree or "this checkout"}
    with tempfile.TemporaryDirectory(prefix="cardroom-hostile-") as folder:
        log = Path(folder) / "server.log"
        redis_server = start_redis(Path(folder) / "redis")
        try:
            if "cpu" in phases:
                results["cpu"] = phase_cpu(redis_server.url, args.games, args.tree, log)
                print("cpu     ", results["cpu"], flush=True)
            if "allbot" in phases:
                results["allbot"] = phase_allbot(redis_server.url, args.seconds, args.tree, log)
                print("allbot  ", results["allbot"], flush=True)
            if "slowbody" in phases:
                results["slowbody"] = phase_slowbody(
                    redis_server.url, args.seconds, args.slow, args.tree, log
                )
                print("slowbody", results["slowbody"], flush=True)
        finally:
            redis_server.stop()
    if "bytes" in phases:
        with tempfile.TemporaryDirectory(prefix="cardroom-bytes-") as folder:
            results["bytes"] = phase_bytes(Path(folder))
        print("bytes   ", results["bytes"], flush=True)
    if "fsync" in phases:
        with tempfile.TemporaryDirectory(prefix="cardroom-fsync-") as folder:
            results["fsync"] = phase_fsync(Path(folder), args.actions)
        print("fsync   ", results["fsync"], flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("CARDROOM_LOG_LEVEL", "warning")
    main()
