"""Mr Toast states drawn from one seat's knowledge, for a search bot (``sample_state``).

A search bot that sees only its seat plays out many *determinisations*: full states that
agree with everything the seat knows, the rest drawn at random. Everything but the other
hands and the draw pile is public (MT-15), so a sample copies the view and deals only the
cards out of the seat's sight (the same ids, MT-2) anew. The seat knows more than the view
shows, and the sample keeps all of it:

- **Which codes are out of sight.** The deck's composition is public (MT-1: the option
  ``composition``, or the default deck), and every card the seat ever saw keeps its code
  (a card id never changes card). So the codes out of sight are the composition less every
  code the seat has seen, and a card it saw earlier (a card played, then reshuffled into the
  draw pile) is out of sight with the code it had.
- **Where each card can be.** The draw pile is dealt in passes: the first shuffle (what was
  not in the seat's own first hand), then each reshuffle of the discard pile (MT-5), whose
  cards were all public when it happened. Each seat's hand holds, per pass, as many cards as
  it drew from that pass less the cards it has since played from it; the draw pile holds
  only cards of the latest pass. These counts are public; which cards of a pass went where
  is not, and every placement is as likely as any other (a shuffle is uniform and the ids
  are a random permutation drawn apart from the shuffle, MT-2's "Card ids" choice). So a
  sample deals each pass's unseen cards uniformly into those counts, and gives the cards
  that are still unseen since the first deal their codes uniformly among the codes left.
- **No Way answers given by the table.** With ``auto_allow`` (MT-14) every No Way question
  tells everyone who held a No Way then: a seat answered automatically held none, a seat
  waited for held one. Two consequences for the hands now are certain, and a sample keeps
  both: a seat waited for that has played no No Way since still holds one; a seat answered
  automatically holds no more No Ways than the cards it has drawn since, less the No Ways it
  has played since (so none, within the same turn). The deal is drawn uniformly among those
  that keep them (rejection, then an exact count when that takes too long). Finer
  consequences about the timing of draws are not followed; no other answer or move is read
  as a sign of what a hand holds (a seat may always choose not to play a card).
- **The seeded generator** is a fresh one drawn from ``rng``: the sample knows nothing of
  the real game's seed (the order a future reshuffle gives).
- **A stacked deck** (the secret option ``deck``, seen as ``"stacked"``) is sampled as if
  shuffled: the seat cannot tell a stacked deck from a shuffled one.
- **What the view does not show** is made up: the other seats' hand order and the cards of
  their latest draw (``drawn``, which only their own view shows) are guesses, the turn clock
  is not sampled (``"clock": None``: search does not simulate time).

``analyse`` reads the arguments once and ``Knowledge.draw`` deals a sample from it, so a
caller that samples one position many times may analyse it once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from math import comb
from typing import Any

from cardroom.games.mr_toast import cards as C
from cardroom.kit import rng as rngmod
from cardroom.kit.contract_types import Event, State, View
from cardroom.kit.rng import Random

NO_WAY = "NW"
# The largest seed the server draws for a new game (table/seating.py draws below 2**53).
SEED_BOUND = 2**53
# Deals drawn without regard to the No Way answers before the sampler counts exactly.
REJECTION_TRIES = 8


def sample_state(
    view: View, seen: Sequence[Event], options: dict[str, Any], rng: Random, *, hand_size: int
) -> State:
    """A full state consistent with ``view`` (the seat's view now), ``seen`` (the events as
    that seat saw them, oldest first) and ``options`` (as every seat sees them), for a game
    that deals ``hand_size`` cards each (MT-3; fewer with a small deck); see the module
    docstring for what is drawn and how. Raises ValueError for a spectator's view, or for
    events that do not lead to the view."""
    return analyse(view, seen, options, hand_size=hand_size).draw(rng)


@dataclass(frozen=True)
class Bin:
    """A place out of the seat's sight: another seat's hand (``seat``) or the draw pile
    (``seat`` None), with how many of its unseen cards come from each pass, and the bounds
    the No Way answers set on how many No Ways it holds now."""

    seat: int | None
    slots: tuple[int, ...]  # per pass (index into Knowledge.pools)
    low: int
    high: int


@dataclass(frozen=True)
class Knowledge:
    """Everything one seat knows of a position, as ``sample_state`` needs it: the public
    state (card numbers), where the unseen cards may be, and which codes they may have."""

    players: int
    seat: int
    turn: dict[str, Any]  # current_seat, turn, phase: as the view gives them
    options: dict[str, Any]  # the state's options: mode, turn_limit, ...
    result: dict[str, Any] | None
    codes: tuple[str | None, ...]  # None: a card never seen
    hands: tuple[tuple[int, ...], ...]  # the seat's own hand; others empty (dealt per draw)
    drawn: tuple[int, ...]  # the seat's latest draw still in hand
    latest_draws: tuple[int, ...]  # per seat: how many cards its latest draw gave
    discard: tuple[int, ...]
    fun: tuple[tuple[tuple[int, ...], ...], ...]
    red: tuple[int | None, ...]
    breaks: tuple[int | None, ...]
    pending: dict[str, Any] | None
    # Per pass: its unseen cards (pass 0: the cards never seen, whose codes are unknown).
    pools: tuple[tuple[int, ...], ...]
    unknown_codes: tuple[str, ...]  # the codes of the cards never seen, any order
    pool_no_ways: tuple[int, ...]  # per pass: how many of its unseen cards are No Ways
    bins: tuple[Bin, ...]
    constrained: bool  # whether any bin's No Way bounds bind

    def draw(self, rng: Random) -> State:
        """One sample: the unseen cards dealt anew, a fresh seeded generator."""
        codes = list(self.codes)
        no_ways = self._no_way_counts(rng)
        placed: list[list[int]] = [[] for _ in self.bins]
        for pool_index, pool in enumerate(self.pools):
            if not pool:
                continue
            shuffled = list(pool)
            rng.shuffle(shuffled)
            if pool_index == 0:  # the cards never seen: their codes are dealt too
                others = [code for code in self.unknown_codes if code != NO_WAY]
                rng.shuffle(others)
                # Cards of this pass are interchangeable: deal them in order, the first of
                # each bin's share being its No Ways.
                at = 0
                other_at = 0
                for bin_index, target in enumerate(self.bins):
                    share = target.slots[pool_index]
                    if not share:
                        continue
                    count = no_ways[bin_index][pool_index]
                    chunk = shuffled[at : at + share]
                    at += share
                    for number in chunk[:count]:
                        codes[number] = NO_WAY
                    for number in chunk[count:]:
                        codes[number] = others[other_at]
                        other_at += 1
                    placed[bin_index].extend(_shuffled(chunk, rng))
                continue
            yes = [number for number in shuffled if codes[number] == NO_WAY]
            no = [number for number in shuffled if codes[number] != NO_WAY]
            yes_at = no_at = 0
            for bin_index, target in enumerate(self.bins):
                share = target.slots[pool_index]
                if not share:
                    continue
                count = no_ways[bin_index][pool_index]
                chunk = yes[yes_at : yes_at + count] + no[no_at : no_at + share - count]
                yes_at += count
                no_at += share - count
                placed[bin_index].extend(_shuffled(chunk, rng))
        hands = [list(hand) for hand in self.hands]
        drawn: list[list[int]] = [[] for _ in range(self.players)]
        drawn[self.seat] = list(self.drawn)
        draw_pile: list[int] = []
        for bin_index, target in enumerate(self.bins):
            if target.seat is None:
                draw_pile = placed[bin_index]  # one pass, already shuffled
                continue
            hand = placed[bin_index]
            hands[target.seat] = hand
            latest = min(self.latest_draws[target.seat], len(hand))
            drawn[target.seat] = hand[len(hand) - latest :]
        pending = self.pending
        return {
            "players": self.players,
            "codes": codes,
            "draw_pile": draw_pile,
            "discard_pile": list(self.discard),
            "hands": hands,
            "fun": [[list(entry) for entry in fun] for fun in self.fun],
            "red": list(self.red),
            "breaks": list(self.breaks),
            "drawn": drawn,
            **self.turn,
            "pending": None
            if pending is None
            else {
                **pending,
                "no_ways": [list(pair) for pair in pending["no_ways"]],
                "answered": list(pending["answered"]),
            },
            "options": dict(self.options),
            "rng": rngmod.new_rng(rng.randrange(SEED_BOUND)),
            "result": _copy_result(self.result),
            "clock": None,
        }

    # --- how many No Ways each place holds, per pass ---------------------------------------

    def _no_way_counts(self, rng: Random) -> list[list[int]]:
        """Per bin, per pass: how many of its cards are No Ways. Uniform among deals (each
        pass's No Ways spread uniformly over its slots), given the bins' bounds."""
        totals = list(self.pool_no_ways)
        for _ in range(REJECTION_TRIES if self.constrained else 1):
            # A bin that may hold none is left out: uniform over the other slots is uniform
            # given that it holds none. The other bounds are kept by rejection.
            counts = self._spread(totals, rng, skip_empty=True)
            if counts is not None and all(
                target.low <= sum(counts[index]) <= target.high
                for index, target in enumerate(self.bins)
            ):
                return counts
        exact = self._exact_counts(totals, rng)
        if exact is not None:
            return exact
        # Bounds no deal keeps come from events that do not lead to the view: ignore them.
        spread = self._spread(totals, rng, skip_empty=False)
        assert spread is not None
        return spread

    def _spread(
        self, totals: list[int], rng: Random, *, skip_empty: bool
    ) -> list[list[int]] | None:
        """No Ways placed uniformly over each pass's slots, without regard to the bounds
        (but for ``skip_empty``: none in a bin whose bound is 0); None if they do not fit."""
        counts = [[0] * len(self.pools) for _ in self.bins]
        for pool_index, total in enumerate(totals):
            if not total:
                continue
            slots = [
                0 if skip_empty and target.high == 0 else target.slots[pool_index]
                for target in self.bins
            ]
            room = sum(slots)
            if total > room:
                return None
            for position in rng.sample(range(room), total):
                for bin_index, share in enumerate(slots):
                    if position < share:
                        counts[bin_index][pool_index] += 1
                        break
                    position -= share
        return counts

    def _exact_counts(self, totals: list[int], rng: Random) -> list[list[int]] | None:
        """The counts drawn exactly: the deals that keep every bin's bounds, counted per bin
        and No Ways left; None if there is none."""
        bins = self.bins
        pools = range(len(self.pools))
        memo: dict[tuple[int, tuple[int, ...]], int] = {}

        def choices(index: int, left: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
            target = bins[index]
            ranges = [range(min(target.slots[p], left[p]) + 1) for p in pools]
            found = []
            for counts in product(*ranges):
                if target.low <= sum(counts) <= target.high:
                    ways = 1
                    for p in pools:
                        ways *= comb(target.slots[p], counts[p])
                    found.append((counts, ways))
            return found

        def deals(index: int, left: tuple[int, ...]) -> int:
            if index == len(bins):
                return 1 if not any(left) else 0
            key = (index, left)
            if key not in memo:
                memo[key] = sum(
                    ways * deals(index + 1, tuple(a - b for a, b in zip(left, counts, strict=True)))
                    for counts, ways in choices(index, left)
                )
            return memo[key]

        left = tuple(totals)
        if not deals(0, left):
            return None
        result = []
        for index in range(len(bins)):
            weighted = []
            for counts, ways in choices(index, left):
                rest = tuple(a - b for a, b in zip(left, counts, strict=True))
                weight = ways * deals(index + 1, rest)
                if weight:
                    weighted.append((counts, rest, weight))
            pick = rng.randrange(sum(weight for _, _, weight in weighted))
            for counts, rest, weight in weighted:
                if pick < weight:
                    result.append(list(counts))
                    left = rest
                    break
                pick -= weight
        return result


def _shuffled(items: list[int], rng: Random) -> list[int]:
    rng.shuffle(items)
    return items


def _copy_result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {key: list(value) if isinstance(value, list) else value for key, value in result.items()}


def _number(card: dict[str, Any]) -> int:
    return int(card["id"][1:])


def analyse(
    view: View, seen: Sequence[Event], options: dict[str, Any], *, hand_size: int
) -> Knowledge:
    """What the seat of ``view`` knows, read from its view, the events it saw and the
    options (see the module docstring). ValueError if the events do not lead to the view."""
    you = view["you"]
    if you is None:
        raise ValueError("a spectator's view has no seat to sample for")
    me: int = you["seat"]
    players: int = view["players"]
    deck_size: int = view["deck_size"]
    hand_size = min(hand_size, deck_size // players)  # "Small decks" (rules.md)
    auto_allow: bool = view["auto_allow"]
    codes: list[str | None] = [None] * deck_size

    def note(card: dict[str, Any]) -> int:
        number = _number(card)
        codes[number] = card["code"]
        return number

    # The replay of what the seat saw: passes through the draw pile, the discard pile.
    pass_of = [0] * deck_size  # the latest pass each card was shuffled into (0: the first)
    passes = 0
    discard: list[int] = []
    pile = deck_size - players * hand_size
    first_draw = 1 if pile > 0 else 0  # turn 1's draw happens at setup, with no event
    pile -= first_draw
    taken_from_old: int | None = None  # the cards a draw took before it reshuffled
    chain: list[int] = []  # the No Ways on the pending blue card
    after_draw: list[int] | None = None  # discarded once a Find a Penny's draw is done
    first_seat: int | None = None
    drawn_from = [[0] for _ in range(players)]  # per seat, per pass: cards drawn
    played_from = [[0] for _ in range(players)]  # per seat, per pass: cards played since
    latest_draws: list[int | None] = [None] * players  # None: no draw seen
    holds_no_way = [False] * players  # waited for, no No Way played since
    no_way_room: list[int | None] = [None] * players  # after an automatic answer

    def count(table: list[list[int]], seat: int, pass_index: int, amount: int) -> None:
        row = table[seat]
        while len(row) <= pass_index:
            row.append(0)
        row[pass_index] += amount

    def played(seat: int, card: dict[str, Any]) -> int:
        number = note(card)
        if seat != me:
            count(played_from, seat, pass_of[number], 1)
            if card["code"] == NO_WAY:
                holds_no_way[seat] = False
                room = no_way_room[seat]
                if room is not None:
                    no_way_room[seat] = room - 1
        return number

    def question(index: int, latest: int) -> None:
        """A No Way question opened at ``seen[index]`` (MT-12): with auto_allow, every
        other eligible seat answered at once told whether it held a No Way (MT-14)."""
        if not auto_allow:
            return
        automatic = set()
        for later in range(index + 1, len(seen)):
            answer = seen[later]
            if answer.get("type") != "allowed" or not answer.get("auto"):
                break
            automatic.add(answer["seat"])
        for other in range(players):
            if other in (me, latest):
                continue
            if other in automatic:
                holds_no_way[other] = False
                no_way_room[other] = 0
            else:
                holds_no_way[other] = True

    for index, event in enumerate(seen):
        kind = event.get("type")
        if kind == "drew":
            seat = event["seat"]
            amount = event["count"]
            old = 0
            if taken_from_old is not None:
                old, taken_from_old = taken_from_old, None
            pile -= amount - old
            if seat == me:
                for card in event.get("cards", ()):
                    note(card)
            else:
                if old:
                    count(drawn_from, seat, passes - 1, old)
                count(drawn_from, seat, passes, amount - old)
                latest_draws[seat] = amount
                room = no_way_room[seat]
                if room is not None:
                    no_way_room[seat] = room + amount
            if after_draw is not None:
                discard.extend(after_draw)
                after_draw = None
        elif kind == "reshuffled":
            if event["count"] != len(discard):
                raise ValueError("the events do not lead to this view: a reshuffle miscounted")
            passes += 1
            for number in discard:
                pass_of[number] = passes
            discard = []
            taken_from_old = pile  # the draw in progress took the old pile first (MT-5)
            pile = event["count"]
        elif kind == "scored":
            played(event["seat"], event["green"])
            if event["purple"] is not None:
                played(event["seat"], event["purple"])
        elif kind == "chore_given":
            played(event["seat"], event["card"])
        elif kind == "chore_cleared":
            greens = [played(event["seat"], card) for card in event["greens"]]
            discard.append(note(event["red"]))
            discard.extend(greens)
            if event["purple"] is not None:
                discard.append(played(event["seat"], event["purple"]))
        elif kind == "blue_played":
            played(event["seat"], event["card"])
            chain = []
            question(index, event["seat"])
        elif kind == "no_way":
            chain.append(played(event["seat"], event["card"]))
            question(index, event["seat"])
        elif kind == "blue_cancelled":
            discard.append(note(event["card"]))
            discard.extend(chain)
            chain = []
        elif kind == "blue_resolved":
            card = note(event["card"])
            effect = event["effect"]
            if effect == "in_the_trash":
                discard.append(note(event["red"]))
                discard.append(card)
            if effect == "find_a_penny":
                after_draw = [card, *chain]
            else:
                discard.extend(chain)
            chain = []
        elif kind == "skipped":
            discard.append(note(event["card"]))
        elif kind == "turn_ended" and event["turn"] == 1:
            first_seat = event["seat"]

    # The public state now, as card numbers (every card the view shows has its code).
    own = tuple(note(card) for card in you["hand"])
    seats = view["seats"]
    fun = tuple(
        tuple(
            (note(entry["green"]),)
            if entry["purple"] is None
            else (note(entry["green"]), note(entry["purple"]))
            for entry in seat_view["fun"]
        )
        for seat_view in seats
    )
    red = tuple(None if s["red"] is None else note(s["red"]) for s in seats)
    breaks = tuple(None if s["take_a_break"] is None else note(s["take_a_break"]) for s in seats)
    shown_discard = tuple(note(card) for card in view["discard_pile"])
    pending = None
    if view["pending"] is not None:
        pend = view["pending"]
        pending = {
            "seat": pend["seat"],
            "card": note(pend["card"]),
            "target": pend["target"],
            "no_ways": [(way["seat"], note(way["card"])) for way in pend["no_ways"]],
            "answered": list(pend["answered"]),
        }
        if pend["opened_at"] is not None:
            pending["opened_at"] = pend["opened_at"]
    if tuple(discard) != shown_discard or pile != view["draw_pile"]:
        raise ValueError("the events do not lead to this view: the piles differ")

    # Where the unseen cards may be: per other seat and pass, drawn less played.
    if first_seat is None:
        first_seat = view["current_seat"]
    latest = [
        (first_draw if other == first_seat else 0) if amount is None else amount
        for other, amount in enumerate(latest_draws)
    ]
    pool_count = passes + 1
    hidden = set(range(deck_size)) - set(own)
    hidden -= {c for entry in fun for scored in entry for c in scored}
    hidden -= {c for c in red if c is not None} | {c for c in breaks if c is not None}
    hidden -= set(shown_discard)
    if pending is not None:
        hidden -= {pending["card"], *(card for _, card in pending["no_ways"])}
    pools: list[list[int]] = [[] for _ in range(pool_count)]
    for number in sorted(hidden):
        pools[pass_of[number]].append(number)

    bins = []
    for other in range(players):
        if other == me:
            continue
        dealt = hand_size + (first_draw if other == first_seat else 0)
        count(drawn_from, other, 0, dealt)
        count(drawn_from, other, passes, 0)
        count(played_from, other, passes, 0)
        slots = tuple(a - b for a, b in zip(drawn_from[other], played_from[other], strict=True))
        if min(slots) < 0 or sum(slots) != seats[other]["hand_size"]:
            raise ValueError(f"the events do not lead to this view: seat {other}'s hand")
        room = no_way_room[other]
        bins.append(
            Bin(
                seat=other,
                slots=slots,
                low=1 if holds_no_way[other] else 0,
                high=sum(slots) if room is None else min(room, sum(slots)),
            )
        )
    pile_slots = [0] * pool_count
    pile_slots[passes] = view["draw_pile"]
    bins.append(Bin(seat=None, slots=tuple(pile_slots), low=0, high=view["draw_pile"]))
    for pool_index, pool in enumerate(pools):
        if sum(target.slots[pool_index] for target in bins) != len(pool):
            raise ValueError("the events do not lead to this view: the unseen cards miscount")

    # The codes of the cards never seen: the composition less every code seen.
    composition = options.get("composition") or C.DEFAULT_COMPOSITION
    left = Counter(C.expand(composition))
    left.subtract(code for code in codes if code is not None)
    unseen = [number for number in range(deck_size) if codes[number] is None]
    if any(amount < 0 for amount in left.values()) or sum(left.values()) != len(unseen):
        raise ValueError("the events do not lead to this view: the deck's composition differs")
    if unseen != pools[0]:
        raise ValueError("the events do not lead to this view: a card seen went unseen")
    unknown_codes = tuple(code for code in C.CODES for _ in range(left[code]))
    pool_no_ways = tuple(
        unknown_codes.count(NO_WAY)
        if pool_index == 0
        else sum(codes[number] == NO_WAY for number in pool)
        for pool_index, pool in enumerate(pools)
    )
    constrained = any(target.low > 0 or target.high < sum(target.slots) for target in bins)

    hands: list[tuple[int, ...]] = [() for _ in range(players)]
    hands[me] = own
    return Knowledge(
        players=players,
        seat=me,
        turn={key: view[key] for key in ("current_seat", "turn", "phase")},
        options={key: view[key] for key in ("mode", "turn_limit", "reaction_deadline")}
        | {"auto_allow": auto_allow},
        result=_copy_result(view["result"]),
        codes=tuple(codes),
        hands=tuple(hands),
        drawn=tuple(_number(card) for card in you["drawn"]),
        latest_draws=tuple(latest),
        discard=shown_discard,
        fun=fun,
        red=red,
        breaks=breaks,
        pending=pending,
        pools=tuple(tuple(pool) for pool in pools),
        unknown_codes=unknown_codes,
        pool_no_ways=pool_no_ways,
        bins=tuple(bins),
        constrained=constrained,
    )
