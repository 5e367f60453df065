"""The Exact Plays rules engine (rulings EP-1 … EP-18, exact_plays/rules.md).

State (plain JSON; a card is its code)::

    players        the number of seats
    options        the game's options
    rng            the seeded generator (cardroom.kit.rng)
    round          the round (1-based)
    phase          "declare" | "rps" | "play" | "over"
    hands          one sorted list of codes per seat
    field          the field's cards; field_wild: the number the Wild token in it stands
                   for (or null); field_by: the seat that played it
    cleared        cards that left the field this round
    draw_pile      the 2-player draw pile, top first
    set_aside      the removed suit (2 players) or the cards set aside (3 players)
    declarations   per seat, null until declared
    play_tokens, wild_tokens   tokens held per seat, by side
    token_pile     tokens in the central pile
    current_seat   the seat to play;  start_player: this round's start player
    rps            rock-paper-scissors: "players" still in, "choices" (this throw's secret
                   shapes), "throws" (the revealed ones)
    penalties      per finished round, one negative number per seat
    turns_played   play-phase turns in the whole game (EP-16)
    result         the result once the game is over, else null
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from cardroom.games.exact_plays import sampling
from cardroom.games.exact_plays import shapes as out_shapes
from cardroom.games.exact_plays.cards import (
    ALL_CODES,
    PARSED,
    SUIT_NAMES,
    SUITS,
    card,
    cards,
    sort_codes,
    suit_codes,
)
from cardroom.games.exact_plays.combos import (
    WILD_MAX,
    WILD_MIN,
    beats,
    classify,
    combo_numbers,
    legal_combos,
)
from cardroom.kit import rng as rngmod
from cardroom.kit.base import (
    CLOCK_SPECS,
    Action,
    Args,
    Event,
    Game,
    IllegalAction,
    InvalidOptions,
    OptionSpec,
    State,
    View,
)
from cardroom.kit.clock import new_clock
from cardroom.kit.moves import CardsField, ChoiceField, IntegerField, Move
from cardroom.kit.rng import Random

HAND_SIZE = 8
MAX_DECLARATION = 10
TOKENS = 40
SHAPES = ("rock", "paper", "scissors")
_BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
SWITCHES = ("to_wild", "to_play")

# Every action type (exact_plays/rules.md, "Actions"); EP-18 refuses any other form.
MOVES = (
    Move(
        type="declare",
        description="Declare how many plays you need to empty your hand (secret until "
        "everyone has declared; you may declare again until then).",
        phases=("declare",),
        rule="EP-3",
        handler="_declare",
        fields=(
            IntegerField(
                name="tokens",
                description="The number of Play tokens you take.",
                rule="EP-3",
                minimum=0,
                maximum=MAX_DECLARATION,
            ),
        ),
    ),
    Move(
        type="rps",
        description="Rock-paper-scissors for the start player, among the tied players.",
        phases=("rps",),
        rule="EP-4",
        handler="_rps",
        fields=(ChoiceField(name="shape", description="Your throw.", rule="EP-4", choices=SHAPES),),
    ),
    Move(
        type="play",
        description="Play a single, a set or a run (paying a Play token), with a Wild token "
        "if you like.",
        phases=("play",),
        rule="EP-6",
        handler="_play",
        fields=(
            CardsField(name="cards", description="Cards in your hand, in any order.", rule="EP-7"),
            IntegerField(
                name="wild",
                description="The number 1-10 a Wild token stands for (its suit follows from "
                "the combination).",
                rule="EP-8",
                minimum=WILD_MIN,
                maximum=WILD_MAX,
                optional=True,
            ),
        ),
    ),
    Move(
        type="pass",
        description="Pass, turning one of your tokens over if you like.",
        phases=("play",),
        rule="EP-6",
        handler="_pass",
        fields=(
            ChoiceField(
                name="switch",
                description="to_wild: a Play token becomes a Wild token; to_play: back.",
                rule="EP-10",
                choices=SWITCHES,
                optional=True,
            ),
        ),
    ),
    Move(
        type="draw",
        description="2 players: draw the top card of the draw pile.",
        phases=("play",),
        rule="EP-6",
        handler="_draw",
    ),
)


def rounds_for(players: int) -> int:
    """EP-15: as many rounds as players, 3 in a 2-player game."""
    return 3 if players == 2 else players


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class ExactPlays(Game):
    game_type = "exact-plays"
    title = "Exact Plays"
    description = (
        "Declare how many plays you need to empty your hand, then go out using exactly "
        "that many Play tokens. A climbing game for 2 to 4 players with 32 cards (2-9 in four "
        "suits): play singles, sets or same-suit runs, and beat the last play with the same "
        "number of cards including a higher one, or one card more including a lower one. "
        "Fewest penalty points wins."
    )
    min_players = 2
    max_players = 4
    moves = MOVES
    form_rule = "EP-18"
    shapes = out_shapes.SHAPES
    end_rule = "EP-15"
    card_id_pattern = r"[2-9][MSAB]"
    card_example = "4M"
    example = {
        "game_type": "exact-plays",
        "players": 3,
        "options": {"tiebreak": "random"},
        "bots": [{"seat": 1, "policy": "greedy"}, {"seat": 2, "policy": "greedy"}],
    }
    option_specs = (
        OptionSpec(
            name="tiebreak",
            type="string",
            default="rps",
            choices=("rps", "random"),
            description=(
                "How a tie for the most declared tokens picks the start player (EP-4): "
                '"rps" - the tied players play rock-paper-scissors (action rps); '
                '"random" - drawn from the game\'s seed.'
            ),
        ),
        OptionSpec(
            name="turn_limit",
            type="integer",
            default=2000,
            minimum=1,
            maximum=1_000_000,
            description=(
                "House rule EP-16: the number of play-phase turns (plays, passes, draws, "
                "automatic ones included) in the whole game. Reaching it ends the current "
                "round at once, scored as usual, and then the game."
            ),
        ),
        OptionSpec(
            name="decks",
            type="array",
            default=None,
            nullable=True,
            secret=True,
            description=(
                "Stacked decks for testing and reproducing situations: one list of card "
                "codes per round (top first), or null for a shuffled round. Seat 0 gets the "
                "first 8 cards, seat 1 the next 8, and so on; the rest is the draw pile "
                "(2 players, top first) or set aside (3 players). 3-4 players: all 32 "
                "codes; 2 players: the 24 codes of three whole suits (the missing suit is "
                "the removed one). Rounds beyond the list are shuffled from the seed."
            ),
            items={
                "anyOf": [
                    {"type": "array", "items": {"type": "string", "enum": list(ALL_CODES)}},
                    {"type": "null"},
                ]
            },
        ),
        *CLOCK_SPECS,
    )

    # --- options --------------------------------------------------------------------------

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        decks = options.get("decks")
        if decks is None:
            return
        where = "options.decks"
        if len(decks) > rounds_for(players):
            raise InvalidOptions(
                f"decks has {len(decks)} lists but a {players}-player game has at most "
                f"{rounds_for(players)} rounds",
                field=where,
            )
        for index, deck in enumerate(decks):
            if deck is None:
                continue
            if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
                raise InvalidOptions(
                    f"decks[{index}] must be a list of card codes or null", field=where
                )
            bad = [c for c in deck if c not in PARSED]
            if bad:
                raise InvalidOptions(
                    f"decks[{index}]: {bad[0]!r} is not a card code (2M … 9B)", field=where
                )
            if len(set(deck)) != len(deck):
                dup = next(c for c in deck if deck.count(c) > 1)
                raise InvalidOptions(f"decks[{index}]: {dup} appears twice", field=where)
            if players == 2:
                suits = {PARSED[c][1] for c in deck}
                if len(deck) != 24 or len(suits) != 3:
                    raise InvalidOptions(
                        f"decks[{index}]: a 2-player deck holds the 24 cards of exactly "
                        f"three suits (got {_count(len(deck), 'card')} of "
                        f"{_count(len(suits), 'suit')})",
                        field=where,
                    )
            elif len(deck) != len(ALL_CODES):
                raise InvalidOptions(
                    f"decks[{index}]: a {players}-player deck holds all 32 cards (got {len(deck)})",
                    field=where,
                )

    # --- setup ----------------------------------------------------------------------------

    def new_game(self, players: int, options: dict[str, Any], seed: int) -> State:
        opts = {spec.name: copy.deepcopy(spec.default) for spec in self.option_specs}
        opts.update(options or {})
        state: State = {
            "players": players,
            "options": opts,
            "rng": rngmod.new_rng(seed),
            "round": 0,
            "phase": "declare",
            "penalties": [],
            "turns_played": 0,
            "result": None,
            "clock": new_clock(opts, players),
        }
        self._start_round(state, [])
        return state

    def _start_round(self, state: State, events: list[Event]) -> None:
        """EP-2: a new deal, then declarations (EP-3)."""
        n = state["players"]
        state["round"] += 1
        decks = state["options"].get("decks") or []
        stacked = decks[state["round"] - 1] if state["round"] <= len(decks) else None
        rng = state["rng"]
        if n == 2:
            if stacked is not None:
                deck = list(stacked)
                removed = next(s for s in SUITS if s not in {PARSED[c][1] for c in deck})
            else:
                removed = rngmod.choice(rng, list(SUITS))
                deck = rngmod.shuffled(rng, [c for c in ALL_CODES if PARSED[c][1] != removed])
            unused = suit_codes(removed)
        else:
            deck = list(stacked) if stacked is not None else rngmod.shuffled(rng, list(ALL_CODES))
            unused = []
        hands = [sort_codes(deck[HAND_SIZE * i : HAND_SIZE * (i + 1)]) for i in range(n)]
        rest = deck[HAND_SIZE * n :]
        if n == 2:
            draw = rest
        else:
            draw = []
            unused = sort_codes(rest)
        state.update(
            phase="declare",
            hands=hands,
            field=[],
            field_wild=None,
            field_by=None,
            cleared=[],
            draw_pile=draw,
            set_aside=unused,
            declarations=[None] * n,
            play_tokens=[0] * n,
            wild_tokens=[0] * n,
            token_pile=TOKENS,
            current_seat=None,
            start_player=None,
            rps=None,
        )
        events.append(
            {
                "type": "round_started",
                "round": state["round"],
                "hand_sizes": [len(h) for h in hands],
                "draw_pile": len(draw) if n == 2 else None,
                "private": {str(i): {"hand": cards(hands[i])} for i in range(n)},
            }
        )

    # --- whose move -----------------------------------------------------------------------

    def to_act(self, state: State) -> set[int]:
        phase = state["phase"]
        if phase == "declare":
            return set(range(state["players"]))
        if phase == "rps":
            rps = state["rps"]
            return {s for s in rps["players"] if rps["choices"][s] is None}
        if phase == "play":
            return {state["current_seat"]}
        return set()

    def awaiting(self, state: State) -> set[int]:
        """During declarations (EP-3) only seats that have not declared are waited for."""
        if state["phase"] == "declare":
            return {seat for seat in range(state["players"]) if state["declarations"][seat] is None}
        return self.to_act(state)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        phase = state["phase"]
        if phase == "declare":
            return [{"type": "declare", "tokens": k} for k in range(MAX_DECLARATION + 1)]
        if phase == "rps":
            return [{"type": "rps", "shape": shape} for shape in SHAPES]
        hand = state["hands"][seat]
        play, wild = state["play_tokens"][seat], state["wild_tokens"][seat]
        actions: list[Action] = []
        if not self._must_play(state, seat):
            actions.append({"type": "pass"})
            if play:
                actions.append({"type": "pass", "switch": "to_wild"})
            if wild:
                actions.append({"type": "pass", "switch": "to_play"})
        if state["players"] == 2 and state["draw_pile"] and hand:
            actions.append({"type": "draw"})
        if play and hand:
            field_numbers = combo_numbers(state["field"], state["field_wild"])
            for combo_cards, wild_number in legal_combos(hand, field_numbers, wild > 0):
                actions.append(_play_action(combo_cards, wild_number))
        return actions

    @staticmethod
    def _must_play(state: State, seat: int) -> bool:
        """EP-10: no pass with an empty field while holding a Play token (and cards, EP-9)."""
        return not state["field"] and state["play_tokens"][seat] > 0 and bool(state["hands"][seat])

    def _forced(self, state: State, seat: int) -> Action | None:
        """The seat's only legal action, when it has exactly one (EP-9 and beyond)."""
        hand = state["hands"][seat]
        play, wild = state["play_tokens"][seat], state["wild_tokens"][seat]
        can_draw = state["players"] == 2 and bool(state["draw_pile"]) and bool(hand)
        if play == 0 and wild == 0:
            return None if can_draw else {"type": "pass"}
        if self._must_play(state, seat) and not can_draw:
            combos = legal_combos(hand, [], wild > 0)
            if len(combos) == 1:
                return _play_action(*combos[0])
        return None

    # --- the contract's hooks -------------------------------------------------------------

    def phase(self, state: State) -> str:
        return state["phase"]

    def hand_card(self, state: State, seat: int, card_id: str) -> str | None:
        return card_id if card_id in state["hands"][seat] else None

    def hidden_cards(self, state: State, seat: int | None) -> set[str]:
        hidden = set(state["draw_pile"]) | set(state["set_aside"])
        for other, hand in enumerate(state["hands"]):
            if other != seat:
                hidden.update(hand)
        return hidden

    def sample_state(
        self, view: View, seen: Sequence[Event], options: dict[str, Any], rng: Random
    ) -> State:
        """A full state consistent with what the viewing seat knows, for a search bot: the
        cards out of its sight dealt anew, secret choices drawn from a prior, a fresh seed
        (exact_plays/sampling.py says how)."""
        return sampling.sample_state(view, seen, options, rng)

    def not_your_turn(self, state: State, seat: int) -> tuple[str, str | None]:
        if state["phase"] == "rps":
            if seat not in state["rps"]["players"]:
                return "only the tied players play rock-paper-scissors", "EP-4"
            return "you have already chosen for this throw; wait for the others", "EP-4"
        return f"it is seat {state['current_seat']}'s turn", "EP-6"

    def after_move(self, state: State, events: list[Event]) -> None:
        """Play every seat whose turn comes with a single legal action (EP-9)."""
        while state["phase"] == "play":
            seat = state["current_seat"]
            forced = self._forced(state, seat)
            if forced is None:
                return
            if forced["type"] == "pass":
                self._pass(state, seat, {"switch": None}, events, None, auto=True)
            else:
                args = {"cards": forced["cards"], "wild": forced.get("wild")}
                self._play(state, seat, args, events, None, auto=True)

    def turn_marker(self, state: State) -> Any:
        """A new round's declarations, a new throw, a new turn: every awaited seat's clock
        starts afresh."""
        rps = state["rps"]
        throws = len(rps["throws"]) if rps is not None else 0
        return [state["round"], state["phase"], throws, state["turns_played"]]

    def timeout_action(self, state: State, seat: int) -> Action:
        """EP-19: a random declaration, a random throw, or a pass (when EP-10 forbids it, a
        legal play or draw at random), drawn from the game's seeded generator."""
        phase = state["phase"]
        if phase == "declare":
            tokens = rngmod.choice(state["rng"], list(range(MAX_DECLARATION + 1)))
            return {"type": "declare", "tokens": tokens}
        if phase == "rps":
            return {"type": "rps", "shape": rngmod.choice(state["rng"], list(SHAPES))}
        legal = self.legal_actions(state, seat)
        if {"type": "pass"} in legal:
            return {"type": "pass"}
        return rngmod.choice(state["rng"], legal)

    # --- declarations and start player ------------------------------------------------

    def _declare(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        tokens = args["tokens"]
        changed = state["declarations"][seat] is not None
        state["declarations"][seat] = tokens
        events.append(
            {
                "type": "declared",
                "seat": seat,
                "changed": changed,
                "private": {str(seat): {"tokens": tokens}},
            }
        )
        if any(d is None for d in state["declarations"]):
            return
        # EP-3: all in - reveal and take the tokens, Play side up
        decl = state["declarations"]
        state["play_tokens"] = list(decl)
        state["token_pile"] = TOKENS - sum(decl)
        events.append({"type": "declarations_revealed", "declarations": list(decl)})
        if not any(state["play_tokens"]):
            self._end_round(state, events, "no_play_tokens")  # EP-12
            return
        most = max(decl)
        tied = [s for s in range(state["players"]) if decl[s] == most]
        if len(tied) == 1:
            self._begin_play(state, tied[0], "most_tokens", events)
        elif state["options"]["tiebreak"] == "random":
            winner = rngmod.choice(state["rng"], tied)
            self._begin_play(state, winner, "random", events, tied=tied)
        else:
            state["phase"] = "rps"
            state["rps"] = {"players": tied, "choices": [None] * state["players"], "throws": []}
            events.append({"type": "rps_started", "players": list(tied)})

    def _rps(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        shape = args["shape"]
        rps = state["rps"]
        rps["choices"][seat] = shape
        throw = len(rps["throws"]) + 1
        events.append(
            {
                "type": "rps_chosen",
                "seat": seat,
                "throw": throw,
                "private": {str(seat): {"shape": shape}},
            }
        )
        if any(rps["choices"][s] is None for s in rps["players"]):
            return
        shapes = list(rps["choices"])
        rps["throws"].append(shapes)
        remaining = rps_survivors(rps["players"], shapes)
        events.append(
            {
                "type": "rps_revealed",
                "throw": throw,
                "shapes": shapes,
                "replay": remaining == rps["players"],
                "remaining": list(remaining),
            }
        )
        rps["players"] = remaining
        rps["choices"] = [None] * state["players"]
        if len(remaining) == 1:
            self._begin_play(state, remaining[0], "rock_paper_scissors", events)

    def _begin_play(
        self,
        state: State,
        seat: int,
        reason: str,
        events: list[Event],
        tied: list[int] | None = None,
    ) -> None:
        state["phase"] = "play"
        state["start_player"] = seat
        state["current_seat"] = seat
        event: Event = {"type": "start_player", "seat": seat, "reason": reason}
        if tied is not None:
            event["tied"] = list(tied)
        events.append(event)

    # --- turns ----------------------------------------------------------------------------

    def _play(
        self,
        state: State,
        seat: int,
        args: Args,
        events: list[Event],
        now: Any,
        auto: bool = False,
    ) -> None:
        hand = state["hands"][seat]
        chosen, wild = args["cards"], args["wild"]
        if state["play_tokens"][seat] < 1:
            raise IllegalAction(
                "you have no Play token: a Wild token is not a Play token", rule="EP-7"
            )
        if wild is not None and state["wild_tokens"][seat] < 1:
            raise IllegalAction("you have no Wild token", rule="EP-8", field="wild")
        played = sort_codes(chosen)
        kind = classify(played, wild)
        if kind is None:
            raise IllegalAction(
                f"{_describe(played, wild)} is not a single, a set of one number or a run "
                "of consecutive numbers in one suit",
                rule="EP-8" if wild is not None else "EP-7",
                field="cards",
            )
        refusal = beats(
            combo_numbers(state["field"], state["field_wild"]), combo_numbers(played, wild)
        )
        if refusal is not None:
            raise IllegalAction(f"{_describe(played, wild)}: {refusal}", rule="EP-7", field="cards")
        # accepted: pay, move the cards
        for code in played:
            hand.remove(code)
        state["cleared"].extend(state["field"])
        state["field"] = played
        state["field_wild"] = wild
        state["field_by"] = seat
        state["play_tokens"][seat] -= 1
        state["token_pile"] += 1
        if wild is not None:
            state["wild_tokens"][seat] -= 1
            state["token_pile"] += 1  # EP-8: the used Wild token returns to the pile
        event: Event = {
            "type": "played",
            "seat": seat,
            "cards": cards(played),
            "wild": field_wild(played, wild),
            "kind": kind,
            "hand_size": len(hand),
            "play_tokens": state["play_tokens"][seat],
            "wild_tokens": state["wild_tokens"][seat],
        }
        if auto:
            event["auto"] = True
        events.append(event)
        self._end_turn(state, seat, events, passed=False)

    def _pass(
        self,
        state: State,
        seat: int,
        args: Args,
        events: list[Event],
        now: Any,
        auto: bool = False,
    ) -> None:
        switch = args["switch"]
        if self._must_play(state, seat):
            raise IllegalAction(
                "the field is empty and you hold a Play token: you must play", rule="EP-10"
            )
        if switch == "to_wild" and state["play_tokens"][seat] < 1:
            raise IllegalAction("you have no Play token to switch", rule="EP-10", field="switch")
        if switch == "to_play" and state["wild_tokens"][seat] < 1:
            raise IllegalAction("you have no Wild token to switch", rule="EP-10", field="switch")
        if switch == "to_wild":
            state["play_tokens"][seat] -= 1
            state["wild_tokens"][seat] += 1
        elif switch == "to_play":
            state["wild_tokens"][seat] -= 1
            state["play_tokens"][seat] += 1
        event: Event = {
            "type": "passed",
            "seat": seat,
            "switch": switch,
            "play_tokens": state["play_tokens"][seat],
            "wild_tokens": state["wild_tokens"][seat],
        }
        if auto:
            event["auto"] = True
        events.append(event)
        n = state["players"]
        if n > 2 and not state["field"]:
            # EP-10: passing on an empty field hands the start to the next player
            nxt = (seat + 1) % n
            state["start_player"] = nxt
            events.append({"type": "start_player", "seat": nxt, "reason": "pass"})
        self._end_turn(state, seat, events, passed=True)

    def _draw(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        if state["players"] != 2:
            raise IllegalAction("drawing exists only in a 2-player game", rule="EP-11")
        if not state["draw_pile"]:
            raise IllegalAction("the draw pile is empty", rule="EP-11")
        hand = state["hands"][seat]
        if not hand:
            raise IllegalAction("a player with no cards in hand cannot draw", rule="EP-11")
        code = state["draw_pile"].pop(0)
        hand.append(code)
        hand[:] = sort_codes(hand)
        events.append(
            {
                "type": "drew",
                "seat": seat,
                "hand_size": len(hand),
                "draw_pile": len(state["draw_pile"]),
                "private": {str(seat): {"card": card(code)}},
            }
        )
        self._end_turn(state, seat, events, passed=False)

    def _end_turn(self, state: State, seat: int, events: list[Event], passed: bool) -> None:
        n = state["players"]
        state["turns_played"] += 1
        if not any(state["play_tokens"]):
            self._end_round(state, events, "no_play_tokens")  # EP-12
            return
        if n == 2 and passed:
            # EP-10: in a 2-player game a pass clears the field; the opponent starts
            other = 1 - seat
            self._clear_field(state, events, "pass")
            state["start_player"] = other
            events.append({"type": "start_player", "seat": other, "reason": "pass"})
            if self._someone_out(state):
                self._end_round(state, events, "out_of_cards")  # EP-13
                return
        nxt = (seat + 1) % n
        if n > 2 and state["field_by"] == nxt:
            # EP-5: the turn returns to the player of the field cards
            self._clear_field(state, events, "returned")
            state["start_player"] = nxt
            events.append({"type": "start_player", "seat": nxt, "reason": "field_cleared"})
            if self._someone_out(state):
                self._end_round(state, events, "out_of_cards")  # EP-13
                return
        if state["turns_played"] >= state["options"]["turn_limit"]:
            self._end_round(state, events, "turn_limit")  # EP-16
            return
        state["current_seat"] = nxt

    @staticmethod
    def _someone_out(state: State) -> bool:
        return any(not hand for hand in state["hands"])

    @staticmethod
    def _clear_field(state: State, events: list[Event], reason: str) -> None:
        if state["field"]:
            events.append(
                {
                    "type": "field_cleared",
                    "cards": cards(state["field"]),
                    "wild": field_wild(state["field"], state["field_wild"]),
                    "by": state["field_by"],
                    "reason": reason,
                }
            )
        state["cleared"].extend(state["field"])
        state["field"] = []
        state["field_wild"] = None
        state["field_by"] = None

    # --- scoring --------------------------------------------------------------------------

    def _end_round(self, state: State, events: list[Event], reason: str) -> None:
        """EP-14 scoring, then EP-15: the next round or the end of the game."""
        n = state["players"]
        penalties = [
            -penalty(state["hands"][i], state["play_tokens"][i], state["wild_tokens"][i])
            for i in range(n)
        ]
        state["penalties"].append(penalties)
        totals = self.scores(state)
        events.append(
            {
                "type": "round_ended",
                "round": state["round"],
                "reason": reason,
                "penalties": penalties,
                "totals": totals,
                "hand_sizes": [len(h) for h in state["hands"]],
                "play_tokens": list(state["play_tokens"]),
                "wild_tokens": list(state["wild_tokens"]),
            }
        )
        state["play_tokens"] = [0] * n
        state["wild_tokens"] = [0] * n
        state["token_pile"] = TOKENS
        state["current_seat"] = None
        if reason == "turn_limit":
            end = "turn_limit"
        elif min(totals) <= -50:
            end = "minus_50"
        elif state["round"] >= rounds_for(n):
            end = "rounds"
        elif state["turns_played"] >= state["options"]["turn_limit"]:
            end = "turn_limit"
        else:
            self._start_round(state, events)
            return
        state["phase"] = "over"
        best = max(totals)
        state["result"] = {
            "winners": [i for i, t in enumerate(totals) if t == best],
            "scores": totals,
            "rounds": [list(r) for r in state["penalties"]],
            "reason": end,
        }
        events.append(
            {
                "type": "game_over",
                "winners": list(state["result"]["winners"]),
                "scores": list(totals),
                "reason": end,
            }
        )

    def scores(self, state: State) -> list[int]:
        return [sum(r[i] for r in state["penalties"]) for i in range(state["players"])]

    # --- view -----------------------------------------------------------------------------

    def public_view(self, state: State) -> View:
        n = state["players"]
        phase = state["phase"]
        revealed = phase != "declare"
        rps = state["rps"]
        opts = state["options"]
        seats = []
        for i in range(n):
            seats.append(
                {
                    "seat": i,
                    "hand_size": len(state["hands"][i]),
                    "play_tokens": state["play_tokens"][i],
                    "wild_tokens": state["wild_tokens"][i],
                    "declared": state["declarations"][i] is not None,
                    "declaration": state["declarations"][i] if revealed else None,
                    "total": sum(r[i] for r in state["penalties"]),
                }
            )
        public: View = {
            "players": n,
            "round": state["round"],
            "rounds": rounds_for(n),
            "phase": phase,
            "turn": state["current_seat"] if phase == "play" else None,
            "start_player": state["start_player"],
            "field": cards(state["field"]),
            "field_wild": field_wild(state["field"], state["field_wild"]),
            "field_kind": classify(state["field"], state["field_wild"]) if state["field"] else None,
            "field_by": state["field_by"],
            "cleared": cards(state["cleared"]),
            "seats": seats,
            "declarations": list(state["declarations"]) if revealed else None,
            "token_pile": state["token_pile"],
            "draw_pile": len(state["draw_pile"]) if n == 2 else None,
            "rps": _rps_view(rps, phase) if rps is not None else None,
            "penalties": [list(r) for r in state["penalties"]],
            "totals": self.scores(state),
            "turns": state["turns_played"],
            "options": {
                "tiebreak": opts["tiebreak"],
                "turn_limit": opts["turn_limit"],
                # a stacked deck is secret (EP-17): the view never shows it
                "decks": None if opts.get("decks") is None else "stacked",
            },
            "result": self.result(state),
        }
        return public

    def private_view(self, state: State, seat: int | None) -> dict[str, Any] | None:
        if seat is None or not _is_int(seat) or not 0 <= seat < state["players"]:
            return None
        rps = state["rps"]
        return {
            "seat": seat,
            "hand": cards(state["hands"][seat]),
            "declaration": state["declarations"][seat],
            "rps_choice": rps["choices"][seat]
            if rps is not None and state["phase"] == "rps"
            else None,
            "play_tokens": state["play_tokens"][seat],
            "wild_tokens": state["wild_tokens"][seat],
        }


# --- helpers -------------------------------------------------------------------------------


def penalty(hand: list[str], play: int, wild: int) -> int:
    """EP-14 as a positive number: distinct numbers in hand, +10 Play, +10 Wild."""
    return sum({PARSED[c][0] for c in hand}) + 10 * (play > 0) + 10 * (wild > 0)


def rps_survivors(tied: list[int], shapes: list[str | None]) -> list[int]:
    """EP-4: one throw. All three shapes or a single shape: everyone stays (a replay);
    otherwise only the players of the winning shape stay."""
    shown = {shapes[s] for s in tied}
    if len(shown) != 2:
        return list(tied)
    a, b = shown
    winner = a if _BEATS[a] == b else b
    return [s for s in tied if shapes[s] == winner]


def field_wild(codes: list[str], wild: int | None) -> dict[str, Any] | None:
    """The Wild token in a combination: its number, and its suit when it is in a run."""
    if wild is None:
        return None
    suit = None
    if classify(codes, wild) == "run":
        suit = SUIT_NAMES[PARSED[codes[0]][1]]
    return {"number": wild, "suit": suit}


def _play_action(combo_cards: tuple[str, ...] | list[str], wild: int | None) -> Action:
    action: Action = {"type": "play", "cards": list(combo_cards)}
    if wild is not None:
        action["wild"] = wild
    return action


def _describe(codes: list[str], wild: int | None) -> str:
    text = " ".join(codes)
    return f"{text} + wild {wild}" if wild is not None else text


def _rps_view(rps: dict[str, Any], phase: str) -> dict[str, Any]:
    throws = []
    for shapes in rps["throws"]:
        players = [i for i, s in enumerate(shapes) if s is not None]
        remaining = rps_survivors(players, shapes)
        throws.append(
            {"shapes": list(shapes), "replay": remaining == players, "remaining": remaining}
        )
    return {
        "players": list(rps["players"]),
        "throw": len(rps["throws"]) + 1 if phase == "rps" else None,
        "chosen": [s for s in rps["players"] if rps["choices"][s] is not None]
        if phase == "rps"
        else [],
        "throws": throws,
    }


def _count(number: int, noun: str) -> str:
    """``1 card``, ``2 cards``: a count for a person to read."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
