"""Exact Plays bots: ``greedy`` always picks a legal action and clearly beats uniformly
random opponents (in-process games, no server)."""

from __future__ import annotations

import random

import pytest
from exact_plays_helpers import GAME, started

from cardroom.bots import random_policy
from cardroom.games.exact_plays.bots import declaration, greedy, min_plays
from cardroom.registry import get_policy

GAMES = 150


def play_game(players: int, policies: list, seed: int) -> dict:
    rng = random.Random(seed)
    state = GAME.new_game(players, GAME.validate_options(players, {}), seed)
    while GAME.result(state) is None:
        seat = rng.choice(sorted(GAME.to_act(state)))
        legal = GAME.legal_actions(state, seat)
        action = policies[seat](GAME.view(state, seat), legal, rng)
        assert action in legal
        GAME.apply(state, seat, action)
    return GAME.result(state)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_beats_random(players):
    """One greedy seat (rotating) against random opponents: its win share is far above
    the fair share 1/players."""
    share = 0.0
    greedy_points = random_points = 0
    for seed in range(GAMES):
        seat = seed % players
        policies = [random_policy] * players
        policies[seat] = greedy
        result = play_game(players, policies, seed)
        if seat in result["winners"]:
            share += 1 / len(result["winners"])
        rounds = len(result["rounds"])
        greedy_points += result["scores"][seat] / rounds
        random_points += sum(s for i, s in enumerate(result["scores"]) if i != seat) / (
            rounds * (players - 1)
        )
    win_share = share / GAMES
    fair = 1 / players
    assert win_share >= min(0.9, 2.5 * fair), f"greedy won {win_share:.0%}, fair {fair:.0%}"
    assert greedy_points > random_points + 10  # per round, in penalty points


def test_greedy_is_registered_and_declares_its_minimum_split():
    assert get_policy("greedy", "exact-plays") is greedy
    assert min_plays(("2M", "3M", "4M", "5S", "5A", "9B")) == 3
    assert min_plays(("2M", "2S", "3M", "3S", "4M", "4S")) == 2
    assert min_plays(()) == 0
    assert declaration(["2M", "3M", "4M", "5M", "6M", "7M", "8M", "9M"]) == 1
    assert declaration([]) == 0
    state = GAME.new_game(3, GAME.validate_options(3, {}), 4)
    legal = GAME.legal_actions(state, 0)
    action = greedy(GAME.view(state, 0), legal, random.Random(0))
    assert action == {"type": "declare", "tokens": declaration(state["hands"][0])}


def test_greedy_switches_a_surplus_play_token_to_wild():
    """With three Play tokens for two cards, greedy turns one into a Wild token when it
    passes (two plays can then use every token) rather than keep one it cannot spend."""
    splats = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
    mushrooms = ["2M", "3M", "4M", "5M", "6M", "7M", "8M", "9M"]
    state = started(4, {0: splats, 1: mushrooms}, [3, 4, 0, 0])
    GAME.apply(state, 1, {"type": "play", "cards": mushrooms[:6]})
    GAME.apply(state, 0, {"type": "play", "cards": splats[2:]})  # 4-9: 9 > 7
    assert (
        state["current_seat"] == 1
        and state["play_tokens"][1] == 3
        and state["hands"][1] == ["8M", "9M"]
    )
    legal = GAME.legal_actions(state, 1)
    assert {a["type"] for a in legal} == {"pass"}
    action = greedy(GAME.view(state, 1), legal, random.Random(0))
    assert action == {"type": "pass", "switch": "to_wild"}
