"""What Mr Toast gives out: cards, view, result, events (mr_toast/rules.md, "Events" and
"View"), as JSON Schema (see cardroom.kit.shapes)."""

from __future__ import annotations

from cardroom.games.mr_toast.cards import CODES
from cardroom.kit.shapes import (
    BOOL,
    CLOCK_EVENTS,
    INT,
    NUMBER,
    SEAT,
    SEATS,
    STRING,
    array,
    enum,
    nullable,
    obj,
    ref,
)

CARD = ref("Card")
CARDS = array(CARD)
MAYBE_CARD = nullable(CARD)

SHAPES = {
    "Card": obj(
        {
            "id": {"type": "string", "pattern": r"^c(0|[1-9][0-9]{0,5})$", "examples": ["c17"]},
            "code": enum(*CODES),
            "colour": enum("green", "red", "purple", "blue", "no-way"),
            "value": nullable({"type": "integer", "minimum": 1, "maximum": 5}),
            "name": STRING,
        },
        description="A card: `id` names it in actions; `value` is null for blue and No Way cards.",
    ),
    "Result": obj(
        {
            "winners": SEATS,
            "scores": array(INT),
            "reason": enum("exact_15", "reached_15", "turn_limit"),
            "turn": INT,
            "turn_limit": INT,
            "mode": enum("exact", "irresponsible"),
        },
        description="How the game ended (MT-10, MT-11).",
    ),
    "You": obj(
        {
            "seat": SEAT,
            "hand": CARDS,
            "drawn": {**CARDS, "description": "The cards of your latest draw still in hand."},
        },
        description="Your private part: your hand (MT-15).",
    ),
    "Public": obj(
        {
            "players": INT,
            "mode": enum("exact", "irresponsible"),
            "turn_limit": INT,
            "reaction_deadline": nullable(NUMBER),
            "auto_allow": BOOL,
            "deck_size": INT,
            "turn": INT,
            "current_seat": SEAT,
            "phase": enum("play", "blue", "reaction", "over"),
            "step": nullable(INT),
            "seats": array(
                obj(
                    {
                        "seat": SEAT,
                        "hand_size": INT,
                        "score": INT,
                        "fun": array(obj({"green": CARD, "purple": MAYBE_CARD, "points": INT})),
                        "red": MAYBE_CARD,
                        "take_a_break": MAYBE_CARD,
                    }
                )
            ),
            "scores": array(INT),
            "draw_pile": {**INT, "description": "The draw pile's size."},
            "discard_pile": {**CARDS, "description": "Face up, bottom first."},
            "pending": nullable(
                obj(
                    {
                        "seat": SEAT,
                        "card": CARD,
                        "target": nullable(SEAT),
                        "no_ways": array(obj({"seat": SEAT, "card": CARD})),
                        "outcome": enum("cancelled", "happens"),
                        "eligible": SEATS,
                        "answered": SEATS,
                        "waiting_for": SEATS,
                        "opened_at": nullable(NUMBER),
                        "deadline": nullable(NUMBER),
                    },
                    description="The blue card waiting for No Way answers (MT-12).",
                )
            ),
            "result": nullable(ref("Result")),
        },
        description="Everything public of a Mr Toast game (MT-15).",
    ),
    "Events": {
        **CLOCK_EVENTS,
        "turn_started": obj({"seat": SEAT, "turn": INT}),
        "drew": obj(
            {"seat": SEAT, "count": INT},
            {"cards": {**CARDS, "description": "Only the drawer sees the cards."}},
        ),
        "reshuffled": obj({"count": INT}),
        "skipped": obj({"seat": SEAT, "card": CARD}),
        "chore_given": obj({"seat": SEAT, "target": SEAT, "card": CARD}),
        "scored": obj(
            {"seat": SEAT, "green": CARD, "purple": MAYBE_CARD, "points": INT, "score": INT}
        ),
        "chore_cleared": obj({"seat": SEAT, "red": CARD, "greens": CARDS, "purple": MAYBE_CARD}),
        "blue_played": obj({"seat": SEAT, "card": CARD, "target": nullable(SEAT)}),
        "no_way": obj(
            {"seat": SEAT, "card": CARD, "chain": INT, "outcome": enum("cancelled", "happens")}
        ),
        "allowed": obj({"seat": SEAT}, {"auto": BOOL}),
        "window_closed": obj({"reason": enum("deadline"), "defaulted": SEATS}),
        "blue_resolved": obj(
            {
                "seat": SEAT,
                "card": CARD,
                "target": nullable(SEAT),
                "effect": enum("take_a_break", "find_a_penny", "in_the_trash"),
                "no_ways": INT,
            },
            {"red": CARD},
        ),
        "blue_cancelled": obj(
            {"seat": SEAT, "card": CARD, "target": nullable(SEAT), "no_ways": INT}
        ),
        "turn_ended": obj({"seat": SEAT, "turn": INT}),
        "game_over": obj({"result": ref("Result")}),
    },
}
