"""Mr Toast (``mr-toast``): the rules engine. See rules.md beside it."""

from cardroom.games.mr_toast.engine import MrToast

__all__ = ["MrToast"]
