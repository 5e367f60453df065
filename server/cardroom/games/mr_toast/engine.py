"""The Mr Toast rules engine (rulebook plus rulings MT-1..MT-15, see mr_toast/rules.md).

State (plain JSON; a card is a number, its wire id is ``"c<number>"``)::

    players        the number of seats
    codes          codes[n] is the code of card n ("G3", "TB", ...)
    draw_pile      top first
    discard_pile   bottom first (last = top)
    hands          one list per seat, in the order the cards were received
    fun            per seat: the scored cards in front, [green] or [green, purple] per score
    red            per seat: the red card in front, or null
    breaks         per seat: the Take a Break card in front, or null
    drawn          per seat: the cards of that seat's latest draw (private)
    current_seat   whose turn it is;  turn: the turn number (1-based, skipped turns count)
    phase          "play" (step 2), "blue" (step 3 after a step-2 play), "reaction" (a No Way
                   window), "over"
    pending        the unresolved blue play or null: {"seat", "card", "target" (or null),
                   "no_ways": [[seat, card], ...] in order, "answered": seats that answered
                   the latest card, "opened_at": when the latest window opened (only with a
                   deadline)}
    options        mode, turn_limit, reaction_deadline, auto_allow
    rng            the seeded generator (cardroom.kit.rng)
    result         the result once the game is over, else null
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from cardroom.games.mr_toast import cards as C
from cardroom.games.mr_toast import sampling
from cardroom.games.mr_toast.shapes import SHAPES
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
from cardroom.kit.moves import CardField, CardsField, Move, SeatField
from cardroom.kit.rng import Random

HAND_SIZE = 5
WIN_SCORE = 15
_PHASE_STEPS = {"play": 2, "blue": 3, "reaction": 3, "over": None}


def _in_step_two(state: State, seat: int) -> str | None:
    if state["phase"] == "blue":
        return "you have already made your step-2 play: play a blue card or end_turn"
    return None


# Every action type (mr_toast/rules.md, "Actions"). Card fields take ids ("c17") of
# cards in the acting seat's hand; MT-16 refuses anything that is not one of these forms.
MOVES = (
    Move(
        type="give_red",
        description="Step 2: give a red card (a chore) from your hand to another player who "
        "has scored and has no red card in front of them.",
        phases=("play", "blue"),
        rule="MT-7",
        handler="_give_red",
        allowed=_in_step_two,
        fields=(
            CardField(name="card", description="A red card in your hand.", rule="MT-7"),
            SeatField(name="target", description="The player who gets the chore.", rule="MT-7"),
        ),
    ),
    Move(
        type="score",
        description="Step 2, with no red card in front of you: score a green card, with a "
        "purple card on it if you like, for their points.",
        phases=("play", "blue"),
        rule="MT-7",
        handler="_score",
        allowed=_in_step_two,
        fields=(
            CardField(name="green", description="A green card in your hand.", rule="MT-7"),
            CardField(
                name="purple",
                description="A purple card in your hand, played on the green.",
                rule="MT-7",
                optional=True,
            ),
        ),
    ),
    Move(
        type="clear_red",
        description="Step 2, with a red card in front of you: discard it with green cards "
        "(and a purple card if you like) adding up to at least its value.",
        phases=("play", "blue"),
        rule="MT-7",
        handler="_clear_red",
        allowed=_in_step_two,
        lists_all=False,
        fields=(
            CardsField(name="greens", description="Green cards in your hand.", rule="MT-7"),
            CardField(
                name="purple", description="A purple card in your hand.", rule="MT-7", optional=True
            ),
        ),
    ),
    Move(
        type="play_blue",
        description="Step 2 or 3: play a blue card (Take a Break on another player, Find a "
        "Penny, In the Trash); the others may answer with No Way.",
        phases=("play", "blue"),
        rule="MT-8",
        handler="_play_blue",
        fields=(
            CardField(name="card", description="A blue card in your hand.", rule="MT-8"),
            SeatField(
                name="target",
                description="Take a Break only: the player who takes the break.",
                rule="MT-9",
                optional=True,
            ),
        ),
    ),
    Move(
        type="end_turn",
        description="End your turn (step 3 without a blue card).",
        phases=("play", "blue"),
        rule="MT-8",
        handler="_end_turn",
    ),
    Move(
        type="no_way",
        description="In a No Way window: cancel the latest card with a No Way card.",
        phases=("reaction",),
        rule="MT-12",
        handler="_no_way",
        fields=(CardField(name="card", description="A No Way card in your hand.", rule="MT-12"),),
    ),
    Move(
        type="allow",
        description="In a No Way window: let the latest card be.",
        phases=("reaction",),
        rule="MT-12",
        handler="_allow",
    ),
)


class MrToast(Game):
    game_type = "mr-toast"
    title = "Mr Toast"
    description = (
        "Irresponsibility: The Mr Toast Card Game. Score green (and purple) cards for Fun, "
        "give your opponents red chores, play blue action cards, and cancel them with No Way. "
        "First to exactly 15 Fun points wins. 2 to 6 players."
    )
    min_players = 2
    max_players = 6
    form_rule = "MT-16"
    shapes = SHAPES
    card_id_pattern = r"c(0|[1-9][0-9]{0,5})"
    card_example = "c17"
    example = {
        "game_type": "mr-toast",
        "players": 4,
        "options": {"mode": "exact", "auto_allow": True},
        "bots": [
            {"seat": 1, "policy": "greedy"},
            {"seat": 2, "policy": "greedy"},
            {"seat": 3, "policy": "random"},
        ],
    }
    option_specs = (
        OptionSpec(
            "mode",
            "string",
            "exact",
            "How the game is won (MT-10). 'exact': the first player with exactly 15 Fun points "
            "wins, and a score that would go past 15 is illegal. 'irresponsible': the first "
            "player to reach 15 or more wins.",
            choices=("exact", "irresponsible"),
        ),
        OptionSpec(
            "turn_limit",
            "integer",
            500,
            "House rule MT-11: the game ends after this many turns (skipped turns count); "
            "then the player or players with the most Fun points win (result reason "
            "'turn_limit').",
            minimum=1,
            maximum=10000,
        ),
        OptionSpec(
            "first_seat",
            "integer",
            None,
            "The seat that plays first (MT-4), below the number of players; null: drawn at "
            "random from the game's seed.",
            minimum=0,
            maximum=5,
            nullable=True,
        ),
        OptionSpec(
            "deck",
            "array",
            None,
            "A stacked deck: card codes, top first, a permutation of the deck the composition "
            "defines. Seat 0 is dealt the first 5 cards, seat 1 the next 5, and so on; the "
            "rest is the draw pile, top first. null: the deck is shuffled from the seed. "
            'Shown to players as "stacked" until the game ends.',
            nullable=True,
            secret=True,
            items={"type": "string", "enum": list(C.CODES)},
        ),
        OptionSpec(
            "composition",
            "array",
            None,
            'Replaces the default 90-card deck (MT-1): a list of {"code": "G3", '
            '"count": 6} objects, each code once; codes G1-G5, R2-R5, P1-P3, TB (Take a '
            "Break), FP (Find a Penny), IT (In the Trash), NW (No Way); 2 to 200 cards in "
            "all. With fewer than 5 cards per player, each player is dealt the same smaller "
            "number (deck size // players). null: the default deck.",
            nullable=True,
            items={
                "type": "object",
                "properties": {
                    "code": {"type": "string", "enum": list(C.CODES)},
                    "count": {"type": "integer", "minimum": 0, "maximum": 200},
                },
                "required": ["code", "count"],
            },
        ),
        OptionSpec(
            "reaction_deadline",
            "number",
            None,
            "Seconds a No Way reaction window stays open (MT-13/14); when it passes, players "
            "who have not answered count as 'allow'. null: no deadline, every eligible player "
            "must answer.",
            minimum=0,
            maximum=604800,
            nullable=True,
        ),
        OptionSpec(
            "auto_allow",
            "boolean",
            False,
            "MT-14: answer 'allow' automatically for players who hold no No Way card. Faster "
            "for bot games, but it shows everyone who holds no No Way card.",
        ),
        *CLOCK_SPECS,
    )

    # --- options --------------------------------------------------------------------------

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        first = options.get("first_seat")
        if first is not None and first >= players:
            raise InvalidOptions(
                f"first_seat must be below the number of players ({players})",
                field="options.first_seat",
            )
        deadline = options.get("reaction_deadline")
        if deadline is not None and not (math.isfinite(deadline) and deadline > 0):
            raise InvalidOptions(
                "reaction_deadline must be a positive number of seconds",
                field="options.reaction_deadline",
            )
        counts = _check_composition(options.get("composition"))
        deck = options.get("deck")
        if deck is not None:
            where = "options.deck"
            for index, code in enumerate(deck):
                if not isinstance(code, str) or code not in C.CODES:
                    raise InvalidOptions(
                        f"deck[{index}] is not a card code ({', '.join(C.CODES)})", field=where
                    )
            given = Counter(deck)
            if given != counts:
                diff = []
                for code in C.CODES:
                    if given[code] != counts[code]:
                        diff.append(f"{code}: {given[code]} instead of {counts[code]}")
                raise InvalidOptions(
                    "deck must be a permutation of the "
                    + ("composition" if options.get("composition") is not None else "default deck")
                    + f" ({len(deck)} cards given, {sum(counts.values())} expected; "
                    + "; ".join(diff)
                    + ")",
                    field=where,
                )

    # --- setup ----------------------------------------------------------------------------

    def new_game(self, players: int, options: dict[str, Any], seed: int) -> State:
        opts = self.validate_options(players, options)
        rng = rngmod.new_rng(seed)
        if opts["deck"] is not None:
            codes = list(opts["deck"])
        else:
            composition = opts["composition"] or C.DEFAULT_COMPOSITION
            codes = rngmod.shuffled(rng, C.expand(composition))
        size = len(codes)
        # Ids are a random permutation, drawn after the shuffle: an id reveals neither the
        # card nor where it was in the deck (so not whether it was dealt or drawn).
        ids = rngmod.shuffled(rng, list(range(size)))
        table = [""] * size
        for position, number in enumerate(ids):
            table[number] = codes[position]
        hand_size = min(HAND_SIZE, size // players)
        hands = [ids[s * hand_size : (s + 1) * hand_size] for s in range(players)]
        first = opts["first_seat"]
        if first is None:
            first = rngmod.choice(rng, list(range(players)))
        state: State = {
            "players": players,
            "codes": table,
            "draw_pile": ids[players * hand_size :],
            "discard_pile": [],
            "hands": hands,
            "fun": [[] for _ in range(players)],
            "red": [None] * players,
            "breaks": [None] * players,
            "drawn": [[] for _ in range(players)],
            "current_seat": first,
            "turn": 0,
            "phase": "play",
            "pending": None,
            "options": {
                "mode": opts["mode"],
                "turn_limit": opts["turn_limit"],
                "reaction_deadline": opts["reaction_deadline"],
                "auto_allow": opts["auto_allow"],
            },
            "rng": rng,
            "result": None,
            "clock": new_clock(opts, players),
        }
        _begin_turn(state, first, [])
        return state

    # --- who acts, what is legal ----------------------------------------------------------

    def to_act(self, state: State) -> set[int]:
        if state["result"] is not None:
            return set()
        if state["phase"] == "reaction":
            return set(_waiting(state))
        return {state["current_seat"]}

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if not _is_seat(state, seat) or seat not in self.to_act(state):
            return []
        hand = state["hands"][seat]
        k = state["codes"]
        phase = state["phase"]
        actions: list[Action] = []
        if phase == "reaction":
            for number in hand:
                if k[number] == "NW":
                    actions.append({"type": "no_way", "card": C.card_id(number)})
            actions.append({"type": "allow"})
            return actions
        if phase == "play":
            n = state["players"]
            red = state["red"]
            # give a chore (MT-7)
            targets = [t for t in range(n) if t != seat and red[t] is None and state["fun"][t]]
            for number in hand:
                if k[number][0] == "R":
                    for target in targets:
                        actions.append(
                            {"type": "give_red", "card": C.card_id(number), "target": target}
                        )
            if red[seat] is None:
                # score (MT-7, MT-10)
                room = WIN_SCORE - _score(state, seat)
                exact = state["options"]["mode"] == "exact"
                purples = [p for p in hand if k[p][0] == "P"]
                for green in hand:
                    if k[green][0] != "G":
                        continue
                    gv = C.VALUES[k[green]]
                    if not exact or gv <= room:
                        actions.append({"type": "score", "green": C.card_id(green)})
                    for purple in purples:
                        if not exact or gv + C.VALUES[k[purple]] <= room:
                            actions.append(
                                {
                                    "type": "score",
                                    "green": C.card_id(green),
                                    "purple": C.card_id(purple),
                                }
                            )
            else:
                actions.extend(_minimal_clears(state, seat))
        actions.extend(_blue_actions(state, seat))
        actions.append({"type": "end_turn"})
        return actions

    # --- the contract's hooks -------------------------------------------------------------

    def phase(self, state: State) -> str:
        return state["phase"]

    def hand_card(self, state: State, seat: int, card_id: str) -> int | None:
        number = int(card_id[1:])
        return number if number in state["hands"][seat] else None

    def hidden_cards(self, state: State, seat: int | None) -> set[str]:
        hidden = set(state["draw_pile"])
        for other, hand in enumerate(state["hands"]):
            if other != seat:
                hidden.update(hand)
        return {C.card_id(number) for number in hidden}

    def sample_state(
        self, view: View, seen: Sequence[Event], options: dict[str, Any], rng: Random
    ) -> State:
        """A full state consistent with what the viewing seat knows, for a search bot: the
        cards out of its sight dealt anew among the places and codes its knowledge allows,
        a fresh seed (mr_toast/sampling.py says how)."""
        return sampling.sample_state(view, seen, options, rng, hand_size=HAND_SIZE)

    def not_your_turn(self, state: State, seat: int) -> tuple[str, str | None]:
        if state["phase"] == "reaction":
            if seat == _latest_player(state["pending"]):
                why = "you played the latest card of the chain"
            else:
                why = "you have already answered the latest card"
            return f"a No Way window is open and {why}", "MT-12"
        return f"it is seat {state['current_seat']}'s turn", "MT-4"

    # --- the moves (declared in MOVES below; checked by Game.apply first) ----------------

    def _give_red(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        card, target = args["card"], args["target"]
        if state["codes"][card][0] != "R":
            raise IllegalAction(f"{C.card_id(card)} is not a red card", rule="MT-7", field="card")
        if state["red"][target] is not None:
            raise IllegalAction(
                f"seat {target} already has a red card in front of them",
                rule="MT-7",
                field="target",
            )
        if not state["fun"][target]:
            raise IllegalAction(
                f"seat {target} has not scored yet (no green card in front of them)",
                rule="MT-7",
                field="target",
            )
        state["hands"][seat].remove(card)
        state["red"][target] = card
        state["phase"] = "blue"
        events.append(
            {"type": "chore_given", "seat": seat, "target": target, "card": _card(state, card)}
        )

    def _score(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        codes = state["codes"]
        green, purple = args["green"], args["purple"]
        if codes[green][0] != "G":
            raise IllegalAction(
                f"{C.card_id(green)} is not a green card", rule="MT-7", field="green"
            )
        _check_purple(codes, purple)
        if state["red"][seat] is not None:
            raise IllegalAction(
                "you have a red card in front of you: clear it before you score", rule="MT-7"
            )
        points = C.VALUES[codes[green]] + (C.VALUES[codes[purple]] if purple is not None else 0)
        before = _score(state, seat)
        exact = state["options"]["mode"] == "exact"
        if exact and before + points > WIN_SCORE:
            raise IllegalAction(
                f"{points} points would take you from {before} past {WIN_SCORE} (mode exact)",
                rule="MT-10",
                field="green",
            )
        hand = state["hands"][seat]
        hand.remove(green)
        entry = [green]
        if purple is not None:
            hand.remove(purple)
            entry.append(purple)
        state["fun"][seat].append(entry)
        total = before + points
        events.append(
            {
                "type": "scored",
                "seat": seat,
                "green": _card(state, green),
                "purple": _maybe_card(codes, purple),
                "points": points,
                "score": total,
            }
        )
        if (exact and total == WIN_SCORE) or (not exact and total >= WIN_SCORE):
            _finish(state, [seat], "exact_15" if exact else "reached_15", events)
            return
        state["phase"] = "blue"

    def _clear_red(
        self, state: State, seat: int, args: Args, events: list[Event], now: Any
    ) -> None:
        codes = state["codes"]
        greens, purple = args["greens"], args["purple"]
        for green in greens:
            if codes[green][0] != "G":
                raise IllegalAction(
                    f"{C.card_id(green)} is not a green card", rule="MT-7", field="greens"
                )
        _check_purple(codes, purple)
        red = state["red"][seat]
        if red is None:
            raise IllegalAction("you have no red card in front of you to clear", rule="MT-7")
        total = sum(C.VALUES[codes[g]] for g in greens)
        total += C.VALUES[codes[purple]] if purple is not None else 0
        need = C.VALUES[codes[red]]
        if total < need:
            raise IllegalAction(
                f"your cards add up to {total}, less than the red card's {need}",
                rule="MT-7",
                field="greens",
            )
        hand = state["hands"][seat]
        for green in greens:
            hand.remove(green)
        if purple is not None:
            hand.remove(purple)
        state["red"][seat] = None
        state["discard_pile"].append(red)
        state["discard_pile"].extend(greens)
        if purple is not None:
            state["discard_pile"].append(purple)
        state["phase"] = "blue"
        events.append(
            {
                "type": "chore_cleared",
                "seat": seat,
                "red": _card(state, red),
                "greens": _cards(state, greens),
                "purple": _maybe_card(codes, purple),
            }
        )

    def _play_blue(
        self, state: State, seat: int, args: Args, events: list[Event], now: Any
    ) -> None:
        card, target = args["card"], args["target"]
        code = state["codes"][card]
        if code == "NW":
            raise IllegalAction(
                "No Way cards are only played as reactions (no_way), never in step 2 or 3",
                rule="MT-8",
                field="card",
            )
        if code not in C.BLUES:
            raise IllegalAction(f"{C.card_id(card)} is not a blue card", rule="MT-8", field="card")
        if code == "TB":
            if target is None:
                raise IllegalAction(
                    "Take a Break needs a target: another player", rule="MT-9", field="target"
                )
            if state["breaks"][target] is not None:
                raise IllegalAction(
                    f"seat {target} already has a Take a Break card in front of them",
                    rule="MT-9",
                    field="target",
                )
        elif target is not None:
            raise IllegalAction(
                f"{C.BLUE_NAMES[code]} takes no target", rule="MT-9", field="target"
            )
        if code == "IT" and state["red"][seat] is None:
            raise IllegalAction(
                "In the Trash needs a red card in front of you", rule="MT-9", field="card"
            )
        state["hands"][seat].remove(card)
        state["pending"] = {
            "seat": seat,
            "card": card,
            "target": target,
            "no_ways": [],
            "answered": [],
        }
        state["phase"] = "reaction"
        events.append(
            {"type": "blue_played", "seat": seat, "card": _card(state, card), "target": target}
        )
        _open_window(state, now, events)

    def _end_turn(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        _end_turn(state, events)

    def _no_way(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        card = args["card"]
        if state["codes"][card] != "NW":
            raise IllegalAction(
                f"{C.card_id(card)} is not a No Way card", rule="MT-12", field="card"
            )
        pend = state["pending"]
        state["hands"][seat].remove(card)
        pend["no_ways"].append([seat, card])
        events.append(
            {
                "type": "no_way",
                "seat": seat,
                "card": _card(state, card),
                "chain": len(pend["no_ways"]),
                "outcome": "cancelled" if len(pend["no_ways"]) % 2 else "happens",
            }
        )
        _open_window(state, now, events)

    def _allow(self, state: State, seat: int, args: Args, events: list[Event], now: Any) -> None:
        state["pending"]["answered"].append(seat)
        events.append({"type": "allowed", "seat": seat})
        if not _waiting(state):
            _resolve(state, events)

    moves = MOVES

    def rule_deadline(self, state: State) -> float | None:
        """MT-14: when a timed No Way window closes."""
        pend = state["pending"]
        seconds = state["options"]["reaction_deadline"]
        if (
            state["phase"] != "reaction"
            or pend is None
            or seconds is None
            or pend.get("opened_at") is None
        ):
            return None
        return pend["opened_at"] + seconds

    def resolve_rule_deadline(self, state: State, now: float) -> list[Event]:
        deadline = self.rule_deadline(state)
        if now is None or deadline is None or now < deadline:
            return []
        events: list[Event] = []
        pend = state["pending"]
        missing = _waiting(state)
        pend["answered"].extend(missing)
        events.append({"type": "window_closed", "reason": "deadline", "defaulted": missing})
        _resolve(state, events)
        return events

    def turn_marker(self, state: State) -> Any:
        """A new turn, or a new No Way window (MT-12), starts every awaited seat's clock."""
        pend = state["pending"]
        window = len(pend["no_ways"]) if state["phase"] == "reaction" and pend else -1
        return [state["turn"], window]

    def timeout_action(self, state: State, seat: int) -> Action:
        """MT-17: a seat out of time in a No Way window allows; on its turn, ends it."""
        return {"type": "allow"} if state["phase"] == "reaction" else {"type": "end_turn"}

    # --- what players see -----------------------------------------------------------------

    def public_view(self, state: State) -> View:
        k = state["codes"]
        scores = self.scores(state)
        seats = []
        for s in range(state["players"]):
            seats.append(
                {
                    "seat": s,
                    "hand_size": len(state["hands"][s]),
                    "score": scores[s],
                    "fun": [_fun_entry(k, entry) for entry in state["fun"][s]],
                    "red": _maybe_card(k, state["red"][s]),
                    "take_a_break": _maybe_card(k, state["breaks"][s]),
                }
            )
        pend = state["pending"]
        pending = None
        if pend is not None:
            pending = {
                "seat": pend["seat"],
                "card": C.wire(pend["card"], k[pend["card"]]),
                "target": pend["target"],
                "no_ways": [{"seat": s, "card": C.wire(c, k[c])} for s, c in pend["no_ways"]],
                "outcome": "cancelled" if len(pend["no_ways"]) % 2 else "happens",
                "eligible": _eligible(state),
                "answered": sorted(pend["answered"]),
                "waiting_for": _waiting(state),
                "opened_at": pend.get("opened_at"),
                "deadline": self.rule_deadline(state),
            }
        phase = state["phase"]
        opt = state["options"]
        result: View = {
            "players": state["players"],
            "mode": opt["mode"],
            "turn_limit": opt["turn_limit"],
            "reaction_deadline": opt["reaction_deadline"],
            "auto_allow": opt["auto_allow"],
            "deck_size": len(k),
            "turn": state["turn"],
            "current_seat": state["current_seat"],
            "phase": phase,
            "step": _PHASE_STEPS[phase],
            "seats": seats,
            "scores": scores,
            "draw_pile": len(state["draw_pile"]),
            "discard_pile": [C.wire(c, k[c]) for c in state["discard_pile"]],
            "pending": pending,
            "result": copy.deepcopy(state["result"]),
        }
        return result

    def private_view(self, state: State, seat: int | None) -> dict[str, Any] | None:
        if seat is None or not _is_seat(state, seat):
            return None
        k = state["codes"]
        hand = state["hands"][seat]
        return {
            "seat": seat,
            "hand": [C.wire(c, k[c]) for c in hand],
            "drawn": [C.wire(c, k[c]) for c in state["drawn"][seat] if c in hand],
        }

    def scores(self, state: State) -> list[int]:
        return [_score(state, s) for s in range(state["players"])]


# --- option helpers ------------------------------------------------------------------------------


def _check_purple(codes: list[str], purple: int | None) -> None:
    if purple is not None and codes[purple][0] != "P":
        raise IllegalAction(
            f"{C.card_id(purple)} is not a purple card", rule="MT-7", field="purple"
        )


def _check_composition(composition: Any) -> Counter[str]:
    """The card counts a composition defines (the default deck for None)."""
    if composition is None:
        return Counter(C.DEFAULT_COUNTS)
    where = "options.composition"
    counts: Counter[str] = Counter()
    for index, item in enumerate(composition):
        if not isinstance(item, dict) or set(item) != {"code", "count"}:
            raise InvalidOptions(
                f'composition[{index}] must be an object {{"code": ..., "count": ...}}',
                field=where,
            )
        code, count = item["code"], item["count"]
        if not isinstance(code, str) or code not in C.CODES:
            raise InvalidOptions(
                f"composition[{index}].code {code!r} is not a card code ({', '.join(C.CODES)})",
                field=where,
            )
        if code in counts:
            raise InvalidOptions(f"composition lists {code} twice", field=where)
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 200:
            raise InvalidOptions(
                f"composition[{index}].count must be an integer from 0 to 200", field=where
            )
        counts[code] = count
    total = sum(counts.values())
    if not 2 <= total <= 200:
        raise InvalidOptions(
            f"composition must hold 2 to 200 cards in all, not {total}", field=where
        )
    return +counts


# --- state helpers -------------------------------------------------------------------------------


def _is_seat(state: State, seat: Any) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state["players"]


def _score(state: State, seat: int) -> int:
    k = state["codes"]
    return sum(C.VALUES[k[c]] for entry in state["fun"][seat] for c in entry)


def _fun_entry(k: list[str], entry: list[int]) -> dict[str, Any]:
    purple = entry[1] if len(entry) > 1 else None
    return {
        "green": C.wire(entry[0], k[entry[0]]),
        "purple": _maybe_card(k, purple),
        "points": sum(C.VALUES[k[c]] for c in entry),
    }


def _maybe_card(k: list[str], number: int | None) -> dict[str, Any] | None:
    return None if number is None else C.wire(number, k[number])


def _latest_player(pend: dict[str, Any]) -> int:
    return pend["no_ways"][-1][0] if pend["no_ways"] else pend["seat"]


def _eligible(state: State) -> list[int]:
    """MT-12: every seat except the player of the latest card of the chain."""
    latest = _latest_player(state["pending"])
    return [s for s in range(state["players"]) if s != latest]


def _waiting(state: State) -> list[int]:
    answered = state["pending"]["answered"]
    return [s for s in _eligible(state) if s not in answered]


def _cards(state: State, numbers: list[int]) -> list[dict[str, Any]]:
    return [C.wire(c, state["codes"][c]) for c in numbers]


def _card(state: State, number: int) -> dict[str, Any]:
    return C.wire(number, state["codes"][number])


# --- turn flow -----------------------------------------------------------------------------------


def _draw(state: State, seat: int, count: int, events: list[Event]) -> None:
    """MT-5: draw ``count`` cards, reshuffling the discard pile into an empty draw pile."""
    drawn: list[int] = []
    for _ in range(count):
        if not state["draw_pile"]:
            if not state["discard_pile"]:
                break
            state["draw_pile"] = rngmod.shuffled(state["rng"], state["discard_pile"])
            state["discard_pile"] = []
            events.append({"type": "reshuffled", "count": len(state["draw_pile"])})
        drawn.append(state["draw_pile"].pop(0))
    state["hands"][seat].extend(drawn)
    state["drawn"][seat] = drawn
    events.append(
        {
            "type": "drew",
            "seat": seat,
            "count": len(drawn),
            "private": {str(seat): {"cards": _cards(state, drawn)}},
        }
    )


def _begin_turn(state: State, seat: int, events: list[Event]) -> None:
    """Start the next turn at ``seat``: MT-11 limit, MT-6 skip, MT-5 draw."""
    n = state["players"]
    while True:
        if state["turn"] >= state["options"]["turn_limit"]:
            scores = [_score(state, s) for s in range(n)]
            best = max(scores)
            _finish(state, [s for s in range(n) if scores[s] == best], "turn_limit", events)
            return
        state["turn"] += 1
        state["current_seat"] = seat
        state["phase"] = "play"
        events.append({"type": "turn_started", "seat": seat, "turn": state["turn"]})
        brk = state["breaks"][seat]
        if brk is None:
            _draw(state, seat, 1, events)
            return
        state["breaks"][seat] = None
        state["discard_pile"].append(brk)
        events.append({"type": "skipped", "seat": seat, "card": _card(state, brk)})
        events.append({"type": "turn_ended", "seat": seat, "turn": state["turn"]})
        seat = (seat + 1) % n


def _end_turn(state: State, events: list[Event]) -> None:
    seat = state["current_seat"]
    state["pending"] = None
    events.append({"type": "turn_ended", "seat": seat, "turn": state["turn"]})
    _begin_turn(state, (seat + 1) % state["players"], events)


def _finish(state: State, winners: list[int], reason: str, events: list[Event]) -> None:
    state["result"] = {
        "winners": winners,
        "scores": [_score(state, s) for s in range(state["players"])],
        "reason": reason,
        "turn": state["turn"],
        "turn_limit": state["options"]["turn_limit"],
        "mode": state["options"]["mode"],
    }
    state["phase"] = "over"
    state["pending"] = None
    events.append({"type": "game_over", "result": copy.deepcopy(state["result"])})


# --- reaction windows (MT-12..MT-14) -------------------------------------------------------------


def _open_window(state: State, now: float | None, events: list[Event]) -> None:
    pend = state["pending"]
    pend["answered"] = []
    if state["options"]["reaction_deadline"] is not None and now is not None:
        pend["opened_at"] = now
    else:
        pend.pop("opened_at", None)
    if state["options"]["auto_allow"]:
        k = state["codes"]
        for s in _waiting(state):
            if not any(k[c] == "NW" for c in state["hands"][s]):
                pend["answered"].append(s)
                events.append({"type": "allowed", "seat": s, "auto": True})
    if not _waiting(state):
        _resolve(state, events)


def _resolve(state: State, events: list[Event]) -> None:
    """MT-13: even number of No Ways, the effect happens; odd, the blue card is cancelled."""
    pend = state["pending"]
    seat, card, target = pend["seat"], pend["card"], pend["target"]
    no_ways = [c for _, c in pend["no_ways"]]
    code = state["codes"][card]
    after: list[int] = []
    if len(no_ways) % 2:
        state["discard_pile"].append(card)
        events.append(
            {
                "type": "blue_cancelled",
                "seat": seat,
                "card": _card(state, card),
                "target": target,
                "no_ways": len(no_ways),
            }
        )
    else:
        event: Event = {
            "type": "blue_resolved",
            "seat": seat,
            "card": _card(state, card),
            "target": target,
            "effect": C.BLUE_EFFECTS[code],
            "no_ways": len(no_ways),
        }
        if code == "TB":
            state["breaks"][target] = card
        elif code == "IT":
            red = state["red"][seat]
            event["red"] = _card(state, red)
            state["red"][seat] = None
            state["discard_pile"].append(red)
            state["discard_pile"].append(card)
        events.append(event)
        if code == "FP":
            # The card is read, its action done, then it is discarded (so a reshuffle
            # during the draw never shuffles the Find a Penny or its No Ways back in).
            _draw(state, seat, 2, events)
            after.append(card)
    state["discard_pile"].extend(after)
    state["discard_pile"].extend(no_ways)
    _end_turn(state, events)


# --- legal action helpers ------------------------------------------------------------------------


def _blue_actions(state: State, seat: int) -> list[Action]:
    k = state["codes"]
    actions: list[Action] = []
    for number in state["hands"][seat]:
        code = k[number]
        if code == "TB":
            for target in range(state["players"]):
                if target != seat and state["breaks"][target] is None:
                    actions.append(
                        {"type": "play_blue", "card": C.card_id(number), "target": target}
                    )
        elif code == "FP" or (code == "IT" and state["red"][seat] is not None):
            actions.append({"type": "play_blue", "card": C.card_id(number)})
    return actions


def _minimal_clears(state: State, seat: int) -> list[Action]:
    """Minimal clear_red combinations (drop any card and it no longer clears), one per
    multiset of values: equivalent cards of the same value are listed once."""
    k = state["codes"]
    need = C.VALUES[k[state["red"][seat]]]
    by_value: dict[int, list[int]] = {}
    purple_by_value: dict[int, int] = {}
    for number in state["hands"][seat]:
        code = k[number]
        if code[0] == "G":
            by_value.setdefault(C.VALUES[code], []).append(number)
        elif code[0] == "P":
            purple_by_value.setdefault(C.VALUES[code], number)
    values = sorted(by_value)
    purples = sorted(purple_by_value)
    found: list[tuple[list[int], int | None]] = []

    def consider(chosen: list[int], total: int) -> None:
        if total >= need:
            if total - min(chosen) < need:
                found.append((list(chosen), None))
            return
        for pv in purples:
            if total + pv >= need and total + pv - min(min(chosen), pv) < need:
                found.append((list(chosen), pv))

    def extend(start: int, chosen: list[int], total: int) -> None:
        for index in range(start, len(values)):
            v = values[index]
            if chosen.count(v) >= len(by_value[v]):
                continue
            chosen.append(v)
            consider(chosen, total + v)
            if total + v < need:
                extend(index, chosen, total + v)
            chosen.pop()

    extend(0, [], 0)
    actions: list[Action] = []
    for chosen, pv in found:
        used: dict[int, int] = {}
        ids = []
        for v in chosen:
            ids.append(C.card_id(by_value[v][used.get(v, 0)]))
            used[v] = used.get(v, 0) + 1
        action: Action = {"type": "clear_red", "greens": ids}
        if pv is not None:
            action["purple"] = C.card_id(purple_by_value[pv])
        actions.append(action)
    return actions
