"""Exact Plays as a game package declares it (the ``exact-plays`` entry point)."""

from __future__ import annotations

from cardroom.games.exact_plays import bots
from cardroom.games.exact_plays.engine import ExactPlays
from cardroom.kit import GamePlugin

plugin = GamePlugin(
    ExactPlays(),
    {"greedy": bots.greedy},
    rules_version=1,
    renderer="renderer.js",
    descriptions={"greedy": "plays sensibly, one move at a time"},
)
