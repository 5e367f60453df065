"""Exact Plays property tests: what is particular to Exact Plays, in uniformly random
complete games of 2, 3 and 4 players (the conformance test, test_conformance.py, checks
what every game must do: listed actions accepted, others refused, no foreign card shown,
JSON round trips, replays).

At every step: 32 cards and 40 tokens are conserved; the state stays compact; ``to_act``
only lists real choices (EP-9); no view or redacted event shows an undisclosed declaration
or an unrevealed rock-paper-scissors choice, nor a card outside what the viewer holds or saw
played (EP-17). Every game ends with winners after the right number of rounds, at -50, or
at the turn limit (EP-12..EP-16). Also run on tables of mostly greedy bots, whose games
usually last all the rounds.
"""

from __future__ import annotations

import json
import random

import pytest
from exact_plays_helpers import GAME, all_cards, clone, codes_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardroom.games.exact_plays.bots import greedy
from cardroom.games.exact_plays.cards import ALL_CODES
from cardroom.games.exact_plays.engine import rounds_for
from cardroom.kit.base import redact_event

EXAMPLES = {2: 100, 3: 80, 4: 70}
# uniformly random players rarely last all the rounds; mostly-greedy tables do
MOSTLY_GREEDY_EXAMPLES = 25


def check_invariants(state: dict) -> None:
    assert sorted(all_cards(state)) == sorted(ALL_CODES)
    assert len(set(all_cards(state))) == 32
    assert state["token_pile"] + sum(state["play_tokens"]) + sum(state["wild_tokens"]) == 40
    assert min(state["play_tokens"] + state["wild_tokens"] + [state["token_pile"]]) >= 0
    assert json.loads(json.dumps(state)) == state
    assert len(json.dumps(state, separators=(",", ":"))) < 4096  # compact (engines.md)
    if state["players"] == 2:
        assert len({c[1] for c in state["set_aside"]}) == 1 and len(state["set_aside"]) == 8
    elif state["players"] == 3:
        assert len(state["set_aside"]) == 8 and not state["draw_pile"]
    else:
        assert not state["set_aside"] and not state["draw_pile"]


def check_secrets(state: dict, before: dict, events: list[dict]) -> None:
    n = state["players"]
    public = set(before["field"] + before["cleared"] + state["field"] + state["cleared"])
    for event in events:
        if event["type"] in ("played", "field_cleared"):
            public |= {c["id"] for c in event["cards"]}
    revealed = state["phase"] != "declare"
    for viewer in [*range(n), None]:
        own_now = set(state["hands"][viewer]) if viewer is not None else set()
        own = own_now | (set(before["hands"][viewer]) if viewer is not None else set())
        view = GAME.view(state, viewer)
        assert codes_in(view) <= own_now | set(state["field"]) | set(state["cleared"])
        if not revealed:
            assert view["declarations"] is None
            assert all(s["declaration"] is None for s in view["seats"])
        if viewer is None:
            assert view["you"] is None
        else:
            assert view["you"]["declaration"] == state["declarations"][viewer]
        if state["phase"] == "rps":
            assert len(view["rps"]["throws"]) == len(state["rps"]["throws"])
            if viewer is not None:
                assert view["you"]["rps_choice"] == state["rps"]["choices"][viewer]
        # non-interference: other seats' undisclosed declarations and rock-paper-scissors
        # choices may change without changing this viewer's view in any way
        altered = clone(state)
        for seat in range(n):
            if seat == viewer:
                continue
            if state["phase"] == "declare" and altered["declarations"][seat] is not None:
                altered["declarations"][seat] = (altered["declarations"][seat] + 1) % 11
            if state["phase"] == "rps" and altered["rps"]["choices"][seat] is not None:
                shapes = ["rock", "paper", "scissors"]
                altered["rps"]["choices"][seat] = shapes[
                    shapes.index(altered["rps"]["choices"][seat]) - 1
                ]
        assert GAME.view(altered, viewer) == view
        for event in events:
            if event["type"] == "drew" and event["seat"] == viewer:
                # the drawer sees the top card of the draw pile, even if the round then ended
                drawn = event["private"][str(viewer)]["card"]["id"]
                assert drawn == before["draw_pile"][0]
                own = own | {drawn}
        for event in events:
            seen = redact_event(event, viewer)
            if seen is None:
                continue
            assert codes_in(seen) <= own | public, (viewer, seen)
            if event.get("seat") != viewer or viewer is None:
                if event["type"] == "declared":
                    assert "tokens" not in seen
                if event["type"] == "rps_chosen":
                    assert "shape" not in seen
                if event["type"] == "drew":
                    assert "card" not in seen


def check_result(state: dict) -> None:
    result = GAME.result(state)
    n = state["players"]
    totals = [sum(r[i] for r in result["rounds"]) for i in range(n)]
    assert result["scores"] == totals == GAME.scores(state)
    assert result["winners"] == [i for i in range(n) if totals[i] == max(totals)]
    assert 1 <= len(result["rounds"]) <= rounds_for(n)
    assert all(p <= 0 for r in result["rounds"] for p in r)
    if result["reason"] == "rounds":
        assert len(result["rounds"]) == rounds_for(n) and min(totals) > -50
    elif result["reason"] == "minus_50":
        assert min(totals) <= -50
    else:
        assert result["reason"] == "turn_limit"
        assert state["turns_played"] >= state["options"]["turn_limit"]
    assert GAME.to_act(state) == set()


def play_random_game(players: int, seed: int, options: dict, greedy_share: float = 0.0) -> int:
    rng = random.Random(seed)
    state = GAME.new_game(players, GAME.validate_options(players, options), seed)
    check_invariants(state)
    steps = 0
    while GAME.result(state) is None:
        acting = sorted(GAME.to_act(state))
        assert acting
        seat = rng.choice(acting)
        legal = GAME.legal_actions(state, seat)
        # to_act only lists real choices (EP-9): never a single option
        assert len(legal) >= 2
        previous = clone(state)
        if rng.random() < greedy_share:
            action = greedy(GAME.view(state, seat), legal, rng)
            assert action in legal
        else:
            action = rng.choice(legal)
        events = GAME.apply(state, seat, action)
        state = json.loads(json.dumps(state))  # continue from the JSON round trip
        check_invariants(state)
        check_secrets(state, previous, events)
        steps += 1
    check_result(state)
    return steps


options_strategy = st.fixed_dictionaries(
    {
        "tiebreak": st.sampled_from(["rps", "random"]),
        "turn_limit": st.one_of(st.just(2000), st.integers(1, 120)),
    }
)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games(players):
    @settings(
        max_examples=EXAMPLES[players],
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(seed=st.integers(0, 2**31 - 1), options=options_strategy, stacked=st.booleans())
    def run(seed, options, stacked):
        if stacked:
            deck = [c for c in ALL_CODES if players > 2 or c[1] != "B"]
            random.Random(seed).shuffle(deck)
            options = {**options, "decks": [deck]}
        play_random_game(players, seed, options)

    run()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mostly_greedy_games(players):
    """The same checks on tables that mostly play the greedy bot: these games usually run
    the full number of rounds (EP-15)."""

    @settings(
        max_examples=MOSTLY_GREEDY_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(seed=st.integers(0, 2**31 - 1), options=options_strategy)
    def run(seed, options):
        play_random_game(players, seed, options, greedy_share=0.85)

    run()
