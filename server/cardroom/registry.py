"""The registry of game types: a game plugs in here and nowhere else, with its bot policies.

It sits above both the engines (games/) and the bots (bots/), so neither knows the other's
package. Every other part reads it: the table (which games and policies exist), the API
document (each game's action types, views and events), the simulator and the conformance test.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cardroom.bots import Policy, exact_plays, mr_toast, random_policy
from cardroom.games.base import Game
from cardroom.games.exact_plays import ExactPlays
from cardroom.games.mr_toast import MrToast


@dataclass(frozen=True)
class Registered:
    game: Game
    # Every policy a bot seat of this game may play, by name ("random" for every game).
    policies: dict[str, Policy]


def _load() -> dict[str, Registered]:
    games: list[tuple[Game, dict[str, Policy]]] = [
        (MrToast(), {"greedy": mr_toast.greedy}),
        (ExactPlays(), {"greedy": exact_plays.greedy}),
    ]
    for game, policies in games:
        # The turn clock's away_bot names one of the game's bot policies (games/clock.py).
        names = ("random", *policies)
        game.option_specs = tuple(  # type: ignore[misc]
            replace(spec, choices=names) if spec.name == "away_bot" else spec
            for spec in game.option_specs
        )
    return {
        game.game_type: Registered(game, {"random": random_policy, **policies})
        for game, policies in games
    }


_REGISTRY: dict[str, Registered] | None = None
_GAMES: dict[str, Game] | None = None


def _entries() -> dict[str, Registered]:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _load()
    return _REGISTRY


def registry() -> dict[str, Game]:
    """Every game type, by id."""
    global _GAMES
    if _GAMES is None:
        _GAMES = {name: entry.game for name, entry in _entries().items()}
    return _GAMES


def get_game(game_type: str) -> Game:
    """The engine for ``game_type``; KeyError if there is none."""
    return registry()[game_type]


def policies(game_type: str) -> dict[str, Policy]:
    """The bot policies of ``game_type`` by name; KeyError for an unknown game type."""
    return _entries()[game_type].policies


def get_policy(name: str, game_type: str) -> Policy:
    """The policy ``name`` for ``game_type``; KeyError if there is none."""
    return policies(game_type)[name]


def policy_names() -> list[str]:
    """Every policy name some game has, in registration order."""
    names: dict[str, None] = {}
    for entry in _entries().values():
        names.update(dict.fromkeys(entry.policies))
    return list(names)
