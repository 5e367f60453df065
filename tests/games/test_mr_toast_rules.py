"""Mr Toast: one test (or a few) per rule of the rulebook and per ruling MT-1..MT-15.

Situations are built with stacked decks (option ``deck``) and the public API only.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from mr_toast_helpers import GAME, Table, card_ids_in, types

from cardroom.games.mr_toast.cards import DEFAULT_COUNTS
from cardroom.kit.base import (
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    redact_event,
)

FILLER = ["NW", "NW", "NW", "NW", "NW"]


def zone_count(state: dict) -> int:
    pend = state["pending"]
    count = len(state["draw_pile"]) + len(state["discard_pile"])
    count += sum(len(hand) for hand in state["hands"])
    count += sum(len(entry) for fun in state["fun"] for entry in fun)
    count += sum(card is not None for card in state["red"])
    count += sum(card is not None for card in state["breaks"])
    if pend is not None:
        count += 1 + len(pend["no_ways"])
    return count


# --- MT-1: the deck ------------------------------------------------------------------------------


def test_mt1_default_deck_has_90_cards_of_the_listed_kinds():
    state = GAME.new_game(4, {}, seed=3)
    assert len(state["codes"]) == 90
    assert Counter(state["codes"]) == Counter(DEFAULT_COUNTS)
    counts = Counter(state["codes"])
    assert sum(counts[c] for c in ("G1", "G2", "G3", "G4", "G5")) == 36
    assert sum(counts[c] for c in ("R2", "R3", "R4", "R5")) == 16
    assert sum(counts[c] for c in ("P1", "P2", "P3")) == 12
    assert (counts["TB"], counts["FP"], counts["IT"], counts["NW"]) == (6, 5, 5, 10)
    assert GAME.view(state, None)["deck_size"] == 90


def test_mt1_composition_option_replaces_the_deck():
    composition = [
        {"code": "G5", "count": 20},
        {"code": "NW", "count": 3},
        {"code": "R2", "count": 0},
    ]
    state = GAME.new_game(2, {"composition": composition}, seed=1)
    assert Counter(state["codes"]) == Counter({"G5": 20, "NW": 3})
    assert zone_count(state) == 23


@pytest.mark.parametrize(
    "composition, message",
    [
        ([{"code": "G1", "count": 1}], "2 to 200"),
        ([{"code": "G1", "count": 150}, {"code": "G2", "count": 51}], "2 to 200"),
        ([{"code": "G6", "count": 5}], "not a card code"),
        ([{"code": "G1", "count": 5}, {"code": "G1", "count": 5}], "twice"),
        ([{"code": "G1", "count": True}], "integer"),
        ([{"code": "G1", "count": -1}, {"code": "G2", "count": 9}], "integer"),
        ([{"code": "G1"}], "object"),
        ([{"code": "G1", "count": 5, "extra": 1}], "object"),
        (["G1"], "object"),
        ([], "2 to 200"),
    ],
)
def test_mt1_composition_is_validated(composition, message):
    with pytest.raises(InvalidOptions) as caught:
        GAME.validate_options(2, {"composition": composition})
    assert caught.value.field == "options.composition"
    assert message in caught.value.message


def test_mt1_composition_limits_2_and_200_are_accepted():
    for total in (2, 200):
        opts = GAME.validate_options(2, {"composition": [{"code": "G1", "count": total}]})
        assert len(GAME.new_game(2, opts, 1)["codes"]) == total


def test_small_deck_deals_everyone_the_same_smaller_hand():
    """Our choice (rulebook and rulings silent): deck // players cards each, at most 5."""
    opts = {"composition": [{"code": "G1", "count": 7}], "first_seat": 0}
    state = GAME.new_game(3, opts, seed=2)
    # 7 // 3 = 2 each, 1 left in the draw pile; seat 0 drew it at the start of turn 1.
    assert [len(h) for h in state["hands"]] == [3, 2, 2]
    assert state["draw_pile"] == []
    state = GAME.new_game(3, {"composition": [{"code": "G1", "count": 2}]}, seed=2)
    assert sum(len(h) for h in state["hands"]) == 1  # nothing dealt, one card drawn


# --- MT-2: ids, conservation ---------------------------------------------------------------------


def test_mt2_every_card_has_a_unique_id_and_cards_are_conserved():
    t = Table([["G3", "P2", "R4", "TB", "FP"], ["G2", "R3", "IT", "NW", "G1"]], ["G4", "G5"])
    ids = [card["id"] for seat in (0, 1) for card in t.view(seat)["you"]["hand"]]
    assert len(set(ids)) == len(ids)
    assert {f"c{n}" for n in range(90)} == {f"c{n}" for n in range(len(t.state["codes"]))}
    t.score(0, "G3", "P2")
    t.end_turn(0)
    t.act(1, {"type": "give_red", "card": t.card(1, "R3"), "target": 0})
    assert zone_count(t.state) == 90
    t.end_turn(1)
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1})
    assert zone_count(t.state) == 90  # the pending blue card counts (MT-2)


def test_mt2_ids_do_not_reveal_deal_position():
    """Ids are a random permutation: seat 0 is not simply dealt c0..c4."""
    hands = {tuple(sorted(GAME.new_game(2, {}, seed)["hands"][1][:5])) for seed in range(20)}
    assert len(hands) == 20


def test_mt2_unknown_or_foreign_card_ids_are_refused():
    t = Table([["G3", "P2", "R4", "TB", "FP"], ["G2", "R3", "IT", "NW", "G1"]])
    for bad in ("c90", "c-1", "x3", "c03", 3, None, ["c1"], {"id": "c1"}):
        error = t.refused(0, {"type": "score", "green": bad}, IllegalAction)
        assert error.field == "green"
    error = t.refused(0, {"type": "score", "green": t.card(1, "G2")}, IllegalAction)
    assert "not in your hand" in error.message


# --- MT-3: players, deal -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 7, 0])
def test_mt3_two_to_six_players(players):
    with pytest.raises(InvalidOptions) as caught:
        GAME.validate_options(players, {})
    assert caught.value.field == "players"


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_mt3_deal_five_each_rest_is_draw_pile_discard_empty(players):
    state = GAME.new_game(players, {"first_seat": 0}, seed=9)
    assert [len(hand) for hand in state["hands"]] == [6] + [5] * (players - 1)
    assert len(state["draw_pile"]) == 90 - 5 * players - 1
    assert state["discard_pile"] == []
    view = GAME.view(state, None)
    assert view["draw_pile"] == 90 - 5 * players - 1
    assert view["discard_pile"] == []


def test_mt3_shuffle_is_seeded_and_deterministic():
    assert GAME.new_game(4, {}, 5) == GAME.new_game(4, {}, 5)
    assert GAME.new_game(4, {}, 5)["codes"] != GAME.new_game(4, {}, 6)["codes"]


def test_stacked_deck_deals_in_order():
    t = Table(
        [["G1", "G2", "G3", "G4", "G5"], ["R2", "R3", "R4", "R5", "P1"]], ["TB", "FP"], seed=4
    )
    assert t.hand(0) == ["G1", "G2", "G3", "G4", "G5", "TB"]
    assert t.hand(1) == ["R2", "R3", "R4", "R5", "P1"]
    assert [t.state["codes"][c] for c in t.state["draw_pile"][:1]] == ["FP"]


def test_deck_option_must_be_a_permutation_of_the_deck():
    deck = ["G1"] * 90
    with pytest.raises(InvalidOptions) as caught:
        GAME.validate_options(2, {"deck": deck})
    assert caught.value.field == "options.deck"
    with pytest.raises(InvalidOptions):
        GAME.validate_options(2, {"deck": ["G1", "XX"]})
    with pytest.raises(InvalidOptions):
        GAME.validate_options(2, {"deck": [1, 2]})
    comp = [{"code": "G1", "count": 2}, {"code": "NW", "count": 1}]
    assert GAME.validate_options(2, {"composition": comp, "deck": ["NW", "G1", "G1"]})
    with pytest.raises(InvalidOptions):
        GAME.validate_options(2, {"composition": comp, "deck": ["NW", "G1"]})


def test_other_options_are_validated():
    bad = [
        ({"mode": "lazy"}, "options.mode"),
        ({"turn_limit": 0}, "options.turn_limit"),
        ({"turn_limit": 10001}, "options.turn_limit"),
        ({"turn_limit": 5.5}, "options.turn_limit"),
        ({"first_seat": 2}, "options.first_seat"),
        ({"first_seat": -1}, "options.first_seat"),
        ({"reaction_deadline": 0}, "options.reaction_deadline"),
        ({"reaction_deadline": float("nan")}, "options.reaction_deadline"),
        ({"auto_allow": 1}, "options.auto_allow"),
        ({"auto_allow": None}, "options.auto_allow"),
        ({"colour": "blue"}, "options.colour"),
    ]
    for options, field in bad:
        with pytest.raises(InvalidOptions) as caught:
            GAME.validate_options(2, options)
        assert caught.value.field == field, options
    full = GAME.validate_options(3, {})
    assert full == {
        "mode": "exact",
        "turn_limit": 500,
        "first_seat": None,
        "deck": None,
        "composition": None,
        "reaction_deadline": None,
        "auto_allow": False,
        # the turn clock (MT-17), off by default
        "turn_seconds": None,
        "bank_seconds": None,
        "away_after": 2,
        "away_bot": None,
    }


def test_options_are_described_for_game_types():
    described = GAME.describe()
    assert described["game_type"] == "mr-toast"
    assert (described["min_players"], described["max_players"]) == (2, 6)
    names = {option["name"]: option for option in described["options"]}
    assert set(names) == {
        "mode",
        "turn_limit",
        "first_seat",
        "deck",
        "composition",
        "reaction_deadline",
        "auto_allow",
        "turn_seconds",
        "bank_seconds",
        "away_after",
        "away_bot",
    }
    assert names["turn_limit"]["default"] == 500
    assert names["mode"]["choices"] == ["exact", "irresponsible"]
    assert all(option["description"] for option in described["options"])


# --- MT-4: first seat, order ---------------------------------------------------------------------


def test_mt4_first_seat_option_and_play_moves_to_the_left():
    state = GAME.new_game(4, {"first_seat": 2}, seed=1)
    order = []
    for _ in range(6):
        order.append(state["current_seat"])
        GAME.apply(state, state["current_seat"], {"type": "end_turn"})
    assert order == [2, 3, 0, 1, 2, 3]


def test_mt4_first_seat_is_drawn_from_the_seed():
    firsts = [GAME.new_game(4, {}, seed)["current_seat"] for seed in range(60)]
    assert set(firsts) == {0, 1, 2, 3}
    assert firsts == [GAME.new_game(4, {}, seed)["current_seat"] for seed in range(60)]


# --- MT-5: draw at the start of a turn, reshuffle ------------------------------------------------


def test_mt5_the_server_draws_one_card_when_a_turn_begins():
    t = Table([FILLER, FILLER], ["G5", "G4"])
    assert t.hand(0)[-1] == "G5"
    view = t.view(0)
    assert [c["code"] for c in view["you"]["drawn"]] == ["G5"]
    events = t.end_turn(0)
    assert types(events) == ["turn_ended", "turn_started", "drew"]
    drew = events[-1]
    assert drew["seat"] == 1 and drew["count"] == 1 and "cards" not in drew
    assert redact_event(drew, 1)["cards"][0]["code"] == "G4"
    assert "cards" not in redact_event(drew, 0)
    assert "cards" not in redact_event(drew, None)
    assert t.hand(1)[-1] == "G4"


def test_mt5_empty_piles_draw_nothing_then_the_discard_pile_is_reshuffled():
    t = Table([["G1", "G1", "G1", "G1", "NW"], ["FP", "G1", "G1", "G1", "G1"]], ["G2"], fill=False)
    assert t.view(None)["draw_pile"] == 0  # seat 0 drew the last card
    events = t.end_turn(0)
    assert events[-1] == {"type": "drew", "seat": 1, "count": 0, "private": {"1": {"cards": []}}}
    t.act(1, {"type": "play_blue", "card": t.card(1, "FP")})
    events = t.act(0, {"type": "allow"})
    # Find a Penny with both piles empty draws nothing; then it is discarded, the turn ends,
    # and seat 0's draw reshuffles the discard pile (just the Find a Penny).
    assert types(events) == [
        "allowed",
        "blue_resolved",
        "drew",
        "turn_ended",
        "turn_started",
        "reshuffled",
        "drew",
    ]
    assert events[2]["count"] == 0
    assert events[5]["count"] == 1
    assert t.hand(0)[-1] == "FP"
    assert t.view(None)["discard_pile"] == []


# --- MT-6: Take a Break --------------------------------------------------------------------------


def test_mt6_take_a_break_skips_the_whole_next_turn():
    t = Table([["TB", "G1", "G1", "G1", "G1"], FILLER, FILLER], ["G2", "G3", "G4", "G5"])
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1})
    t.act(1, {"type": "allow"})
    events = t.act(2, {"type": "allow"})
    tb = t.seat_public(1)["take_a_break"]
    assert tb is None  # seat 1's turn came at once and was skipped
    assert types(events) == [
        "allowed",
        "blue_resolved",
        "turn_ended",
        "turn_started",
        "skipped",
        "turn_ended",
        "turn_started",
        "drew",
    ]
    assert events[3]["seat"] == 1 and events[6]["seat"] == 2
    assert len(t.hand(1)) == 5  # no draw for the skipped seat
    assert t.view(None)["discard_pile"][-1]["code"] == "TB"
    assert t.state["current_seat"] == 2 and t.state["turn"] == 3
    assert t.hand(2)[-1] == "G3"  # seat 2 drew the card under G2 (which seat 0 drew)


def test_mt6_take_a_break_lies_in_front_until_the_turn_is_skipped():
    t = Table([["TB", "G1", "G1", "G1", "G1"], FILLER, FILLER], first_seat=0)
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 2})
    t.allow_all()
    assert t.state["current_seat"] == 1
    assert t.seat_public(2)["take_a_break"]["code"] == "TB"
    events = t.end_turn(1)
    assert "skipped" in types(events)
    assert t.state["current_seat"] == 0
    assert t.seat_public(2)["take_a_break"] is None


# --- MT-7: step 2 --------------------------------------------------------------------------------


def two_scored(first_hand, second_hand, draw=()):
    """Seats 0 and 1 have each scored their first card (a G1) in turns 1 and 2."""
    t = Table([["G1", *first_hand], ["G1", *second_hand]], ["NW", "NW", *draw])
    t.score(0, "G1")
    t.end_turn(0)
    t.score(1, "G1")
    t.end_turn(1)
    return t


def test_mt7_give_a_chore_only_to_a_player_who_has_scored():
    t = Table([["R3", "G1", "G1", "G1", "G1"], FILLER, ["G2", "G2", "G2", "G2", "G2"]])
    error = t.refused(0, {"type": "give_red", "card": t.card(0, "R3"), "target": 1}, IllegalAction)
    assert error.rule == "MT-7" and error.field == "target"
    assert not any(a["type"] == "give_red" for a in t.legal(0))
    t.end_turn(0)
    t.end_turn(1)
    t.score(2, "G2")
    t.end_turn(2)
    assert {"type": "give_red", "card": t.card(0, "R3"), "target": 2} in t.legal(0)
    events = t.act(0, {"type": "give_red", "card": t.card(0, "R3"), "target": 2})
    assert types(events) == ["chore_given"]
    assert t.seat_public(2)["red"]["code"] == "R3"


def test_mt7_no_chore_on_a_player_with_a_red_card_or_on_yourself():
    t = two_scored(["R3", "R4", "G2", "G2"], ["G2", "G2", "G2", "G2"])
    red = t.card(0, "R3")
    error = t.refused(0, {"type": "give_red", "card": red, "target": 0}, IllegalAction)
    assert error.field == "target"
    t.act(0, {"type": "give_red", "card": red, "target": 1})
    t.end_turn(0)
    t.end_turn(1)
    error = t.refused(0, {"type": "give_red", "card": t.card(0, "R4"), "target": 1}, IllegalAction)
    assert "already has a red card" in error.message
    assert not any(a["type"] == "give_red" for a in t.legal(0))


def test_mt7_give_red_needs_a_red_card_and_a_seat():
    t = two_scored(["R3", "R4", "G2", "G2"], ["G2", "G2", "G2", "G2"])
    error = t.refused(0, {"type": "give_red", "card": t.card(0, "G2"), "target": 1}, IllegalAction)
    assert error.field == "card"
    for target in (5, -1, "1", True, None, 1.0):
        error = t.refused(0, {"type": "give_red", "card": t.card(0, "R3"), "target": target})
        assert error.field == "target"
    error = t.refused(0, {"type": "give_red", "card": t.card(0, "R3")}, IllegalAction)
    assert error.field == "target"


def test_mt7_score_a_green_with_or_without_a_purple_and_keep_it():
    t = Table([["G3", "P2", "G4", "NW", "NW"], FILLER])
    assert {"type": "score", "green": t.card(0, "G3"), "purple": t.card(0, "P2")} in t.legal(0)
    assert {"type": "score", "green": t.card(0, "G3")} in t.legal(0)
    events = t.score(0, "G3", "P2")
    assert events[0]["points"] == 5 and events[0]["score"] == 5
    assert t.scores() == [5, 0]
    fun = t.seat_public(0)["fun"]
    assert [(f["green"]["code"], f["purple"]["code"], f["points"]) for f in fun] == [
        ("G3", "P2", 5)
    ]
    t.end_turn(0)
    t.end_turn(1)
    t.score(0, "G4")
    assert t.scores() == [9, 0]
    assert len(t.seat_public(0)["fun"]) == 2  # the cards stay in front (points never lost)


def test_mt7_a_purple_is_only_played_on_a_green():
    t = Table([["G3", "P2", "G4", "NW", "NW"], FILLER])
    error = t.refused(0, {"type": "score", "green": t.card(0, "P2")}, IllegalAction)
    assert error.field == "green"
    error = t.refused(
        0, {"type": "score", "green": t.card(0, "G3"), "purple": t.card(0, "G4")}, IllegalAction
    )
    assert error.field == "purple"


def test_mt7_no_scoring_with_a_red_card_in_front():
    t = two_scored(["G2", "G3", "P1", "NW"], ["R5", "G2", "G2", "G2"])
    t.end_turn(0)
    t.act(1, {"type": "give_red", "card": t.card(1, "R5"), "target": 0})
    t.end_turn(1)
    error = t.refused(0, {"type": "score", "green": t.card(0, "G2")}, IllegalAction)
    assert error.rule == "MT-7" and "red card" in error.message
    assert not any(a["type"] == "score" for a in t.legal(0))


def red_in_front(hand, red="R5", draw=()):
    """Seat 0 has scored a G1 and holds ``hand`` (4 cards); seat 1 gave it ``red``."""
    t = two_scored(hand, [red, "G2", "G2", "G2"], ["NW", "NW", "NW", *draw])
    t.end_turn(0)
    t.act(1, {"type": "give_red", "card": t.card(1, red), "target": 0})
    t.end_turn(1)
    return t


def test_mt7_clear_a_chore_with_greens_adding_up_to_at_least_the_red():
    t = red_in_front(["G2", "G3", "G1", "P2"])
    before = t.scores()
    events = t.act(0, {"type": "clear_red", "greens": [t.card(0, "G2"), t.card(0, "G3")]})
    assert types(events) == ["chore_cleared"]
    assert t.seat_public(0)["red"] is None
    assert [c["code"] for c in t.view(None)["discard_pile"]] == ["R5", "G2", "G3"]
    assert t.scores() == before  # no points for clearing
    assert t.state["phase"] == "blue"


def test_mt7_clear_with_a_purple_buddy_and_overpaying_is_fine():
    t = red_in_front(["G2", "G3", "G1", "P2"])
    events = t.act(
        0,
        {
            "type": "clear_red",
            "greens": [t.card(0, "G2"), t.card(0, "G3")],
            "purple": t.card(0, "P2"),
        },
    )
    assert events[0]["purple"]["code"] == "P2"
    assert [c["code"] for c in t.view(None)["discard_pile"]] == ["R5", "G2", "G3", "P2"]


def test_mt7_clear_needs_enough_distinct_green_cards():
    t = red_in_front(["G2", "G1", "G1", "P1"])
    g2, g1 = t.card(0, "G2"), t.card(0, "G1")
    error = t.refused(0, {"type": "clear_red", "greens": [g2, g1]}, IllegalAction)
    assert error.rule == "MT-7" and "less than" in error.message
    one_short = [g2, *(c["id"] for c in t.view(0)["you"]["hand"] if c["code"] == "G1")]
    error = t.refused(0, {"type": "clear_red", "greens": one_short}, IllegalAction)
    assert "add up to 4, less than the red card's 5" in error.message
    error = t.refused(0, {"type": "clear_red", "greens": [g2, g2, g1]}, IllegalAction)
    assert "twice" in error.message
    for bad in ([], "c1", None, [t.card(0, "P1")]):
        t.refused(0, {"type": "clear_red", "greens": bad}, IllegalAction)
    # G2 + G1 + G1 + P1 = 5: clears, and it is the only (minimal) way.
    clears = [a for a in t.legal(0) if a["type"] == "clear_red"]
    assert len(clears) == 1
    assert sorted(clears[0]["greens"]) == sorted(t.hand_ids(0)[:3])
    assert clears[0]["purple"] == t.card(0, "P1")
    t.act(0, clears[0])
    assert t.seat_public(0)["red"] is None


def test_mt7_clear_red_lists_minimal_combinations_and_accepts_any_other():
    t = red_in_front(["G5", "G4", "G1", "P1"], red="R5")
    clears = [a for a in t.legal(0) if a["type"] == "clear_red"]
    as_codes = sorted(
        (tuple(sorted(t.state["codes"][int(g[1:])] for g in a["greens"])), a.get("purple"))
        for a in clears
    )
    assert as_codes == [
        (("G1", "G4"), None),
        (("G4",), t.card(0, "P1")),
        (("G5",), None),
    ]
    # A non-minimal combination is not listed but is accepted.
    action = {"type": "clear_red", "greens": [t.card(0, "G5"), t.card(0, "G1")]}
    assert action not in t.legal(0)
    t.act(0, action)
    assert t.seat_public(0)["red"] is None


def test_mt7_no_clear_without_a_red_card():
    t = Table([["G3", "G4", "NW", "NW", "NW"], FILLER])
    error = t.refused(0, {"type": "clear_red", "greens": [t.card(0, "G3")]}, IllegalAction)
    assert error.rule == "MT-7"


def test_mt7_at_most_one_step_two_play():
    t = two_scored(["G2", "G3", "R2", "NW"], ["G2", "G2", "G2", "G2"])
    t.score(0, "G2")
    for action in (
        {"type": "score", "green": t.card(0, "G3")},
        {"type": "give_red", "card": t.card(0, "R2"), "target": 1},
    ):
        error = t.refused(0, action, IllegalAction)
        assert error.field == "type"
    assert types(t.legal(0)) == ["end_turn"]


# --- MT-8: step 3 --------------------------------------------------------------------------------


def test_mt8_a_blue_card_after_a_step_two_play_then_the_turn_ends():
    t = Table([["G3", "FP", "FP", "NW", "NW"], FILLER])
    t.score(0, "G3")
    assert {"type": "play_blue", "card": t.card(0, "FP")} in t.legal(0)
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    events = t.act(1, {"type": "allow"})
    assert "turn_ended" in types(events)
    assert t.state["current_seat"] == 1


def test_mt8_a_blue_card_with_no_step_two_play():
    t = Table([["G3", "FP", "FP", "NW", "NW"], FILLER])
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    t.act(1, {"type": "allow"})
    assert t.state["current_seat"] == 1
    assert t.scores() == [0, 0]


def test_mt8_ending_the_turn_is_an_explicit_action():
    t = Table([["G3", "FP", "FP", "NW", "NW"], FILLER])
    t.score(0, "G3")
    assert t.state["current_seat"] == 0 and t.to_act() == {0}
    events = t.end_turn(0)
    assert types(events)[:2] == ["turn_ended", "turn_started"]
    assert t.state["current_seat"] == 1
    t.refused(1, {"type": "end_turn", "now": 1}, IllegalAction)


def test_mt8_no_way_is_never_played_in_step_two_or_three():
    t = Table([["G3", "NW", "FP", "NW", "NW"], FILLER])
    error = t.refused(0, {"type": "play_blue", "card": t.card(0, "NW")}, IllegalAction)
    assert error.rule == "MT-8"
    # A reaction outside a No Way window is another phase's action: 409 not-your-turn.
    error = t.refused(0, {"type": "no_way", "card": t.card(0, "NW")}, NotYourTurn)
    assert error.rule == "MT-12"
    t.score(0, "G3")
    t.refused(0, {"type": "no_way", "card": t.card(0, "NW")}, NotYourTurn)
    t.refused(0, {"type": "allow"}, NotYourTurn)
    assert not any(a["type"] == "no_way" for a in t.legal(0))


def test_mt8_only_one_blue_card_per_turn():
    t = Table([["FP", "FP", "NW", "NW", "NW"], FILLER])
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP", 0)})
    t.refused(0, {"type": "play_blue", "card": t.card(0, "FP")}, NotYourTurn)
    t.act(1, {"type": "allow"})
    assert t.state["current_seat"] == 1


# --- MT-9: blue effects --------------------------------------------------------------------------


def test_mt9_take_a_break_needs_another_player_without_one():
    t = Table([["TB", "TB", "NW", "NW", "NW"], FILLER, FILLER], fill=False)
    tb = t.card(0, "TB")
    for target, field in ((0, "target"), (None, "target"), (3, "target"), ("x", "target")):
        error = t.refused(0, {"type": "play_blue", "card": tb, "target": target}, IllegalAction)
        assert error.field == field
    error = t.refused(0, {"type": "play_blue", "card": tb}, IllegalAction)
    assert error.rule == "MT-9"
    t.act(0, {"type": "play_blue", "card": tb, "target": 2})
    t.allow_all()
    events = t.end_turn(1)
    assert "skipped" in types(events) and t.state["current_seat"] == 0  # seat 2 took a break
    t2 = Table(
        [["TB", "TB", "NW", "NW", "NW"], FILLER, ["TB", *FILLER[1:]]], first_seat=2, fill=False
    )
    t2.act(2, {"type": "play_blue", "card": t2.card(2, "TB"), "target": 1})
    t2.allow_all()
    assert t2.seat_public(1)["take_a_break"] is not None
    error = t2.refused(0, {"type": "play_blue", "card": t2.card(0, "TB"), "target": 1})
    assert error.rule == "MT-9" and "already has a Take a Break" in error.message
    assert [a["target"] for a in t2.legal(0) if a["type"] == "play_blue"] == [2, 2]


def test_mt9_find_a_penny_draws_two():
    t = Table([["FP", "NW", "NW", "NW", "NW"], FILLER], ["G1", "G4", "G5", "P3"])
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    events = t.act(1, {"type": "allow"})
    drew = next(e for e in events if e["type"] == "drew" and e["seat"] == 0)
    assert drew["count"] == 2
    assert [c["code"] for c in redact_event(drew, 0)["cards"]] == ["G4", "G5"]
    assert t.hand(0) == ["NW", "NW", "NW", "NW", "G1", "G4", "G5"]
    assert t.view(None)["discard_pile"][-1]["code"] == "FP"
    assert [c["code"] for c in t.view(0)["you"]["drawn"]] == ["G4", "G5"]


def test_mt9_find_a_penny_reshuffles_for_each_card():
    """MT-9 + MT-5: the first card comes from the draw pile, the second from the reshuffled
    discard pile (the Find a Penny itself is discarded only afterwards)."""
    t = Table(
        [["G1", "G4", "FP", "NW", "NW"], ["G1", "R2", "NW", "NW", "NW"]],
        ["G2", "G2", "G2", "NW"],
        fill=False,
    )
    t.score(0, "G1")
    t.end_turn(0)
    t.act(1, {"type": "give_red", "card": t.card(1, "R2"), "target": 0})
    t.end_turn(1)
    t.act(0, {"type": "clear_red", "greens": [t.card(0, "G4")]})
    assert t.view(None)["draw_pile"] == 1
    assert [c["code"] for c in t.view(None)["discard_pile"]] == ["R2", "G4"]
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    events = t.act(1, {"type": "allow"})
    assert types(events)[:4] == ["allowed", "blue_resolved", "reshuffled", "drew"]
    assert events[2]["count"] == 2  # R2 and G4
    assert events[3]["count"] == 2
    assert t.hand(0)[-2] == "NW"
    assert t.hand(0)[-1] in ("R2", "G4")
    assert [c["code"] for c in t.view(None)["discard_pile"]] == ["FP"]


def test_mt9_in_the_trash_needs_a_red_card_and_discards_it():
    t = Table([["IT", "NW", "NW", "NW", "NW"], FILLER])
    error = t.refused(0, {"type": "play_blue", "card": t.card(0, "IT")}, IllegalAction)
    assert error.rule == "MT-9"
    assert not any(a["type"] == "play_blue" for a in t.legal(0))
    t = red_in_front(["IT", "G1", "NW", "NW"])
    assert {"type": "play_blue", "card": t.card(0, "IT")} in t.legal(0)
    error = t.refused(0, {"type": "play_blue", "card": t.card(0, "IT"), "target": 1})
    assert error.field == "target"
    t.act(0, {"type": "play_blue", "card": t.card(0, "IT")})
    events = t.act(1, {"type": "allow"})
    resolved = events[1]
    assert resolved["type"] == "blue_resolved" and resolved["red"]["code"] == "R5"
    assert t.seat_public(0)["red"] is None
    assert [c["code"] for c in t.view(None)["discard_pile"]] == ["R5", "IT"]


# --- MT-10: winning ------------------------------------------------------------------------------


def thirteen(mode="exact", green="G3"):
    """Seat 0 has 13 points (G5+P3, G5) and holds ``green``, a P1 and an FP; seat 1 waits."""
    t = Table([["G5", "P3", "G5", green, "FP"], FILLER], ["P1", "NW", "NW", "NW", "NW"], mode=mode)
    t.score(0, "G5", "P3")
    t.end_turn(0)
    t.end_turn(1)
    t.score(0, "G5")
    t.end_turn(0)
    t.end_turn(1)
    assert t.scores() == [13, 0]
    return t


def test_mt10_exact_a_score_past_15_is_illegal():
    t = thirteen(green="G3")
    error = t.refused(0, {"type": "score", "green": t.card(0, "G3")}, IllegalAction)
    assert error.rule == "MT-10"
    assert not any(a["type"] == "score" for a in t.legal(0))


def test_mt10_exact_15_wins_at_once_with_no_step_three():
    t = thirteen(green="G1")
    legal = t.legal(0)
    assert {"type": "score", "green": t.card(0, "G1"), "purple": t.card(0, "P1")} in legal
    events = t.score(0, "G1", "P1")
    assert types(events) == ["scored", "game_over"]
    result = GAME.result(t.state)
    assert result["winners"] == [0] and result["reason"] == "exact_15"
    assert result["scores"] == [15, 0]
    assert t.to_act() == set()
    assert t.legal(0) == []
    t.refused(0, {"type": "play_blue", "card": t.card(0, "FP")}, GameOver)
    t.refused(1, {"type": "end_turn"}, GameOver)
    assert t.view(None)["phase"] == "over"
    assert t.view(None)["result"] == result


def test_mt10_irresponsible_reaching_15_or_more_wins():
    t = thirteen(mode="irresponsible", green="G3")
    events = t.score(0, "G3", "P1")
    assert events[-1]["type"] == "game_over"
    assert GAME.result(t.state)["reason"] == "reached_15"
    assert GAME.result(t.state)["scores"] == [17, 0]


# --- MT-11: turn limit ---------------------------------------------------------------------------


def test_mt11_turn_limit_ends_the_game_most_points_win():
    t = Table(
        [["G3", "NW", "NW", "NW", "NW"], ["G2", *FILLER[1:]], FILLER], turn_limit=3, fill=False
    )
    t.score(0, "G3")
    t.end_turn(0)
    t.score(1, "G2")
    t.end_turn(1)
    events = t.end_turn(2)
    assert types(events) == ["turn_ended", "game_over"]
    result = GAME.result(t.state)
    assert result == {
        "winners": [0],
        "scores": [3, 2, 0],
        "reason": "turn_limit",
        "turn": 3,
        "turn_limit": 3,
        "mode": "exact",
    }
    assert t.view(None)["turn_limit"] == 3


def test_mt11_a_tie_at_the_turn_limit_leaves_several_winners():
    t = Table(
        [["G3", "NW", "NW", "NW", "NW"], FILLER, ["G3", *FILLER[1:]]], turn_limit=3, fill=False
    )
    t.score(0, "G3")
    t.end_turn(0)
    t.end_turn(1)
    t.score(2, "G3")
    t.end_turn(2)
    assert GAME.result(t.state)["winners"] == [0, 2]


def test_mt11_skipped_turns_count_towards_the_limit():
    t = Table([["TB", "NW", "NW", "NW", "NW"], FILLER], turn_limit=2)
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1})
    events = t.act(1, {"type": "allow"})
    assert types(events)[-3:] == ["skipped", "turn_ended", "game_over"]
    assert GAME.result(t.state)["winners"] == [0, 1]


def test_mt11_a_one_turn_game():
    t = Table([FILLER, FILLER], turn_limit=1)
    t.end_turn(0)
    assert GAME.result(t.state)["reason"] == "turn_limit"


# --- MT-12 / MT-13: No Way -----------------------------------------------------------------------


def window_table(**options):
    """Three seats, seat 0 to play Take a Break or In the Trash; everyone holds No Ways."""
    return Table(
        [
            ["TB", "FP", "NW", "NW", "G1"],
            ["NW", "NW", "G1", "G1", "G1"],
            ["NW", "G2", "G2", "G2", "G2"],
        ],
        **options,
    )


def test_mt12_every_other_player_may_answer_a_blue_card():
    t = window_table()
    events = t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1})
    assert types(events) == ["blue_played"]
    assert t.to_act() == {1, 2}
    view = t.view(None)
    assert view["phase"] == "reaction"
    assert view["pending"]["card"]["code"] == "TB" and view["pending"]["target"] == 1
    assert view["pending"]["waiting_for"] == [1, 2]
    error = t.refused(0, {"type": "allow"}, NotYourTurn)
    assert error.rule == "MT-12"
    assert t.legal(0) == []
    assert t.legal(2) == [{"type": "no_way", "card": t.card(2, "NW")}, {"type": "allow"}]
    t.act(2, {"type": "allow"})
    assert t.to_act() == {1}
    t.refused(2, {"type": "allow"}, NotYourTurn)
    t.refused(1, {"type": "end_turn"}, NotYourTurn)


def test_mt12_a_no_way_opens_a_new_window_including_the_blue_player():
    t = window_table()
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1})
    t.act(2, {"type": "allow"})
    events = t.act(1, {"type": "no_way", "card": t.card(1, "NW")})
    assert events[0]["outcome"] == "cancelled"
    assert t.to_act() == {0, 2}
    t.refused(1, {"type": "allow"}, NotYourTurn)
    t.refused(1, {"type": "no_way", "card": t.card(1, "NW")}, NotYourTurn)
    pending = t.view(1)["pending"]
    assert [nw["seat"] for nw in pending["no_ways"]] == [1]
    assert pending["outcome"] == "cancelled"
    t.refused(0, {"type": "no_way", "card": t.card(0, "FP")}, IllegalAction)


def test_mt13_one_no_way_cancels_the_blue_card_and_nothing_moves():
    t = window_table()
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1})
    t.act(1, {"type": "no_way", "card": t.card(1, "NW")})
    t.act(0, {"type": "allow"})
    events = t.act(2, {"type": "allow"})
    assert types(events)[:3] == ["allowed", "blue_cancelled", "turn_ended"]
    assert t.seat_public(1)["take_a_break"] is None
    assert [c["code"] for c in t.view(None)["discard_pile"]] == ["TB", "NW"]
    assert t.state["current_seat"] == 1  # the turn ended; seat 1 was not skipped
    assert zone_count(t.state) == 90


def test_mt13_two_no_ways_and_the_effect_happens():
    t = window_table()
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 2})
    t.act(1, {"type": "no_way", "card": t.card(1, "NW")})
    t.act(0, {"type": "no_way", "card": t.card(0, "NW")})
    assert t.to_act() == {1, 2}
    t.act(2, {"type": "allow"})
    events = t.act(1, {"type": "allow"})
    resolved = next(e for e in events if e["type"] == "blue_resolved")
    assert resolved["no_ways"] == 2
    assert t.seat_public(2)["take_a_break"]["code"] == "TB"
    assert [c["code"] for c in t.view(None)["discard_pile"]] == ["NW", "NW"]


def test_mt13_chains_of_any_length():
    t = window_table()
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 2})
    t.act(1, {"type": "no_way", "card": t.card(1, "NW")})  # 1: cancelled
    t.act(0, {"type": "no_way", "card": t.card(0, "NW")})  # 2: happens
    t.act(1, {"type": "no_way", "card": t.card(1, "NW")})  # 3: cancelled
    t.act(2, {"type": "no_way", "card": t.card(2, "NW")})  # 4: happens
    t.act(0, {"type": "no_way", "card": t.card(0, "NW")})  # 5: cancelled
    assert t.view(None)["pending"]["outcome"] == "cancelled"
    assert t.to_act() == {1, 2}
    t.allow_all()
    assert t.seat_public(2)["take_a_break"] is None
    assert Counter(c["code"] for c in t.view(None)["discard_pile"]) == {"NW": 5, "TB": 1}


def test_mt13_a_cancelled_in_the_trash_leaves_the_red_card():
    t = red_in_front(["IT", "G1", "NW", "NW"])
    t.act(0, {"type": "play_blue", "card": t.card(0, "IT")})
    t.act(1, {"type": "no_way", "card": t.card(1, "NW")})
    events = t.act(0, {"type": "allow"})
    assert "blue_cancelled" in types(events)
    assert t.seat_public(0)["red"]["code"] == "R5"


def test_mt13_the_deadline_closes_the_window_lazily():
    t = window_table(reaction_deadline=10)
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1}, now=100.0)
    assert GAME.deadline(t.state) == 110.0
    assert t.view(None)["pending"]["deadline"] == 110.0
    assert GAME.advance(t.state, 105.0) == []
    t.act(2, {"type": "allow"}, now=104.0)
    events = t.act(1, {"type": "no_way", "card": t.card(1, "NW")}, now=108.0)
    assert GAME.deadline(t.state) == 118.0  # a new window, a new deadline
    assert events[-1]["type"] == "no_way"
    events = GAME.advance(t.state, 118.0)
    assert types(events)[:2] == ["window_closed", "blue_cancelled"]
    assert events[0]["defaulted"] == [0, 2]
    assert GAME.deadline(t.state) is None
    assert t.state["current_seat"] == 1


def test_mt14_a_late_request_closes_the_window_first():
    t = window_table(reaction_deadline=10)
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 2}, now=100.0)
    # Too late to say No Way: the window closes first (TB happens), seat 1's turn begins,
    # and a No Way is then out of place: refused, and the state is left as it was.
    t.refused(1, {"type": "no_way", "card": t.card(1, "NW")}, NotYourTurn, now=200.0)
    assert t.state["phase"] == "reaction"
    events = t.act(1, {"type": "end_turn"}, now=200.0)
    assert types(events)[:3] == ["window_closed", "blue_resolved", "turn_ended"]
    assert "skipped" in types(events)  # seat 2 had the Take a Break
    assert t.state["current_seat"] == 0


def test_mt13_without_now_there_is_no_deadline():
    t = window_table(reaction_deadline=10)
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1})
    assert GAME.deadline(t.state) is None
    assert GAME.advance(t.state, 10**9) == []
    assert t.to_act() == {1, 2}


def test_mt13_no_deadline_option_means_waiting_for_everyone():
    t = window_table()
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1}, now=1.0)
    assert GAME.deadline(t.state) is None
    assert GAME.advance(t.state, 10**9) == []
    t.act(1, {"type": "allow"}, now=10**9)
    assert t.to_act() == {2}


# --- MT-14: auto_allow ---------------------------------------------------------------------------


def test_mt14_players_without_no_way_still_answer_by_default():
    t = Table(
        [["FP", "G1", "G1", "G1", "G1"], ["G1", "G1", "G1", "G1", "G1"]], ["G2", "G2"], fill=False
    )
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    assert t.to_act() == {1}
    assert t.legal(1) == [{"type": "allow"}]


def test_mt14_auto_allow_answers_for_players_holding_no_no_way():
    t = Table(
        [["FP", "G1", "G1", "G1", "G1"], ["G1", "G1", "G1", "G1", "G1"], ["NW", *FILLER[1:]]],
        ["G2", "G2", "G2", "G2"],
        auto_allow=True,
        fill=False,
    )
    events = t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    assert types(events) == ["blue_played", "allowed"]
    assert events[1] == {"type": "allowed", "seat": 1, "auto": True}
    assert t.to_act() == {2}
    events = t.act(2, {"type": "no_way", "card": t.card(2, "NW")})
    # seat 0 holds no No Way (seat 1 neither): the window closes, cancelled.
    assert types(events)[:4] == ["no_way", "allowed", "allowed", "blue_cancelled"]


def test_mt14_auto_allow_resolves_at_once_when_nobody_can_react():
    t = Table(
        [["FP", "G1", "G1", "G1", "G1"], ["G1", "G1", "G1", "G1", "G1"]],
        auto_allow=True,
        fill=False,
    )
    events = t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    assert types(events)[:3] == ["blue_played", "allowed", "blue_resolved"]
    assert t.state["current_seat"] == 1


# --- MT-15: views --------------------------------------------------------------------------------


def test_mt15_public_view_and_private_hand():
    t = two_scored(["R3", "G2", "P1", "TB"], ["G2", "G2", "G2", "G2"])
    t.act(0, {"type": "give_red", "card": t.card(0, "R3"), "target": 1})
    t.act(0, {"type": "play_blue", "card": t.card(0, "TB"), "target": 1})
    spectator = t.view(None)
    assert spectator["you"] is None
    for key in (
        "players",
        "mode",
        "turn_limit",
        "turn",
        "current_seat",
        "phase",
        "step",
        "seats",
        "scores",
        "draw_pile",
        "discard_pile",
        "pending",
        "result",
    ):
        assert key in spectator
    assert spectator["scores"] == [1, 1]
    assert spectator["seats"][1]["red"]["code"] == "R3"
    assert spectator["seats"][0]["hand_size"] == 4  # G2, P1 and the two No Ways drawn
    assert spectator["pending"]["card"]["code"] == "TB"
    assert spectator["step"] == 3
    mine = t.view(0)
    assert mine["you"]["seat"] == 0
    assert len(mine["you"]["hand"]) == 4
    hidden = {f"c{c}" for c in t.state["hands"][1]} | {f"c{c}" for c in t.state["draw_pile"]}
    assert not card_ids_in(spectator) & (hidden | {f"c{c}" for c in t.state["hands"][0]})
    assert not card_ids_in(mine) & hidden
    assert json.loads(json.dumps(mine)) == mine


def test_mt15_the_drawn_card_is_seen_by_the_drawer_alone():
    t = Table([FILLER, FILLER], ["G5", "G4"])
    events = t.end_turn(0)
    assert "G4" in [c["code"] for c in t.view(1)["you"]["drawn"]]
    assert t.view(0)["you"]["drawn"][0]["code"] == "G5"
    for seat in (0, None):
        for event in events:
            shown = redact_event(event, seat)
            assert not card_ids_in(shown) & {f"c{c}" for c in t.state["hands"][1]}


def test_card_wire_format():
    t = Table([["G3", "R4", "P2", "TB", "NW"], FILLER])
    cards = {c["code"]: c for c in t.view(0)["you"]["hand"]}
    assert cards["G3"] | {"id": None} == {
        "id": None,
        "code": "G3",
        "colour": "green",
        "value": 3,
        "name": "Recreation 3",
    }
    assert (cards["R4"]["colour"], cards["R4"]["value"]) == ("red", 4)
    assert (cards["P2"]["colour"], cards["P2"]["value"]) == ("purple", 2)
    assert (cards["TB"]["colour"], cards["TB"]["value"], cards["TB"]["name"]) == (
        "blue",
        None,
        "Take a Break",
    )
    assert (cards["NW"]["colour"], cards["NW"]["value"]) == ("no-way", None)


# --- errors and input handling -------------------------------------------------------------------


def test_out_of_turn_and_malformed_actions_are_refused_cleanly():
    t = Table([["G3", "NW", "NW", "NW", "NW"], FILLER])
    error = t.refused(1, {"type": "end_turn"}, NotYourTurn)
    assert error.rule == "MT-4"
    for seat in (2, -1, None, "0", True):
        t.refused(seat, {"type": "end_turn"}, NotYourTurn)
    for action in (None, "end_turn", 5, [], {}, {"type": 3}, {"type": "fold"}):
        error = t.refused(0, action, IllegalAction)
        assert error.field == "type"
    error = t.refused(0, {"type": "score"}, IllegalAction)
    assert error.field == "green"
    error = t.refused(0, {"type": "score", "green": t.card(0, "G3"), "purpel": None})
    assert error.field == "purpel"


# --- the rulebook's example of a turn ------------------------------------------------------------


def example_position():
    """Player 1 (seat 0) has a red 3 in front and holds G4, R3, FP, IT (and two No Ways);
    player 2 (seat 1) has scored and has no red card."""
    t = Table(
        [["G4", "R3", "FP", "IT", "G1"], ["G2", "R3", "G1", "G1", "G1"]],
        ["G1", "NW", "G1", "NW", "G5", "G3"],
        first_seat=1,
    )
    t.score(1, "G2")
    t.end_turn(1)
    t.score(0, "G1")
    t.end_turn(0)
    t.act(1, {"type": "give_red", "card": t.card(1, "R3"), "target": 0})
    t.end_turn(1)
    assert t.state["current_seat"] == 0
    assert sorted(t.hand(0)) == sorted(["G4", "R3", "FP", "IT", "NW", "NW"])
    assert t.seat_public(0)["red"]["code"] == "R3"
    assert t.seat_public(1)["red"] is None and t.scores()[1] == 2
    return t


def test_rulebook_example_of_a_turn_options():
    t = example_position()
    legal = t.legal(0)
    assert not any(a["type"] == "score" for a in legal)  # red card: no green for points
    assert {"type": "clear_red", "greens": [t.card(0, "G4")]} in legal
    assert {"type": "give_red", "card": t.card(0, "R3"), "target": 1} in legal
    assert {"type": "play_blue", "card": t.card(0, "FP")} in legal
    assert {"type": "play_blue", "card": t.card(0, "IT")} in legal
    assert {"type": "end_turn"} in legal
    assert len(legal) == 5


def test_rulebook_example_clear_with_the_green_4_then_find_a_penny():
    t = example_position()
    t.act(0, {"type": "clear_red", "greens": [t.card(0, "G4")]})
    legal = t.legal(0)
    assert {"type": "play_blue", "card": t.card(0, "IT")} not in legal  # no red any more
    assert {"type": "play_blue", "card": t.card(0, "FP")} in legal
    t.act(0, {"type": "play_blue", "card": t.card(0, "FP")})
    events = t.act(1, {"type": "allow"})
    drew = next(e for e in events if e["type"] == "drew" and e["seat"] == 0)
    assert [c["code"] for c in redact_event(drew, 0)["cards"]] == ["G5", "G3"]
    assert t.state["current_seat"] == 1  # then their turn ends


def test_rulebook_example_give_the_red_3_then_in_the_trash():
    t = example_position()
    t.act(0, {"type": "give_red", "card": t.card(0, "R3"), "target": 1})
    t.act(0, {"type": "play_blue", "card": t.card(0, "IT")})
    t.act(1, {"type": "allow"})
    assert t.seat_public(0)["red"] is None
    assert t.seat_public(1)["red"]["code"] == "R3"
    assert [c["code"] for c in t.view(None)["discard_pile"]] == ["R3", "IT"]
    assert t.state["current_seat"] == 1


# --- state ---------------------------------------------------------------------------------------


def test_state_is_compact_json_and_round_trips():
    state = GAME.new_game(4, {}, seed=11)
    for _ in range(40):
        seat = min(GAME.to_act(state))
        GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
        if GAME.result(state):
            break
    text = json.dumps(state)
    assert len(text) < 2048
    assert json.loads(text) == state
    size6 = len(json.dumps(GAME.new_game(6, {"composition": [{"code": "G1", "count": 200}]}, 1)))
    assert size6 < 4096
