"""The Mr Toast rules engine (rulebook plus rulings MT-1..MT-15, see docs/rules/mr-toast.md).

State layout (plain JSON, compact; card numbers are ints, the wire id of card ``n`` is
``"c<n>"``)::

    n      number of seats
    k      code table: k[n] is the code of card n ("G3", "TB", ...)
    draw   draw pile, top first
    disc   discard pile, bottom first (last = top)
    hand   one list per seat, in the order the cards were received
    fun    per seat: the scored cards in front, [green] or [green, purple] per score
    red    per seat: the red card in front, or null
    brk    per seat: the Take a Break card in front, or null
    drawn  per seat: the cards of that seat's latest draw (private)
    cur    the seat whose turn it is;  turn: the turn number (1-based, skipped turns count)
    ph     "play" (step 2), "blue" (step 3 after a step-2 play), "react" (a No Way window),
           "over"
    pend   the unresolved blue play or null: {"s": seat, "c": card, "t": target or null,
           "nw": [[seat, card], ...] No Ways in order, "ans": seats that answered the
           latest card, "at": when the latest window opened (only with a deadline)}
    opt    mode, turn_limit, reaction_deadline, auto_allow
    rng    the seeded generator (cardroom.games.rng)
    res    the result once the game is over, else null
"""

from __future__ import annotations

import copy
import math
import re
from collections import Counter
from typing import Any

from cardroom.games import rng as rngmod
from cardroom.games.base import (
    Action,
    Event,
    Game,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    OptionSpec,
    State,
    View,
)
from cardroom.games.mr_toast import cards as C

HAND_SIZE = 5
WIN_SCORE = 15
_ID_RE = re.compile(r"c(0|[1-9][0-9]{0,5})")

_PHASE_TYPES = {
    "play": ("give_red", "score", "clear_red", "play_blue", "end_turn"),
    "blue": ("play_blue", "end_turn"),
    "react": ("no_way", "allow"),
}
_PHASE_NAMES = {"play": "play", "blue": "blue", "react": "reaction", "over": "over"}
_PHASE_STEPS = {"play": 2, "blue": 3, "react": 3, "over": None}


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
    rules_url = "docs/rules/mr-toast.md"
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
            "n": players,
            "k": table,
            "draw": ids[players * hand_size :],
            "disc": [],
            "hand": hands,
            "fun": [[] for _ in range(players)],
            "red": [None] * players,
            "brk": [None] * players,
            "drawn": [[] for _ in range(players)],
            "cur": first,
            "turn": 0,
            "ph": "play",
            "pend": None,
            "opt": {
                "mode": opts["mode"],
                "turn_limit": opts["turn_limit"],
                "reaction_deadline": opts["reaction_deadline"],
                "auto_allow": opts["auto_allow"],
            },
            "rng": rng,
            "res": None,
        }
        _begin_turn(state, first, [])
        return state

    # --- who acts, what is legal ----------------------------------------------------------

    def to_act(self, state: State) -> set[int]:
        if state["res"] is not None:
            return set()
        if state["ph"] == "react":
            return set(_waiting(state))
        return {state["cur"]}

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if not _is_seat(state, seat) or seat not in self.to_act(state):
            return []
        hand = state["hand"][seat]
        k = state["k"]
        phase = state["ph"]
        actions: list[Action] = []
        if phase == "react":
            for number in hand:
                if k[number] == "NW":
                    actions.append({"type": "no_way", "card": C.card_id(number)})
            actions.append({"type": "allow"})
            return actions
        if phase == "play":
            n = state["n"]
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
                exact = state["opt"]["mode"] == "exact"
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

    # --- applying actions -----------------------------------------------------------------

    def apply(
        self, state: State, seat: int, action: Action, now: float | None = None
    ) -> list[Event]:
        if now is not None and _expired(state, now):
            # MT-14: a request after the deadline closes the window first. Work on a copy so
            # that a refused action still leaves the state exactly as it was.
            work = copy.deepcopy(state)
            events = self.advance(work, now)
            events.extend(_apply(work, seat, action, now))
            state.clear()
            state.update(work)
            return events
        return _apply(state, seat, action, now)

    def deadline(self, state: State) -> float | None:
        pend = state["pend"]
        seconds = state["opt"]["reaction_deadline"]
        if state["ph"] != "react" or pend is None or seconds is None or pend.get("at") is None:
            return None
        return pend["at"] + seconds

    def advance(self, state: State, now: float) -> list[Event]:
        if now is None or not _expired(state, now):
            return []
        events: list[Event] = []
        pend = state["pend"]
        missing = _waiting(state)
        pend["ans"].extend(missing)
        events.append({"type": "window_closed", "reason": "deadline", "defaulted": missing})
        _resolve(state, events)
        return events

    # --- what players see -----------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> View:
        k = state["k"]
        scores = self.scores(state)
        seats = []
        for s in range(state["n"]):
            seats.append(
                {
                    "seat": s,
                    "hand_size": len(state["hand"][s]),
                    "score": scores[s],
                    "fun": [_fun_entry(k, entry) for entry in state["fun"][s]],
                    "red": _maybe_card(k, state["red"][s]),
                    "take_a_break": _maybe_card(k, state["brk"][s]),
                }
            )
        pend = state["pend"]
        pending = None
        if pend is not None:
            pending = {
                "seat": pend["s"],
                "card": C.wire(pend["c"], k[pend["c"]]),
                "target": pend["t"],
                "no_ways": [{"seat": s, "card": C.wire(c, k[c])} for s, c in pend["nw"]],
                "outcome": "cancelled" if len(pend["nw"]) % 2 else "happens",
                "eligible": _eligible(state),
                "answered": sorted(pend["ans"]),
                "waiting_for": _waiting(state),
                "opened_at": pend.get("at"),
                "deadline": self.deadline(state),
            }
        phase = state["ph"]
        opt = state["opt"]
        result: View = {
            "players": state["n"],
            "mode": opt["mode"],
            "turn_limit": opt["turn_limit"],
            "reaction_deadline": opt["reaction_deadline"],
            "auto_allow": opt["auto_allow"],
            "deck_size": len(k),
            "turn": state["turn"],
            "current_seat": state["cur"],
            "phase": _PHASE_NAMES[phase],
            "step": _PHASE_STEPS[phase],
            "seats": seats,
            "scores": scores,
            "draw_pile": len(state["draw"]),
            "discard_pile": [C.wire(c, k[c]) for c in state["disc"]],
            "pending": pending,
            "result": copy.deepcopy(state["res"]),
            "you": None,
        }
        if _is_seat(state, seat):
            hand = state["hand"][seat]
            result["you"] = {
                "seat": seat,
                "hand": [C.wire(c, k[c]) for c in hand],
                "drawn": [C.wire(c, k[c]) for c in state["drawn"][seat] if c in hand],
            }
        return result

    def result(self, state: State) -> dict[str, Any] | None:
        return copy.deepcopy(state["res"])

    def scores(self, state: State) -> list[int]:
        return [_score(state, s) for s in range(state["n"])]


# --- option helpers ------------------------------------------------------------------------------


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
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state["n"]


def _score(state: State, seat: int) -> int:
    k = state["k"]
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
    return pend["nw"][-1][0] if pend["nw"] else pend["s"]


def _eligible(state: State) -> list[int]:
    """MT-12: every seat except the player of the latest card of the chain."""
    latest = _latest_player(state["pend"])
    return [s for s in range(state["n"]) if s != latest]


def _waiting(state: State) -> list[int]:
    answered = state["pend"]["ans"]
    return [s for s in _eligible(state) if s not in answered]


def _expired(state: State, now: float) -> bool:
    pend = state["pend"]
    seconds = state["opt"]["reaction_deadline"]
    if state["ph"] != "react" or pend is None or seconds is None or pend.get("at") is None:
        return False
    return now >= pend["at"] + seconds


def _cards(state: State, numbers: list[int]) -> list[dict[str, Any]]:
    return [C.wire(c, state["k"][c]) for c in numbers]


def _card(state: State, number: int) -> dict[str, Any]:
    return C.wire(number, state["k"][number])


# --- turn flow -----------------------------------------------------------------------------------


def _draw(state: State, seat: int, count: int, events: list[Event]) -> None:
    """MT-5: draw ``count`` cards, reshuffling the discard pile into an empty draw pile."""
    drawn: list[int] = []
    for _ in range(count):
        if not state["draw"]:
            if not state["disc"]:
                break
            state["draw"] = rngmod.shuffled(state["rng"], state["disc"])
            state["disc"] = []
            events.append({"type": "reshuffled", "count": len(state["draw"])})
        drawn.append(state["draw"].pop(0))
    state["hand"][seat].extend(drawn)
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
    n = state["n"]
    while True:
        if state["turn"] >= state["opt"]["turn_limit"]:
            scores = [_score(state, s) for s in range(n)]
            best = max(scores)
            _finish(state, [s for s in range(n) if scores[s] == best], "turn_limit", events)
            return
        state["turn"] += 1
        state["cur"] = seat
        state["ph"] = "play"
        events.append({"type": "turn_started", "seat": seat, "turn": state["turn"]})
        brk = state["brk"][seat]
        if brk is None:
            _draw(state, seat, 1, events)
            return
        state["brk"][seat] = None
        state["disc"].append(brk)
        events.append({"type": "skipped", "seat": seat, "card": _card(state, brk)})
        events.append({"type": "turn_ended", "seat": seat, "turn": state["turn"]})
        seat = (seat + 1) % n


def _end_turn(state: State, events: list[Event]) -> None:
    seat = state["cur"]
    state["pend"] = None
    events.append({"type": "turn_ended", "seat": seat, "turn": state["turn"]})
    _begin_turn(state, (seat + 1) % state["n"], events)


def _finish(state: State, winners: list[int], reason: str, events: list[Event]) -> None:
    state["res"] = {
        "winners": winners,
        "scores": [_score(state, s) for s in range(state["n"])],
        "reason": reason,
        "turn": state["turn"],
        "turn_limit": state["opt"]["turn_limit"],
        "mode": state["opt"]["mode"],
    }
    state["ph"] = "over"
    state["pend"] = None
    events.append({"type": "game_over", "result": copy.deepcopy(state["res"])})


# --- reaction windows (MT-12..MT-14) -------------------------------------------------------------


def _open_window(state: State, now: float | None, events: list[Event]) -> None:
    pend = state["pend"]
    pend["ans"] = []
    if state["opt"]["reaction_deadline"] is not None and now is not None:
        pend["at"] = now
    else:
        pend.pop("at", None)
    if state["opt"]["auto_allow"]:
        k = state["k"]
        for s in _waiting(state):
            if not any(k[c] == "NW" for c in state["hand"][s]):
                pend["ans"].append(s)
                events.append({"type": "allowed", "seat": s, "auto": True})
    if not _waiting(state):
        _resolve(state, events)


def _resolve(state: State, events: list[Event]) -> None:
    """MT-13: even number of No Ways, the effect happens; odd, the blue card is cancelled."""
    pend = state["pend"]
    seat, card, target = pend["s"], pend["c"], pend["t"]
    no_ways = [c for _, c in pend["nw"]]
    code = state["k"][card]
    after: list[int] = []
    if len(no_ways) % 2:
        state["disc"].append(card)
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
            state["brk"][target] = card
        elif code == "IT":
            red = state["red"][seat]
            event["red"] = _card(state, red)
            state["red"][seat] = None
            state["disc"].append(red)
            state["disc"].append(card)
        events.append(event)
        if code == "FP":
            # The card is read, its action done, then it is discarded (so a reshuffle
            # during the draw never shuffles the Find a Penny or its No Ways back in).
            _draw(state, seat, 2, events)
            after.append(card)
    state["disc"].extend(after)
    state["disc"].extend(no_ways)
    _end_turn(state, events)


# --- action parsing ------------------------------------------------------------------------------


def _fields(action: Action, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    for name in required:
        if name not in action:
            raise IllegalAction(f"{action['type']} needs the field {name!r}", field=name)
    for name in action:
        if name != "type" and name not in required and name not in optional:
            raise IllegalAction(f"{action['type']} has no field {name!r}", field=name)


def _card_number(state: State, value: Any, field: str) -> int:
    if not isinstance(value, str) or not _ID_RE.fullmatch(value):
        raise IllegalAction(f"{field} must be a card id such as 'c17'", field=field)
    number = int(value[1:])
    if number >= len(state["k"]):
        raise IllegalAction(f"there is no card {value} in this game", field=field)
    return number


def _own_card(state: State, seat: int, value: Any, field: str, rule: str) -> int:
    number = _card_number(state, value, field)
    if number not in state["hand"][seat]:
        raise IllegalAction(f"card {value} is not in your hand", rule=rule, field=field)
    return number


def _target(state: State, value: Any, seat: int, rule: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalAction("target must be a seat number", field="target")
    if not 0 <= value < state["n"]:
        raise IllegalAction(f"there is no seat {value}", field="target")
    if value == seat:
        raise IllegalAction("target must be another player", rule=rule, field="target")
    return value


def _apply(state: State, seat: int, action: Action, now: float | None) -> list[Event]:
    if state["res"] is not None:
        raise GameOver("the game is over")
    if not _is_seat(state, seat):
        raise NotYourTurn(f"there is no seat {seat!r} in this game")
    phase = state["ph"]
    if phase == "react":
        if seat not in _waiting(state):
            pend = state["pend"]
            if seat == _latest_player(pend):
                why = "you played the latest card of the chain (MT-12)"
            else:
                why = "you have already answered the latest card"
            raise NotYourTurn(f"a No Way window is open and {why}", rule="MT-12")
    elif seat != state["cur"]:
        raise NotYourTurn(f"it is seat {state['cur']}'s turn", rule="MT-4")
    if not isinstance(action, dict):
        raise IllegalAction("an action must be a JSON object with a 'type'", field="type")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _HANDLERS:
        raise IllegalAction(
            f"unknown action type {kind!r}; Mr Toast knows {', '.join(_HANDLERS)}",
            field="type",
        )
    if kind not in _PHASE_TYPES[phase]:
        if phase == "react" or kind in ("no_way", "allow"):
            # Another phase's action: DESIGN makes the wrong phase a 409 not-your-turn.
            raise NotYourTurn(_wrong_phase(phase, kind), rule=_PHASE_RULE[kind], field="type")
        raise IllegalAction(_wrong_phase(phase, kind), rule=_PHASE_RULE[kind], field="type")
    events: list[Event] = []
    _HANDLERS[kind](state, seat, action, now, events)
    return events


_PHASE_RULE = {
    "give_red": "MT-7",
    "score": "MT-7",
    "clear_red": "MT-7",
    "play_blue": "MT-8",
    "end_turn": "MT-8",
    "no_way": "MT-12",
    "allow": "MT-12",
}


def _wrong_phase(phase: str, kind: str) -> str:
    if phase == "react":
        return "a No Way window is open: answer with no_way or allow"
    if kind in ("no_way", "allow"):
        return "No Way cards are only played as reactions to a blue or No Way card"
    return "you have already made your step-2 play: play a blue card or end_turn"


def _give_red(state: State, seat: int, action: Action, now: Any, events: list[Event]) -> None:
    _fields(action, ("card", "target"))
    card = _own_card(state, seat, action["card"], "card", "MT-7")
    if state["k"][card][0] != "R":
        raise IllegalAction(f"{action['card']} is not a red card", rule="MT-7", field="card")
    target = _target(state, action["target"], seat, "MT-7")
    if state["red"][target] is not None:
        raise IllegalAction(
            f"seat {target} already has a red card in front of them", rule="MT-7", field="target"
        )
    if not state["fun"][target]:
        raise IllegalAction(
            f"seat {target} has not scored yet (no green card in front of them)",
            rule="MT-7",
            field="target",
        )
    state["hand"][seat].remove(card)
    state["red"][target] = card
    state["ph"] = "blue"
    events.append(
        {"type": "chore_given", "seat": seat, "target": target, "card": _card(state, card)}
    )


def _optional_purple(state: State, seat: int, action: Action, rule: str) -> int | None:
    value = action.get("purple")
    if value is None:
        return None
    purple = _own_card(state, seat, value, "purple", rule)
    if state["k"][purple][0] != "P":
        raise IllegalAction(f"{value} is not a purple card", rule=rule, field="purple")
    return purple


def _score_action(state: State, seat: int, action: Action, now: Any, events: list[Event]) -> None:
    _fields(action, ("green",), ("purple",))
    k = state["k"]
    green = _own_card(state, seat, action["green"], "green", "MT-7")
    if k[green][0] != "G":
        raise IllegalAction(f"{action['green']} is not a green card", rule="MT-7", field="green")
    purple = _optional_purple(state, seat, action, "MT-7")
    if state["red"][seat] is not None:
        raise IllegalAction(
            "you have a red card in front of you: clear it before you score", rule="MT-7"
        )
    points = C.VALUES[k[green]] + (C.VALUES[k[purple]] if purple is not None else 0)
    before = _score(state, seat)
    exact = state["opt"]["mode"] == "exact"
    if exact and before + points > WIN_SCORE:
        raise IllegalAction(
            f"{points} points would take you from {before} past {WIN_SCORE} (mode exact)",
            rule="MT-10",
            field="green",
        )
    hand = state["hand"][seat]
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
            "purple": _maybe_card(k, purple),
            "points": points,
            "score": total,
        }
    )
    if (exact and total == WIN_SCORE) or (not exact and total >= WIN_SCORE):
        _finish(state, [seat], "exact_15" if exact else "reached_15", events)
        return
    state["ph"] = "blue"


def _clear_red(state: State, seat: int, action: Action, now: Any, events: list[Event]) -> None:
    _fields(action, ("greens",), ("purple",))
    k = state["k"]
    values = action["greens"]
    if not isinstance(values, list) or not values:
        raise IllegalAction("greens must be a non-empty list of card ids", field="greens")
    greens: list[int] = []
    for value in values:
        green = _own_card(state, seat, value, "greens", "MT-7")
        if k[green][0] != "G":
            raise IllegalAction(f"{value} is not a green card", rule="MT-7", field="greens")
        if green in greens:
            raise IllegalAction(f"{value} is listed twice", field="greens")
        greens.append(green)
    purple = _optional_purple(state, seat, action, "MT-7")
    red = state["red"][seat]
    if red is None:
        raise IllegalAction("you have no red card in front of you to clear", rule="MT-7")
    total = sum(C.VALUES[k[g]] for g in greens) + (C.VALUES[k[purple]] if purple is not None else 0)
    need = C.VALUES[k[red]]
    if total < need:
        raise IllegalAction(
            f"your cards add up to {total}, less than the red card's {need}",
            rule="MT-7",
            field="greens",
        )
    hand = state["hand"][seat]
    for green in greens:
        hand.remove(green)
    if purple is not None:
        hand.remove(purple)
    state["red"][seat] = None
    state["disc"].append(red)
    state["disc"].extend(greens)
    if purple is not None:
        state["disc"].append(purple)
    state["ph"] = "blue"
    events.append(
        {
            "type": "chore_cleared",
            "seat": seat,
            "red": _card(state, red),
            "greens": _cards(state, greens),
            "purple": _maybe_card(k, purple),
        }
    )


def _play_blue(state: State, seat: int, action: Action, now: Any, events: list[Event]) -> None:
    _fields(action, ("card",), ("target",))
    card = _own_card(state, seat, action["card"], "card", "MT-8")
    code = state["k"][card]
    if code == "NW":
        raise IllegalAction(
            "No Way cards are only played as reactions (no_way), never in step 2 or 3",
            rule="MT-8",
            field="card",
        )
    if code not in C.BLUES:
        raise IllegalAction(f"{action['card']} is not a blue card", rule="MT-8", field="card")
    target = action.get("target")
    if code == "TB":
        if target is None:
            raise IllegalAction(
                "Take a Break needs a target: another player", rule="MT-9", field="target"
            )
        target = _target(state, target, seat, "MT-9")
        if state["brk"][target] is not None:
            raise IllegalAction(
                f"seat {target} already has a Take a Break card in front of them",
                rule="MT-9",
                field="target",
            )
    elif target is not None:
        raise IllegalAction(f"{C.BLUE_NAMES[code]} takes no target", field="target")
    if code == "IT" and state["red"][seat] is None:
        raise IllegalAction(
            "In the Trash needs a red card in front of you", rule="MT-9", field="card"
        )
    state["hand"][seat].remove(card)
    state["pend"] = {"s": seat, "c": card, "t": target, "nw": [], "ans": []}
    state["ph"] = "react"
    events.append(
        {"type": "blue_played", "seat": seat, "card": _card(state, card), "target": target}
    )
    _open_window(state, now, events)


def _end_turn_action(
    state: State, seat: int, action: Action, now: Any, events: list[Event]
) -> None:
    _fields(action, ())
    _end_turn(state, events)


def _no_way(state: State, seat: int, action: Action, now: Any, events: list[Event]) -> None:
    _fields(action, ("card",))
    card = _own_card(state, seat, action["card"], "card", "MT-12")
    if state["k"][card] != "NW":
        raise IllegalAction(f"{action['card']} is not a No Way card", rule="MT-12", field="card")
    pend = state["pend"]
    state["hand"][seat].remove(card)
    pend["nw"].append([seat, card])
    events.append(
        {
            "type": "no_way",
            "seat": seat,
            "card": _card(state, card),
            "chain": len(pend["nw"]),
            "outcome": "cancelled" if len(pend["nw"]) % 2 else "happens",
        }
    )
    _open_window(state, now, events)


def _allow(state: State, seat: int, action: Action, now: Any, events: list[Event]) -> None:
    _fields(action, ())
    state["pend"]["ans"].append(seat)
    events.append({"type": "allowed", "seat": seat})
    if not _waiting(state):
        _resolve(state, events)


_HANDLERS = {
    "give_red": _give_red,
    "score": _score_action,
    "clear_red": _clear_red,
    "play_blue": _play_blue,
    "end_turn": _end_turn_action,
    "no_way": _no_way,
    "allow": _allow,
}


# --- legal action helpers ------------------------------------------------------------------------


def _blue_actions(state: State, seat: int) -> list[Action]:
    k = state["k"]
    actions: list[Action] = []
    for number in state["hand"][seat]:
        code = k[number]
        if code == "TB":
            for target in range(state["n"]):
                if target != seat and state["brk"][target] is None:
                    actions.append(
                        {"type": "play_blue", "card": C.card_id(number), "target": target}
                    )
        elif code == "FP" or (code == "IT" and state["red"][seat] is not None):
            actions.append({"type": "play_blue", "card": C.card_id(number)})
    return actions


def _minimal_clears(state: State, seat: int) -> list[Action]:
    """Minimal clear_red combinations (drop any card and it no longer clears), one per
    multiset of values: equivalent cards of the same value are listed once."""
    k = state["k"]
    need = C.VALUES[k[state["red"][seat]]]
    by_value: dict[int, list[int]] = {}
    purple_by_value: dict[int, int] = {}
    for number in state["hand"][seat]:
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
