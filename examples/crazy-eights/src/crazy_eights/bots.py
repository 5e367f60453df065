"""Crazy Eights bot policies: ``eights_last`` (served as ``eights-last``).

``eights_last`` plays a card whenever one fits, and never draws while it can play:

- of the cards that fit, an ordinary one (not an eight) of the suit it holds most, so that
  the suit it leaves on the pile is one it can follow again; among those, the card worth
  the most points (CE-12), so that a blocked or lost deal costs less;
- an eight only when no ordinary card fits (eights are worth 50 and fit anywhere: they are
  kept for when it is stuck), naming the suit it holds most of the rest of its hand;
- otherwise it draws, and plays the drawn card if it fits (the game passes for it if not).

It reads nothing but its own view and the legal actions, and it draws no randomness.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardroom.kit import Action, Random, View

from crazy_eights.cards import EIGHT, SUITS, value


def eights_last(view: View, legal: list[Action], rng: Random) -> Action:
    """A sensible Crazy Eights player (see the module docstring)."""
    if not legal:
        raise ValueError("no legal action to choose from")
    hand: dict[str, dict[str, Any]] = {card["id"]: card for card in (view["you"] or {})["hand"]}
    held = Counter(card["suit"] for card in hand.values() if card["rank"] != EIGHT)
    plays = [action for action in legal if action["type"] == "play"]
    ordinary = [action for action in plays if hand[action["card"]]["rank"] != EIGHT]
    if ordinary:

        def merit(action: Action) -> tuple[int, int, str]:
            card = hand[action["card"]]
            return held[card["suit"]], value(card["code"]), card["code"]

        return max(ordinary, key=merit)
    if plays:
        # Name the suit held most (ties: the first in SUITS order); any suit if none is left.
        wanted = max(SUITS, key=lambda suit: (held[suit], -SUITS.index(suit)))
        for action in plays:
            if action["suit"] == wanted:
                return action
        return plays[0]
    for kind in ("draw", "pass"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]
