"""Exact Plays states drawn from one seat's knowledge, for a search bot (``sample_state``).

A search bot that sees only its seat plays out many *determinisations*: full states that
agree with everything the seat knows, with the rest drawn at random. Everything but the
cards out of its sight and a few secret choices is public (EP-17), so a sample copies the
view and deals only these anew:

- **The cards out of sight** (the other hands; with 2 players the draw pile and the removed
  suit, with 3 the cards set aside). They are every card of the 32 not in the seat's hand, on
  the field or cleared this round: each round is a new deal (EP-2), so nothing seen in an
  earlier round says anything about this one. With 2 players the removed suit is a whole
  suit with no card seen this round, drawn uniformly among those (with the suit, the deal is
  then uniform among all consistent ones: every such suit leaves as many cards to deal).
  Hands are dealt uniformly; the draw pile's order is a fresh shuffle.
- **Once the game is over**, the last round's penalties (EP-14) are public and say how much
  the distinct numbers left in each other hand add up to (the round's ``round_ended`` event
  gives the token counts to take off): the other hands are drawn among those that match,
  each hand uniformly given the ones before it (close to, though not exactly, uniform over
  all matching deals).
- **An undisclosed declaration** (EP-3: a seat that declared while the declarations are not
  yet shown) is drawn from a simple prior: the number of distinct numbers in that seat's
  sampled hand (the plays it needs with singles and sets alone) less 0, 1 or 2 at random
  (runs let a hand need fewer), kept within 0-10. Any value is legal for that seat.
- **An unrevealed rock-paper-scissors shape** (EP-4: a tied seat that chose this throw) is
  drawn uniformly among the three.
- **The seeded generator** is a fresh one drawn from ``rng``, so the sample knows nothing of
  the real game's seed (later deals, a random tie-break, default moves).
- **A stacked deck** (the secret option ``decks``, which every seat sees as ``"stacked"``):
  the current round is dealt as above (the seat cannot tell a stacked deal from a shuffled
  one), and later rounds are shuffled from the fresh generator (a list of nulls keeps the
  view's ``"stacked"``). A list of decks given as the options (once the game is over, say)
  is kept for the later rounds.

The turn clock is not sampled (``"clock": None``): search does not simulate time.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from math import comb
from typing import Any

from cardroom.games.exact_plays.cards import ALL_CODES, NUMBERS, PARSED, SUITS, sort_codes
from cardroom.kit import rng as rngmod
from cardroom.kit.contract_types import Event, State, View
from cardroom.kit.rng import Random

# Rule constants the engine has too (EP-2, EP-3, EP-4); the engine imports this module, so
# it cannot import them back (tests/games/test_exact_plays_sampling.py checks they agree).
HAND_SIZE = 8
MAX_DECLARATION = 10
SHAPES = ("rock", "paper", "scissors")
# The largest seed the server draws for a new game (table/seating.py draws below 2**53).
SEED_BOUND = 2**53
# How many partial deals the search for hands matching the final penalties may try before
# it gives up and deals without them (only when the events given contradict the view).
SEARCH_BUDGET = 20_000

_CARD_NUMBER = {code: PARSED[code][0] for code in ALL_CODES}
_CARD_SUIT = {code: PARSED[code][1] for code in ALL_CODES}
_SUIT_CARDS = {letter: [c for c in ALL_CODES if _CARD_SUIT[c] == letter] for letter in SUITS}


def sample_state(view: View, seen: Sequence[Event], options: dict[str, Any], rng: Random) -> State:
    """A full state consistent with ``view`` (the seat's view now), ``seen`` (the events as
    that seat saw them) and ``options`` (as every seat sees them); see the module docstring
    for what is drawn and how. Raises ValueError for a view of no seat (a spectator's)."""
    you = view["you"]
    if you is None:
        raise ValueError("a spectator's view has no seat to sample for")
    seat: int = you["seat"]
    players: int = view["players"]
    phase: str = view["phase"]
    seats = view["seats"]

    own = [c["id"] for c in you["hand"]]
    field = [c["id"] for c in view["field"]]
    cleared = [c["id"] for c in view["cleared"]]
    sizes = [s["hand_size"] for s in seats]
    draw_size = view["draw_pile"] or 0

    others = [i for i in range(players) if i != seat]
    targets = _final_targets(view, seen, others) if phase == "over" else None
    hands, draw_pile, set_aside = _deal(
        players, others, sizes, draw_size, {*own, *field, *cleared}, targets, rng
    )
    hands[seat] = own

    if phase == "declare":
        declarations: list[int | None] = [None] * players
        declarations[seat] = you["declaration"]
        for other in others:
            if seats[other]["declared"]:
                declarations[other] = _declaration_prior(hands[other], rng)
    else:
        declarations = list(view["declarations"])

    field_wild = view["field_wild"]
    return {
        "players": players,
        "options": _options(view, options),
        "rng": rngmod.new_rng(rng.randrange(SEED_BOUND)),
        "round": view["round"],
        "phase": phase,
        "penalties": [list(r) for r in view["penalties"]],
        "turns_played": view["turns"],
        "result": copy.deepcopy(view["result"]),
        "clock": None,
        "hands": hands,
        "field": field,
        "field_wild": None if field_wild is None else field_wild["number"],
        "field_by": view["field_by"],
        "cleared": cleared,
        "draw_pile": draw_pile,
        "set_aside": set_aside,
        "declarations": declarations,
        "play_tokens": [s["play_tokens"] for s in seats],
        "wild_tokens": [s["wild_tokens"] for s in seats],
        "token_pile": view["token_pile"],
        "current_seat": view["turn"],
        "start_player": view["start_player"],
        "rps": _rps(view, you, seat, players, rng),
    }


def _options(view: View, options: dict[str, Any]) -> dict[str, Any]:
    """The options for the sample: as given, the stacked decks (unknown) left to the fresh
    generator, with the view's settings wherever the options given lack them."""
    shown = view["options"]
    sampled = dict(options)
    sampled.setdefault("tiebreak", shown["tiebreak"])
    sampled.setdefault("turn_limit", shown["turn_limit"])
    decks = sampled.get("decks")
    if shown["decks"] is None:
        sampled["decks"] = None
    elif not isinstance(decks, list):
        # "stacked": every deal the seat has not seen is unknown; null entries keep the view's
        # "stacked" while later rounds are shuffled from the sample's own generator
        sampled["decks"] = [None] * view["rounds"]
    else:
        sampled["decks"] = copy.deepcopy(decks)
    return sampled


def _deal(
    players: int,
    others: list[int],
    sizes: list[int],
    draw_size: int,
    seen_cards: set[str],
    targets: dict[int, int] | None,
    rng: Random,
) -> tuple[list[list[str]], list[str], list[str]]:
    """The other hands, the draw pile and the cards set aside, dealt anew from the cards out
    of the seat's sight (``hands[seat]`` is left empty for the caller)."""
    unseen = [c for c in ALL_CODES if c not in seen_cards]
    if players == 2:
        # EP-2: the removed suit is a whole suit, so none of its cards was seen this round
        seen_suits = {_CARD_SUIT[c] for c in seen_cards}
        suits: list[str | None] = [letter for letter in SUITS if letter not in seen_suits]
        if not suits:
            raise ValueError("every suit was seen this round: no suit can be the removed one")
        rng.shuffle(suits)
    else:
        suits = [None]
    for attempt, removed in enumerate(suits):
        pool = unseen if removed is None else [c for c in unseen if _CARD_SUIT[c] != removed]
        hands: list[list[str]] | None = None
        if targets:
            hands = _matching_hands(pool, others, sizes, targets, rng)
            if hands is None and attempt < len(suits) - 1:
                continue  # this removed suit leaves no deal matching the penalties
        if hands is None:
            rng.shuffle(pool)
            hands = [[] for _ in range(players)]
            start = 0
            for other in others:
                hands[other] = sort_codes(pool[start : start + sizes[other]])
                start += sizes[other]
            rest = pool[start:]
        else:
            dealt = {c for hand in hands for c in hand}
            rest = [c for c in pool if c not in dealt]
            rng.shuffle(rest)
        # 2 players: the draw pile; 3: the cards set aside; 4: none
        if len(rest) != (draw_size if players == 2 else len(ALL_CODES) - HAND_SIZE * players):
            raise ValueError("the view's hand sizes and piles do not add up to the deck")
        if removed is not None:
            return hands, rest, list(_SUIT_CARDS[removed])
        return hands, [], sort_codes(rest)
    raise AssertionError("unreachable")  # pragma: no cover


def _declaration_prior(hand: list[str], rng: Random) -> int:
    """An undisclosed declaration (module docstring): the hand's distinct numbers less 0-2."""
    distinct = len({_CARD_NUMBER[c] for c in hand})
    return max(0, min(MAX_DECLARATION, distinct - rng.randrange(3)))


def _rps(view: View, you: dict[str, Any], seat: int, players: int, rng: Random) -> Any:
    """Rock-paper-scissors as the view shows it; this throw's unrevealed shapes drawn."""
    shown = view["rps"]
    if shown is None:
        return None
    choices: list[str | None] = [None] * players
    if view["phase"] == "rps":
        for chooser in shown["chosen"]:
            choices[chooser] = you["rps_choice"] if chooser == seat else rng.choice(SHAPES)
    return {
        "players": list(shown["players"]),
        "choices": choices,
        "throws": [list(throw["shapes"]) for throw in shown["throws"]],
    }


# --- the end of the game: hands that match the last round's penalties --------------------


def _final_targets(view: View, seen: Sequence[Event], others: list[int]) -> dict[int, int] | None:
    """What the distinct numbers of each other hand add up to, by the last round's penalty
    (EP-14), or None when the events given do not include that round's end."""
    ended = next(
        (e for e in reversed(seen) if e.get("type") == "round_ended"),
        None,
    )
    if ended is None or ended.get("round") != view["round"]:
        return None
    targets = {}
    for other in others:
        tokens = 10 * (ended["play_tokens"][other] > 0) + 10 * (ended["wild_tokens"][other] > 0)
        targets[other] = -ended["penalties"][other] - tokens
    return targets


def _matching_hands(
    pool: list[str],
    others: list[int],
    sizes: list[int],
    targets: dict[int, int],
    rng: Random,
) -> list[list[str]] | None:
    """Hands for ``others`` from ``pool`` whose distinct numbers add up to their targets, or
    None if there are none (or the search ran out of budget).

    Only how many cards of each number a hand takes matters for the sums, so the search picks
    per-number counts seat by seat, each among all that fit weighted by how many hands they
    stand for, backtracking if a later seat cannot be served; then it deals actual cards.
    """
    by_number: dict[int, list[str]] = {n: [] for n in NUMBERS}
    for code in pool:
        by_number[_CARD_NUMBER[code]].append(code)
    available = [len(by_number[n]) for n in NUMBERS]
    search = _CountSearch([(sizes[o], targets[o]) for o in others], rng)
    counts = search.counts(available, 0)
    if counts is None:
        return None
    for codes in by_number.values():
        rng.shuffle(codes)
    hands: list[list[str]] = [[] for _ in range(len(sizes))]
    for other, per_number in zip(others, counts, strict=True):
        hand = []
        for index, count in enumerate(per_number):
            codes = by_number[NUMBERS[index]]
            hand += codes[:count]
            del codes[:count]
        hands[other] = sort_codes(hand)
    return hands


class _CountSearch:
    """Per-number counts for each (hand size, distinct sum) in ``wanted``, seat by seat,
    within the cards available, backtracking; a dead end (the cards left and the seats still
    to serve) is remembered, and the search gives up after ``SEARCH_BUDGET`` tries."""

    def __init__(self, wanted: list[tuple[int, int]], rng: Random) -> None:
        self.wanted = wanted
        self.rng = rng
        self.budget = SEARCH_BUDGET
        self.dead_ends: set[tuple[tuple[int, ...], int]] = set()

    def counts(self, available: list[int], index: int) -> list[list[int]] | None:
        if index == len(self.wanted):
            return []
        key = (tuple(available), index)
        if key in self.dead_ends:
            return None
        size, target = self.wanted[index]
        if size == sum(available):
            # the hand takes every card left (the last of 4 hands): one way, if it matches
            whole = sum(n for n, a in zip(NUMBERS, available, strict=True) if a)
            options = [(list(available), 1)] if whole == target else []
        else:
            options = _count_vectors(available, size, target)
        # a random order weighted by how many hands each count vector stands for
        # (Efraimidis-Spirakis: the largest u ** (1 / weight) first)
        rng = self.rng
        keyed = sorted(options, key=lambda option: -(rng.random() ** (1.0 / option[1])))
        for counts, _weight in keyed:
            self.budget -= 1
            if self.budget < 0:
                return None
            left = [a - c for a, c in zip(available, counts, strict=True)]
            rest = self.counts(left, index + 1)
            if rest is not None:
                return [counts, *rest]
        self.dead_ends.add(key)
        return None


def _count_vectors(available: list[int], size: int, target: int) -> list[tuple[list[int], int]]:
    """Every way to take ``size`` cards, so many of each number, whose distinct numbers add
    up to ``target``; each with the number of hands it stands for."""
    found: list[tuple[list[int], int]] = []
    counts = [0] * len(NUMBERS)
    # what the numbers from an index on can still give: cards, and distinct numbers' sum
    cards_from = [0] * (len(NUMBERS) + 1)
    sum_from = [0] * (len(NUMBERS) + 1)
    for index in reversed(range(len(NUMBERS))):
        cards_from[index] = cards_from[index + 1] + available[index]
        sum_from[index] = sum_from[index + 1] + (NUMBERS[index] if available[index] else 0)

    def extend(index: int, size_left: int, target_left: int, weight: int) -> None:
        if size_left == 0 and target_left == 0:
            found.append((list(counts), weight))
            return
        # each further number adds at least one card and its number to the sum
        if (
            size_left <= 0
            or target_left <= 0
            or size_left > cards_from[index]
            or target_left > sum_from[index]
        ):
            return
        extend(index + 1, size_left, target_left, weight)
        number = NUMBERS[index]
        for count in range(1, min(available[index], size_left) + 1):
            counts[index] = count
            extend(
                index + 1,
                size_left - count,
                target_left - number,
                weight * comb(available[index], count),
            )
        counts[index] = 0

    extend(0, size, target, 1)
    return found
