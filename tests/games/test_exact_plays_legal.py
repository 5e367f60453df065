"""Exact Plays: legal_actions is complete and agrees exactly with apply (EP-7, EP-8, EP-10,
EP-11), is deterministic, and is fast on the largest hands (16 cards, 2 players)."""

from __future__ import annotations

import json
import random
import time
from itertools import combinations

import pytest
from exact_plays_helpers import GAME, canonical, clone, new_game, snapshot

from cardroom.games.exact_plays.combos import all_combos, classify, legal_combos
from cardroom.kit.base import RuleError


def candidate_actions(state: dict, seat: int, max_cards: int) -> list[dict]:
    """Every play of up to ``max_cards`` hand cards with and without a wild 0-11, every
    pass/switch and the draw."""
    hand = state["hands"][seat]
    out: list[dict] = [{"type": "draw"}]
    for switch in (None, "to_wild", "to_play"):
        out.append({"type": "pass"} if switch is None else {"type": "pass", "switch": switch})
    for size in range(1, min(max_cards, len(hand)) + 1):
        for cards in combinations(hand, size):
            out.append({"type": "play", "cards": list(cards)})
            for wild in range(0, 12):
                out.append({"type": "play", "cards": list(cards), "wild": wild})
    return out


def sample_states(players: int, count: int, seed: int) -> list[tuple[dict, int]]:
    """Play-phase positions from uniformly random games."""
    rng = random.Random(seed)
    found: list[tuple[dict, int]] = []
    game_seed = seed * 1000
    while len(found) < count:
        game_seed += 1
        state = new_game(players, seed=game_seed)
        while GAME.result(state) is None and len(found) < count:
            seat = rng.choice(sorted(GAME.to_act(state)))
            if state["phase"] == "play" and rng.random() < 0.3:
                found.append((clone(state), seat))
            GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
    return found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_legal_actions_agree_exactly_with_apply(players):
    """Every candidate action is accepted by apply iff legal_actions lists it."""
    for state, seat in sample_states(players, 25, players):
        legal = GAME.legal_actions(state, seat)
        listed = {json.dumps(canonical(a)) for a in legal}
        assert len(listed) == len(legal), "an action is listed twice"
        before = snapshot(state)
        for action in candidate_actions(state, seat, 5):
            key = json.dumps(canonical(action))
            if key in listed:
                GAME.apply(clone(state), seat, action)
            else:
                with pytest.raises(RuleError):
                    GAME.apply(state, seat, action)
        assert snapshot(state) == before
        # every listed play is one of the candidates (hand sizes <= 5 cards per play here)
        for action in legal:
            if action["type"] == "play" and len(action["cards"]) <= 5:
                assert action["cards"] == sorted(action["cards"], key=state["hands"][seat].index)


def brute_force(hand: list[str], field: list[int], with_wild: bool) -> set:
    """All (cards, wild) that classify as a combination and beat the field, by brute force."""
    from cardroom.games.exact_plays.combos import beats, combo_numbers

    found = set()
    for size in range(1, len(hand) + 1):
        for cards in combinations(hand, size):
            for wild in [None, *range(1, 11)] if with_wild else [None]:
                if classify(cards, wild) is None:
                    continue
                if beats(field, combo_numbers(cards, wild)) is None:
                    found.add((tuple(cards), wild))
    return found


@pytest.mark.parametrize("seed", range(12))
def test_combination_enumeration_matches_brute_force(seed):
    rng = random.Random(seed)
    codes = [f"{n}{s}" for n in range(2, 10) for s in "MSAB"]
    hand = sorted(rng.sample(codes, rng.randint(1, 11)), key=codes.index)
    field = sorted(rng.sample(range(1, 11), rng.randint(0, 4))) if seed % 3 else []
    for with_wild in (False, True):
        expected = brute_force(hand, field, with_wild)
        got = legal_combos(hand, field, with_wild)
        assert len(got) == len(set(got))
        assert set(got) == expected


def sixteen_card_state(field: list[str] | None = None) -> dict:
    """Seat 0 of a 2-player game with 16 cards (8 dealt + 8 drawn), 9 Play and 1 Wild."""
    state = new_game(2, seed=3)
    state["phase"] = "play"
    pool = [c for c in state["hands"][0] + state["hands"][1] + state["draw_pile"]]
    state["hands"][0] = sorted(
        [c for c in pool if c not in (field or [])][:16],
        key=[f"{n}{s}" for n in range(2, 10) for s in "MSAB"].index,
    )
    taken = set(state["hands"][0]) | set(field or [])
    state["hands"][1] = [c for c in pool if c not in taken]
    state["draw_pile"] = []
    state["field"] = list(field or [])
    state["field_by"] = 1 if field else None
    state["declarations"] = [10, 0]
    state["play_tokens"], state["wild_tokens"], state["token_pile"] = [9, 0], [1, 0], 30
    state["current_seat"] = state["start_player"] = 0
    return state


def best_time(func, repeat: int = 30) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def test_legal_actions_fast_on_sixteen_cards():
    """The 16-card hand with a Wild token: a few milliseconds at worst."""
    empty = sixteen_card_state()
    assert len(empty["hands"][0]) == 16
    actions = GAME.legal_actions(empty, 0)
    assert len(actions) > 100
    elapsed = best_time(lambda: GAME.legal_actions(empty, 0))
    assert elapsed < 0.02, f"legal_actions took {elapsed * 1000:.1f} ms"
    pair = sixteen_card_state(field=[c for c in empty["hands"][1]][:1])
    elapsed = best_time(lambda: GAME.legal_actions(pair, 0))
    assert elapsed < 0.02
    # and the list agrees with apply for every listed action
    for action in actions[:: max(1, len(actions) // 60)]:
        GAME.apply(clone(empty), 0, action)


def test_legal_actions_deterministic_order():
    state = sixteen_card_state()
    first = GAME.legal_actions(state, 0)
    assert GAME.legal_actions(clone(state), 0) == first
    kinds = [a["type"] for a in first]
    assert kinds == sorted(kinds, key=["pass", "draw", "play"].index)


def test_all_combos_counts_each_once():
    hand = [f"{n}{s}" for n in range(2, 10) for s in "MS"]
    combos = all_combos(hand, True)
    assert len(combos) == len(set(combos))
