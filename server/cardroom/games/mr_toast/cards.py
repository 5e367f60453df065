"""Mr Toast cards: codes, the default deck (MT-1), and the wire form of a card."""

from __future__ import annotations

from typing import Any

# Every card code, in a fixed order (the order of the default composition).
CODES: tuple[str, ...] = (
    "G1",
    "G2",
    "G3",
    "G4",
    "G5",
    "R2",
    "R3",
    "R4",
    "R5",
    "P1",
    "P2",
    "P3",
    "TB",
    "FP",
    "IT",
    "NW",
)

# MT-1: the default deck of 90 cards.
DEFAULT_COUNTS: dict[str, int] = {
    "G1": 6,
    "G2": 8,
    "G3": 8,
    "G4": 8,
    "G5": 6,
    "R2": 4,
    "R3": 4,
    "R4": 4,
    "R5": 4,
    "P1": 4,
    "P2": 4,
    "P3": 4,
    "TB": 6,
    "FP": 5,
    "IT": 5,
    "NW": 10,
}

DEFAULT_COMPOSITION: list[dict[str, Any]] = [
    {"code": code, "count": count} for code, count in DEFAULT_COUNTS.items()
]

BLUES = ("TB", "FP", "IT")
BLUE_NAMES = {"TB": "Take a Break", "FP": "Find a Penny", "IT": "In the Trash"}
BLUE_EFFECTS = {"TB": "take_a_break", "FP": "find_a_penny", "IT": "in_the_trash"}

_COLOURS = {"G": "green", "R": "red", "P": "purple"}
_KINDS = {"G": "Recreation", "R": "Responsibility", "P": "Buddy"}


def colour(code: str) -> str:
    if code == "NW":
        return "no-way"
    if code in BLUES:
        return "blue"
    return _COLOURS[code[0]]


def value(code: str) -> int | None:
    """The number on a green, red or purple card; None for blue and No Way cards."""
    return int(code[1]) if code[0] in "GRP" and code not in BLUES else None


def name(code: str) -> str:
    if code == "NW":
        return "No Way"
    if code in BLUES:
        return BLUE_NAMES[code]
    return f"{_KINDS[code[0]]} {code[1]}"


# Precomputed wire fields per code (the id is added per card).
_WIRE: dict[str, dict[str, Any]] = {
    code: {"code": code, "colour": colour(code), "value": value(code), "name": name(code)}
    for code in CODES
}
VALUES: dict[str, int] = {code: v for code in CODES if (v := value(code)) is not None}


def card_id(number: int) -> str:
    return f"c{number}"


# Each card's wire form as first built: views (and a search bot's play-outs, which build one
# per move) copy it, at half the cost of building it anew.
_WIRED: dict[tuple[int, str], dict[str, Any]] = {}


def wire(number: int, code: str) -> dict[str, Any]:
    """A card as clients see it: ``{"id", "code", "colour", "value", "name"}`` (a new dict:
    the caller may change it)."""
    made = _WIRED.get((number, code))
    if made is None:
        made = _WIRED[(number, code)] = {"id": card_id(number), **_WIRE[code]}
    return made.copy()


def expand(composition: list[dict[str, Any]]) -> list[str]:
    """The codes of a (validated) composition, in composition order."""
    codes: list[str] = []
    for item in composition:
        codes.extend([item["code"]] * item["count"])
    return codes
