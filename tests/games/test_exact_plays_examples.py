"""Exact Plays: the rulebook's own examples, legal and illegal (EP-7, EP-8, EP-14)."""

from __future__ import annotations

import pytest
from exact_plays_helpers import GAME, act, play, plays, snapshot, started

from cardroom.games.exact_plays.engine import penalty
from cardroom.kit.base import IllegalAction


def refused(state: dict, seat: int, action: dict) -> IllegalAction:
    before = snapshot(state)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, action)
    assert snapshot(state) == before
    assert {"type": "play", **action} not in GAME.legal_actions(state, seat)
    return info.value


def on_three_fours() -> dict:
    """Seat 0 opens with three 4s; seat 1 holds a bolt 3-4-5, three 9s and more."""
    h0 = ["4M", "4S", "4A", "2M", "3M", "6M", "7B", "8B"]
    h1 = ["3B", "4B", "5B", "9M", "9S", "9A", "3S", "3A"]
    state = started(4, {0: h0, 1: h1}, [5, 3, 3, 3])
    play(state, 0, ["4M", "4S", "4A"])
    return state


def test_three_fours_then_same_suit_3_4_5_or_three_9s():
    """EP-7 (rulebook): on "three 4s", "3, 4 and 5 of the same suit" or "three 9s"."""
    state = on_three_fours()
    legal = plays(state, 1)
    assert (("3B", "4B", "5B"), None) in legal
    assert (("9M", "9S", "9A"), None) in legal
    play(state, 1, ["3B", "4B", "5B"])
    assert state["field"] == ["3B", "4B", "5B"]


def test_three_fours_then_three_9s_is_accepted():
    state = on_three_fours()
    play(state, 1, ["9S", "9A", "9M"])
    assert state["field"] == ["9M", "9S", "9A"]


def test_illegal_same_count_not_higher():
    """EP-7: three 3s on three 4s: same count but nothing higher than 4."""
    state = on_three_fours()
    error = refused(state, 1, {"type": "play", "cards": ["3B", "3S", "3A"]})
    assert error.rule == "EP-7" and "higher" in error.message


def test_illegal_two_more_cards():
    """EP-7: you may play the same count or exactly one more, never two more."""
    h0 = ["5M", "2M", "3M", "4M", "6B", "7B", "8B", "9B"]
    h1 = ["2A", "3A", "4A", "5A", "6A", "2S", "3S", "9S"]
    state = started(4, {0: h0, 1: h1}, [5, 3, 3, 3])
    play(state, 0, ["5M"])
    error = refused(state, 1, {"type": "play", "cards": ["2A", "3A", "4A"]})
    assert error.rule == "EP-7" and "not 3" in error.message


def test_illegal_mixed_suit_run():
    """EP-7: a run is all one suit."""
    state = on_three_fours()
    error = refused(state, 1, {"type": "play", "cards": ["3S", "4B", "5B"]})
    assert error.rule == "EP-7" and "run" in error.message


def on_two_fives() -> dict:
    h0 = ["5M", "5S", "2M", "3M", "4S", "6B", "7B", "8B"]
    h1 = ["4A", "5A", "6A", "2S", "2A", "2B", "9M", "9S"]
    state = started(4, {0: h0, 1: h1}, [5, 3, 3, 3])
    play(state, 0, ["5M", "5S"])
    return state


def test_two_fives_then_same_suit_4_5_6_or_three_2s():
    """EP-7 (rulebook): on "two 5s", "4, 5 and 6 of the same suit" or "three 2s"."""
    state = on_two_fives()
    legal = plays(state, 1)
    assert (("4A", "5A", "6A"), None) in legal
    assert (("2S", "2A", "2B"), None) in legal
    play(state, 1, ["2S", "2A", "2B"])
    assert state["field"] == ["2S", "2A", "2B"]


def test_on_a_five_a_single_six_to_nine():
    """EP-7 (rulebook): on a "5" you can play a 6, 7, 8 or 9."""
    h0 = ["5M", "2M", "3M", "4M", "6B", "7B", "8B", "9B"]
    h1 = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
    state = started(4, {0: h0, 1: h1}, [5, 3, 3, 3])
    play(state, 0, ["5M"])
    singles = sorted(c[0] for c, w in plays(state, 1) if len(c) == 1 and w is None)
    assert singles == ["6S", "7S", "8S", "9S"]
    for code in ("2S", "5S"):
        assert refused(state, 1, {"type": "play", "cards": [code]}).rule == "EP-7"


def test_start_player_opens_with_a_five_card_run():
    """EP-7 (rulebook): the first play may be "4, 5, 6, 7 and 8 of the same suit"."""
    h0 = ["4M", "5M", "6M", "7M", "8M", "2B", "3B", "9B"]
    state = started(4, {0: h0}, [5, 3, 3, 3])
    play(state, 0, ["4M", "5M", "6M", "7M", "8M"])
    assert len(state["field"]) == 5


def wild_holder() -> dict:
    """Seat 0 holds a Wild token and Play tokens, on a single 4S."""
    h0 = ["9B", "8B", "2M", "3M", "4M", "5M", "6M", "7M"]
    h1 = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
    state = started(4, {0: h0, 1: h1}, [6, 3, 3, 3])
    play(state, 0, ["2M"])
    play(state, 1, ["3S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    act(state, 0, "pass", switch="to_wild")
    play(state, 1, ["4S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    return state


def test_illegal_wild_alone():
    """EP-8 rule 1: a Wild token is never played alone."""
    state = wild_holder()
    assert state["wild_tokens"][0] == 1
    error = refused(state, 0, {"type": "play", "cards": [], "wild": 5})
    assert error.field == "cards"


def test_illegal_two_wilds():
    """EP-8 rule 2: one Wild token per play (the action names a single number)."""
    state = wild_holder()
    error = refused(state, 0, {"type": "play", "cards": ["3M"], "wild": [2, 4]})
    assert error.rule == "EP-8" and error.field == "wild"


def test_illegal_wild_without_play_token():
    """EP-8 rule 3: a Wild token is not a Play token; only Wild tokens: no play."""
    h0 = ["9B", "8B", "2M", "3M", "4M", "5M", "6M", "7M"]
    h1 = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
    state = started(4, {0: h0, 1: h1}, [1, 3, 2, 2])
    play(state, 1, ["2S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    act(state, 0, "pass", switch="to_wild")  # its only Play token becomes a Wild token
    play(state, 1, ["3S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    error = refused(state, 0, {"type": "play", "cards": ["3M"], "wild": 2})
    assert error.rule == "EP-7" and "Play token" in error.message


def test_penalty_examples():
    """EP-14 (rulebook): three 9s and a 5 with 3 Play and 1 Wild token: -34 (played out
    move by move in test_exact_plays_rules); four 9s lose only 9."""
    assert -penalty(["9M", "9S", "9A", "5M"], 3, 1) == -34
    assert -penalty(["9M", "9S", "9A", "9B"], 0, 0) == -9
