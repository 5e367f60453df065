"""Crazy Eights as its package declares it: the ``crazy-eights`` entry point of the
``cardroom.games`` group (pyproject.toml). No renderer: the web table's generic one draws it
from the declared shapes."""

from __future__ import annotations

from cardroom.kit import GamePlugin

from crazy_eights.bots import eights_last
from crazy_eights.engine import CrazyEights

plugin = GamePlugin(
    CrazyEights(),
    {"eights-last": eights_last},
    rules_version=1,
    descriptions={"eights-last": "keeps its eights for last"},
)
