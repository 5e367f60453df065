"""Exact Plays: one test (or a few) per rule and per ruling EP-1..EP-17.

Situations are stacked with the ``decks`` option and reached through the public contract
(new_game / apply / legal_actions / view); only the EP-9 and EP-13 corner cases that need a
hand emptied at a precise moment are played out move by move as well.
"""

from __future__ import annotations

import json

import pytest
from exact_plays_helpers import (
    GAME,
    act,
    all_cards,
    codes_in,
    deck,
    declare_all,
    new_game,
    play,
    plays,
    snapshot,
    started,
    types,
)

from cardroom.games.exact_plays.cards import ALL_CODES, card
from cardroom.games.exact_plays.engine import penalty, rps_survivors
from cardroom.kit.base import (
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    RuleError,
    redact_event,
)

# four-player hands used by several tests (the rest of the deck fills the other seats)
H0 = ["4M", "4S", "4A", "2M", "3M", "6M", "7B", "8B"]
H1 = ["3B", "4B", "5B", "9M", "9S", "9A", "2A", "6S"]


def refused(state: dict, seat: int, action: dict, error: type[RuleError] = IllegalAction):
    before = snapshot(state)
    with pytest.raises(error) as info:
        GAME.apply(state, seat, action)
    assert snapshot(state) == before, "a refused action changed the state"
    return info.value


# --- EP-1 components --------------------------------------------------------------------


def test_ep1_cards_and_players():
    """EP-1: 32 cards 2-9 in four suits, codes number+suit letter; 2-4 players."""
    assert len(ALL_CODES) == 32 and len(set(ALL_CODES)) == 32
    assert {c[1] for c in ALL_CODES} == {"M", "S", "A", "B"}
    assert {int(c[0]) for c in ALL_CODES} == set(range(2, 10))
    assert card("4M") == {"id": "4M", "code": "4M", "number": 4, "suit": "mushroom"}
    assert card("9B")["suit"] == "bolt" and card("2S")["suit"] == "splat"
    assert card("7A")["suit"] == "acorn"
    for bad in (1, 5):
        with pytest.raises(InvalidOptions) as info:
            GAME.validate_options(bad, {})
        assert info.value.field == "players"
    for players in (2, 3, 4):
        state = GAME.new_game(players, GAME.validate_options(players, {}), 3)
        assert state["token_pile"] + sum(state["play_tokens"]) + sum(state["wild_tokens"]) == 40


# --- EP-2 setup ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_ep2_two_players_remove_a_suit_and_draw_pile(seed):
    """EP-2: 2 players: one whole suit removed, 8 each, the other 8 a draw pile."""
    state = new_game(2, seed=seed)
    removed = {c[1] for c in state["set_aside"]}
    assert len(state["set_aside"]) == 8 and len(removed) == 1
    in_play = state["hands"][0] + state["hands"][1] + state["draw_pile"]
    assert len(in_play) == 24 and not removed & {c[1] for c in in_play}
    assert [len(h) for h in state["hands"]] == [8, 8] and len(state["draw_pile"]) == 8
    assert sorted(all_cards(state)) == sorted(ALL_CODES)


def test_ep2_two_player_removed_suit_comes_from_the_seed():
    removed = {new_game(2, seed=seed)["set_aside"][0][1] for seed in range(40)}
    assert removed == {"M", "S", "A", "B"}


def test_ep2_three_players_set_aside_and_four_players_all_dealt():
    """EP-2: 3 players: 8 set aside unseen; 4 players: all 32 dealt."""
    three = new_game(3, seed=2)
    assert [len(h) for h in three["hands"]] == [8, 8, 8]
    assert len(three["set_aside"]) == 8 and three["draw_pile"] == []
    four = new_game(4, seed=2)
    assert [len(h) for h in four["hands"]] == [8] * 4 and four["set_aside"] == []
    assert sorted(c for h in four["hands"] for c in h) == sorted(ALL_CODES)


def test_ep2_stacked_decks_deal_in_seat_order():
    """decks option: seat 0 gets the first 8, seat 1 the next 8; the rest is the draw
    pile (2p, top first) or set aside (3p)."""
    order = deck(2, {}, removed="B")
    state = new_game(2, decks=[order])
    assert state["hands"][0] == order[:8]
    assert sorted(state["hands"][1]) == sorted(order[8:16])
    assert state["draw_pile"] == order[16:]
    assert {c[1] for c in state["set_aside"]} == {"B"}
    three = deck(3, {})
    state = new_game(3, decks=[three])
    assert sorted(state["set_aside"]) == sorted(three[24:])


def test_ep2_each_round_new_deal_and_later_rounds_shuffled():
    order = deck(4, {0: H0})
    state = new_game(4, decks=[order])
    assert state["hands"][0] == sorted(H0, key=ALL_CODES.index)
    declare_all(state, [0, 0, 0, 0])  # EP-12: nobody holds a Play token: round over
    assert state["round"] == 2
    assert sorted(c for h in state["hands"] for c in h) == sorted(ALL_CODES)
    assert state["hands"][0] != sorted(H0, key=ALL_CODES.index)


def test_ep2_same_seed_same_deal_different_seed_different_deal():
    assert new_game(3, seed=9)["hands"] == new_game(3, seed=9)["hands"]
    assert new_game(3, seed=9)["hands"] != new_game(3, seed=10)["hands"]


@pytest.mark.parametrize(
    ("players", "options", "field"),
    [
        (4, {"decks": [["2M"] * 32]}, "options.decks"),
        (4, {"decks": [ALL_CODES[:31]]}, "options.decks"),
        (4, {"decks": [[*ALL_CODES[:31], "1M"]]}, "options.decks"),
        (4, {"decks": [list(ALL_CODES)] * 5}, "options.decks"),
        (4, {"decks": ["2M"]}, "options.decks"),
        (2, {"decks": [list(ALL_CODES)]}, "options.decks"),
        (2, {"decks": [[*[c for c in ALL_CODES if c[1] != "B"][:23], "2B"]]}, "options.decks"),
        (3, {"decks": [list(ALL_CODES)[:24]]}, "options.decks"),
        (2, {"decks": "2M"}, "options.decks"),
        (2, {"tiebreak": "coin"}, "options.tiebreak"),
        (2, {"turn_limit": 0}, "options.turn_limit"),
        (2, {"turn_limit": True}, "options.turn_limit"),
        (2, {"turn_limt": 5}, "options.turn_limt"),
    ],
)
def test_invalid_options_name_the_field(players, options, field):
    with pytest.raises(InvalidOptions) as info:
        GAME.validate_options(players, options)
    assert info.value.field == field


def test_a_short_deck_is_counted_in_words():
    """EP-2's stacked deck: the refusal counts cards and suits with correct plurals."""
    with pytest.raises(InvalidOptions) as info:
        GAME.validate_options(2, {"decks": [["2M"]]})
    assert "(got 1 card of 1 suit)" in str(info.value)
    with pytest.raises(InvalidOptions) as info:
        GAME.validate_options(2, {"decks": [["2M", "3B"]]})
    assert "(got 2 cards of 2 suits)" in str(info.value)


def test_options_defaults_and_descriptions():
    clock = {"turn_seconds": None, "bank_seconds": None, "away_after": 2, "away_bot": None}
    assert GAME.validate_options(3, {}) == {
        "tiebreak": "rps",
        "turn_limit": 2000,
        "decks": None,
        **clock,
    }
    described = {o["name"]: o for o in GAME.describe()["options"]}
    assert set(described) == {"tiebreak", "turn_limit", "decks", *clock}
    assert all(len(o["description"]) > 40 for o in described.values())
    assert described["decks"]["nullable"] is True and described["decks"]["secret"] is True
    # a null entry shuffles that round; fewer lists than rounds is fine
    GAME.validate_options(2, {"decks": [None, deck(2, {})]})


# --- EP-3 declarations ---------------------------------------------------------------------


def test_ep3_awaiting_only_seats_that_have_not_declared():
    """EP-3: all seats may act until all are in, but the game waits only for those who
    have not declared yet (bots act only when awaited)."""
    state = new_game(3, seed=4)
    assert GAME.awaiting(state) == {0, 1, 2}
    act(state, 1, "declare", tokens=4)
    assert GAME.awaiting(state) == {0, 2} and GAME.to_act(state) == {0, 1, 2}
    declare_all(state, [2, 4, 1])
    assert GAME.awaiting(state) == GAME.to_act(state) == {1}


def test_ep3_everyone_declares_secretly_and_may_change():
    """EP-3: simultaneous: all seats may act; hidden until all are in; changeable."""
    state = new_game(3, seed=4)
    assert GAME.to_act(state) == {0, 1, 2}
    assert GAME.legal_actions(state, 1) == [{"type": "declare", "tokens": k} for k in range(11)]
    events = act(state, 0, "declare", tokens=7)
    assert redact_event(events[0], 0)["tokens"] == 7
    assert "tokens" not in redact_event(events[0], 1)
    assert "tokens" not in redact_event(events[0], None)
    act(state, 0, "declare", tokens=3)  # changed before all are in
    act(state, 1, "declare", tokens=2)
    other = GAME.view(state, 2)
    assert other["declarations"] is None
    assert [s["declared"] for s in other["seats"]] == [True, True, False]
    assert all(s["declaration"] is None for s in other["seats"])
    assert other["you"]["declaration"] is None and GAME.view(state, 0)["you"]["declaration"] == 3
    # tokens are taken only at the reveal (counts on the table would give them away)
    assert other["token_pile"] == 40 and all(s["play_tokens"] == 0 for s in other["seats"])
    events = act(state, 2, "declare", tokens=5)
    assert "declarations_revealed" in types(events)
    revealed = next(e for e in events if e["type"] == "declarations_revealed")
    assert revealed["declarations"] == [3, 2, 5]
    assert (
        state["play_tokens"] == [3, 2, 5]
        and state["wild_tokens"] == [0, 0, 0]
        and state["token_pile"] == 30
    )
    assert GAME.view(state, None)["declarations"] == [3, 2, 5]


@pytest.mark.parametrize("tokens", [-1, 11, "3", 2.0, True, None, [3]])
def test_ep3_declaration_is_0_to_10(tokens):
    state = new_game(2)
    error = refused(state, 0, {"type": "declare", "tokens": tokens})
    assert error.field == "tokens" and error.rule == "EP-3"


def test_ep3_no_play_actions_during_declarations():
    """Another phase's action is not-your-turn (docs/api.md: wrong phase, 409), so a client
    whose declaration arrives just after the reveal simply looks again. The refusal names
    the ruling that says when the action belongs: EP-6 for a turn's pass, EP-3 for a
    declaration."""
    state = new_game(2)
    assert refused(state, 0, {"type": "pass"}, NotYourTurn).rule == "EP-6"
    assert refused(state, 0, {"type": "rps", "shape": "rock"}, NotYourTurn).rule == "EP-4"
    declare_all(state, [3, 3])  # a tie: rock-paper-scissors
    assert refused(state, 0, {"type": "declare", "tokens": 4}, NotYourTurn).rule == "EP-3"


# --- EP-4 start player ---------------------------------------------------------------------


def test_ep4_most_tokens_starts():
    state = new_game(3, seed=1)
    events = declare_all(state, [2, 6, 4])
    assert state["phase"] == "play" and state["start_player"] == 1 and GAME.to_act(state) == {1}
    assert {"type": "start_player", "seat": 1, "reason": "most_tokens"} in events


def test_ep4_tie_goes_to_rock_paper_scissors_among_the_tied():
    state = new_game(4, seed=1)
    events = declare_all(state, [5, 2, 5, 5])
    assert state["phase"] == "rps" and "rps_started" in types(events)
    assert GAME.to_act(state) == {0, 2, 3}
    assert GAME.legal_actions(state, 1) == []
    refused(state, 1, {"type": "rps", "shape": "rock"}, NotYourTurn)
    assert GAME.legal_actions(state, 0) == [
        {"type": "rps", "shape": s} for s in ("rock", "paper", "scissors")
    ]
    events = act(state, 0, "rps", shape="rock")
    # secret until the throw is revealed; one choice per throw
    assert "shape" not in redact_event(events[0], 2) and "shape" not in redact_event(
        events[0], None
    )
    assert redact_event(events[0], 0)["shape"] == "rock"
    assert GAME.to_act(state) == {2, 3}
    refused(state, 0, {"type": "rps", "shape": "paper"}, NotYourTurn)
    assert GAME.view(state, 2)["you"]["rps_choice"] is None
    assert GAME.view(state, 0)["you"]["rps_choice"] == "rock"
    assert "rock" not in json.dumps(GAME.view(state, 2))
    assert GAME.view(state, 2)["rps"]["chosen"] == [0]
    # all three shapes: replay
    act(state, 2, "rps", shape="paper")
    events = act(state, 3, "rps", shape="scissors")
    reveal = next(e for e in events if e["type"] == "rps_revealed")
    assert reveal["replay"] is True and reveal["shapes"] == ["rock", None, "paper", "scissors"]
    assert state["phase"] == "rps" and GAME.to_act(state) == {0, 2, 3}
    # one shape only: replay
    for seat in (0, 2, 3):
        events = act(state, seat, "rps", shape="paper")
    assert next(e for e in events if e["type"] == "rps_revealed")["replay"] is True
    # two shapes: the beaten drop out (paper covers rock)
    act(state, 0, "rps", shape="rock")
    act(state, 2, "rps", shape="paper")
    events = act(state, 3, "rps", shape="paper")
    reveal = next(e for e in events if e["type"] == "rps_revealed")
    assert reveal["remaining"] == [2, 3] and reveal["replay"] is False
    assert GAME.to_act(state) == {2, 3}
    act(state, 2, "rps", shape="scissors")
    events = act(state, 3, "rps", shape="paper")
    assert {"type": "start_player", "seat": 2, "reason": "rock_paper_scissors"} in events
    assert state["phase"] == "play" and state["start_player"] == 2 and GAME.to_act(state) == {2}
    throws = GAME.view(state, None)["rps"]["throws"]
    assert len(throws) == 4 and throws[-1]["remaining"] == [2]


def test_ep4_rps_rules():
    assert rps_survivors([0, 1], ["rock", "scissors"]) == [0]
    assert rps_survivors([0, 1], ["rock", "paper"]) == [1]
    assert rps_survivors([0, 1], ["scissors", "paper"]) == [0]
    assert rps_survivors([0, 1, 2], ["rock", "paper", "scissors"]) == [0, 1, 2]
    assert rps_survivors([1, 2], [None, "rock", "rock"]) == [1, 2]


@pytest.mark.parametrize("shape", ["lizard", "", None, 1, ["rock"]])
def test_ep4_bad_shape(shape):
    state = new_game(2)
    declare_all(state, [3, 3])
    assert refused(state, 0, {"type": "rps", "shape": shape}).field == "shape"


def test_ep4_tiebreak_random_draws_from_the_seed():
    starts = set()
    for seed in range(20):
        state = new_game(3, seed=seed, tiebreak="random")
        events = declare_all(state, [4, 1, 4])
        assert state["phase"] == "play" and state["start_player"] in (0, 2)
        assert {
            "type": "start_player",
            "seat": state["start_player"],
            "reason": "random",
            "tied": [0, 2],
        } in events
        starts.add(state["start_player"])
        again = new_game(3, seed=seed, tiebreak="random")
        declare_all(again, [4, 1, 4])
        assert again["start_player"] == state["start_player"]
    assert starts == {0, 2}


# --- EP-5 / EP-6 turns ----------------------------------------------------------------------


def test_ep5_field_cleared_when_turn_returns_to_its_player():
    """EP-5 (3-4 players): the field's player gets the turn back: cleared, start player."""
    state = started(4, {0: H0, 1: H1}, [5, 3, 3, 3])
    play(state, 0, ["4M", "4S", "4A"])
    assert GAME.to_act(state) == {1}  # EP-6: the turn passes clockwise
    act(state, 1, "pass")
    act(state, 2, "pass")
    events = act(state, 3, "pass")
    assert "field_cleared" in types(events)
    cleared = next(e for e in events if e["type"] == "field_cleared")
    assert cleared["by"] == 0 and cleared["reason"] == "returned"
    assert state["field"] == [] and state["start_player"] == 0 and state["current_seat"] == 0
    assert sorted(state["cleared"]) == sorted(["4M", "4S", "4A"])
    view = GAME.view(state, None)
    assert view["field"] == [] and view["start_player"] == 0 and view["turn"] == 0
    # with an empty field and Play tokens the new start player must play (EP-10)
    assert all(a["type"] == "play" for a in GAME.legal_actions(state, 0))


def test_ep5_two_players_not_cleared_after_the_opponent_draws():
    """EP-5/EP-11: in a 2-player game the turn coming back after a draw clears nothing."""
    state = started(2, {0: ["2M", "3M", "4M", "5M", "6M", "7M", "8M", "9M"]}, [4, 2])
    play(state, 0, ["5M"])
    events = act(state, 1, "draw")
    assert "field_cleared" not in types(events)
    assert state["current_seat"] == 0 and state["field"] == ["5M"] and state["field_by"] == 0
    assert {"type": "play", "cards": ["6M"]} in GAME.legal_actions(state, 0)


def test_ep6_one_thing_per_turn_clockwise():
    state = started(3, {}, [2, 3, 1])
    assert state["current_seat"] == 1
    hand = state["hands"][1]
    play(state, 1, [hand[0]])
    assert state["current_seat"] == 2
    act(state, 2, "pass")
    assert state["current_seat"] == 0
    refused(state, 2, {"type": "pass"}, NotYourTurn)


# --- EP-7 card play ---------------------------------------------------------------------------


def test_ep7_empty_field_any_combination_of_any_size():
    hand = ["4M", "5M", "6M", "7M", "8M", "2S", "2A", "9B"]
    state = started(4, {0: hand}, [5, 1, 1, 1])
    legal = plays(state, 0)
    assert (("4M", "5M", "6M", "7M", "8M"), None) in legal
    assert (("2S", "2A"), None) in legal and (("9B",), None) in legal
    play(state, 0, ["8M", "4M", "6M", "5M", "7M"])  # any order on the wire
    assert state["field"] == ["4M", "5M", "6M", "7M", "8M"] and state["field_by"] == 0
    assert state["play_tokens"][0] == 4 and state["token_pile"] == 40 - 8 + 1


def test_ep7_same_count_needs_a_higher_card():
    state = started(4, {0: H0, 1: H1}, [5, 3, 3, 3])
    play(state, 0, ["4M", "4S", "4A"])
    legal = plays(state, 1)
    assert (("3B", "4B", "5B"), None) in legal  # 5 > 4
    assert (("9M", "9S", "9A"), None) in legal
    assert all(len(c) + (w is not None) in (3, 4) for c, w in legal)
    error = refused(state, 1, {"type": "play", "cards": ["9M", "9S"]})
    assert error.rule == "EP-7"


def test_ep7_one_more_card_needs_a_lower_card():
    h0 = ["5M", "5S", "2M", "3M", "4S", "6B", "7B", "8B"]
    h1 = ["4A", "5A", "6A", "2S", "2A", "2B", "9M", "9S"]
    state = started(4, {0: h0, 1: h1}, [5, 3, 3, 3])
    play(state, 0, ["5M", "5S"])
    legal = plays(state, 1)
    assert (("4A", "5A", "6A"), None) in legal
    assert (("2S", "2A", "2B"), None) in legal
    assert (("9M", "9S"), None) in legal  # same count, higher
    refused(state, 1, {"type": "play", "cards": ["2S", "2A", "2B", "9M"]})  # not a combination
    refused(state, 1, {"type": "play", "cards": ["2S"]})  # fewer cards


def test_ep7_two_more_cards_is_illegal():
    h0 = ["5M", "2M", "3M", "4M", "6B", "7B", "8B", "9B"]
    h1 = ["2A", "3A", "4A", "5A", "2S", "3S", "4S", "9S"]
    state = started(4, {0: h0, 1: h1}, [5, 3, 3, 3])
    play(state, 0, ["5M"])
    error = refused(state, 1, {"type": "play", "cards": ["2A", "3A", "4A"]})
    assert error.rule == "EP-7" and "not 3" in error.message
    assert all(len(c) in (1, 2) for c, _ in plays(state, 1))


def test_ep7_kinds_single_set_run_and_non_combinations():
    hand = ["3M", "4M", "5M", "3S", "3A", "6S", "7A", "9B"]
    state = started(4, {0: hand}, [5, 1, 1, 1])
    for cards in (
        ["3M", "6S"],
        ["3M", "4M", "6S"],
        ["3M", "5M"],
        ["3M", "3S", "4M"],
        ["5M", "6S"],
        ["3M", "4M", "5M", "3S"],
    ):
        error = refused(state, 0, {"type": "play", "cards": cards})
        assert error.rule == "EP-7"
    legal = plays(state, 0)
    assert (("3M", "3S", "3A"), None) in legal and (("3M", "4M", "5M"), None) in legal
    assert (("3M", "4M"), None) in legal and (("3S", "3A"), None) in legal


def test_ep7_kind_need_not_match_and_overwritten_cards_leave():
    h0 = ["4M", "4S", "2M", "3M", "6B", "7B", "8B", "9B"]
    h1 = ["5A", "6A", "2S", "3S", "4A", "2A", "3A", "9S"]
    state = started(4, {0: h0, 1: h1}, [5, 3, 3, 3])
    play(state, 0, ["4M", "4S"])  # a set
    events = play(state, 1, ["5A", "6A"])  # a run beats it
    assert next(e for e in events if e["type"] == "played")["kind"] == "run"
    assert state["field"] == ["5A", "6A"] and state["cleared"] == ["4M", "4S"]


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play"},
        {"type": "play", "cards": []},
        {"type": "play", "cards": "4M"},
        {"type": "play", "cards": [4]},
        {"type": "play", "cards": [["4M"]]},
        {"type": "play", "cards": ["4M", "4M"]},
        {"type": "play", "cards": ["5B"]},
        {"type": "play", "cards": ["XX"]},
        {"type": "play", "cards": ["4M"], "extra": 1},
    ],
)
def test_ep7_malformed_plays_are_refused(action):
    state = started(4, {0: H0}, [5, 1, 1, 1])
    error = refused(state, 0, action)
    assert error.field in ("cards", "extra")


# --- EP-8 Wild token ------------------------------------------------------------------------

MUSHROOMS = ["2M", "3M", "4M", "5M", "6M", "7M", "8M", "9M"]
SPLATS = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
ACORNS = ["2A", "3A", "4A", "5A", "6A", "7A", "8A", "9A"]
BOLTS = ["2B", "3B", "4B", "5B", "6B", "7B", "8B", "9B"]
# scenario W: seat 0 holds two bolts and six mushrooms; 1 and 2 a whole suit each
W_HANDS = {
    0: ["9B", "8B", "2M", "3M", "4M", "5M", "6M", "7M"],
    1: SPLATS,
    2: ACORNS,
    3: ["2B", "3B", "4B", "5B", "6B", "7B", "8M", "9M"],
}


def with_wild() -> dict:
    """Scenario W: seat 0 to play on a single 4S holding 4 Play tokens and 1 Wild token."""
    state = started(4, W_HANDS, [6, 3, 3, 3])
    play(state, 0, ["2M"])
    play(state, 1, ["3S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    events = act(state, 0, "pass", switch="to_wild")  # EP-10: switching while passing
    assert next(e for e in events if e["type"] == "passed")["switch"] == "to_wild"
    assert state["play_tokens"][0] == 4 and state["wild_tokens"][0] == 1
    play(state, 1, ["4S"])  # seat 1's field came back to it (EP-5): it starts again
    act(state, 2, "pass")
    act(state, 3, "pass")
    assert state["current_seat"] == 0 and state["field"] == ["4S"]
    return state


def test_ep8_wild_variants_are_listed_exactly():
    state = with_wild()
    assert plays(state, 0) == {
        # one card, higher than 4
        (("5M",), None), (("6M",), None), (("7M",), None), (("8B",), None), (("9B",), None),
        # two cards, one lower than 4: a run, or a card with the Wild token
        (("3M", "4M"), None),
        (("3M",), 2), (("3M",), 3), (("3M",), 4), (("4M",), 3),
    }  # fmt: skip
    assert {"type": "play", "cards": ["3M"], "wild": 2} in GAME.legal_actions(state, 0)


def test_ep8_wild_pays_a_play_token_and_returns_to_the_pile():
    state = with_wild()
    pile = state["token_pile"]
    events = play(state, 0, ["3M"], wild=2)
    played = next(e for e in events if e["type"] == "played")
    assert played["kind"] == "run" and played["wild"] == {"number": 2, "suit": "mushroom"}
    assert (
        state["play_tokens"][0] == 3
        and state["wild_tokens"][0] == 0
        and state["token_pile"] == pile + 2
    )
    assert state["field_wild"] == 2 and state["field"] == ["3M"]
    view = GAME.view(state, 2)
    assert view["field_wild"] == {"number": 2, "suit": "mushroom"}
    assert view["field_kind"] == "run"


def test_ep8_a_set_wild_has_no_suit():
    state = with_wild()
    events = play(state, 0, ["3M"], wild=3)
    played = next(e for e in events if e["type"] == "played")
    assert played["kind"] == "set" and played["wild"] == {"number": 3, "suit": None}


def test_ep8_refusals():
    """EP-8: never alone, at most one, a number 1-10, the combination must hold."""
    state = with_wild()
    for wild in (0, 11, -1, "5", 5.0, True, [4, 5], {"n": 4}):
        error = refused(state, 0, {"type": "play", "cards": ["3M"], "wild": wild})
        assert error.field == "wild" and error.rule == "EP-8"
    assert refused(state, 0, {"type": "play", "cards": [], "wild": 5}).field == "cards"
    assert refused(state, 0, {"type": "play", "wild": 5}).field == "cards"
    assert refused(state, 0, {"type": "play", "cards": ["5M"], "wild": 3}).rule == "EP-8"
    assert refused(state, 0, {"type": "play", "cards": ["4M"], "wild": 4}).rule == "EP-7"


def test_ep8_wild_ten_on_an_eight_nine():
    """EP-8: the Wild token named 10 is higher than any card."""
    state = with_wild()
    act(state, 0, "pass")
    play(state, 1, ["8S", "9S"])  # its field came back: cleared; it starts again
    act(state, 2, "pass")
    act(state, 3, "pass")
    two = {(c, w) for c, w in plays(state, 0) if len(c) + (w is not None) == 2}
    assert two == {(("9B",), 10)}
    events = play(state, 0, ["9B"], wild=10)
    assert next(e for e in events if e["type"] == "played")["wild"] == {
        "number": 10,
        "suit": "bolt",
    }


def test_ep8_only_wild_tokens_no_play():
    """EP-8/EP-7: a Wild token is not a Play token: with only Wild tokens no card play."""
    state = started(4, W_HANDS, [1, 3, 2, 2])
    play(state, 1, ["2S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    act(state, 0, "pass", switch="to_wild")
    assert state["play_tokens"][0] == 0 and state["wild_tokens"][0] == 1
    play(state, 1, ["3S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    assert state["current_seat"] == 0
    assert GAME.legal_actions(state, 0) == [
        {"type": "pass"},
        {"type": "pass", "switch": "to_play"},
    ]
    assert refused(state, 0, {"type": "play", "cards": ["9B"], "wild": 9}).rule == "EP-7"
    assert refused(state, 0, {"type": "play", "cards": ["9B"]}).rule == "EP-7"
    assert refused(state, 0, {"type": "pass", "switch": "to_wild"}).rule == "EP-10"
    act(state, 0, "pass", switch="to_play")
    assert state["play_tokens"][0] == 1 and state["wild_tokens"][0] == 0


# --- EP-9 out of cards / no choice ---------------------------------------------------------

E9_HANDS = {0: MUSHROOMS, 1: SPLATS, 2: ACORNS, 3: BOLTS}


def e9_until_seat3_out(tokens: list[int]) -> tuple[dict, list[dict]]:
    state = started(4, E9_HANDS, tokens)
    play(state, 0, MUSHROOMS[:6])
    play(state, 1, SPLATS[1:7])  # 3-8: same count, 8 > 7
    play(state, 2, ACORNS[2:8])  # 4-9: 9 > 8
    play(state, 3, BOLTS[:7])  # seven cards, 2 < 4
    act(state, 0, "pass")
    act(state, 1, "pass")
    events = act(state, 2, "pass")
    return state, events


def test_ep9_forced_play_and_automatic_pass_without_cards_or_tokens():
    """EP-5 then EP-9: seat 3's field returns (cleared); with one card and no Wild token
    its only move is playing it, which the engine does; then seat 3, without cards or
    tokens, is passed for automatically and never listed in to_act."""
    state, events = e9_until_seat3_out([4, 2, 2, 2])
    assert types(events)[-3:] == ["field_cleared", "start_player", "played"]
    assert events[-1]["auto"] is True and events[-1]["cards"] == [card("9B")]
    assert state["hands"][3] == [] and state["play_tokens"][3] == 0 and state["current_seat"] == 0
    play(state, 0, ["8M", "9M"])  # two cards, 8 < 9: seat 0 is out too, the round goes on
    assert state["phase"] == "play" and state["round"] == 1
    act(state, 1, "pass")
    events = act(state, 2, "pass")
    auto = [e for e in events if e["type"] == "passed" and e.get("auto")]
    assert [e["seat"] for e in auto] == [3]
    # then the field returns to seat 0: cleared while players are out: EP-13
    assert "round_ended" in types(events)
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended["reason"] == "out_of_cards"
    # EP-14: seat 0 out with one Play token; seat 1 holds 2S 9S and a Play token; ...
    assert ended["penalties"] == [-10, -21, -15, 0]


def test_ep9_no_cards_but_tokens_can_only_pass():
    state, _ = e9_until_seat3_out([4, 2, 2, 3])
    assert state["hands"][3] == [] and state["play_tokens"][3] == 1
    play(state, 0, ["8M", "9M"])
    act(state, 1, "pass")
    act(state, 2, "pass")
    assert GAME.to_act(state) == {3}
    assert GAME.legal_actions(state, 3) == [{"type": "pass"}, {"type": "pass", "switch": "to_wild"}]
    assert refused(state, 3, {"type": "play", "cards": ["9B"]}).field == "cards"


def test_ep9_no_tokens_with_cards_is_passed_for():
    """A seat without tokens (3-4 players: no draw) has only a pass: the engine makes it."""
    state = started(4, W_HANDS, [2, 0, 0, 0])
    events = play(state, 0, ["2M"])
    auto = [e["seat"] for e in events if e["type"] == "passed" and e.get("auto")]
    assert auto == [1, 2, 3]
    # the field returned to seat 0: cleared, seat 0 plays again
    assert types(events)[-2:] == ["field_cleared", "start_player"]
    assert GAME.to_act(state) == {0} and state["field"] == []


# --- EP-10 pass ---------------------------------------------------------------------------


def test_ep10_start_player_must_play():
    state = started(4, W_HANDS, [6, 3, 3, 3])
    for action in ({"type": "pass"}, {"type": "pass", "switch": "to_wild"}):
        assert refused(state, 0, action).rule == "EP-10"
    assert all(a["type"] == "play" for a in GAME.legal_actions(state, 0))


def test_ep10_empty_field_without_play_token_passes_to_the_next_start_player():
    state = started(4, W_HANDS, [2, 1, 1, 1])
    play(state, 0, ["2M"])
    play(state, 1, ["3S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    play(state, 0, ["4M"])  # seat 0 has no Play token left
    assert state["play_tokens"] == [0, 0, 1, 1]
    act(state, 2, "pass")
    events = act(state, 3, "pass")
    # seat 0's field returns: cleared; seat 0 (no tokens) passes, seat 1 likewise, so the
    # start passes on to seat 2, who holds a Play token and must play
    starts = [(e["seat"], e["reason"]) for e in events if e["type"] == "start_player"]
    assert starts == [(0, "field_cleared"), (1, "pass"), (2, "pass")]
    assert state["start_player"] == 2 and state["current_seat"] == 2 and state["field"] == []
    assert all(a["type"] == "play" for a in GAME.legal_actions(state, 2))


def test_ep10_empty_field_wild_only_may_pass():
    state = started(4, W_HANDS, [2, 3, 1, 1])
    play(state, 1, ["2S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    act(state, 0, "pass", switch="to_wild")
    play(state, 1, ["3S"])
    act(state, 2, "pass")
    act(state, 3, "pass")
    play(state, 0, ["4M"])
    act(state, 1, "pass")
    act(state, 2, "pass")
    act(state, 3, "pass")
    assert state["current_seat"] == 0 and state["field"] == [] and state["start_player"] == 0
    assert state["play_tokens"][0] == 0 and state["wild_tokens"][0] == 1
    assert GAME.legal_actions(state, 0) == [{"type": "pass"}, {"type": "pass", "switch": "to_play"}]
    act(state, 0, "pass")
    assert state["start_player"] == 1 and state["current_seat"] == 1


@pytest.mark.parametrize("switch", ["to_both", "", 1, True, ["to_wild"]])
def test_ep10_bad_switch(switch):
    state = with_wild()
    assert refused(state, 0, {"type": "pass", "switch": switch}).field == "switch"


def test_ep10_switch_needs_a_token_of_that_side():
    state = started(4, W_HANDS, [6, 3, 3, 3])
    play(state, 0, ["2M"])
    assert refused(state, 1, {"type": "pass", "switch": "to_play"}).rule == "EP-10"
    assert {"type": "pass", "switch": "to_play"} not in GAME.legal_actions(state, 1)
    act(state, 1, "pass", switch=None)  # null is the same as no switch
    assert state["play_tokens"][1] == 3


# --- 2 players: EP-10 pass clears, EP-11 draw --------------------------------------------

D_HANDS = {0: MUSHROOMS, 1: SPLATS}


def two_player(tokens: list[int]) -> dict:
    return started(2, D_HANDS, tokens, draw=ACORNS)


def test_ep11_draw_even_as_start_player_private_card_field_kept():
    state = two_player([3, 2])
    legal = GAME.legal_actions(state, 0)
    assert {"type": "draw"} in legal and {"type": "pass"} not in legal
    events = act(state, 0, "draw")
    drew = events[0]
    assert drew["type"] == "drew" and drew["draw_pile"] == 7 and "card" not in drew
    assert redact_event(drew, 0)["card"] == card("2A")
    assert "card" not in redact_event(drew, 1) and "card" not in redact_event(drew, None)
    assert "2A" in state["hands"][0] and state["current_seat"] == 1
    assert "2A" not in codes_in(GAME.view(state, 1)) | codes_in(GAME.view(state, None))
    assert "2A" in codes_in(GAME.view(state, 0)["you"]["hand"])
    assert GAME.view(state, 1)["draw_pile"] == 7
    play(state, 1, ["2S"])
    play(state, 0, ["3M"])
    events = act(state, 1, "draw")  # EP-11: not cleared, nobody becomes start player
    assert types(events) == ["drew"]
    assert state["current_seat"] == 0 and state["field"] == ["3M"] and state["field_by"] == 0
    events = act(state, 0, "pass")  # EP-10 (2p): the pass clears; the opponent starts
    assert types(events) == ["passed", "field_cleared", "start_player"]
    assert events[-1] == {"type": "start_player", "seat": 1, "reason": "pass"}
    assert state["field"] == [] and state["start_player"] == 1 and state["current_seat"] == 1


def test_ep11_no_draw_without_cards_and_ep13_two_player_pass():
    state = two_player([2, 1])
    play(state, 0, MUSHROOMS)  # all eight at once: seat 0 is out
    assert state["phase"] == "play"  # EP-9/EP-13: going out does not end the round
    legal = GAME.legal_actions(state, 1)
    assert {a["type"] for a in legal} == {"pass", "draw"}
    act(state, 1, "draw")
    assert GAME.legal_actions(state, 0) == [{"type": "pass"}, {"type": "pass", "switch": "to_wild"}]
    error = refused(state, 0, {"type": "draw"})
    assert error.rule == "EP-11"
    events = act(state, 0, "pass")
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended["reason"] == "out_of_cards"
    assert ended["penalties"] == [-10, -(sum(range(2, 10)) + 10)]


def test_ep11_draw_pile_runs_out_and_three_players_never_draw():
    state = two_player([3, 2])
    for _ in range(8):
        act(state, state["current_seat"], "draw")
    assert state["draw_pile"] == [] and [len(h) for h in state["hands"]] == [12, 12]
    assert {"type": "draw"} not in GAME.legal_actions(state, state["current_seat"])
    assert refused(state, state["current_seat"], {"type": "draw"}).rule == "EP-11"
    three = started(3, {}, [3, 1, 1])
    assert refused(three, 0, {"type": "draw"}).rule == "EP-11"
    assert all(a["type"] != "draw" for a in GAME.legal_actions(three, 0))


# --- EP-12 / EP-13 round end ----------------------------------------------------------------


def test_ep12_all_declare_zero_ends_the_round_at_once():
    state = new_game(3, seed=5)
    events = declare_all(state, [0, 0, 0])
    assert types(events)[-3:] == ["declarations_revealed", "round_ended", "round_started"]
    assert "rps_started" not in types(events)
    assert events[-2]["reason"] == "no_play_tokens" and state["round"] == 2


def test_ep12_last_play_token_played():
    state = started(4, W_HANDS, [1, 0, 0, 0])
    events = play(state, 0, ["2M"])
    assert types(events) == ["played", "round_ended", "round_started"]
    assert events[1]["reason"] == "no_play_tokens"


def test_ep12_last_play_token_switched_to_wild():
    state = started(4, W_HANDS, [1, 2, 0, 0])
    play(state, 1, ["2S"])
    play(state, 0, ["3M"])
    events = act(state, 1, "pass", switch="to_wild")
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended["reason"] == "no_play_tokens" and ended["wild_tokens"] == [0, 1, 0, 0]
    # EP-14: 3S..9S (42) and a Wild token (10)
    assert ended["penalties"][1] == -52


def test_ep13_going_out_does_not_end_the_round_until_the_field_clears():
    """Covered move by move in test_ep9_forced_play_and_automatic_pass...; here: others may
    follow a player who went out."""
    state = started(4, E9_HANDS, [2, 3, 1, 1])
    play(state, 1, SPLATS)  # seat 1 is out with 2 Play tokens left
    assert state["phase"] == "play" and state["current_seat"] == 2
    # nobody can beat eight cards 2-9; the field returns to seat 1: cleared, round over
    act(state, 2, "pass")
    act(state, 3, "pass")
    events = act(state, 0, "pass")
    assert types(events)[:3] == ["passed", "field_cleared", "start_player"]
    assert next(e for e in events if e["type"] == "round_ended")["reason"] == "out_of_cards"


# --- EP-14 scoring ----------------------------------------------------------------------------


def test_ep14_penalty_rules():
    assert penalty(["9M", "9S", "9A", "5M"], 3, 1) == 34
    assert penalty(["9M", "9S", "9A", "9B"], 0, 0) == 9
    assert penalty([], 1, 0) == 10 and penalty([], 0, 2) == 10 and penalty([], 0, 0) == 0
    assert penalty(["2M", "3M"], 5, 5) == 25


# --- EP-15 game end ---------------------------------------------------------------------------

PAIRS = [
    ["2M", "2S", "2A", "2B", "3M", "3S", "3A", "3B"],  # 2 + 3 = 5
    ["4M", "4S", "4A", "4B", "5M", "5S", "5A", "5B"],  # 9
    ["6M", "6S", "6A", "6B", "7M", "7S", "7A", "7B"],  # 13
    ["8M", "8S", "8A", "8B", "9M", "9S", "9A", "9B"],  # 17
]


def test_ep15_four_players_play_four_rounds_and_ties_share_the_win():
    decks = [[c for i in range(4) for c in PAIRS[(i + r) % 4]] for r in range(4)]
    state = new_game(4, decks=decks)
    for expected in ([-5, -9, -13, -17], [-9, -13, -17, -5], [-13, -17, -5, -9]):
        declare_all(state, [0, 0, 0, 0])
        assert state["penalties"][-1] == expected and state["phase"] == "declare"
    events = declare_all(state, [0, 0, 0, 0])
    assert state["phase"] == "over" and state["round"] == 4
    result = GAME.result(state)
    assert result == {
        "winners": [0, 1, 2, 3],
        "scores": [-44] * 4,
        "rounds": [[-5, -9, -13, -17], [-9, -13, -17, -5], [-13, -17, -5, -9], [-17, -5, -9, -13]],
        "reason": "rounds",
    }
    assert events[-1] == {
        "type": "game_over",
        "winners": [0, 1, 2, 3],
        "scores": [-44] * 4,
        "reason": "rounds",
    }
    assert GAME.scores(state) == [-44] * 4 and GAME.to_act(state) == set()
    assert GAME.legal_actions(state, 0) == []
    with pytest.raises(GameOver):
        GAME.apply(state, 0, {"type": "declare", "tokens": 1})


def test_ep15_three_players_three_rounds_lowest_penalty_wins():
    decks = [[c for i in range(3) for c in PAIRS[i]] + PAIRS[3]] * 3
    state = new_game(3, decks=decks)
    for _ in range(3):
        declare_all(state, [0, 0, 0])
    assert GAME.result(state) == {
        "winners": [0],
        "scores": [-15, -27, -39],
        "rounds": [[-5, -9, -13]] * 3,
        "reason": "rounds",
    }


def test_ep15_two_players_three_rounds():
    low = ["2M", "2S", "3M", "3S", "4M", "4S", "5M", "5S"]  # 14 a round
    order = deck(2, {0: low, 1: ACORNS}, removed="B")
    state = new_game(2, decks=[order] * 3)
    for _ in range(3):
        declare_all(state, [0, 1])  # seat 1 starts
        play(state, 1, ACORNS)  # out with its only Play token: EP-12
    assert GAME.result(state)["reason"] == "rounds"
    assert GAME.result(state)["rounds"] == [[-14, 0]] * 3
    assert GAME.result(state)["winners"] == [1]


def test_ep15_minus_50_ends_the_game_early():
    decks = [[c for i in range(4) for c in PAIRS[i]]] * 4
    state = new_game(4, decks=decks)
    for _ in range(3):
        declare_all(state, [0, 0, 0, 0])
    result = GAME.result(state)
    assert result["reason"] == "minus_50" and result["scores"] == [-15, -27, -39, -51]
    assert len(result["rounds"]) == 3 and result["winners"] == [0]


# --- EP-16 turn limit -------------------------------------------------------------------------


def test_ep16_turn_limit_ends_the_round_and_the_game():
    state = started(4, W_HANDS, [6, 3, 3, 3], turn_limit=3)
    play(state, 0, ["2M"])
    play(state, 1, ["3S"])
    events = act(state, 2, "pass")
    assert types(events)[-2:] == ["round_ended", "game_over"]
    assert events[-2]["reason"] == "turn_limit"
    result = GAME.result(state)
    assert result["reason"] == "turn_limit" and len(result["rounds"]) == 1
    # penalties as usual (EP-14): seat 0 holds 3M..7M, 8B, 9B and Play tokens
    assert result["rounds"][0][0] == -(3 + 4 + 5 + 6 + 7 + 8 + 9 + 10)


def test_ep16_turns_count_automatic_passes():
    state = started(4, W_HANDS, [2, 0, 0, 0], turn_limit=4)
    events = play(state, 0, ["2M"])  # 1 play + 3 automatic passes = 4 turns
    assert GAME.result(state)["reason"] == "turn_limit"
    assert state["turns_played"] == 4 and events[-1]["type"] == "game_over"


# --- EP-17 what each player sees -----------------------------------------------------------


def test_ep17_view_contents_and_secrets():
    state = started(3, {0: W_HANDS[0], 1: SPLATS, 2: ACORNS}, [4, 2, 2])
    aside = set(state["set_aside"])
    assert len(aside) == 8
    play(state, 0, ["2M"])
    spectator = GAME.view(state, None)
    assert spectator["you"] is None
    for seat in (0, 1, 2):
        view = GAME.view(state, seat)
        assert view["you"]["seat"] == seat
        assert [c["id"] for c in view["you"]["hand"]] == state["hands"][seat]
        others = {c for s in (0, 1, 2) if s != seat for c in state["hands"][s]}
        assert not codes_in(view) & (others | aside)
    assert not codes_in(spectator) & (aside | {c for h in state["hands"] for c in h})
    assert spectator["field"] == [card("2M")] and spectator["field_by"] == 0
    assert [s["hand_size"] for s in spectator["seats"]] == [7, 8, 8]
    assert [(s["play_tokens"], s["wild_tokens"]) for s in spectator["seats"]] == [
        (3, 0), (2, 0), (2, 0)
    ]  # fmt: skip
    assert spectator["token_pile"] == 40 - 8 + 1
    assert spectator["draw_pile"] is None and spectator["turn"] == 1
    assert spectator["start_player"] == 0 and spectator["round"] == 1
    assert spectator["rounds"] == 3 and spectator["phase"] == "play"
    assert spectator["declarations"] == [4, 2, 2]
    assert spectator["options"] == {"tiebreak": "rps", "turn_limit": 2000, "decks": "stacked"}
    assert spectator["penalties"] == [] and spectator["totals"] == [0, 0, 0]
    assert spectator["result"] is None


def test_ep17_two_player_removed_suit_and_draw_pile_are_secret():
    state = two_player([3, 2])
    secret = set(state["set_aside"]) | set(state["draw_pile"])
    for seat in (0, 1, None):
        assert not codes_in(GAME.view(state, seat)) & secret
    for event in declare_events_for(2):
        for seat in (0, 1, None):
            redacted = redact_event(event, seat)
            assert redacted is None or not codes_in(redacted) & secret


def declare_events_for(players: int) -> list[dict]:
    state = new_game(players, {0: MUSHROOMS, 1: SPLATS}, draw=ACORNS)
    return declare_all(state, [3, 2])


def test_ep17_round_started_deals_privately():
    state = new_game(4, seed=3)
    events = declare_all(state, [0, 0, 0, 0])
    started_event = events[-1]
    assert started_event["type"] == "round_started" and started_event["round"] == 2
    for seat in range(4):
        mine = redact_event(started_event, seat)
        assert [c["id"] for c in mine["hand"]] == state["hands"][seat]
    assert "hand" not in redact_event(started_event, None)


# --- the -34 example played out -----------------------------------------------------------------


def test_ep14_rulebook_example_minus_34_played_out():
    """EP-14: a round ends while seat 0 holds 9, 9, 9, 5, three Play tokens and one Wild
    token: -34."""
    s0 = ["9M", "9S", "9A", "5M", "2A", "3A", "4A", "6B"]
    s1 = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "2B"]
    state = started(4, {0: s0, 1: s1}, [6, 7, 0, 0])
    play(state, 1, ["2B"])  # seats 2 and 3 declared 0: passed for automatically
    play(state, 0, ["6B"])
    act(state, 1, "pass")
    play(state, 0, ["2A", "3A", "4A"])  # the field came back: cleared, seat 0 starts
    play(state, 1, ["6S", "7S", "8S"])
    act(state, 0, "pass", switch="to_wild")
    play(state, 1, ["2S", "3S", "4S", "5S"])  # cleared again; seat 1 goes out
    assert (("9M", "9S", "9A"), 9) in plays(state, 0)  # four 9s would beat it; it passes
    events = act(state, 0, "pass")
    ended = next(e for e in events if e["type"] == "round_ended")
    assert ended["reason"] == "out_of_cards"
    assert ended["play_tokens"][0] == 3 and ended["wild_tokens"][0] == 1
    assert ended["penalties"][0] == -34 and ended["totals"][0] == -34
    assert (
        state["token_pile"] == 40
        and state["play_tokens"] == [0] * 4
        and state["wild_tokens"] == [0] * 4
    )


# --- errors and the contract ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [None, [], "pass", 3, {}, {"type": None}, {"type": "PASS"}, {"type": "fold"}, {"type": 1}],
)
def test_hostile_actions_are_refused_cleanly(action):
    state = started(4, W_HANDS, [6, 3, 3, 3])
    play(state, 0, ["2M"])
    error = refused(state, 1, action)
    assert error.field == "type"


def test_out_of_turn_and_bad_seats():
    state = started(4, W_HANDS, [6, 3, 3, 3])
    for seat in (1, 2, 3, 4, -1, "0", None, 0.0):
        refused(state, seat, {"type": "pass"}, NotYourTurn)
    assert refused(state, 0, {"type": "declare", "tokens": 2}, NotYourTurn).rule == "EP-3"
    assert refused(state, 0, {"type": "pass", "color": "red"}).field == "color"


def test_replay_from_seed_and_action_log_is_exact():
    import random

    log = []
    state = new_game(3, seed=77)
    rng = random.Random(5)
    while GAME.result(state) is None:
        seat = rng.choice(sorted(GAME.to_act(state)))
        action = rng.choice(GAME.legal_actions(state, seat))
        log.append((seat, action))
        GAME.apply(state, seat, action)
    again = new_game(3, seed=77)
    for seat, action in log:
        GAME.apply(again, seat, action)
    assert snapshot(again) == snapshot(state)
