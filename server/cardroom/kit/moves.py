"""Action types as data: each engine declares its moves once, and everything reads that.

A ``Move`` names an action ``type``, the phases it belongs to, the rule that says when it may
be played, and its fields, each with its kind (a card id, a list of card ids, a seat, an
integer range, a choice) and the rule a bad value breaks. ``Game.apply`` (kit/base.py)
checks an action against its move before the engine's own handler sees it, with one wording
for every game; the API document (api/gamedocs.py) and the conformance test
(tests/games/test_conformance.py) are generated from the same declarations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cardroom.kit.contract_types import CardReader, State
from cardroom.kit.errors import IllegalAction


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, kw_only=True)
class Field:
    """One field of an action type. ``rule`` is the rule a bad value breaks; ``optional``
    fields may be left out or sent as null (the same thing)."""

    name: str
    description: str
    rule: str
    optional: bool = False

    kind = "field"

    def read(self, value: Any, game: CardReader, state: State, seat: int) -> Any:
        """The value as the handler wants it; IllegalAction naming the field if it is bad."""
        raise NotImplementedError

    def trusted(self, value: Any, game: CardReader, state: State, seat: int) -> Any:
        """The value as the handler wants it, from an action ``legal_actions`` listed, with
        no check (``Game.apply_legal``): what ``read`` returns for it."""
        return value

    def refuse(self, message: str) -> IllegalAction:
        return IllegalAction(message, rule=self.rule, field=self.name)


@dataclass(frozen=True, kw_only=True)
class CardField(Field):
    """A card in the acting seat's hand, named by its id. The handler gets the engine's own
    form of the card (``Game.hand_card``)."""

    kind = "card"

    def read(self, value: Any, game: CardReader, state: State, seat: int) -> Any:
        if not isinstance(value, str) or not game.card_id_re.fullmatch(value):
            raise self.refuse(f"{self.name} must be a card id such as {game.card_example!r}")
        card = game.hand_card(state, seat, value)
        if card is None:
            raise self.refuse(f"{self.name}: card {value} is not in your hand")
        return card

    def trusted(self, value: Any, game: CardReader, state: State, seat: int) -> Any:
        return game.hand_card(state, seat, value)


@dataclass(frozen=True, kw_only=True)
class CardsField(Field):
    """A non-empty list of distinct cards in the acting seat's hand; their order does not
    matter."""

    kind = "cards"

    def read(self, value: Any, game: CardReader, state: State, seat: int) -> list[Any]:
        if not isinstance(value, list) or not value:
            raise self.refuse(f"{self.name} must be a non-empty list of card ids")
        one = CardField(name=self.name, description="", rule=self.rule)
        cards: list[Any] = []
        for item in value:
            card = one.read(item, game, state, seat)
            if card in cards:
                raise self.refuse(f"{self.name} lists {item} twice")
            cards.append(card)
        return cards

    def trusted(self, value: Any, game: CardReader, state: State, seat: int) -> list[Any]:
        return [game.hand_card(state, seat, item) for item in value]


@dataclass(frozen=True, kw_only=True)
class SeatField(Field):
    """A seat number of the game; with ``other``, another player's."""

    other: bool = True
    kind = "seat"

    def read(self, value: Any, game: CardReader, state: State, seat: int) -> int:
        players = state["players"]
        if not is_int(value) or not 0 <= value < players:
            raise self.refuse(f"{self.name} must be a seat number from 0 to {players - 1}")
        if self.other and value == seat:
            raise self.refuse(f"{self.name} must be another player's seat")
        return value


@dataclass(frozen=True, kw_only=True)
class IntegerField(Field):
    """A whole number from ``minimum`` to ``maximum``."""

    minimum: int
    maximum: int
    kind = "integer"

    def read(self, value: Any, game: CardReader, state: State, seat: int) -> int:
        if not is_int(value) or not self.minimum <= value <= self.maximum:
            raise self.refuse(
                f"{self.name} must be a whole number from {self.minimum} to {self.maximum}"
            )
        return value


@dataclass(frozen=True, kw_only=True)
class ChoiceField(Field):
    """One of a few strings."""

    choices: tuple[str, ...]
    kind = "choice"

    def read(self, value: Any, game: CardReader, state: State, seat: int) -> str:
        if not isinstance(value, str) or value not in self.choices:
            raise self.refuse(f"{self.name} must be one of {', '.join(self.choices)}")
        return value


@dataclass(frozen=True, kw_only=True)
class Move:
    """One action type of a game.

    - ``phases``: the phases (``Game.phase``) it belongs to; sent in another, it is refused
      as not-your-turn naming ``rule`` (a client that raced a phase change looks again).
    - ``allowed``: when the phase is not enough, ``allowed(state, seat)`` gives the reason
      the move is refused now (an illegal action naming ``rule``), or None.
    - ``handler``: the name of the engine's method that applies it, called as
      ``handler(state, seat, args, events, now)`` with the fields already read (``Field.read``).
    - ``lists_all``: whether ``legal_actions`` lists every accepted form. False where the
      rules accept more than is listed (a game may list only the minimal combinations of cards).
    """

    type: str
    description: str
    phases: tuple[str, ...]
    rule: str
    handler: str
    fields: tuple[Field, ...] = ()
    allowed: Callable[[State, int], str | None] | None = None
    lists_all: bool = True

    def canonical(self, action: dict[str, Any]) -> tuple[tuple[str, str], ...]:
        """What an accepted action means, for comparing two: a null optional field is the
        same as a missing one, and the order of a list of cards does not matter."""
        kinds = {field.name: field.kind for field in self.fields}
        items: list[tuple[str, str]] = []
        for key, value in action.items():
            if value is None and key != "type":
                continue
            if kinds.get(key) == "cards" and isinstance(value, list):
                value = sorted(value, key=repr)
            items.append((key, repr(value)))
        return tuple(sorted(items))
