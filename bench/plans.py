"""Games to play: action sequences precomputed by the engines, and games seated in Redis.

The engines are deterministic given seed and actions, and the server deals a game created
with ``seed`` exactly as ``engine.new_game(players, options, seed)`` does. So a plan made
in-process (every step: the lowest seat the game awaits, a random legal action) is a list of
requests the server accepts one by one, with no view fetched in between.

Setup goes through the server's own code in-process (``Tables.create`` and ``Tables.join``
against the benchmark's Redis): real records, real token hashes, real events.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from typing import Any

from bench.load import request_bytes
from cardroom.bots import next_bot_seat
from cardroom.config import Settings
from cardroom.registry import get_game
from cardroom.store import buckets, connect
from cardroom.store.listing import index_key
from cardroom.store.record import game_key
from cardroom.table import Tables
from cardroom.table import steps as cardroom_steps

Step = tuple[int, dict[str, Any]]


@dataclass
class Plan:
    game_type: str
    players: int
    seed: int
    steps: list[Step]


@dataclass
class Seated:
    id: str
    plan: Plan
    tokens: list[str]
    done: int = 0  # steps already applied in Redis


def make_plan(game_type: str, players: int, seed: int) -> Plan:
    """Play a whole game in-process with a random policy, as the bots' loop does."""
    game = get_game(game_type)
    options = game.validate_options(players, {})
    state = game.new_game(players, options, seed)
    rng = random.Random(f"bench:{game_type}:{players}:{seed}")
    steps: list[Step] = []
    while game.result(state) is None:
        seat = next_bot_seat(game, state, range(players))
        action = rng.choice(game.legal_actions(state, seat))
        steps.append((seat, json.loads(json.dumps(action))))
        game.apply(state, seat, action, time.time())
    return Plan(game_type, players, seed, steps)


def make_plans(game_type: str, players: int, count: int, first_seed: int = 1) -> list[Plan]:
    return [make_plan(game_type, players, seed) for seed in range(first_seed, first_seed + count)]


def tables_for(redis_url: str) -> Tables:
    return Tables(connect(Settings.from_env(redis_url=redis_url)))


def seat(tables: Tables, plan: Plan) -> Seated:
    """Create the game with the plan's seed and take every seat: an active game."""
    record = tables.create(plan.game_type, plan.players, {}, plan.seed, [])
    tokens = [tables.join(record.id, f"p{s}", s)[2] for s in range(plan.players)]
    return Seated(record.id, plan, tokens)


def seat_all(redis_url: str, plans: list[Plan]) -> list[Seated]:
    tables = tables_for(redis_url)
    return [seat(tables, plan) for plan in plans]


def fast_forward(tables: Tables, seated: Seated, steps: int) -> None:
    """Apply the plan's next ``steps`` steps as ``Tables.act`` would, a commit each.

    The record and its log (compressed part and tail alike) end up exactly as after as many
    HTTP actions, without HTTP. Used to make mid-game games fast.
    """
    record = tables.store.load(seated.id).record
    game = get_game(record.game_type)
    ms = cardroom_steps.time_for(record, time.time())
    think = random.Random(f"{seated.id}:{seated.done}")
    for seat_no, action in seated.plan.steps[seated.done : seated.done + steps]:
        ms += think.randint(300, 5000)  # players' thinking time, as the log stores it
        cardroom_steps.act(record, game, seat_no, json.loads(json.dumps(action)), ms)
        tables.store.commit(record)
    seated.done += steps


def action_streams(games: list[Seated], port: int) -> list[list[bytes]]:
    """Each game's remaining steps as POST /actions requests, in order."""
    streams = []
    for game in games:
        path = f"/v1/games/{game.id}/actions"
        streams.append(
            [
                request_bytes(
                    "POST", path, port, token=game.tokens[seat_no], body=json.dumps(action).encode()
                )
                for seat_no, action in game.plan.steps[game.done :]
            ]
        )
    return streams


def view_pool(games: list[Seated], port: int) -> list[bytes]:
    """A view request for every seat of every game (drawn at random by the load)."""
    return [
        request_bytes("GET", f"/v1/games/{game.id}/view", port, token=token)
        for game in games
        for token in game.tokens
    ]


# --- many stored games ------------------------------------------------------------------------


def stored_templates(
    redis_url: str, client: Any, game_types: tuple[str, ...], per_type: int, first_seed: int
) -> list[bytes]:
    """DUMPs of real 4-player games of each type, every other one halfway through, the
    others finished, each with its log."""
    tables = tables_for(redis_url)
    dumps: list[bytes] = []
    for game_type in game_types:
        for plan in make_plans(game_type, 4, per_type, first_seed):
            seated = seat(tables, plan)
            steps = len(plan.steps) if len(dumps) % 2 else len(plan.steps) // 2
            fast_forward(tables, seated, steps)
            dumps.append(client.dump(game_key(seated.id)))
        first_seed += per_type
    return dumps


def index_count(client: Any) -> int:
    """Games in the listing index (every bucket)."""
    pipe = client.pipeline(transaction=False)
    for bucket in range(buckets.BUCKETS):
        pipe.zcard(index_key(bucket))
    return sum(pipe.execute())


def fill_store(
    client: Any, dumps: list[bytes], total: int, ttl_ms: int, first_ms: int, batch: int = 500
) -> float:
    """Copies (RESTORE) of ``dumps`` with their index entries until the listing index holds
    ``total`` games; the seconds it took. Index places run from ``first_ms``."""
    started = time.perf_counter()
    have = index_count(client)
    while have < total:
        pipe = client.pipeline(transaction=False)
        for _ in range(min(batch, total - have)):
            game_id = buckets.new_game_id()
            bucket = buckets.bucket_of(game_id)
            assert bucket is not None
            pipe.restore(game_key(game_id), ttl_ms, dumps[have % len(dumps)], replace=True)
            # a place as the create script gives it: unique, x * 64 + bucket
            pipe.zadd(index_key(bucket), {game_id: (first_ms + have) * buckets.BUCKETS + bucket})
            have += 1
        pipe.execute()
    return time.perf_counter() - started
