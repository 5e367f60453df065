"""Exact Plays (``exact-plays``): declare your plays, then go out using exactly them."""

from __future__ import annotations

from cardroom.games.exact_plays.engine import ExactPlays

__all__ = ["ExactPlays"]
