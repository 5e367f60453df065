"""Policies that choose among legal actions, for bot seats and simulations.

A policy is ``choose(view, legal, rng) -> action``: it sees only what its seat may see
(the engine's view of that seat) and returns one of ``legal``. Each game's policies are
registered with the game in ``cardroom.registry`` (``policies``, ``get_policy``): the
registry knows the bots, and the bots know only the engine contract.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Container
from typing import Any

from cardroom.games.base import Action, Game, State

Policy = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], dict[str, Any]]


def random_policy(
    view: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """Any legal action, uniformly."""
    return rng.choice(legal)


def next_bot_seat(game: Game, state: State, bot_seats: Container[int]) -> int | None:
    """The seat a bot plays next: the lowest *awaited* bot seat, or None.

    Awaited, not merely allowed to act: in a simultaneous phase a seat that has answered may
    still change its answer, and a bot that acted on that would change its mind forever.
    """
    if game.result(state) is not None:
        return None
    return next((seat for seat in sorted(game.awaiting(state)) if seat in bot_seats), None)


def choose(game: Game, state: State, seat: int, policy: Policy, rng: random.Random) -> Action:
    """What ``policy`` plays for ``seat``, seeing only that seat's view."""
    return policy(game.view(state, seat), game.legal_actions(state, seat), rng)
