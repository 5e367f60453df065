"""What a game package declares to be served: its engine and its bot policies.

A package offers a game under the ``cardroom.games`` entry point group, the entry point's
name being the game type and its object a ``GamePlugin`` (cardroom's own two games are
declared so in pyproject.toml). The registry (cardroom/registry.py) loads them and refuses,
with the reason, any whose declaration ``problems`` finds wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cardroom.games.base import Game

GAME_TYPE = re.compile(r"^[a-z][a-z0-9-]{1,31}$")
# The policy every game has without declaring it (cardroom/bots: any legal action).
RESERVED_POLICIES = frozenset({"random"})


@dataclass(frozen=True)
class GamePlugin:
    """A game as a package offers it: the engine, and bot policies by name (each
    ``choose(view, legal, rng) -> action``, seeing only its seat's view)."""

    game: Game
    policies: Mapping[str, Callable[..., Any]] = field(default_factory=dict)


def problems(declared: object, game_type: str) -> list[str]:
    """What is wrong with ``declared`` as the plug-in of ``game_type``, in words; [] if
    nothing is. Static checks only: the conformance test plays the game."""
    if not isinstance(declared, GamePlugin):
        return [f"the entry point gives a {type(declared).__name__}, not a GamePlugin"]
    game = declared.game
    if not isinstance(game, Game):
        return [f"its game is a {type(game).__name__}, not a cardroom Game"]
    found: list[str] = []
    if not GAME_TYPE.match(game_type):
        found.append(
            f"game type {game_type!r} is not 2 to 32 lower-case letters, digits and dashes"
        )
    if getattr(game, "game_type", None) != game_type:
        found.append(
            f"the entry point is named {game_type!r} but its game says"
            f" {getattr(game, 'game_type', None)!r}"
        )
    for name in ("title", "description", "moves", "shapes"):
        if not getattr(game, name, None):
            found.append(f"its game declares no {name}")
    low, high = getattr(game, "min_players", None), getattr(game, "max_players", None)
    if not (isinstance(low, int) and isinstance(high, int) and 1 <= low <= high):
        found.append(f"its players range {low!r} to {high!r} is not 1 <= min <= max")
    for name, policy in declared.policies.items():
        if name in RESERVED_POLICIES:
            found.append(f"policy {name!r} is every game's own: it cannot be declared")
        elif not callable(policy):
            found.append(f"policy {name!r} is not callable")
    return found
