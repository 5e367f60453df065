"""Crazy Eights cards: the 52 codes of a standard deck, their values (CE-12) and their form
on the wire (CE-1).

A code is a rank letter then a suit letter: ``8H`` (8 of hearts), ``TS`` (10 of spades),
``AD`` (ace of diamonds). Inside the engine a card is a number from 0 to 51; the game's
``codes`` table gives its code, and its id on the wire is ``c<number>`` (the numbers are drawn
anew for every game, so an id says nothing about its card).
"""

from __future__ import annotations

from typing import Any

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUIT_LETTERS = ("C", "D", "H", "S")
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
# The suits as players name them when they play an eight (CE-7).
SUITS = tuple(SUIT_NAMES.values())
RANK_NAMES = {
    "A": "ace",
    "T": "10",
    "J": "jack",
    "Q": "queen",
    "K": "king",
    **{rank: rank for rank in "23456789"},
}
EIGHT = "8"

#: Every code, by suit then rank: AC 2C … KC AD … KS.
ALL_CODES: tuple[str, ...] = tuple(f"{rank}{suit}" for suit in SUIT_LETTERS for rank in RANKS)
#: code -> its place in that order (hands are shown sorted by it).
ORDER: dict[str, int] = {code: place for place, code in enumerate(ALL_CODES)}


def rank(code: str) -> str:
    return code[0]


def suit(code: str) -> str:
    """The suit's name: ``clubs``, ``diamonds``, ``hearts`` or ``spades``."""
    return SUIT_NAMES[code[1]]


def is_eight(code: str) -> bool:
    return code[0] == EIGHT


def value(code: str) -> int:
    """CE-12: an eight 50, a king, queen or jack 10, an ace 1, any other card its number."""
    letter = code[0]
    if letter == EIGHT:
        return 50
    if letter in "TJQK":
        return 10
    if letter == "A":
        return 1
    return int(letter)


def name(code: str) -> str:
    """``8 of hearts``, ``queen of spades``: a card in a person's words."""
    return f"{RANK_NAMES[code[0]]} of {suit(code)}"


def card_id(number: int) -> str:
    return f"c{number}"


# The wire fields of each code but its id (added per game).
_WIRE: dict[str, dict[str, Any]] = {
    code: {"code": code, "rank": RANK_NAMES[code[0]], "suit": suit(code), "name": name(code)}
    for code in ALL_CODES
}


def wire(number: int, codes: list[str]) -> dict[str, Any]:
    """Card ``number`` as clients see it: ``{"id", "code", "rank", "suit", "name"}``."""
    return {"id": card_id(number), **_WIRE[codes[number]]}
