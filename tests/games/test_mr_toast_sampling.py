"""Mr Toast's sampler (``MrToast.sample_state``, mr_toast/sampling.py): the full states a
search bot plays out, drawn from one seat's view, the events it saw and the public options.

Random games (every player count, small decks that reshuffle often, auto_allow, reaction
deadlines, turn clocks) are sampled at many steps for every seat, and each sample is checked
against the real state: the same view (MT-15) and legal actions, the same cards out of
sight placed anew with every card in one place (MT-2), the same codes out of sight (MT-1:
the composition less every card seen), each hand holding as many cards of each pass
through the draw pile as the real one (MT-5: the reshuffled cards were public), the No Way
answers auto_allow gave kept (MT-14), and a state that plays on to the end. Targeted tests
then show each public fact at work, where a sampler that ignored it would fail.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations, product
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mr_toast_helpers import GAME, Table, redacted

from cardroom.games.mr_toast import engine as engine_module
from cardroom.games.mr_toast.bots import greedy
from cardroom.games.mr_toast.cards import CODES
from cardroom.games.mr_toast.sampling import Bin, Knowledge, analyse
from cardroom.kit import rng as rngmod

SERVER_EVENTS = [
    {"type": "game_created"},
    {"type": "seat_taken", "seat": 0},
    {"type": "game_started"},
]
SMALL_COUNTS = {"G1": 2, "G2": 2, "G3": 2, "G4": 1, "R2": 2, "R3": 1, "P1": 1, "P2": 1}
SMALL_COUNTS |= {"TB": 2, "FP": 2, "IT": 2, "NW": 3}
SMALL_DECK = [{"code": code, "count": count} for code, count in SMALL_COUNTS.items()]
TINY_DECK = [{"code": code, "count": 2} for code in ("G1", "G2", "R2", "P1", "TB", "FP", "NW")]


# --- playing real games, with what the sampler must match -----------------------------------


class RecordingRng:
    """cardroom.kit.rng as the engine uses it, recording each reshuffle's cards (the only
    shuffle after the deal): the ground truth of the passes through the draw pile."""

    def __init__(self) -> None:
        self.reshuffles: list[list[int]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(rngmod, name)

    def shuffled(self, rng_state: dict[str, Any], items: list[int]) -> list[int]:
        self.reshuffles.append(list(items))
        return rngmod.shuffled(rng_state, items)


@dataclass
class Real:
    """A real game in progress: its state, every event (stamped as the server stamps them)
    and the reshuffles so far."""

    players: int
    options: dict[str, Any]
    state: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    reshuffles: list[list[int]] = field(default_factory=list)

    def seen(self, seat: int) -> list[dict[str, Any]]:
        return redacted(self.events, seat)

    def public_options(self) -> dict[str, Any]:
        return GAME.public_options(self.options)

    def pass_of(self) -> dict[int, int]:
        """Each reshuffled card's latest pass (1 = the first reshuffle); others are pass 0."""
        passes: dict[int, int] = {}
        for index, cards in enumerate(self.reshuffles, start=1):
            for card in cards:
                passes[card] = index
        return passes


def play(
    seed: int, players: int, options: dict[str, Any], *, greedy_share: float = 0.5
) -> Iterator[Real]:
    """A random game (greedy or random moves, time passing, deadlines settled), yielded
    after every step."""
    rng = random.Random(seed)
    full = GAME.validate_options(players, options)
    real = Real(players, full, GAME.new_game(players, full, seed))
    now = 1_000.0
    seq = 0

    def log(events: list[dict[str, Any]], actor: int | None) -> None:
        nonlocal seq
        for event in events:
            seq += 1
            stamped = {"seq": seq, "version": seq, **event}
            if actor is not None:
                stamped.setdefault("actor", actor)
            real.events.append(stamped)

    log(copy.deepcopy(SERVER_EVENTS), None)
    log(GAME.start(real.state, now, set()), None)
    recorder = RecordingRng()
    real.reshuffles = recorder.reshuffles
    steps = 0
    while GAME.result(real.state) is None:
        steps += 1
        assert steps < 20_000, "the game does not end"
        now += rng.choice([0.5, 1.0, 2.0, 6.0])
        engine_module.rngmod = recorder
        try:
            deadline = GAME.deadline(real.state)
            if deadline is not None and now >= deadline:
                log(GAME.advance(real.state, now), None)
            else:
                seat = rng.choice(sorted(GAME.to_act(real.state)))
                legal = GAME.legal_actions(real.state, seat)
                if rng.random() < greedy_share:
                    action = greedy(GAME.view(real.state, seat), legal, rng)
                else:
                    action = rng.choice(legal)
                log(GAME.apply(real.state, seat, action, now), seat)
        finally:
            engine_module.rngmod = rngmod
        yield real


def play_to(stop: int | None, seed: int, players: int, options: dict[str, Any], **how: Any) -> Real:
    """The game of ``play`` after ``stop`` steps, or at its end (``stop`` None, or sooner)."""
    real = None
    for step, current in enumerate(play(seed, players, options, **how), start=1):
        real = current
        if step == stop:
            break
    assert real is not None
    return real


# --- what every sample must satisfy --------------------------------------------------------


def without_clock(view: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in view.items() if key != "clock"}


def all_cards(state: dict[str, Any]) -> list[int]:
    cards = list(state["draw_pile"]) + list(state["discard_pile"])
    for hand in state["hands"]:
        cards += hand
    for fun in state["fun"]:
        for entry in fun:
            cards += entry
    cards += [c for c in state["red"] if c is not None]
    cards += [c for c in state["breaks"] if c is not None]
    pend = state["pending"]
    if pend is not None:
        cards += [pend["card"]] + [c for _, c in pend["no_ways"]]
    return cards


def hidden_numbers(state: dict[str, Any], seat: int) -> list[int]:
    return [int(card[1:]) for card in GAME.hidden_cards(state, seat)]


def seen_ids(seen: list[dict[str, Any]]) -> set[int]:
    """Every card the events showed the seat (its own draws included)."""
    found: set[int] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "id" in value and "code" in value:
                found.add(int(value["id"][1:]))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(seen)
    return found


def no_ways_held(state: dict[str, Any], seat: int) -> int:
    return sum(state["codes"][card] == "NW" for card in state["hands"][seat])


def check_sample(real: Real, seat: int, sample: dict[str, Any], seen: list[dict]) -> None:
    state = real.state
    view = GAME.view(state, seat)
    codes = state["codes"]
    # 1. The same view (the clock aside), hence the same public and private parts (MT-15).
    assert without_clock(GAME.view(sample, seat)) == without_clock(view)
    # 2. The same legal actions, seats to act and seats awaited.
    assert GAME.legal_actions(sample, seat) == GAME.legal_actions(state, seat)
    assert GAME.to_act(sample) == GAME.to_act(state)
    assert GAME.awaiting(sample) == GAME.awaiting(state)
    # 3. The same cards out of sight, placed anew, every card in one place (MT-2) ...
    assert GAME.hidden_cards(sample, seat) == GAME.hidden_cards(state, seat)
    assert sorted(all_cards(sample)) == list(range(len(codes)))
    assert [len(hand) for hand in sample["hands"]] == [len(hand) for hand in state["hands"]]
    # ... with the same codes out of sight (MT-1: the composition less every card seen), a
    # card seen before keeping its code.
    hidden = hidden_numbers(state, seat)
    assert Counter(sample["codes"][c] for c in hidden) == Counter(codes[c] for c in hidden)
    for card in seen_ids(seen):
        assert sample["codes"][card] == codes[card]
    assert Counter(sample["codes"]) == Counter(codes)
    # 5. MT-5: each other hand holds as many cards of each pass through the draw pile as the
    # real one (the reshuffled cards were public), and the draw pile only the latest pass.
    passes = real.pass_of()
    for other in range(real.players):
        if other != seat:
            assert Counter(passes.get(c, 0) for c in sample["hands"][other]) == Counter(
                passes.get(c, 0) for c in state["hands"][other]
            )
    if real.reshuffles:
        assert set(sample["draw_pile"]) <= set(real.reshuffles[-1])
    # MT-14: with auto_allow, a seat the table waits for holds a No Way; and the bounds the
    # answers set hold in the real game too (the sampler never rules the truth out).
    if state["options"]["auto_allow"] and state["phase"] == "reaction":
        for other in GAME.to_act(sample) - {seat}:
            assert no_ways_held(sample, other) >= 1
    knowledge = analyse(view, seen, real.public_options(), hand_size=engine_module.HAND_SIZE)
    for place in knowledge.bins:
        if place.seat is not None:
            assert place.low <= no_ways_held(state, place.seat) <= place.high
            assert place.low <= no_ways_held(sample, place.seat) <= place.high
    # 4. Nothing of the real game's generator; 6. JSON, and no clock.
    assert sample["rng"]["draws"] == 0 and sample["rng"]["seed"] != state["rng"]["seed"]
    assert sample["clock"] is None
    assert json.loads(json.dumps(sample)) == sample


def check_plays_on(sample: dict[str, Any], rng: random.Random) -> None:
    """6. Every legal action of every seat to act is accepted, and random play from the
    sample reaches the end with cards conserved."""
    text = json.dumps(sample)
    for seat in sorted(GAME.to_act(sample)):
        for action in GAME.legal_actions(sample, seat):
            GAME.apply(json.loads(text), seat, action)
    state = json.loads(text)
    size = len(state["codes"])
    for _ in range(20_000):
        if GAME.result(state) is not None:
            break
        seat = rng.choice(sorted(GAME.to_act(state)))
        GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        assert sorted(all_cards(state)) == list(range(size))
    assert GAME.result(state) is not None


def sample_and_check(real: Real, seat: int, rng: random.Random, count: int, plays_on: bool):
    view = GAME.view(real.state, seat)
    seen = real.seen(seat)
    options = real.public_options()
    arguments = json.dumps([view, seen, options])
    for index in range(count):
        seed = rng.getrandbits(32)
        sample = GAME.sample_state(view, seen, options, random.Random(seed))
        check_sample(real, seat, sample, seen)
        assert GAME.sample_state(view, seen, options, random.Random(seed)) == sample
        if plays_on and index == 0:
            check_plays_on(sample, random.Random(seed))
    # The sampler reads its arguments and changes none of them.
    assert json.dumps([view, seen, options]) == arguments


# --- random games, every player count --------------------------------------------------------

SETUPS = [
    (players, options)
    for players in (2, 3, 4, 5, 6)
    for options in (
        {"turn_limit": 60},
        {"turn_limit": 40, "auto_allow": True, "mode": "irresponsible"},
        {"turn_limit": 30, "composition": SMALL_DECK, "auto_allow": True},
        {"turn_limit": 30, "composition": TINY_DECK, "reaction_deadline": 3.0},
        {"turn_limit": 25, "turn_seconds": 5, "away_after": 2, "auto_allow": True},
    )
]


@pytest.mark.parametrize(("players", "options"), SETUPS)
def test_samples_of_random_games_match_every_seats_knowledge(players, options):
    checked = 0
    for game in range(2):
        seed = players * 100 + SETUPS.index((players, options)) * 2 + game
        rng = random.Random(seed)
        for real in play(seed, players, options):
            if rng.random() < 0.25:
                for seat in range(players):
                    sample_and_check(real, seat, rng, count=2, plays_on=checked % 3 == 0)
                    checked += 1
    assert checked


def test_sampling_after_the_game_is_over():
    real = play_to(None, 3, 3, {"turn_limit": 20, "composition": SMALL_DECK})
    assert GAME.result(real.state) is not None
    for seat in range(3):
        sample_and_check(real, seat, random.Random(seat), count=3, plays_on=False)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    stop=st.integers(1, 400),
    options=st.fixed_dictionaries(
        {
            "turn_limit": st.sampled_from([5, 20, 60]),
            "auto_allow": st.booleans(),
            "mode": st.sampled_from(["exact", "irresponsible"]),
            "reaction_deadline": st.sampled_from([None, 2.0]),
            "composition": st.one_of(
                st.none(),
                st.lists(
                    st.tuples(st.sampled_from(CODES), st.integers(1, 6)),
                    min_size=1,
                    max_size=len(CODES),
                    unique_by=lambda item: item[0],
                )
                .filter(lambda items: sum(count for _, count in items) >= 2)
                .map(lambda items: [{"code": code, "count": count} for code, count in items]),
            ),
        }
    ),
)
def test_property_any_seat_at_any_step_samples_what_it_knows(players, seed, stop, options):
    real = play_to(stop, seed, players, options, greedy_share=0.3)
    rng = random.Random(seed)
    for seat in range(players):
        sample_and_check(real, seat, rng, count=2, plays_on=seat == 0)


# --- 4. only what the seat may know ----------------------------------------------------------


def test_states_that_differ_only_in_what_the_seat_cannot_see_give_the_same_samples():
    """Two real states that differ only in the other seats' unseen cards and the seed give
    the seat the same view and events, so the same rng seed gives the same sample: nothing of
    the real hands, draw pile order or seed gets in."""
    real = play_to(40, 11, 4, {"turn_limit": 60})
    assert GAME.result(real.state) is None
    seat = 0
    state = real.state
    seen = real.seen(seat)
    other = copy.deepcopy(state)
    # Unseen cards trade places: the hands of seats 1-3 and the draw pile, same sizes.
    never_seen = set(hidden_numbers(state, seat)) - seen_ids(seen)
    places = [other["draw_pile"]] + [other["hands"][s] for s in (1, 2, 3)]
    movable = [card for place in places for card in place if card in never_seen]
    shuffled = list(movable)
    random.Random(5).shuffle(shuffled)
    assert shuffled != movable
    swap = dict(zip(movable, shuffled, strict=True))
    for place in places:
        place[:] = [swap.get(card, card) for card in place]
    other["rng"] = rngmod.new_rng(state["rng"]["seed"] + 1)
    assert other["hands"] != state["hands"] or other["draw_pile"] != state["draw_pile"]
    view = GAME.view(state, seat)
    assert GAME.view(other, seat) == view
    options = real.public_options()
    for seed in range(5):
        first = GAME.sample_state(view, seen, options, random.Random(seed))
        again = GAME.sample_state(GAME.view(other, seat), seen, options, random.Random(seed))
        assert first == again
        assert first["rng"]["seed"] not in (state["rng"]["seed"], other["rng"]["seed"])


def test_a_spectators_view_cannot_be_sampled():
    t = Table([["G1"] * 5, ["G2"] * 5])
    with pytest.raises(ValueError, match="spectator"):
        GAME.sample_state(t.view(None), [], GAME.public_options(t.options), random.Random(0))


# --- 5. public facts that rule cards out ------------------------------------------------------


def samples(t: Table, seat: int, count: int = 200) -> list[dict[str, Any]]:
    view = t.view(seat)
    seen = redacted(t.events, seat)
    options = GAME.public_options(t.options)
    return [GAME.sample_state(view, seen, options, random.Random(i)) for i in range(count)]


def cancel_a_find_a_penny() -> Table:
    """Two players, a 12-card stacked deck: seat 0 plays Find a Penny, seat 1 cancels it
    with a No Way (both discarded), and the two-card draw pile runs out."""
    t = Table(
        [["FP", "G1", "G2", "G3", "G4"], ["NW", "G5", "G5", "P1", "P2"]],
        ["R2", "R3"],
        fill=False,
    )
    assert t.hand(0)[-1] == "R2"  # seat 0 drew the pile's top card when turn 1 began
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    t.act(1, {"type": "no_way", "card": t.card(1, "NW")})
    t.act(0, {"type": "allow"})
    assert t.state["phase"] == "play" and t.state["current_seat"] == 1
    return t


def test_mt5_a_reshuffled_pile_holds_the_cards_that_were_discarded():
    """MT-5 and MT-15: the discard pile (the Find a Penny and the No Way) was public when it
    was shuffled into the draw pile; seat 0 drew one of the two, so the draw pile now holds
    exactly the other one, with its code. Dealing the unseen cards at random would put one
    of seat 1's hand cards there."""
    t = cancel_a_find_a_penny()
    discarded = {int(card["id"][1:]) for card in t.view(0)["discard_pile"]}
    assert {t.state["codes"][c] for c in discarded} == {"FP", "NW"}
    t.end_turn(1)  # the pile is empty: seat 0's draw reshuffles the discard pile
    assert "reshuffled" in [event["type"] for event in t.events]
    drawn = int(t.view(0)["you"]["drawn"][0]["id"][1:])
    (left,) = discarded - {drawn}
    assert t.state["draw_pile"] == [left]
    # Seat 1 does not see which one seat 0 drew: either may be in the pile, with its code.
    in_pile = Counter()
    for sample in samples(t, 1):
        (card,) = sample["draw_pile"]
        assert card in discarded
        assert sample["codes"][card] == t.state["codes"][card]
        in_pile[card] += 1
    assert set(in_pile) == discarded and min(in_pile.values()) > 60
    # Seat 0 saw its own draw: the pile holds the other card in every sample.
    assert all(sample["draw_pile"] == [left] for sample in samples(t, 0, 50))


def test_mt1_cards_seen_played_are_gone_from_the_unseen_codes():
    """MT-1 with a composition: the deck's two No Ways are both seen (one cancelled the Find
    a Penny, the other is in seat 0's hand), so no sample gives seat 1 a No Way, while seat
    1's unplayed G5s stay out of seat 0's sight in every sample."""
    t = Table(
        [["FP", "G1", "G2", "G3", "NW"], ["NW", "G5", "G5", "P1", "P2"]],
        ["R2", "R3"],
        fill=False,
    )
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    t.act(1, {"type": "no_way", "card": t.card(1, "NW")})
    t.act(0, {"type": "allow"})
    for sample in samples(t, 0):
        hand = Counter(sample["codes"][c] for c in sample["hands"][1])
        unseen = Counter(sample["codes"][c] for c in sample["hands"][1] + sample["draw_pile"])
        assert hand["NW"] == 0
        assert unseen == Counter({"G5": 2, "P1": 1, "P2": 1, "R3": 1})


def test_mt14_auto_allow_answers_say_who_holds_a_no_way():
    """MT-14 with auto_allow: seat 1 was answered at once (it holds no No Way), seat 2 was
    waited for (it holds one). Every sample of seat 0 keeps that; on seat 1's next turn it
    has drawn one card, which may be a No Way, but no more than one."""
    t = Table(
        [["FP", "G1", "G2", "G3", "G4"], ["G1", "G2", "G3", "P1", "P2"], ["NW", "G5"] * 2 + ["G5"]],
        ["G1", "NW", "NW", "NW"],
        auto_allow=True,
    )
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    assert [e.get("auto") for e in t.events if e["type"] == "allowed"] == [True]
    assert GAME.to_act(t.state) == {2}
    for sample in samples(t, 0):
        assert no_ways_held(sample, 1) == 0
        assert no_ways_held(sample, 2) >= 1
    t.act(2, {"type": "allow"})  # Find a Penny: seat 0 draws two, then seat 1's turn
    assert t.state["current_seat"] == 1
    counts = Counter()
    for sample in samples(t, 0):
        counts[no_ways_held(sample, 1)] += 1
        assert no_ways_held(sample, 2) >= 1
    assert set(counts) == {0, 1}


def test_without_auto_allow_the_answers_say_nothing():
    """Without auto_allow every seat is waited for (MT-14): nothing is read from it, and the
    sampler gives seat 1 a No Way about as often as the unseen cards hold them."""
    t = Table(
        [["FP", "G1", "G2", "G3", "G4"], ["G1", "G2", "G3", "P1", "P2"], ["NW", "G5"] * 2 + ["G5"]],
        ["G1", "NW", "NW", "NW"],
    )
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    held = Counter(min(no_ways_held(sample, 1), 1) for sample in samples(t, 0))
    assert held[0] and held[1]


def test_the_first_turns_draw_happens_with_no_event():
    """Turn 1's draw happens at setup, where no event is logged: the first player's hand
    has one card more, and the sampler counts it (from the first turn_ended, or the turn)."""
    t = Table([["G1"] * 5, ["G2"] * 5, ["G3"] * 5], first_seat=2)
    assert [len(hand) for hand in t.state["hands"]] == [5, 5, 6]
    for seat in range(3):
        for sample in samples(t, seat, 5):
            assert [len(hand) for hand in sample["hands"]] == [5, 5, 6]
    t.end_turn(2)
    for sample in samples(t, 1, 5):
        assert [len(hand) for hand in sample["hands"]] == [6, 5, 6]


def test_events_that_do_not_lead_to_the_view_are_refused():
    t = cancel_a_find_a_penny()
    seen = redacted(t.events, 1)
    with pytest.raises(ValueError, match="do not lead to this view"):
        GAME.sample_state(t.view(1), seen[:-3], GAME.public_options(t.options), random.Random(0))


# --- the No Way counts are drawn exactly -----------------------------------------------------


def knowledge(bins: list[Bin], pool_no_ways: list[int]) -> Knowledge:
    """Just enough Knowledge to draw No Way counts."""
    return Knowledge(
        players=len(bins),
        seat=0,
        turn={},
        options={},
        result=None,
        codes=(),
        hands=(),
        drawn=(),
        latest_draws=(),
        discard=(),
        fun=(),
        red=(),
        breaks=(),
        pending=None,
        pools=tuple(() for _ in pool_no_ways),
        unknown_codes=(),
        pool_no_ways=tuple(pool_no_ways),
        bins=tuple(bins),
        constrained=True,
    )


def test_no_way_counts_are_uniform_among_deals_that_keep_the_bounds():
    """Each pass's No Ways are spread uniformly over its slots, given the bounds: the
    rejection sampler and the exact count both give the distribution that enumerating
    every placement gives."""
    bins = [
        Bin(seat=1, slots=(3, 1), low=1, high=3),
        Bin(seat=2, slots=(2, 2), low=0, high=0),
        Bin(seat=3, slots=(4, 0), low=1, high=1),
        Bin(seat=None, slots=(0, 3), low=0, high=3),
    ]
    totals = [3, 2]
    expected: Counter[tuple] = Counter()
    per_pool = []
    for pool, total in enumerate(totals):
        owners = [index for index, b in enumerate(bins) for _ in range(b.slots[pool])]
        per_pool.append(
            [[owners[i] for i in chosen] for chosen in combinations(range(len(owners)), total)]
        )
    for placement in product(*per_pool):
        counts = tuple(
            tuple(placement[pool].count(index) for pool in range(len(totals)))
            for index in range(len(bins))
        )
        if all(b.low <= sum(counts[i]) <= b.high for i, b in enumerate(bins)):
            expected[counts] += 1
    whole = sum(expected.values())
    k = knowledge(bins, totals)
    rng = random.Random(0)
    draws = 4000
    for draw in (k._no_way_counts, lambda r: k._exact_counts(list(totals), r)):
        got = Counter(tuple(tuple(row) for row in draw(rng)) for _ in range(draws))
        assert set(got) == set(expected)
        for counts, ways in expected.items():
            assert abs(got[counts] / draws - ways / whole) < 0.03


def test_unseen_cards_are_dealt_uniformly():
    """At the start of a 3-player game, seat 0's samples put each unseen card in seat 1's
    hand, seat 2's hand or the draw pile as often as their sizes say, and give it each code
    as often as the unseen codes hold it."""
    t = Table([["G1", "G1", "G2", "NW", "TB"], ["G3"] * 5, ["G4"] * 5], first_seat=1)
    drawn = samples(t, 0, 3000)
    unseen = hidden_numbers(t.state, 0)
    size = len(unseen)
    card = unseen[0]
    places = Counter()
    codes = Counter()
    for sample in drawn:
        for place, cards in (("1", sample["hands"][1]), ("2", sample["hands"][2])):
            if card in cards:
                places[place] += 1
        codes[sample["codes"][card]] += 1
    assert abs(places["1"] / 3000 - 6 / size) < 0.03
    assert abs(places["2"] / 3000 - 5 / size) < 0.03
    left = Counter(t.state["codes"][c] for c in unseen)
    for code, count in left.items():
        assert abs(codes[code] / 3000 - count / size) < 0.03
