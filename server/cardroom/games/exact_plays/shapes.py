"""What Exact Plays gives out: cards, view, result, events (exact_plays/rules.md,
"Events" and "View"), as JSON Schema (see cardroom.kit.shapes)."""

from __future__ import annotations

from cardroom.games.exact_plays.cards import ALL_CODES, SUIT_NAMES
from cardroom.kit.shapes import (
    BOOL,
    CLOCK_EVENTS,
    INT,
    INTS,
    SEAT,
    SEATS,
    array,
    enum,
    nullable,
    obj,
    ref,
)

CARD = ref("Card")
CARDS = array(CARD)
SUIT = enum(*SUIT_NAMES.values())
SHAPE = enum("rock", "paper", "scissors")
WILD = nullable(
    obj(
        {"number": {"type": "integer", "minimum": 1, "maximum": 10}, "suit": nullable(SUIT)},
        description="The Wild token in a combination: its number, and its suit in a run.",
    )
)
KIND = enum("single", "set", "run")

SHAPES = {
    "Card": obj(
        {
            "id": {"type": "string", "pattern": r"^[2-9][MSAB]$", "examples": ["4M"]},
            "code": enum(*ALL_CODES),
            "number": {"type": "integer", "minimum": 2, "maximum": 9},
            "suit": SUIT,
        },
        description="A card: its id is its code.",
    ),
    "Result": obj(
        {
            "winners": SEATS,
            "scores": INTS,
            "rounds": array(INTS),
            "reason": enum("rounds", "minus_50", "turn_limit"),
        },
        description="How the game ended (EP-15, EP-16): penalties per round, totals.",
    ),
    "You": obj(
        {
            "seat": SEAT,
            "hand": CARDS,
            "declaration": nullable(INT),
            "rps_choice": nullable(SHAPE),
            "play_tokens": INT,
            "wild_tokens": INT,
        },
        description="Your private part: your hand, your declaration and throw (EP-17).",
    ),
    "Public": obj(
        {
            "players": INT,
            "round": INT,
            "rounds": INT,
            "phase": enum("declare", "rps", "play", "over"),
            "turn": nullable(SEAT),
            "start_player": nullable(SEAT),
            "field": CARDS,
            "field_wild": WILD,
            "field_kind": nullable(KIND),
            "field_by": nullable(SEAT),
            "cleared": CARDS,
            "seats": array(
                obj(
                    {
                        "seat": SEAT,
                        "hand_size": INT,
                        "play_tokens": INT,
                        "wild_tokens": INT,
                        "declared": BOOL,
                        "declaration": nullable(INT),
                        "total": INT,
                    }
                )
            ),
            "declarations": nullable(array(nullable(INT))),
            "token_pile": INT,
            "draw_pile": nullable(INT),
            "rps": nullable(
                obj(
                    {
                        "players": SEATS,
                        "throw": nullable(INT),
                        "chosen": SEATS,
                        "throws": array(
                            obj(
                                {
                                    "shapes": array(nullable(SHAPE)),
                                    "replay": BOOL,
                                    "remaining": SEATS,
                                }
                            )
                        ),
                    }
                )
            ),
            "penalties": array(INTS),
            "totals": INTS,
            "turns": INT,
            "options": obj(
                {
                    "tiebreak": enum("rps", "random"),
                    "turn_limit": INT,
                    "decks": nullable(enum("hidden")),
                }
            ),
            "result": nullable(ref("Result")),
        },
        description="Everything public of an Exact Plays game (EP-17).",
    ),
    "Events": {
        **CLOCK_EVENTS,
        "round_started": obj(
            {"round": INT, "hand_sizes": INTS, "draw_pile": nullable(INT)},
            {"hand": {**CARDS, "description": "Only to its owner."}},
        ),
        "declared": obj(
            {"seat": SEAT, "changed": BOOL}, {"tokens": {**INT, "description": "Only to you."}}
        ),
        "declarations_revealed": obj({"declarations": INTS}),
        "rps_started": obj({"players": SEATS}),
        "rps_chosen": obj(
            {"seat": SEAT, "throw": INT}, {"shape": {**SHAPE, "description": "Only to you."}}
        ),
        "rps_revealed": obj(
            {
                "throw": INT,
                "shapes": array(nullable(SHAPE)),
                "replay": BOOL,
                "remaining": SEATS,
            }
        ),
        "start_player": obj(
            {
                "seat": SEAT,
                "reason": enum(
                    "most_tokens", "rock_paper_scissors", "random", "field_cleared", "pass"
                ),
            },
            {"tied": SEATS},
        ),
        "played": obj(
            {
                "seat": SEAT,
                "cards": CARDS,
                "wild": WILD,
                "kind": KIND,
                "hand_size": INT,
                "play_tokens": INT,
                "wild_tokens": INT,
            },
            {"auto": BOOL},
        ),
        "passed": obj(
            {
                "seat": SEAT,
                "switch": nullable(enum("to_wild", "to_play")),
                "play_tokens": INT,
                "wild_tokens": INT,
            },
            {"auto": BOOL},
        ),
        "drew": obj(
            {"seat": SEAT, "hand_size": INT, "draw_pile": INT},
            {"card": {**CARD, "description": "Only the drawer sees the card."}},
        ),
        "field_cleared": obj(
            {
                "cards": CARDS,
                "wild": WILD,
                "by": nullable(SEAT),
                "reason": enum("returned", "pass"),
            }
        ),
        "round_ended": obj(
            {
                "round": INT,
                "reason": enum("no_play_tokens", "out_of_cards", "turn_limit"),
                "penalties": INTS,
                "totals": INTS,
                "hand_sizes": INTS,
                "play_tokens": INTS,
                "wild_tokens": INTS,
            }
        ),
        "game_over": obj(
            {"winners": SEATS, "scores": INTS, "reason": enum("rounds", "minus_50", "turn_limit")}
        ),
    },
}
