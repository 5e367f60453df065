"""Mr Toast as a game package declares it (the ``mr-toast`` entry point)."""

from __future__ import annotations

from cardroom.games.mr_toast import bots
from cardroom.games.mr_toast.engine import MrToast
from cardroom.kit import GamePlugin

plugin = GamePlugin(
    MrToast(),
    {"greedy": bots.greedy},
    rules_version=1,
    renderer="renderer.js",
    descriptions={"greedy": "plays sensibly, one move at a time"},
)
