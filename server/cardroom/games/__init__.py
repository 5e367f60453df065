"""The registry of game types: a game plugs in here and nowhere else."""

from __future__ import annotations

from cardroom.games.base import Game


def _load() -> dict[str, Game]:
    from cardroom.games.exact_plays import ExactPlays
    from cardroom.games.mr_toast import MrToast

    games: list[Game] = [MrToast(), ExactPlays()]
    return {game.game_type: game for game in games}


_REGISTRY: dict[str, Game] | None = None


def registry() -> dict[str, Game]:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _load()
    return _REGISTRY


def get_game(game_type: str) -> Game:
    """The engine for ``game_type``; KeyError if there is none."""
    return registry()[game_type]
