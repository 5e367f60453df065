"""Exact Plays cards: 32 codes, number then suit letter (``2M`` … ``9B``).

A card's id is its code (each code occurs once per game). Hands are kept sorted in the
canonical order (number, then suit M, S, A, B).
"""

from __future__ import annotations

from typing import Any

SUITS = ("M", "S", "A", "B")
SUIT_NAMES = {"M": "mushroom", "S": "splat", "A": "acorn", "B": "bolt"}
NUMBERS = tuple(range(2, 10))

#: Every code in canonical order: 2M 2S 2A 2B 3M … 9B.
ALL_CODES: tuple[str, ...] = tuple(f"{n}{s}" for n in NUMBERS for s in SUITS)
#: code -> position in the canonical order.
ORDER: dict[str, int] = {code: i for i, code in enumerate(ALL_CODES)}
#: code -> (number, suit letter)
PARSED: dict[str, tuple[int, str]] = {code: (int(code[0]), code[1]) for code in ALL_CODES}


def number(code: str) -> int:
    return PARSED[code][0]


def suit(code: str) -> str:
    return PARSED[code][1]


def suit_codes(letter: str) -> list[str]:
    return [f"{n}{letter}" for n in NUMBERS]


def sort_codes(codes: list[str]) -> list[str]:
    return sorted(codes, key=ORDER.__getitem__)


def card(code: str) -> dict[str, Any]:
    """A card as it goes on the wire."""
    num, letter = PARSED[code]
    return {"id": code, "code": code, "number": num, "suit": SUIT_NAMES[letter]}


def cards(codes: list[str]) -> list[dict[str, Any]]:
    return [card(code) for code in codes]
