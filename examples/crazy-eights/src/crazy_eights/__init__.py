"""Crazy Eights (``crazy-eights``): a game package for cardroom, written with its public
kit (``cardroom.kit``) only. Its entry point is ``crazy_eights.plugin:plugin``."""

from __future__ import annotations

from crazy_eights.engine import CrazyEights

__all__ = ["CrazyEights"]
