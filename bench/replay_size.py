"""How big a finished game's replay is, and how long it takes to build (docs/benchmarks.md,
"Replays").

    python -m bench.replay_size            # typical and long games of both games, once each

Plays games to the end on an embedded Redis (the progression loop, no HTTP, a clock that
jumps: no real waiting), all-bot ones and ones whose every seat is away (MT-17, EP-19), then
builds each replay as ``GET /v1/games/{id}/replay`` does and prints its size as JSON, gzipped
(what a client with ``Accept-Encoding: gzip`` behind a compressing proxy receives), and the
time the build took. One process, no load: a few seconds in all.
"""

from __future__ import annotations

import gzip
import sys
import tempfile
import time
from pathlib import Path

import orjson

from bench import launch
from cardroom.config import Settings
from cardroom.progress import Progression
from cardroom.serve.app import create_app
from cardroom.table import Tables, replays

# (label, game type, players, bot policy or None for people who never act, options)
AWAY = {"turn_seconds": 5, "away_after": 1}
GAMES = [
    ("typical", "mr-toast", 4, "greedy", {}),
    ("typical", "mr-toast", 6, "random", {}),
    # Every seat away: 500 turns of default moves, hands growing a card a turn (the worst case)
    ("long", "mr-toast", 6, None, {**AWAY, "turn_limit": 500}),
    ("typical", "exact-plays", 3, "greedy", {}),
    ("typical", "exact-plays", 4, "random", {}),
    ("long", "exact-plays", 4, None, {**AWAY, "turn_limit": 2000}),
]


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def main() -> int:
    with tempfile.TemporaryDirectory() as folder, launch.embedded_redis(Path(folder)) as redis:
        app = create_app(Settings.from_env(redis_url=redis.url, rate_limit_create="off"))
        clock = Clock()
        tables = Tables(app.extensions["cardroom.tables"].store, clock=clock)
        loop = Progression(tables, share=1.0)
        print(f"{'game':<30} {'steps':>6} {'events':>7} {'JSON':>10} {'gzip':>9} {'build':>8}")
        for label, game_type, players, policy, options in GAMES:
            bots = [{"seat": seat, "policy": policy} for seat in range(players) if policy]
            record = tables.create(game_type, players, options, seed=42, bots=bots)
            for seat in range(players if policy is None else 0):
                tables.join(record.id, f"p{seat}", seat)
            while tables.store.load(record.id).record.status != "finished":
                clock.now += 5
                loop.run_once()
            stored = tables.store.load(record.id).record
            started = time.perf_counter()
            replay = replays.build(stored)
            built = time.perf_counter() - started
            body = orjson.dumps(replay)
            events = len(replay["opening_events"]) + sum(len(s["events"]) for s in replay["steps"])
            name = f"{game_type} {players}p {policy or 'all away'} ({label})"
            print(
                f"{name:<30} {len(replay['steps']):>6} {events:>7} "
                f"{len(body) / 1024:>8.1f}KB {len(gzip.compress(body)) / 1024:>7.1f}KB "
                f"{built * 1000:>6.0f}ms"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
