"""The types the engine contract (kit/base.py) and the moves (kit/moves.py) both need.

They live here so that the two import one way only: ``base`` imports ``moves`` (a game
declares its moves, and ``Game.apply`` reads an action against them), and neither imports the
other back. ``base`` re-exports the JSON types, which engines import from there.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]
# An action's fields, as a move's fields read them (kit/moves.py).
Args = dict[str, Any]


class CardReader(Protocol):
    """What a move's field reads of a game (``Game`` is one): a card's id on the wire, and
    the engine's form of a card in a seat's hand."""

    card_id_re: re.Pattern[str]
    card_example: str

    def hand_card(self, state: State, seat: int, card_id: str) -> Any: ...
