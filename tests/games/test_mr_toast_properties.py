"""Mr Toast property tests: what is particular to Mr Toast, checked at every step of random
games (the conformance test, test_conformance.py, checks what every game must do).

At every step: cards are conserved (MT-2); ``legal_actions`` is complete: every action
built from the seat's own cards that it does not list is refused, except a clearing
``clear_red`` combination, which is accepted though only minimal ones are listed (MT-7);
and the game ends within its turn limit (MT-11) for the reason its result gives (MT-10).
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mr_toast_helpers import GAME

from cardroom.games.mr_toast.bots import greedy
from cardroom.games.mr_toast.cards import CODES
from cardroom.kit.base import RuleError

compositions = st.one_of(
    st.none(),
    st.lists(
        st.tuples(st.sampled_from(CODES), st.integers(1, 12)),
        min_size=1,
        max_size=len(CODES),
        unique_by=lambda item: item[0],
    )
    .filter(lambda items: sum(count for _, count in items) >= 2)
    .map(lambda items: [{"code": code, "count": count} for code, count in items]),
)

game_setups = st.fixed_dictionaries(
    {
        "players": st.sampled_from([2, 3, 4, 5, 6]),
        "seed": st.integers(0, 2**32),
        "greedy_seats": st.sets(st.integers(0, 5), max_size=2),
        "options": st.fixed_dictionaries(
            {
                "mode": st.sampled_from(["exact", "irresponsible"]),
                "turn_limit": st.sampled_from([40, 60, 25, 80, 15, 8, 4, 2, 1]),
                "auto_allow": st.booleans(),
                "reaction_deadline": st.sampled_from([None, None, 3.0]),
                "composition": compositions,
            }
        ),
    }
)


def zone_count(state: dict[str, Any]) -> int:
    pend = state["pending"]
    count = len(state["draw_pile"]) + len(state["discard_pile"])
    count += sum(len(hand) for hand in state["hands"])
    count += sum(len(entry) for fun in state["fun"] for entry in fun)
    count += sum(card is not None for card in state["red"])
    count += sum(card is not None for card in state["breaks"])
    if pend is not None:
        count += 1 + len(pend["no_ways"])
    return count


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


def candidate_actions(state: dict[str, Any], seat: int, rng: random.Random) -> list[dict[str, Any]]:
    """Actions of every type built from the seat's own cards and every target."""
    hand = [f"c{c}" for c in state["hands"][seat]]
    k = state["codes"]
    code = {f"c{c}": k[c] for c in state["hands"][seat]}
    targets = [None, *range(state["players"])]
    purples = [None] + [c for c in hand if code[c][0] == "P"]
    greens = [c for c in hand if code[c][0] == "G"]
    actions: list[dict[str, Any]] = [{"type": "end_turn"}, {"type": "allow"}]
    for card in hand:
        actions.append({"type": "no_way", "card": card})
        for target in targets:
            for kind in ("give_red", "play_blue"):
                action = {"type": kind, "card": card}
                if target is not None:
                    action["target"] = target
                actions.append(action)
        for purple in purples:
            action = {"type": "score", "green": card}
            if purple is not None:
                action["purple"] = purple
            actions.append(action)
    for _ in range(4):
        if greens:
            chosen = rng.sample(greens, rng.randint(1, min(3, len(greens))))
            action = {"type": "clear_red", "greens": chosen}
            purple = rng.choice(purples)
            if purple is not None:
                action["purple"] = purple
            actions.append(action)
    return actions


def clears(state: dict[str, Any], seat: int, action: dict[str, Any]) -> bool:
    """Whether a well-formed clear_red of the seat's own cards must be accepted (MT-7)."""
    red = state["red"][seat]
    if state["phase"] != "play" or red is None:
        return False
    k = state["codes"]
    cards = [*action["greens"], *([action["purple"]] if "purple" in action else [])]
    return sum(int(k[int(c[1:])][1]) for c in cards) >= int(k[red][1])


def play_checked(setup: dict[str, Any]) -> dict[str, Any]:
    players, seed, options = setup["players"], setup["seed"], setup["options"]
    options = GAME.validate_options(players, options)
    state = GAME.new_game(players, options, seed)
    size = len(state["codes"])
    rng = random.Random(seed)
    now = 0.0
    steps = 0
    limit = options["turn_limit"]
    while GAME.result(state) is None:
        steps += 1
        assert steps < limit * 300, "the game does not end"
        # Time passes; as the API does, a passed reaction deadline is settled first (MT-14).
        now += rng.choice([0.5, 1.0, 1.0, 4.0])
        if GAME.advance(state, now) and GAME.result(state) is not None:
            break
        to_act = GAME.to_act(state)
        assert to_act
        for seat in range(players):
            if seat not in to_act:
                assert GAME.legal_actions(state, seat) == []
        seat = rng.choice(sorted(to_act))
        legal = GAME.legal_actions(state, seat)
        assert legal
        text = json.dumps(state)

        # legal_actions is complete: every other action built from the seat's own cards is
        # refused (clear_red: any combination adding up to the red card is accepted).
        for action in candidate_actions(state, seat, rng):
            if action in legal:
                continue
            if action["type"] == "clear_red" and clears(state, seat, action):
                copy = json.loads(text)
                GAME.apply(copy, seat, action, now)
                continue
            try:
                GAME.apply(state, seat, action, now)
            except RuleError:
                pass
            else:
                raise AssertionError(f"unlisted action accepted: {action!r}")
        assert json.dumps(state) == text
        if seat in setup["greedy_seats"]:
            action = greedy(GAME.view(state, seat), legal, rng)
            assert action in legal
        else:
            action = rng.choice(legal)
        events = GAME.apply(state, seat, action, now)
        assert events

        # MT-2: conservation, every card exactly once.
        cards = all_cards(state)
        assert len(cards) == size == zone_count(state)
        assert sorted(cards) == list(range(size))
        assert json.loads(json.dumps(state)) == state

    result = GAME.result(state)
    assert result["turn"] <= limit
    assert result["winners"]
    assert result["scores"] == GAME.scores(state)
    best = max(result["scores"])
    if result["reason"] == "turn_limit":
        assert result["winners"] == [s for s in range(players) if result["scores"][s] == best]
    elif result["reason"] == "exact_15":
        assert result["scores"][result["winners"][0]] == 15
    else:
        assert result["scores"][result["winners"][0]] >= 15
    assert max(result["scores"]) <= 15 or options["mode"] == "irresponsible"
    assert GAME.to_act(state) == set()
    return state


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(setup=game_setups)
def test_random_games_keep_every_invariant(setup):
    """Uniformly random play (plus, in some games, one or two greedy seats so that games are
    also won by scoring, MT-10), every invariant checked at every step."""
    play_checked(setup)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    mode=st.sampled_from(["exact", "irresponsible"]),
    auto_allow=st.booleans(),
)
def test_random_default_deck_games_end_within_the_turn_limit(players, seed, mode, auto_allow):
    """MT-11 with the default deck and a longer limit, fewer checks per step."""
    options = GAME.validate_options(
        players, {"mode": mode, "auto_allow": auto_allow, "turn_limit": 120}
    )
    state = GAME.new_game(players, options, seed)
    rng = random.Random(seed)
    steps = 0
    while GAME.result(state) is None:
        steps += 1
        assert steps < 120 * 300
        seat = rng.choice(sorted(GAME.to_act(state)))
        GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        assert len(all_cards(state)) == 90
    assert GAME.result(state)["turn"] <= 120
