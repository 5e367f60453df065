"""Policies that choose among legal actions, for bot seats and simulations.

A policy is ``choose(view, legal, rng) -> action``: it sees only what its seat may see
(the engine's view of that seat) and returns one of ``legal``.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

Policy = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], dict[str, Any]]

POLICY_NAMES = ("random", "greedy")

# The module under cardroom.bots that holds each game type's own policies.
_GAME_MODULES = {"mr-toast": "mr_toast", "exact-plays": "exact_plays"}


def random_policy(
    view: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """Any legal action, uniformly."""
    return rng.choice(legal)


def get_policy(name: str, game_type: str) -> Policy:
    """The policy ``name`` for ``game_type``; KeyError if there is none."""
    if name == "random":
        return random_policy
    if name not in POLICY_NAMES:
        raise KeyError(name)
    module = importlib.import_module(f"cardroom.bots.{_GAME_MODULES[game_type]}")
    return getattr(module, name)
