"""Mr Toast (``mr-toast``): the rules engine. See docs/rules/mr-toast.md."""

from cardroom.games.mr_toast.engine import MrToast

__all__ = ["MrToast"]
