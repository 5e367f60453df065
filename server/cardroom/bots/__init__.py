"""The server's bot seats: the policy every game has (``random``), and how a bot seat is
played (which seat, seeing what).

A policy is ``choose(view, legal, rng) -> action`` (cardroom.kit.Policy): it sees only what
its seat may see (the engine's view of that seat) and returns one of ``legal``. A game's own
policies live in its package and are declared by its ``GamePlugin``; the registry pairs them
with ``random``. This package knows only the author's kit.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from cardroom.kit import Action, Game, Policy, Random, State


def random_policy(view: dict[str, Any], legal: list[dict[str, Any]], rng: Random) -> dict[str, Any]:
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


def choose(game: Game, state: State, seat: int, policy: Policy, rng: Random) -> Action:
    """What ``policy`` plays for ``seat``, seeing only that seat's view."""
    return policy(game.view(state, seat), game.legal_actions(state, seat), rng)
