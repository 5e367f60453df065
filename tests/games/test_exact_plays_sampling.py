"""Exact Plays: states sampled from one seat's knowledge (``sample_state``, for search bots;
exact_plays/sampling.py).

Seeded random games of every player count (shuffled and stacked decks, both tie-breaks, a
turn clock, a short turn limit), sampled at many steps for every seat from its view, the
events as it saw them (with the server's stamps and its own events) and the options as every
seat sees them. Each sample must give the seat exactly its view and legal actions, await the
same seats, hide the same cards placed anew (every card in one place), carry no part of the
real seed, respect what is public (EP-17: cards seen this round, with 2 players the suits
that cannot be the removed one, the last round's penalties once the game is over), draw the
secret choices legally, round-trip through JSON, accept every legal action and play on to the
end. Two real games that differ only in what the seat cannot see give the same samples.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from exact_plays_helpers import GAME, act, all_cards, clone, deck, new_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardroom.games.exact_plays import engine, sampling
from cardroom.games.exact_plays.bots import greedy
from cardroom.games.exact_plays.cards import ALL_CODES, PARSED
from cardroom.games.exact_plays.engine import SHAPES, penalty
from cardroom.kit.base import redact_event

# (players, seed, options, greedy share) of the random games sampled at every step: uniformly
# random players mostly end a game at -50 within two rounds; mostly greedy tables play on
GAMES_PER_COUNT = 8
OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"tiebreak": "random"},
    {"turn_seconds": 30, "bank_seconds": 60},
    {"turn_limit": 25},
    {"decks": [None]},  # a stacked game (every deal shuffled: what the seats see is "stacked")
]
GAMES = [
    (players, seed, OPTION_SETS[seed % len(OPTION_SETS)], 0.0 if seed % 3 == 0 else 0.85)
    for players in (2, 3, 4)
    for seed in range(GAMES_PER_COUNT)
]
SAMPLES = 2  # per seat at a checked step


# --- playing and sampling -------------------------------------------------------------------


def stamped(events: list[dict], version: int, actor: int | None) -> list[dict]:
    """Events as the server logs them: with its stamps (seat events keep their own keys)."""
    return [
        {**event, "seq": version * 100 + i, "version": version, "actor": actor}
        for i, event in enumerate(events)
    ]


def server_start(players: int) -> list[dict]:
    """The server's own events before the first action (table/steps.py)."""
    events: list[dict] = [{"type": "game_created", "players": players}]
    events += [{"type": "seat_taken", "seat": s, "name": f"p{s}"} for s in range(players)]
    events.append({"type": "game_started"})
    return stamped(events, 0, None)


def seen_by(events: list[dict], seat: int) -> list[dict]:
    return [shown for event in events if (shown := redact_event(event, seat)) is not None]


def start(players: int, seed: int, options: dict[str, Any]) -> dict:
    return GAME.new_game(players, GAME.validate_options(players, options), seed)


def random_step(
    state: dict, rng: random.Random, greedy_share: float = 0.0
) -> tuple[int, list[dict]]:
    """One step (mostly by a seat the game waits for), and its events: the greedy bot's
    action for ``greedy_share`` of the steps (its games last all the rounds), else a random
    legal one."""
    awaited = sorted(GAME.awaiting(state))
    seats = awaited if awaited and rng.random() < 0.9 else sorted(GAME.to_act(state))
    seat = rng.choice(seats)
    legal = GAME.legal_actions(state, seat)
    if rng.random() < greedy_share:
        action = greedy(GAME.view(state, seat), legal, rng)
    else:
        action = rng.choice(legal)
    return seat, GAME.apply(state, seat, action)


def sample(state: dict, events: list[dict], seat: int, seed: Any) -> dict:
    """A sample for ``seat`` from its own knowledge only (copies: the sampler may not rely
    on the real objects)."""
    view = clone(GAME.view(state, seat))
    options = GAME.public_options(state["options"])
    return GAME.sample_state(view, clone(seen_by(events, seat)), options, random.Random(seed))


def without_clock(view: dict) -> dict:
    return {key: value for key, value in view.items() if key != "clock"}


def distinct_sum(hand: list[str]) -> int:
    return sum({PARSED[c][0] for c in hand})


# --- what every sample must satisfy ----------------------------------------------------------


def check_sample(real: dict, events: list[dict], seat: int, sampled: dict) -> None:
    """Requirements 1-5 (and 6's JSON) for one sample of ``real`` for ``seat``."""
    players = real["players"]
    # 1. the same view (its clock aside), public and private part
    assert without_clock(GAME.view(sampled, seat)) == without_clock(GAME.view(real, seat))
    # 2. the same legal actions, the same seats to act and awaited
    assert GAME.legal_actions(sampled, seat) == GAME.legal_actions(real, seat)
    assert GAME.to_act(sampled) == GAME.to_act(real)
    assert GAME.awaiting(sampled) == GAME.awaiting(real)
    assert GAME.phase(sampled) == GAME.phase(real)
    # 3. the same cards out of sight, every card in exactly one place, the counts shown
    assert GAME.hidden_cards(sampled, seat) == GAME.hidden_cards(real, seat)
    assert Counter(all_cards(sampled)) == Counter(ALL_CODES)
    assert [len(h) for h in sampled["hands"]] == [len(h) for h in real["hands"]]
    assert len(sampled["draw_pile"]) == len(real["draw_pile"])
    assert len(sampled["set_aside"]) == len(real["set_aside"])
    assert all(h == sorted(h, key=ALL_CODES.index) for h in sampled["hands"])
    if players == 2:  # EP-2: the removed suit is one whole suit
        assert len({PARSED[c][1] for c in sampled["set_aside"]}) == 1
    # 4. a fresh generator, not the real game's
    assert sampled["rng"]["seed"] != real["rng"]["seed"]
    assert sampled["rng"]["draws"] == 0
    assert sampled["clock"] is None
    # 5. what is public this round rules cards out (EP-17) ...
    public = set(real["hands"][seat]) | set(real["field"]) | set(real["cleared"])
    assert not public & GAME.hidden_cards(sampled, seat)
    if players == 2:
        assert PARSED[sampled["set_aside"][0]][1] not in {PARSED[c][1] for c in public}
    # ... secret choices are drawn where they are secret, and legal (EP-3, EP-4)
    for other in range(players):
        declared = sampled["declarations"][other]
        assert (declared is None) == (real["declarations"][other] is None)
        assert declared is None or 0 <= declared <= 10
        if real["phase"] != "declare" or other == seat:
            assert declared == real["declarations"][other]
    if real["rps"] is not None:
        for other, choice in enumerate(sampled["rps"]["choices"]):
            assert (choice is None) == (real["rps"]["choices"][other] is None)
            assert choice is None or choice in SHAPES
        assert sampled["rps"]["choices"][seat] == real["rps"]["choices"][seat]
        assert sampled["rps"]["throws"] == real["rps"]["throws"]
    # ... and once the game is over, the last round's penalties (EP-14)
    if real["phase"] == "over":
        ended = last_round(events)
        for other in range(players):
            hand = sampled["hands"][other]
            left = -penalty(hand, ended["play_tokens"][other], ended["wild_tokens"][other])
            assert left == real["penalties"][-1][other]
    # 6. plain JSON
    assert json.loads(json.dumps(sampled)) == sampled


def last_round(events: list[dict]) -> dict:
    return next(e for e in reversed(events) if e["type"] == "round_ended")


def check_every_action(sampled: dict) -> None:
    """6. every legal action of every seat that may act is accepted."""
    for seat in sorted(GAME.to_act(sampled)):
        for action in GAME.legal_actions(sampled, seat):
            GAME.apply(clone(sampled), seat, action)


def check_plays_to_the_end(sampled: dict, rng: random.Random) -> None:
    """6. random play from the sample ends the game, the engine's invariants holding."""
    state = clone(sampled)
    for _ in range(10_000):
        if GAME.phase(state) == "over":
            break
        random_step(state, rng)
        assert Counter(all_cards(state)) == Counter(ALL_CODES)
        assert state["token_pile"] + sum(state["play_tokens"]) + sum(state["wild_tokens"]) == 40
    assert GAME.phase(state) == "over" and GAME.result(state)["winners"]


# --- random games ----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed", "options", "greedy_share"), GAMES)
def test_samples_of_random_games(
    players: int, seed: int, options: dict[str, Any], greedy_share: float
) -> None:
    rng = random.Random(seed)
    state = start(players, seed, options)
    events = server_start(players)
    checked = 0
    for step in range(10_000):
        for seat in range(players):  # every step, every seat
            for k in range(SAMPLES):
                sampled = sample(state, events, seat, f"{seed}:{step}:{seat}:{k}")
                check_sample(state, events, seat, sampled)
                if k == 0 and seat in GAME.to_act(state):
                    check_every_action(sampled)
                if k == 0 and checked % 15 == 0:
                    check_plays_to_the_end(sampled, random.Random(step))
                checked += 1
        if GAME.phase(state) == "over":
            break
        seat, produced = random_step(state, rng, greedy_share)
        events += stamped(produced, step + 1, seat)
    assert GAME.phase(state) == "over"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=4),
    game_seed=st.integers(min_value=0, max_value=2**32),
    steps=st.integers(min_value=0, max_value=120),
    sample_seed=st.integers(min_value=0, max_value=2**32),
    tiebreak=st.sampled_from(["rps", "random"]),
)
def test_any_sample_is_consistent_and_plays_on(
    players: int, game_seed: int, steps: int, sample_seed: int, tiebreak: str
) -> None:
    rng = random.Random(game_seed)
    state = start(players, game_seed, {"tiebreak": tiebreak})
    events = server_start(players)
    for step in range(steps):
        if GAME.phase(state) == "over":
            break
        seat, produced = random_step(state, rng)
        events += stamped(produced, step + 1, seat)
    seat = sample_seed % players
    sampled = sample(state, events, seat, sample_seed)
    check_sample(state, events, seat, sampled)
    check_every_action(sampled)


def test_the_same_rng_seed_gives_the_same_sample_and_others_differ() -> None:
    state = start(3, 5, {})
    events = server_start(3)
    act(state, 1, "declare", tokens=4)
    first = sample(state, events, 0, 1)
    assert sample(state, events, 0, 1) == first
    others = [sample(state, events, 0, seed) for seed in range(2, 12)]
    assert any(other["hands"] != first["hands"] for other in others)
    assert len({json.dumps(other["rng"]) for other in others}) == len(others)


# --- the seat knows only what it knows -------------------------------------------------------

OWN_2P = ["2M", "3M", "4M", "5M", "2S", "3S", "4S", "5S"]


def twin_two_player_games() -> tuple[dict, dict]:
    """Two 2-player games, different seeds, in which seat 0 holds the same hand and the draw
    pile's top card is the same, but the removed suit (acorn / bolt) and so seat 1's hand
    and the rest of the draw pile differ."""
    games = []
    for seed, removed in ((11, "A"), (99, "B")):
        order = deck(2, {0: OWN_2P}, draw=["9S"], removed=removed)
        games.append(new_game(2, None, seed=seed, decks=[order]))
    return games[0], games[1]


def twin_four_player_games() -> tuple[dict, dict]:
    """Two 4-player games, different seeds, seat 0's hand the same, the others' shuffled."""
    own = ["2M", "3M", "4M", "5M", "7S", "7A", "9B", "9S"]
    rest = [c for c in ALL_CODES if c not in own]
    games = []
    for seed in (3, 4):
        random.Random(seed).shuffle(rest)
        games.append(new_game(4, None, seed=seed, decks=[own + rest]))
    return games[0], games[1]


def test_games_that_differ_only_out_of_sight_give_the_same_samples_2p() -> None:
    """Requirement 4: nothing but the view, the events as seen and the options is read."""
    a, b = twin_two_player_games()
    assert a["hands"][1] != b["hands"][1] and a["set_aside"] != b["set_aside"]
    script = [
        (1, {"type": "declare", "tokens": 0}),
        (0, {"type": "declare", "tokens": 3}),
        (0, {"type": "draw"}),  # both draw 9S
        (1, {"type": "pass"}),
        (0, {"type": "play", "cards": ["2M", "3M", "4M", "5M"]}),
        (1, {"type": "pass"}),
        (0, {"type": "play", "cards": ["9S"]}),
    ]
    compare_twins(a, b, [(seat, action, action) for seat, action in script])


def test_games_that_differ_only_out_of_sight_give_the_same_samples_4p() -> None:
    a, b = twin_four_player_games()
    assert a["hands"][1:] != b["hands"][1:]

    def declare(tokens: int) -> dict:
        return {"type": "declare", "tokens": tokens}

    script = [
        (1, declare(5), declare(9)),  # undisclosed, so different in the two games ...
        (2, declare(0), declare(0)),
        (1, declare(0), declare(0)),  # ... until seat 1 changes its mind
        (3, declare(0), declare(0)),
        (0, declare(3), declare(3)),
        # the others hold no token: the game passes for them (EP-9), the field comes back
        (0, {"type": "play", "cards": ["2M", "3M", "4M", "5M"]}, None),
        (0, {"type": "play", "cards": ["7S", "7A"]}, None),
    ]
    compare_twins(a, b, [(seat, x, y or x) for seat, x, y in script])


def compare_twins(a: dict, b: dict, script: list[tuple[int, dict, dict]]) -> None:
    events_a, events_b = server_start(a["players"]), server_start(b["players"])
    for step, (seat, action_a, action_b) in enumerate(script):
        events_a += stamped(GAME.apply(a, seat, action_a), step + 1, seat)
        events_b += stamped(GAME.apply(b, seat, action_b), step + 1, seat)
        assert GAME.view(a, 0) == GAME.view(b, 0)
        assert seen_by(events_a, 0) == seen_by(events_b, 0)
        for k in range(3):
            sampled_a = sample(a, events_a, 0, k)
            assert sampled_a == sample(b, events_b, 0, k)
            check_sample(a, events_a, 0, sampled_a)
            check_sample(b, events_b, 0, sampled_a)


# --- public facts ----------------------------------------------------------------------------


def removed_suits(state: dict, events: list[dict], seat: int, count: int = 60) -> Counter:
    return Counter(PARSED[sample(state, events, seat, k)["set_aside"][0]][1] for k in range(count))


def test_two_players_the_removed_suit_is_one_no_card_of_which_was_seen() -> None:
    """EP-2/EP-17: seat 0 holds mushroom and splat only: acorn or bolt was removed, both
    drawn; once seat 1 plays an acorn, bolt is the removed suit in every sample."""
    opponent = ["6A", "7A", "8A", "9A", "6M", "7M", "8M", "9M"]
    order = deck(2, {0: OWN_2P, 1: opponent}, removed="B")
    state = new_game(2, None, decks=[order])
    events = server_start(2) + act(state, 0, "declare", tokens=2)
    events += act(state, 1, "declare", tokens=3)
    assert removed_suits(state, events, 0).keys() == {"A", "B"}
    events += act(state, 1, "play", cards=["6A", "7A", "8A", "9A"])
    assert GAME.view(state, 0)["field"][0]["suit"] == "acorn"
    assert removed_suits(state, events, 0) == Counter({"B": 60})
    for k in range(20):
        check_sample(state, events, 0, sample(state, events, 0, k))


def test_two_players_a_hand_of_three_suits_names_the_removed_one() -> None:
    own = ["2M", "3M", "4M", "2S", "3S", "4S", "2A", "3A"]
    state = new_game(2, None, decks=[deck(2, {0: own}, removed="B")])
    events = server_start(2)
    assert removed_suits(state, events, 0) == Counter({"B": 60})
    # seat 1 holds 8 of the 16 cards left of mushroom, splat and acorn; they are dealt anew
    assert len({tuple(sample(state, events, 0, k)["hands"][1]) for k in range(10)}) == 10


def test_cleared_and_field_cards_stay_out_of_the_other_hands() -> None:
    """EP-17: cleared cards (all seen played) and the field are public: no sample deals them."""
    own = ["2M", "3M", "4M", "5M", "7S", "7A", "9B", "9S"]
    order = deck(3, {0: own, 1: ["6M", "6S", "6A", "6B", "8M", "8S", "8A", "8B"]})
    state = new_game(3, None, decks=[order])
    events = server_start(3)
    for seat, tokens in ((0, 3), (1, 2), (2, 1)):
        events += act(state, seat, "declare", tokens=tokens)
    events += act(state, 0, "play", cards=["2M", "3M", "4M", "5M"])
    events += act(state, 1, "play", cards=["6M", "6S", "6A", "6B"])
    public = {"2M", "3M", "4M", "5M", "6M", "6S", "6A", "6B"}
    assert set(state["cleared"]) | set(state["field"]) == public
    for k in range(30):
        sampled = sample(state, events, 2, k)
        assert not public & {c for hand in sampled["hands"][:2] for c in hand}
        assert not public & set(sampled["set_aside"])
        check_sample(state, events, 2, sampled)


def test_over_the_other_hands_match_the_last_penalties() -> None:
    """EP-14: once the game is over the last round's penalties are public, and say what the
    distinct numbers of each hand left add up to; samples deal hands that match, and vary."""
    state = new_game(3, None, seed=8, turn_limit=2)
    events = server_start(3)
    for seat, tokens in ((0, 4), (1, 3), (2, 0)):
        events += act(state, seat, "declare", tokens=tokens)
    while GAME.phase(state) != "over":  # EP-16: two turns and the game ends
        seat = next(iter(GAME.to_act(state)))
        events += GAME.apply(state, seat, GAME.legal_actions(state, seat)[-1])
    ended = last_round(events)
    assert ended["reason"] == "turn_limit"
    hands = set()
    for k in range(40):
        sampled = sample(state, events, 0, k)
        check_sample(state, events, 0, sampled)
        for other in (1, 2):
            tokens = 10 * (ended["play_tokens"][other] > 0) + 10 * (ended["wild_tokens"][other] > 0)
            assert distinct_sum(sampled["hands"][other]) == -ended["penalties"][other] - tokens
        hands.add(tuple(sampled["hands"][1]))
    assert len(hands) > 5


def test_undisclosed_declarations_and_throws_are_drawn() -> None:
    """EP-3/EP-4: a declaration or a throw another seat made is secret until shown: samples
    draw it (legal, and not always the real one); one not made yet stays unmade."""
    state = new_game(4, None, seed=2, tiebreak="rps")
    events = server_start(4) + act(state, 1, "declare", tokens=7)
    drawn = {sample(state, events, 0, k)["declarations"][1] for k in range(40)}
    assert drawn - {7} and drawn <= set(range(11))
    assert all(sample(state, events, 0, k)["declarations"][2:] == [None, None] for k in range(5))
    for seat, tokens in ((0, 8), (2, 8), (3, 1)):
        events += act(state, seat, "declare", tokens=tokens)
    assert GAME.phase(state) == "rps" and state["rps"]["players"] == [0, 2]
    events += act(state, 2, "rps", shape="rock")
    shapes = {sample(state, events, 0, k)["rps"]["choices"][2] for k in range(30)}
    assert shapes == set(SHAPES)
    for k in range(10):
        sampled = sample(state, events, 0, k)
        check_sample(state, events, 0, sampled)
        check_every_action(sampled)
        # seat 0's throw decides against the drawn one, as in a real game
        GAME.apply(sampled, 0, {"type": "rps", "shape": "paper"})


def test_a_stacked_deck_reads_stacked_and_later_rounds_are_shuffled() -> None:
    """The stacked decks are secret (EP-17): a sample keeps the view's "stacked" but knows
    no deck, so its next round is dealt from its own generator."""
    order = deck(4, {0: ["2M", "3M", "4M", "5M", "7S", "7A", "9B", "9S"]})
    state = new_game(4, None, decks=[order, list(reversed(order))])
    events = server_start(4)
    sampled = sample(state, events, 0, 0)
    assert GAME.public_options(state["options"])["decks"] == "stacked"
    assert sampled["options"]["decks"] == [None] * 4
    for seat in range(4):
        GAME.apply(sampled, seat, {"type": "declare", "tokens": 0})  # EP-12: the round ends
    assert sampled["round"] == 2 and set(sampled["hands"][0]) != set(order[::-1][:8])
    check_plays_to_the_end(sampled, random.Random(0))


def test_the_sampler_and_the_engine_agree_on_the_rule_constants() -> None:
    assert (sampling.HAND_SIZE, sampling.MAX_DECLARATION, sampling.SHAPES) == (
        engine.HAND_SIZE,
        engine.MAX_DECLARATION,
        engine.SHAPES,
    )


def test_a_spectator_has_nothing_to_sample() -> None:
    state = new_game(3, None)
    with pytest.raises(ValueError, match="spectator"):
        GAME.sample_state(GAME.view(state, None), [], {}, random.Random(0))
