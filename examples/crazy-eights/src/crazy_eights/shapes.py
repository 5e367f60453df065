"""What Crazy Eights gives out: its cards, its view, its result and its events (rules.md,
"Events" and "View"), as JSON Schema in the kit's vocabulary (``cardroom.kit.shapes``)."""

from __future__ import annotations

from cardroom.kit import shapes

from crazy_eights.cards import ALL_CODES, RANK_NAMES, SUITS

CARD_ID = r"c([0-9]|[1-4][0-9]|5[01])"
CARD = shapes.ref("Card")
CARDS = shapes.array(CARD)
SUIT = shapes.enum(*SUITS)
DEAL_END = shapes.enum("out", "blocked", "turn_limit")
GAME_END = shapes.enum("out", "blocked", "turn_limit", "target")
INT, INTS, SEAT, SEATS, BOOL = (
    shapes.INT,
    shapes.INTS,
    shapes.SEAT,
    shapes.SEATS,
    shapes.BOOL,
)
AUTO = {**BOOL, "description": "Present (true) when the game made the move itself (CE-16)."}

SHAPES = {
    "Card": shapes.obj(
        {
            "id": {"type": "string", "pattern": f"^{CARD_ID}$", "examples": ["c7"]},
            "code": shapes.enum(*ALL_CODES),
            "rank": shapes.enum(*dict.fromkeys(RANK_NAMES.values())),
            "suit": SUIT,
            "name": {**shapes.STRING, "examples": ["8 of hearts"]},
        },
        description="A card (CE-1): its id is opaque; its code is rank then suit (8H, TS, AD).",
    ),
    "Result": shapes.obj(
        {
            "winners": SEATS,
            "scores": INTS,
            "reason": GAME_END,
            "deal_points": shapes.array(INTS),
        },
        description="How the game ended (CE-13, CE-14, CE-15): the totals and each deal's points.",
    ),
    "You": shapes.obj(
        {
            "seat": SEAT,
            "hand": CARDS,
            "drawn": shapes.nullable(CARD),
        },
        description="Your private part (CE-17): your hand, and the card you have just drawn.",
    ),
    "Public": shapes.obj(
        {
            "players": INT,
            "phase": shapes.enum("play", "drawn", "over"),
            "deal": INT,
            "turn": shapes.nullable(SEAT),
            "discard": CARD,
            "discard_count": INT,
            "declared_suit": shapes.nullable(SUIT),
            "stock_count": INT,
            "seats": shapes.array(
                shapes.obj({"seat": SEAT, "card_count": INT, "score": INT}),
            ),
            "passes": INT,
            "last_play": shapes.nullable(
                shapes.obj({"seat": SEAT, "card": CARD, "suit": shapes.nullable(SUIT)})
            ),
            "turns": INT,
            "scores": INTS,
            "options": shapes.obj(
                {
                    "first_seat": shapes.nullable(SEAT),
                    "target": shapes.nullable(INT),
                    "turn_limit": INT,
                }
            ),
            "result": shapes.nullable(shapes.ref("Result")),
        },
        description="Everything public of a Crazy Eights game (CE-17).",
    ),
    "Events": {
        **shapes.CLOCK_EVENTS,
        "dealt": shapes.obj(
            {
                "deal": INT,
                "first": SEAT,
                "discard": CARD,
                "eights_returned": INT,
                "stock_count": INT,
                "card_counts": INTS,
            },
            {"hand": {**CARDS, "description": "Only to its owner."}},
            description="A new deal (CE-2, CE-3, CE-14): deals after the first.",
        ),
        "played": shapes.obj(
            {
                "seat": SEAT,
                "card": CARD,
                "suit": {**shapes.nullable(SUIT), "description": "The suit named (an eight)."},
                "after_draw": BOOL,
                "card_count": INT,
            },
            description="A card played on the discard pile (CE-6, CE-7, CE-8).",
        ),
        "drew": shapes.obj(
            {"seat": SEAT, "card_count": INT, "stock_count": INT},
            {"card": {**CARD, "description": "Only the drawer sees the card."}},
            description="A card drawn from the stock (CE-8).",
        ),
        "reshuffled": shapes.obj(
            {"stock_count": INT},
            description="The discard pile but its top card became the new stock (CE-9).",
        ),
        "passed": shapes.obj(
            {"seat": SEAT, "after_draw": BOOL, "passes": INT},
            {"auto": AUTO},
            description="A turn ended without a card played (CE-8, CE-9, CE-10).",
        ),
        "deal_ended": shapes.obj(
            {
                "deal": INT,
                "reason": DEAL_END,
                "winners": SEATS,
                "hand_values": INTS,
                "points": INTS,
                "scores": INTS,
            },
            description="A deal scored (CE-11, CE-13): what each hand held, what each scored.",
        ),
        "game_ended": shapes.obj(
            {"winners": SEATS, "scores": INTS, "reason": GAME_END},
            description="The game is over (CE-14, CE-15).",
        ),
    },
}
