"""The greedy Mr Toast policy: always legal, and clearly better than random play."""

from __future__ import annotations

import random
import time

from mr_toast_helpers import GAME, play_game

from cardroom.games.mr_toast.bots import greedy


def random_choice(view, legal, rng):
    return rng.choice(legal)


def test_greedy_always_returns_a_legal_action():
    for seed in range(40):
        players = 2 + seed % 5
        options = GAME.validate_options(
            players, {"mode": ["exact", "irresponsible"][seed % 2], "turn_limit": 200}
        )
        state = GAME.new_game(players, options, seed)
        rng = random.Random(seed)
        while GAME.result(state) is None:
            seat = min(GAME.to_act(state))
            legal = GAME.legal_actions(state, seat)
            action = greedy(GAME.view(state, seat), legal, rng)
            assert action in legal
            GAME.apply(state, seat, action)


def test_greedy_wins_a_scoring_chance_to_reach_exactly_15():
    from mr_toast_helpers import Table

    t = Table(
        [["G5", "P3", "G5", "G2", "G1"], ["NW"] * 5],
        ["P1", "NW", "NW", "NW", "G4"],
    )
    t.score(0, "G5", "P3")
    t.end_turn(0)
    t.end_turn(1)
    t.score(0, "G5")
    t.end_turn(0)
    t.end_turn(1)
    assert t.scores()[0] == 13
    action = greedy(t.view(0), t.legal(0), random.Random(0))
    t.act(0, action)
    assert GAME.result(t.state)["winners"] == [0]


def test_greedy_beats_random_players():
    """1 greedy seat against 3 random seats, 4 players: greedy should win far above 25%."""
    started = time.perf_counter()
    games = 300
    wins = 0.0
    for seed in range(games):
        seat = seed % 4
        policies = [random_choice] * 4
        policies[seat] = greedy
        state = play_game(4, policies, seed, {"turn_limit": 300, "auto_allow": seed % 2 == 0})
        winners = GAME.result(state)["winners"]
        if seat in winners:
            wins += 1 / len(winners)
    rate = wins / games
    print(f"greedy win rate {rate:.1%} over {games} games in {time.perf_counter() - started:.1f}s")
    assert rate > 0.45
