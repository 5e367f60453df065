"""The Crazy Eights rules engine (rulings CE-1 … CE-19, crazy_eights/rules.md).

Written against cardroom's public kit only (``cardroom.kit``), as any outside game is.

State (plain JSON; a card is a number from 0 to 51, its wire id ``"c<number>"``)::

    players        the number of seats
    options        the game's options, complete
    rng            the seeded generator (cardroom.kit.rng)
    codes          codes[n] is the code of card n ("8H", "TS", ...), drawn for each game
    first_seat     the seat that played first in the first deal (CE-4)
    deal           the deal being played, from 1 (CE-14)
    phase          "play" | "drawn" (the seat to play has drawn a card it may play, CE-8)
                   | "over"
    current_seat   the seat to play (null once the game is over)
    hands          one list per seat, sorted by code (suit, then rank)
    stock          the face-down stock, top first
    discard        the discard pile, bottom first (its last card is the top)
    declared_suit  the suit named with the eight on top of the discard pile (CE-7), else null
    drawn          the card the seat to play has just drawn (phase "drawn"), else null
    passes         passes in a row without drawing since a card was last played (CE-10)
    turns          turns taken in the whole game (CE-15)
    last_play      the last card played in this deal: {"seat", "card", "suit"}, or null
    scores         each seat's total (CE-13)
    deal_points    the points each seat scored, one list per finished deal (CE-13)
    result         the result once the game is over, else null
    clock          the turn clock (cardroom.kit.new_clock), or null
"""

from __future__ import annotations

import copy
from typing import Any

from cardroom.kit import (
    CLOCK_SPECS,
    Action,
    Args,
    CardField,
    ChoiceField,
    Event,
    Game,
    IllegalAction,
    InvalidOptions,
    Move,
    OptionSpec,
    State,
    View,
    new_clock,
    rng,
)

from crazy_eights import cards as C
from crazy_eights.shapes import CARD_ID, SHAPES

# CE-2: the cards each player is dealt, by the number of players.
HAND_SIZES = {2: 7, 3: 5, 4: 5, 5: 5}
PHASES = ("play", "drawn", "over")

# Every action type (rules.md, "Actions"); CE-18 refuses any other form.
MOVES = (
    Move(
        type="play",
        description="Play a card from your hand on the discard pile: one of the top card's "
        "rank or suit (the named suit after an eight), or an eight, naming a suit. After "
        "drawing, only the card you drew.",
        phases=("play", "drawn"),
        rule="CE-5",
        handler="_play",
        fields=(
            CardField(name="card", description="The card you play.", rule="CE-6"),
            ChoiceField(
                name="suit",
                description="With an eight, and only then: the suit the next player must follow.",
                rule="CE-7",
                choices=C.SUITS,
                optional=True,
            ),
        ),
    ),
    Move(
        type="draw",
        description="Draw the top card of the stock (when it is empty, the discard pile but "
        "its top card is shuffled into a new one first).",
        phases=("play",),
        rule="CE-8",
        handler="_draw",
    ),
    Move(
        type="pass",
        description="End your turn without playing: after drawing, or when there is nothing "
        "to draw and no card of yours fits.",
        phases=("play", "drawn"),
        rule="CE-9",
        handler="_pass",
    ),
)


class CrazyEights(Game):
    game_type = "crazy-eights"
    title = "Crazy Eights"
    description = (
        "The classic shedding game for 2 to 5 players with a standard 52-card deck: play a "
        "card of the same rank or suit as the top of the discard pile, or an eight (wild: you "
        "name the next suit), or draw. The first to empty their hand scores the cards left "
        "in the others' hands."
    )
    min_players = 2
    max_players = 5
    moves = MOVES
    form_rule = "CE-18"
    end_rule = "CE-14"
    card_id_pattern = CARD_ID
    card_example = "c7"
    shapes = SHAPES
    example = {
        "game_type": "crazy-eights",
        "players": 3,
        "options": {"target": 100},
        "bots": [{"seat": 1, "policy": "eights-last"}, {"seat": 2, "policy": "random"}],
    }
    option_specs = (
        OptionSpec(
            name="first_seat",
            type="integer",
            default=0,
            minimum=0,
            maximum=4,
            nullable=True,
            description=(
                "The seat that plays first in the first deal (CE-4), below the number of "
                "players; null: drawn at random from the game's seed. Each later deal starts "
                "one seat further on."
            ),
        ),
        OptionSpec(
            name="target",
            type="integer",
            default=None,
            minimum=1,
            maximum=100_000,
            nullable=True,
            description=(
                "CE-14: deal again until a player's total reaches this many points; the "
                "highest total wins. null: one deal decides the game."
            ),
        ),
        OptionSpec(
            name="turn_limit",
            type="integer",
            default=2000,
            minimum=1,
            maximum=1_000_000,
            description=(
                "House rule CE-15: the number of turns in the whole game. Reaching it ends "
                "the deal at once, scored as a blocked one, and then the game."
            ),
        ),
        *CLOCK_SPECS,
    )

    # --- options and setup ----------------------------------------------------------------

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        first = options.get("first_seat")
        if first is not None and first >= players:
            raise InvalidOptions(
                f"first_seat must be below the number of players ({players})",
                field="options.first_seat",
            )

    def new_game(self, players: int, options: dict[str, Any], seed: int) -> State:
        opts = {spec.name: copy.deepcopy(spec.default) for spec in self.option_specs}
        opts.update(options or {})
        generator = rng.new_rng(seed)
        # The ids: a permutation drawn for this game, so that an id says nothing of its card.
        codes = rng.shuffled(generator, list(C.ALL_CODES))
        first = opts["first_seat"]
        if first is None:
            first = rng.choice(generator, list(range(players)))
        state: State = {
            "players": players,
            "options": {
                "first_seat": opts["first_seat"],
                "target": opts["target"],
                "turn_limit": opts["turn_limit"],
            },
            "rng": generator,
            "codes": codes,
            "first_seat": first,
            "deal": 0,
            "turns": 0,
            "scores": [0] * players,
            "deal_points": [],
            "result": None,
            "clock": new_clock(opts, players),
        }
        self._deal(state)
        return state

    def _deal(self, state: State) -> int:
        """CE-2 to CE-4: shuffle, deal, turn the starter up. Returns how many eights turned
        up as the starter went back into the stock (CE-3)."""
        players = state["players"]
        codes = state["codes"]
        state["deal"] += 1
        deck = rng.shuffled(state["rng"], list(range(len(codes))))
        size = HAND_SIZES[players]
        hands = [_sorted(deck[seat * size : (seat + 1) * size], codes) for seat in range(players)]
        stock = deck[players * size :]
        starter = stock.pop(0)
        returned = 0
        while C.is_eight(codes[starter]):
            # CE-3: an eight goes back into the middle of the stock; the next card is turned.
            stock.insert(len(stock) // 2, starter)
            starter = stock.pop(0)
            returned += 1
        state.update(
            phase="play",
            current_seat=(state["first_seat"] + state["deal"] - 1) % players,
            hands=hands,
            stock=stock,
            discard=[starter],
            declared_suit=None,
            drawn=None,
            passes=0,
            last_play=None,
        )
        return returned

    # --- who acts, what is legal ----------------------------------------------------------

    def to_act(self, state: State) -> set[int]:
        if state["phase"] == "over":
            return set()
        return {state["current_seat"]}

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if not _is_seat(state, seat) or seat not in self.to_act(state):
            return []
        if state["phase"] == "drawn":
            return [*self._plays(state, [state["drawn"]]), {"type": "pass"}]
        actions = self._plays(state, state["hands"][seat])
        if _can_draw(state):
            actions.append({"type": "draw"})
        elif not actions:
            actions.append({"type": "pass"})  # CE-9 (the game makes it itself: CE-16)
        return actions

    def _plays(self, state: State, numbers: list[int]) -> list[Action]:
        """Every play of these cards that fits (CE-6), an eight once per suit (CE-7)."""
        codes = state["codes"]
        actions: list[Action] = []
        for number in numbers:
            if not self._fits(state, number):
                continue
            if C.is_eight(codes[number]):
                for suit in C.SUITS:
                    actions.append({"type": "play", "card": C.card_id(number), "suit": suit})
            else:
                actions.append({"type": "play", "card": C.card_id(number)})
        return actions

    def _fits(self, state: State, number: int) -> bool:
        """CE-6, CE-7: an eight always; otherwise the named suit after an eight, or the top
        card's rank or suit."""
        code = state["codes"][number]
        if C.is_eight(code):
            return True
        declared = state["declared_suit"]
        if declared is not None:
            return C.suit(code) == declared
        top = state["codes"][state["discard"][-1]]
        return C.rank(code) == C.rank(top) or C.suit(code) == C.suit(top)

    def _needs(self, state: State) -> str:
        """What a card must be to fit now, in words."""
        declared = state["declared_suit"]
        if declared is not None:
            return f"the suit named with the eight, {declared} (or an eight)"
        top = state["codes"][state["discard"][-1]]
        return (
            f"the top card, the {C.name(top)}: play a {C.RANK_NAMES[C.rank(top)]}, "
            f"one of {C.suit(top)} or an eight"
        )

    # --- the contract's hooks -------------------------------------------------------------

    def phase(self, state: State) -> str:
        return state["phase"]

    def hand_card(self, state: State, seat: int, card_id: str) -> int | None:
        number = int(card_id[1:])
        return number if number in state["hands"][seat] else None

    def hidden_cards(self, state: State, seat: int | None) -> set[str]:
        """CE-17: the stock and every other hand (hands stay hidden after the game too)."""
        hidden = set(state["stock"])
        for other, hand in enumerate(state["hands"]):
            if other != seat:
                hidden.update(hand)
        return {C.card_id(number) for number in hidden}

    def not_your_turn(self, state: State, seat: int) -> tuple[str, str | None]:
        return f"it is seat {state['current_seat']}'s turn", "CE-5"

    def after_move(self, state: State, events: list[Event]) -> None:
        """CE-16: the game passes for every seat whose only move is a pass (a drawn card
        that does not fit; nothing to draw and no card that fits)."""
        while state["phase"] != "over" and self._only_pass(state):
            self._passed(state, state["current_seat"], events, auto=True)

    def _only_pass(self, state: State) -> bool:
        return self.legal_actions(state, state["current_seat"]) == [{"type": "pass"}]

    def turn_marker(self, state: State) -> Any:
        """A new deal or a new turn starts the seat's clock afresh; drawing does not."""
        return [state["deal"], state["turns"]]

    def timeout_action(self, state: State, seat: int) -> Action:
        """CE-19: draw; after drawing, pass. With nothing to draw, a card that fits, drawn
        at random from the game's seeded generator."""
        if state["phase"] == "drawn":
            return {"type": "pass"}
        legal = self.legal_actions(state, seat)
        if {"type": "draw"} in legal:
            return {"type": "draw"}
        return rng.choice(state["rng"], legal)

    # --- moves ----------------------------------------------------------------------------

    def _play(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        number, suit = args["card"], args["suit"]
        code = state["codes"][number]
        after_draw = state["phase"] == "drawn"
        if after_draw and number != state["drawn"]:
            drawn = C.name(state["codes"][state["drawn"]])
            raise IllegalAction(
                f"after drawing you may play only the card you drew, the {drawn}",
                rule="CE-8",
                field="card",
            )
        if not self._fits(state, number):
            raise IllegalAction(
                f"the {C.name(code)} does not fit {self._needs(state)}", rule="CE-6", field="card"
            )
        if C.is_eight(code) and suit is None:
            raise IllegalAction(
                "an eight is played naming a suit: add a suit", rule="CE-7", field="suit"
            )
        if not C.is_eight(code) and suit is not None:
            raise IllegalAction(
                f"only an eight names a suit, not the {C.name(code)}", rule="CE-7", field="suit"
            )
        hand = state["hands"][seat]
        hand.remove(number)
        state["discard"].append(number)
        state["declared_suit"] = suit
        state["passes"] = 0
        state["last_play"] = {"seat": seat, "card": number, "suit": suit}
        events.append(
            {
                "type": "played",
                "seat": seat,
                "card": C.wire(number, state["codes"]),
                "suit": suit,
                "after_draw": after_draw,
                "card_count": len(hand),
            }
        )
        self._end_turn(state, seat, events)

    def _draw(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        if not _can_draw(state):
            raise IllegalAction(
                "there is nothing to draw: the stock is empty and the discard pile holds only "
                "its top card (play a card that fits, or pass if none does)",
                rule="CE-9",
            )
        if not state["stock"]:
            # CE-9: the discard pile but its top card becomes the new stock, shuffled.
            below, top = state["discard"][:-1], state["discard"][-1]
            state["stock"] = rng.shuffled(state["rng"], below)
            state["discard"] = [top]
            events.append({"type": "reshuffled", "stock_count": len(state["stock"])})
        number = state["stock"].pop(0)
        hand = state["hands"][seat]
        hand.append(number)
        hand[:] = _sorted(hand, state["codes"])
        state["drawn"] = number
        state["phase"] = "drawn"
        events.append(
            {
                "type": "drew",
                "seat": seat,
                "card_count": len(hand),
                "stock_count": len(state["stock"]),
                "private": {str(seat): {"card": C.wire(number, state["codes"])}},
            }
        )

    def _pass(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        if state["phase"] == "play":
            if _can_draw(state):
                raise IllegalAction(
                    "you may pass only after drawing, or when there is nothing to draw: "
                    "draw a card (or play one)",
                    rule="CE-9",
                )
            if self._plays(state, state["hands"][seat]):
                raise IllegalAction(
                    "there is nothing to draw, but a card of yours fits: you must play it",
                    rule="CE-9",
                )
        self._passed(state, seat, events, auto=False)

    def _passed(self, state: State, seat: int, events: list[Event], auto: bool) -> None:
        after_draw = state["phase"] == "drawn"
        if not after_draw:
            state["passes"] += 1  # CE-10 counts only the passes of seats that could not draw
        event: Event = {
            "type": "passed",
            "seat": seat,
            "after_draw": after_draw,
            "passes": state["passes"],
        }
        if auto:
            event["auto"] = True
        events.append(event)
        self._end_turn(state, seat, events)

    def _end_turn(self, state: State, seat: int, events: list[Event]) -> None:
        """The turn is over: the deal ends (CE-11, CE-10, CE-15), or the next seat plays."""
        state["turns"] += 1
        state["drawn"] = None
        if not state["hands"][seat]:
            self._end_deal(state, events, "out", seat)
        elif state["passes"] >= state["players"]:
            self._end_deal(state, events, "blocked")
        elif state["turns"] >= state["options"]["turn_limit"]:
            self._end_deal(state, events, "turn_limit")
        else:
            state["phase"] = "play"
            state["current_seat"] = (seat + 1) % state["players"]

    # --- scoring --------------------------------------------------------------------------

    def _end_deal(
        self, state: State, events: list[Event], reason: str, out: int | None = None
    ) -> None:
        """CE-13 scoring, then CE-14: a new deal, or the end of the game."""
        players = state["players"]
        codes = state["codes"]
        values = [sum(C.value(codes[number]) for number in hand) for hand in state["hands"]]
        if out is not None:
            winners = [out]
        else:
            lowest = min(values)
            winners = [seat for seat in range(players) if values[seat] == lowest]
        points = [0] * players
        for seat in winners:
            points[seat] = sum(value - values[seat] for value in values)
        state["scores"] = [state["scores"][seat] + points[seat] for seat in range(players)]
        state["deal_points"].append(points)
        events.append(
            {
                "type": "deal_ended",
                "deal": state["deal"],
                "reason": reason,
                "winners": winners,
                "hand_values": values,
                "points": points,
                "scores": list(state["scores"]),
            }
        )
        target = state["options"]["target"]
        if target is None:
            end = reason
        elif max(state["scores"]) >= target:
            end = "target"
        elif state["turns"] >= state["options"]["turn_limit"]:
            end = "turn_limit"
        else:
            returned = self._deal(state)
            events.append(
                {
                    "type": "dealt",
                    "deal": state["deal"],
                    "first": state["current_seat"],
                    "discard": C.wire(state["discard"][-1], codes),
                    "eights_returned": returned,
                    "stock_count": len(state["stock"]),
                    "card_counts": [len(hand) for hand in state["hands"]],
                    "private": {
                        str(seat): {"hand": _wires(hand, codes)}
                        for seat, hand in enumerate(state["hands"])
                    },
                }
            )
            return
        scores = list(state["scores"])
        best = max(scores)
        state["phase"] = "over"
        state["current_seat"] = None
        state["result"] = {
            "winners": [seat for seat in range(players) if scores[seat] == best],
            "scores": scores,
            "reason": end,
            "deal_points": [list(points) for points in state["deal_points"]],
        }
        events.append(
            {
                "type": "game_ended",
                "winners": list(state["result"]["winners"]),
                "scores": scores,
                "reason": end,
            }
        )

    def scores(self, state: State) -> list[int]:
        return list(state["scores"])

    # --- what players see (CE-17) ---------------------------------------------------------

    def public_view(self, state: State) -> View:
        codes = state["codes"]
        last = state["last_play"]
        return {
            "players": state["players"],
            "phase": state["phase"],
            "deal": state["deal"],
            "turn": state["current_seat"],
            "discard": C.wire(state["discard"][-1], codes),
            "discard_count": len(state["discard"]),
            "declared_suit": state["declared_suit"],
            "stock_count": len(state["stock"]),
            "seats": [
                {"seat": seat, "card_count": len(hand), "score": state["scores"][seat]}
                for seat, hand in enumerate(state["hands"])
            ],
            "passes": state["passes"],
            "last_play": None
            if last is None
            else {"seat": last["seat"], "card": C.wire(last["card"], codes), "suit": last["suit"]},
            "turns": state["turns"],
            "scores": list(state["scores"]),
            "options": dict(state["options"]),
            "result": self.result(state),
        }

    def private_view(self, state: State, seat: int | None) -> dict[str, Any] | None:
        if not _is_seat(state, seat):
            return None
        assert seat is not None
        drawn = state["drawn"] if seat == state["current_seat"] else None
        return {
            "seat": seat,
            "hand": _wires(state["hands"][seat], state["codes"]),
            "drawn": None if drawn is None else C.wire(drawn, state["codes"]),
        }


# --- helpers -------------------------------------------------------------------------------


def _can_draw(state: State) -> bool:
    """CE-9: a card to draw, from the stock or from the discard pile below its top card."""
    return bool(state["stock"]) or len(state["discard"]) > 1


def _sorted(numbers: list[int], codes: list[str]) -> list[int]:
    """A hand in code order (suit, then rank), so that its order says nothing."""
    return sorted(numbers, key=lambda number: C.ORDER[codes[number]])


def _wires(numbers: list[int], codes: list[str]) -> list[dict[str, Any]]:
    return [C.wire(number, codes) for number in numbers]


def _is_seat(state: State, seat: Any) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state["players"]
