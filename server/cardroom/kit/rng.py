"""Deterministic randomness carried in a game's state.

A state holds ``{"seed": int, "draws": int}`` under ``state["rng"]``. Each use derives a fresh
generator from the seed and a counter, so a seed plus the action log replays a game exactly,
and the state stays small (no 2.5 KB Mersenne Twister state to store).
"""

from __future__ import annotations

import random
from typing import Any, TypeVar

T = TypeVar("T")
# The generator a bot policy is handed (``choose(view, legal, rng)``): a policy draws from it
# and from nothing else, so a seeded simulation replays.
Random = random.Random


def new_rng(seed: int) -> dict[str, int]:
    return {"seed": int(seed), "draws": 0}


def _next(rng_state: dict[str, Any]) -> random.Random:
    rng_state["draws"] += 1
    return random.Random(f"{rng_state['seed']}:{rng_state['draws']}")


def shuffled(rng_state: dict[str, Any], items: list[T]) -> list[T]:
    """A shuffled copy of ``items``; advances the counter."""
    result = list(items)
    _next(rng_state).shuffle(result)
    return result


def choice(rng_state: dict[str, Any], items: list[T]) -> T:
    """One of ``items``; advances the counter."""
    return _next(rng_state).choice(list(items))
