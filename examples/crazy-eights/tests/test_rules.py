"""Every ruling of the rules page (CE-1 … CE-19), each by tests that fail if the rule were
broken, and the page's own examples. The engine is driven alone (no server): a situation is
set up by laying a new game's cards out by hand (``arrange``), or by stacking the deck the
engine deals from (the ``stack`` fixture)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from cardroom.kit import GameOver, IllegalAction, InvalidOptions, NotYourTurn, redact_event
from cardroom.kit.conformance import Shapes

from crazy_eights import engine
from crazy_eights.cards import ALL_CODES, ORDER, RANKS, value
from crazy_eights.plugin import plugin

GAME = plugin.game
State = dict[str, Any]


# --- helpers ----------------------------------------------------------------------------------


def new(players: int = 3, seed: int = 1, **options: Any) -> State:
    return GAME.new_game(players, GAME.validate_options(players, options), seed)


def card_id(state: State, code: str) -> str:
    return f"c{state['codes'].index(code)}"


def code_of(state: State, number_or_id: int | str) -> str:
    number = int(number_or_id[1:]) if isinstance(number_or_id, str) else number_or_id
    return state["codes"][number]


def hand(state: State, seat: int) -> list[str]:
    return [code_of(state, number) for number in state["hands"][seat]]


def lay(
    state: State,
    hands: list[list[str]],
    discard: list[str],
    stock: list[str] | None = None,
    *,
    seat: int = 0,
    declared: str | None = None,
) -> State:
    """Lay the cards out as given (codes; the discard pile bottom first, the stock top first;
    by default every card not listed, in code order), seat ``seat`` to play."""
    listed = [code for cards in hands for code in cards] + discard + (stock or [])
    assert len(set(listed)) == len(listed), "a card is listed twice"
    if stock is None:
        stock = [code for code in ALL_CODES if code not in listed]

    def numbers(codes: list[str]) -> list[int]:
        return [state["codes"].index(code) for code in codes]

    state.update(
        hands=[sorted(numbers(cards), key=lambda n: ORDER[state["codes"][n]]) for cards in hands],
        discard=numbers(discard),
        stock=numbers(stock),
        declared_suit=declared,
        current_seat=seat,
        phase="play",
        drawn=None,
        passes=0,
        last_play=None,
    )
    return state


def arrange(
    players: int,
    hands: list[list[str]],
    discard: list[str],
    stock: list[str] | None = None,
    *,
    seat: int = 0,
    declared: str | None = None,
    **options: Any,
) -> State:
    """A new game with these options, its cards laid out by ``lay``."""
    return lay(new(players, **options), hands, discard, stock, seat=seat, declared=declared)


def play(state: State, seat: int, code: str, suit: str | None = None) -> list[dict]:
    action: dict[str, Any] = {"type": "play", "card": card_id(state, code)}
    if suit is not None:
        action["suit"] = suit
    return GAME.apply(state, seat, action)


def draw(state: State, seat: int) -> list[dict]:
    return GAME.apply(state, seat, {"type": "draw"})


def pass_turn(state: State, seat: int) -> list[dict]:
    return GAME.apply(state, seat, {"type": "pass"})


def types(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


def playable(state: State, seat: int) -> list[str]:
    """The codes of the cards ``seat`` may play now (an eight once), sorted."""
    legal = GAME.legal_actions(state, seat)
    return sorted({code_of(state, action["card"]) for action in legal if action["type"] == "play"})


def refused(kind: type, state: State, seat: int, action: Any) -> Any:
    """The error ``action`` is refused with; the state is left exactly as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(kind) as caught:
        GAME.apply(state, seat, action)
    assert state == before
    return caught.value


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch):
    """``stack(codes)``: the next new game deals from a stacked deck, ``codes`` first (seat 0's
    cards, then seat 1's, …, then the stock from its top) and every other card after them in
    code order. Card ids then follow the code order (``c0`` is the ace of clubs)."""
    real = engine.rng

    def stack_(codes: list[str]) -> None:
        order = [*codes, *(code for code in ALL_CODES if code not in codes)]
        deck = [ALL_CODES.index(code) for code in order]

        class Stacked:
            new_rng = staticmethod(real.new_rng)
            choice = staticmethod(real.choice)

            @staticmethod
            def shuffled(generator: dict, items: list) -> list:
                if items == list(ALL_CODES):
                    return list(items)
                if items == list(range(len(ALL_CODES))):
                    return list(deck)
                return real.shuffled(generator, items)

        monkeypatch.setattr(engine, "rng", Stacked)

    return stack_


# --- CE-1 to CE-4: cards, deal, first player --------------------------------------------------


def test_ce1_one_deck_of_52_cards_each_once():
    state = new(4, seed=3)
    everywhere = [n for cards in state["hands"] for n in cards] + state["stock"] + state["discard"]
    assert sorted(everywhere) == list(range(52))
    assert sorted(state["codes"]) == sorted(ALL_CODES)
    assert len(set(ALL_CODES)) == 52


def test_ce1_a_card_on_the_wire_and_its_opaque_id():
    state = arrange(2, [["TS", "AD"], ["KC"]], ["8H"])
    eight = GAME.public_view(state)["discard"]
    assert eight == {
        "id": card_id(state, "8H"),
        "code": "8H",
        "rank": "8",
        "suit": "hearts",
        "name": "8 of hearts",
    }
    names = {card["code"]: card["name"] for card in GAME.view(state, 0)["you"]["hand"]}
    assert names == {"TS": "10 of spades", "AD": "ace of diamonds"}
    # The ids are drawn for each game: the same seed gives the same ids, another seed others.
    assert new(seed=3)["codes"] == new(seed=3)["codes"]
    assert new(seed=3)["codes"] != new(seed=4)["codes"]


@pytest.mark.parametrize(("players", "size"), [(2, 7), (3, 5), (4, 5), (5, 5)])
def test_ce2_seven_cards_each_with_two_players_five_with_more(players, size):
    state = new(players, seed=7)
    assert [len(cards) for cards in state["hands"]] == [size] * players
    assert len(state["discard"]) == 1
    assert len(state["stock"]) == 52 - players * size - 1
    public = GAME.public_view(state)
    assert public["stock_count"] == len(state["stock"])
    assert [seat["card_count"] for seat in public["seats"]] == [size] * players


def test_ce2_the_deal_then_the_top_of_the_stock_turned_up(stack):
    stack(["AC", "2C", "3C", "4C", "5C", "6C", "7C", "AD", "2D", "3D", "4D", "5D", "6D", "7D"])
    state = new(2)
    assert hand(state, 0) == ["AC", "2C", "3C", "4C", "5C", "6C", "7C"]
    assert hand(state, 1) == ["AD", "2D", "3D", "4D", "5D", "6D", "7D"]
    # The rest in code order: 8C goes first, but it is an eight (CE-3); 9C is turned up.
    assert [code_of(state, n) for n in state["discard"]] == ["9C"]
    assert code_of(state, state["stock"][0]) == "TC"


def test_ce3_an_eight_turned_up_goes_back_into_the_middle_of_the_stock(stack):
    dealt = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "9C", "TC", "JC", "QC", "KC", "AD", "2D"]
    stack([*dealt, "3D", "8H", "8S", "4D"])
    state = new(3)
    assert [code_of(state, n) for n in state["discard"]] == ["4D"]
    stock = [code_of(state, n) for n in state["stock"]]
    assert len(stock) == 52 - 15 - 1
    middle = len(stock) // 2
    assert {stock.index("8H"), stock.index("8S")} <= set(range(middle - 2, middle + 1))


def test_ce3_the_first_card_to_match_is_never_an_eight():
    for seed in range(300):
        state = new(2 + seed % 4, seed=seed)
        assert code_of(state, state["discard"][-1])[0] != "8", f"seed {seed}"


def test_ce4_seat_0_plays_first_unless_an_option_says_otherwise():
    assert new(3)["current_seat"] == 0
    assert GAME.public_view(new(3))["turn"] == 0
    assert new(3, first_seat=2)["current_seat"] == 2
    drawn = {new(4, seed=seed, first_seat=None)["current_seat"] for seed in range(40)}
    assert drawn == {0, 1, 2, 3}
    assert new(4, seed=9, first_seat=None) == new(4, seed=9, first_seat=None)
    with pytest.raises(InvalidOptions) as caught:
        GAME.validate_options(3, {"first_seat": 3})
    assert caught.value.field == "options.first_seat"
    assert "below the number of players (3)" in caught.value.message


# --- CE-5 to CE-9: turns, what fits, eights, drawing, the empty stock ------------------------


def test_ce5_turns_go_round_in_seat_order_and_only_the_seat_to_play_acts():
    state = arrange(3, [["5H", "KC"], ["6H", "QC"], ["7H", "JC"]], ["2H"])
    error = refused(NotYourTurn, state, 1, {"type": "draw"})
    assert error.rule == "CE-5"
    assert GAME.legal_actions(state, 1) == []
    for seat, code in [(0, "5H"), (1, "6H"), (2, "7H")]:
        assert GAME.to_act(state) == {seat}
        play(state, seat, code)
    assert GAME.to_act(state) == {0}


def test_ce6_a_card_fits_by_rank_or_by_suit():
    state = arrange(2, [["5S", "9H", "KD", "2C"], ["3C"]], ["5H"])
    assert playable(state, 0) == ["5S", "9H"]
    error = refused(IllegalAction, state, 0, {"type": "play", "card": card_id(state, "KD")})
    assert (error.rule, error.field) == ("CE-6", "card")
    assert "king of diamonds does not fit the top card, the 5 of hearts" in error.message


def test_ce6_after_an_eight_only_the_named_suit_fits():
    state = arrange(2, [["5S", "5H", "9D", "8C"], ["3C"]], ["5C", "8H"], declared="diamonds")
    assert playable(state, 0) == ["8C", "9D"]
    error = refused(IllegalAction, state, 0, {"type": "play", "card": card_id(state, "5H")})
    assert (error.rule, error.field) == ("CE-6", "card")


def test_ce7_an_eight_fits_anything_and_names_the_suit_to_follow():
    state = arrange(2, [["8C", "KD"], ["3S", "3H"]], ["5H"])
    eight = card_id(state, "8C")
    assert GAME.legal_actions(state, 0) == [
        {"type": "play", "card": eight, "suit": suit}
        for suit in ("clubs", "diamonds", "hearts", "spades")
    ] + [{"type": "draw"}]
    error = refused(IllegalAction, state, 0, {"type": "play", "card": eight})
    assert (error.rule, error.field) == ("CE-7", "suit")
    events = play(state, 0, "8C", "spades")
    assert events[0]["suit"] == "spades"
    assert GAME.public_view(state)["declared_suit"] == "spades"
    assert GAME.public_view(state)["last_play"]["suit"] == "spades"
    assert playable(state, 1) == ["3S"]
    play(state, 1, "3S")
    assert state["declared_suit"] is None


def test_ce7_only_an_eight_names_a_suit():
    state = arrange(2, [["5H", "KD"], ["3S"]], ["5C"])
    action = {"type": "play", "card": card_id(state, "5H"), "suit": "hearts"}
    error = refused(IllegalAction, state, 0, action)
    assert (error.rule, error.field) == ("CE-7", "suit")


def test_ce8_you_may_draw_though_a_card_fits_then_play_only_the_drawn_card():
    state = arrange(2, [["5S", "KD"], ["3C"]], ["5H"], stock=["9H", "2C"])
    assert {"type": "draw"} in GAME.legal_actions(state, 0)
    events = draw(state, 0)
    assert types(events) == ["drew"]
    nine = card_id(state, "9H")
    assert state["phase"] == "drawn"
    assert GAME.legal_actions(state, 0) == [{"type": "play", "card": nine}, {"type": "pass"}]
    error = refused(IllegalAction, state, 0, {"type": "play", "card": card_id(state, "5S")})
    assert (error.rule, error.field) == ("CE-8", "card")
    error = refused(NotYourTurn, state, 0, {"type": "draw"})
    assert error.rule == "CE-8"
    events = play(state, 0, "9H")
    assert events[0]["after_draw"] is True
    assert GAME.to_act(state) == {1}


def test_ce8_after_drawing_you_may_pass():
    state = arrange(2, [["5S", "KD"], ["3C"]], ["5H"], stock=["9H", "2C"])
    draw(state, 0)
    events = pass_turn(state, 0)
    assert events == [{"type": "passed", "seat": 0, "after_draw": True, "passes": 0}]
    assert hand(state, 0) == ["KD", "9H", "5S"]
    assert (state["phase"], state["current_seat"]) == ("play", 1)


def test_ce9_an_empty_stock_is_made_of_the_discard_pile_but_its_top():
    state = arrange(2, [["KD"], ["3C"]], ["2S", "4S", "6S", "5H"], stock=[])
    events = draw(state, 0)
    assert types(events)[:2] == ["reshuffled", "drew"]
    assert events[0]["stock_count"] == 3
    assert [code_of(state, n) for n in state["discard"]] == ["5H"]
    assert len(state["stock"]) == 2
    assert len(set(hand(state, 0)) & {"2S", "4S", "6S"}) == 1


def test_ce9_with_nothing_to_draw_you_must_play_a_card_that_fits():
    state = arrange(2, [["5S", "KD"], ["3C"]], ["5H"], stock=[])
    assert GAME.legal_actions(state, 0) == [{"type": "play", "card": card_id(state, "5S")}]
    assert refused(IllegalAction, state, 0, {"type": "draw"}).rule == "CE-9"
    error = refused(IllegalAction, state, 0, {"type": "pass"})
    assert error.rule == "CE-9"
    assert "a card of yours fits" in error.message


def test_ce9_you_may_not_pass_before_drawing():
    state = arrange(2, [["KD"], ["3C"]], ["5H"])
    assert GAME.legal_actions(state, 0) == [{"type": "draw"}]
    assert refused(IllegalAction, state, 0, {"type": "pass"}).rule == "CE-9"


def test_ce9_with_nothing_to_draw_and_nothing_that_fits_you_pass():
    state = arrange(2, [["KD"], ["3C", "5C"]], ["5H"], stock=[])
    assert GAME.legal_actions(state, 0) == [{"type": "pass"}]
    assert types(pass_turn(state, 0)) == ["passed"]
    assert GAME.to_act(state) == {1}


# --- CE-10 to CE-15: the end of a deal, scores, the end of the game ---------------------------


def test_ce10_a_deal_is_blocked_when_every_seat_passes_in_a_row_without_drawing():
    state = arrange(3, [["2C", "7C"], ["3D"], ["4S"]], ["5H"], stock=[])
    events = pass_turn(state, 0)
    assert types(events) == ["passed", "passed", "passed", "deal_ended", "game_ended"]
    assert [event["passes"] for event in events[:3]] == [1, 2, 3]
    assert [event.get("auto") for event in events[:3]] == [None, True, True]
    assert events[3]["reason"] == "blocked"
    assert GAME.is_over(state)


def test_ce10_passes_after_drawing_never_block_a_deal():
    state = arrange(3, [["2C"], ["3D"], ["4S"]], ["5H"], stock=["9C", "9D", "9S", "TC"])
    for seat in range(3):
        assert types(draw(state, seat)) == ["drew", "passed"]
    assert (state["phase"], state["passes"], state["current_seat"]) == ("play", 0, 0)
    assert GAME.result(state) is None


def test_ce10_a_card_played_starts_the_count_again():
    state = arrange(3, [["2C", "7C"], ["3D", "5D"], ["4S"]], ["5H"], stock=[])
    pass_turn(state, 0)
    assert state["passes"] == 1
    play(state, 1, "5D")
    assert state["passes"] == 0
    assert GAME.public_view(state)["passes"] == 0


def test_ce11_playing_your_last_card_wins_the_deal_at_once():
    state = arrange(3, [["5S"], ["KH", "2C"], ["AD"]], ["5H"])
    events = play(state, 0, "5S")
    assert types(events) == ["played", "deal_ended", "game_ended"]
    assert (events[1]["reason"], events[1]["winners"]) == ("out", [0])
    assert GAME.result(state)["winners"] == [0]
    assert GAME.to_act(state) == set()
    assert refused(GameOver, state, 1, {"type": "draw"}).rule == "CE-14"


def test_ce11_a_last_eight_still_names_a_suit():
    state = arrange(2, [["8S"], ["KH"]], ["5H"])
    error = refused(IllegalAction, state, 0, {"type": "play", "card": card_id(state, "8S")})
    assert (error.rule, error.field) == ("CE-7", "suit")
    assert types(play(state, 0, "8S", "clubs"))[1:] == ["deal_ended", "game_ended"]


def test_ce12_card_values():
    values = {rank: value(f"{rank}H") for rank in RANKS}
    assert values == {
        "A": 1,
        "2": 2,
        "3": 3,
        "4": 4,
        "5": 5,
        "6": 6,
        "7": 7,
        "8": 50,
        "9": 9,
        "T": 10,
        "J": 10,
        "Q": 10,
        "K": 10,
    }
    assert all(value(f"8{suit}") == 50 for suit in "CDHS")


def test_ce13_going_out_scores_every_card_left_the_rules_example():
    """The rules page: Ann goes out; Bob holds 8S KH 3C (63), Cid AD TD (11): Ann scores 74."""
    ann, bob, cid = 0, 1, 2
    state = arrange(3, [["5S"], ["8S", "KH", "3C"], ["AD", "TD"]], ["5H"])
    ended = play(state, ann, "5S")[1]
    assert ended["hand_values"] == [0, 63, 11]
    assert ended["points"] == [74, 0, 0]
    assert GAME.scores(state) == [74, 0, 0] == GAME.result(state)["scores"]
    assert GAME.result(state)["winners"] == [ann]
    assert GAME.public_view(state)["seats"][ann]["score"] == 74
    assert GAME.scores(state)[bob] == GAME.scores(state)[cid] == 0


def test_ce13_a_blocked_deal_is_won_by_the_fewest_points_ties_sharing_the_rules_example():
    """The rules page: blocked with Ann 12, Bob 7, Cid 7: Bob and Cid win, scoring 5 each."""
    state = arrange(3, [["2C", "TC"], ["7C"], ["4S", "3D"]], ["5H"], stock=[])
    events = pass_turn(state, 0)
    ended = events[3]
    assert (ended["reason"], ended["hand_values"]) == ("blocked", [12, 7, 7])
    assert (ended["winners"], ended["points"]) == ([1, 2], [0, 5, 5])
    assert GAME.result(state)["winners"] == [1, 2]


def test_ce14_one_deal_makes_a_game_without_a_target():
    state = arrange(2, [["5S"], ["KH"]], ["5H"])
    events = play(state, 0, "5S")
    assert events[-1] == {"type": "game_ended", "winners": [0], "scores": [10, 0], "reason": "out"}
    assert GAME.result(state) == {
        "winners": [0],
        "scores": [10, 0],
        "reason": "out",
        "deal_points": [[10, 0]],
    }


def test_ce14_with_a_target_deals_follow_until_a_total_reaches_it():
    state = arrange(3, [["5S"], ["KH", "2C"], ["AD"]], ["5H"], target=100)
    events = play(state, 0, "5S")
    assert types(events) == ["played", "deal_ended", "dealt"]
    dealt = events[2]
    # CE-4: the next deal starts one seat further on; CE-2: a whole new deal.
    assert (dealt["deal"], dealt["first"], state["current_seat"]) == (2, 1, 1)
    assert dealt["card_counts"] == [5, 5, 5]
    assert dealt["stock_count"] == 52 - 15 - 1 == len(state["stock"])
    assert GAME.scores(state) == [13, 0, 0]
    assert GAME.result(state) is None
    mine = redact_event(dealt, 1)
    assert mine is not None and mine["hand"] == GAME.view(state, 1)["you"]["hand"]
    assert "hand" not in (redact_event(dealt, None) or {})
    for viewer in (None, 0, 1, 2):
        Shapes(GAME).check_event(redact_event(dealt, viewer) or {})
    # The second deal: Bob goes out with 13 more points than the others: 108 reaches 100.
    state["scores"] = [13, 95, 0]
    lay(state, [["KH"], ["5S"], ["AD", "2C"]], ["5H"], seat=1)
    events = play(state, 1, "5S")
    assert types(events) == ["played", "deal_ended", "game_ended"]
    assert events[-1]["reason"] == "target"
    assert GAME.result(state)["winners"] == [1]
    assert GAME.result(state)["scores"] == [13, 108, 0]
    assert GAME.result(state)["deal_points"] == [[13, 0, 0], [0, 13, 0]]


def test_ce14_the_highest_total_wins_and_equal_totals_share():
    state = arrange(3, [["2C"], ["2D"], ["KS", "QS"]], ["5H"], stock=[], target=40)
    state["scores"] = [30, 30, 0]
    events = pass_turn(state, 0)
    assert events[-1] == {
        "type": "game_ended",
        "winners": [0, 1],
        "scores": [48, 48, 0],
        "reason": "target",
    }


def test_ce15_the_turn_limit_ends_the_deal_scored_as_blocked_and_the_game():
    state = arrange(3, [["5S", "KC"], ["6S", "2C"], ["AD", "3H"]], ["5H"], turn_limit=2, target=500)
    play(state, 0, "5S")
    events = play(state, 1, "6S")
    assert types(events) == ["played", "deal_ended", "game_ended"]
    assert events[1]["reason"] == "turn_limit"
    assert (events[1]["hand_values"], events[1]["points"]) == ([10, 2, 4], [0, 10, 0])
    assert events[2]["reason"] == "turn_limit"
    assert GAME.public_view(state)["turns"] == 2


def test_ce15_a_turn_is_a_draw_with_what_follows_it():
    state = arrange(2, [["5S", "KD"], ["3C", "4D"]], ["5H"], stock=["9H", "2C"])
    draw(state, 0)
    assert state["turns"] == 0
    play(state, 0, "9H")
    assert state["turns"] == 1


# --- CE-16 to CE-19: forced passes, who sees what, the form of an action, the clock ----------


def test_ce16_the_game_passes_for_you_when_the_drawn_card_does_not_fit():
    state = arrange(2, [["KD"], ["3C"]], ["5H"], stock=["9C", "2H"])
    events = draw(state, 0)
    assert types(events) == ["drew", "passed"]
    assert events[1] == {"type": "passed", "seat": 0, "after_draw": True, "passes": 0, "auto": True}
    assert (state["phase"], state["current_seat"]) == ("play", 1)


def test_ce16_a_card_that_fits_is_never_played_for_you():
    state = arrange(2, [["KD"], ["6H", "2C"]], ["5H"], stock=[])
    assert types(pass_turn(state, 0)) == ["passed"]
    assert GAME.to_act(state) == {1}
    assert GAME.legal_actions(state, 1) == [{"type": "play", "card": card_id(state, "6H")}]


def test_ce16_no_seat_is_ever_asked_only_to_pass():
    for seed in range(30):
        players = 2 + seed % 4
        rng = random.Random(seed)
        state = new(players, seed=seed)
        while GAME.result(state) is None:
            (seat,) = GAME.to_act(state)
            legal = GAME.legal_actions(state, seat)
            assert legal != [{"type": "pass"}], f"seed {seed}"
            GAME.apply(state, seat, rng.choice(legal))


def test_ce17_only_you_see_your_hand_and_the_card_you_draw():
    state = arrange(3, [["5S", "KD"], ["3C", "4C"], ["2D"]], ["5H"], stock=["9H", "2C"])
    mine = {card_id(state, code) for code in ("5S", "KD", "9H")}
    events = draw(state, 0)
    assert redact_event(events[0], 0)["card"]["id"] == card_id(state, "9H")
    for viewer in (1, 2, None):
        assert "card" not in (redact_event(events[0], viewer) or {})
        text = json.dumps(GAME.view(state, viewer))
        assert not any(f'"{id_}"' in text for id_ in mine), viewer
        assert mine <= GAME.hidden_cards(state, viewer)
    assert GAME.view(state, 0)["you"]["drawn"]["code"] == "9H"
    assert GAME.view(state, 1)["you"]["drawn"] is None
    assert GAME.view(state, None)["you"] is None
    stock = {f"c{n}" for n in state["stock"]}
    assert stock <= GAME.hidden_cards(state, 0)


def test_ce17_the_hands_are_not_shown_when_a_deal_ends():
    state = arrange(3, [["5S"], ["KH", "2C"], ["AD"]], ["5H"])
    left = {card_id(state, code) for code in ("KH", "2C", "AD")}
    events = play(state, 0, "5S")
    text = json.dumps([redact_event(event, 0) for event in events]) + json.dumps(
        GAME.view(state, 0)
    )
    assert not any(f'"{id_}"' in text for id_ in left)
    assert events[1]["hand_values"] == [0, 12, 1]


@pytest.mark.parametrize(
    ("action", "rule", "field"),
    [
        ({"type": "discard"}, "CE-18", "type"),
        ("pass", "CE-18", "type"),
        ({"type": "draw", "cards": 2}, "CE-18", "cards"),
        ({"type": "play"}, "CE-6", "card"),
        ({"type": "play", "card": 7}, "CE-6", "card"),
        ({"type": "play", "card": "c99"}, "CE-6", "card"),
        ({"type": "play", "card": "OTHER"}, "CE-6", "card"),
        ({"type": "play", "card": "EIGHT", "suit": "stars"}, "CE-7", "suit"),
    ],
)
def test_ce18_an_action_of_another_form_is_refused_naming_the_field(action, rule, field):
    state = arrange(2, [["8C", "KD"], ["3S"]], ["5H"])
    if isinstance(action, dict):
        named = {"EIGHT": card_id(state, "8C"), "OTHER": card_id(state, "3S")}
        action = {key: named.get(value, value) for key, value in action.items()}
    error = refused(IllegalAction, state, 0, action)
    assert (error.rule, error.field) == (rule, field)


def test_ce19_out_of_time_a_seat_draws_then_passes():
    state = arrange(2, [["5S", "KD"], ["3C"]], ["5H"], stock=["9H", "2C"], turn_seconds=10)
    GAME.start(state, 1000.0, set())
    assert GAME.deadline(state) == 1010.0
    assert GAME.advance(state, 1009.9) == []
    events = GAME.advance(state, 1010.0)
    assert types(events) == ["timed_out", "drew"]
    assert state["phase"] == "drawn"  # the 9 of hearts fits: a new wait to play it or pass
    assert GAME.deadline(state) == 1020.0
    events = GAME.advance(state, 1020.0)
    assert types(events) == ["timed_out", "passed"]
    assert GAME.to_act(state) == {1}


def test_ce19_with_nothing_to_draw_the_default_move_is_a_card_that_fits():
    state = arrange(2, [["5S", "9H", "KD"], ["3C"]], ["5H"], stock=[], turn_seconds=10)
    GAME.start(state, 1000.0, set())
    again = copy.deepcopy(state)
    events = GAME.advance(state, 1010.0)
    assert types(events) == ["timed_out", "played"]
    assert events[1]["card"]["code"] in {"5S", "9H"}
    assert GAME.advance(again, 1010.0) == events  # drawn from the game's seed: replayable


def test_ce19_drawing_does_not_start_a_new_wait():
    state = arrange(2, [["5S", "KD"], ["3C"]], ["5H"], stock=["9H", "2C"], turn_seconds=10)
    GAME.start(state, 1000.0, set())
    GAME.apply(state, 0, {"type": "draw"}, 1004.0)
    assert GAME.deadline(state) == 1010.0
    GAME.apply(state, 0, {"type": "pass"}, 1005.0)
    assert GAME.deadline(state) == 1015.0  # seat 1's turn: its own wait


# --- the rules page's examples ----------------------------------------------------------------


def test_rules_example_which_cards_fit():
    """The rules page: on the 5 of hearts, 5S, 9H and 8C fit, KD does not; after the 8 of
    clubs naming spades, only a spade or an eight fits."""
    state = arrange(2, [["5S", "9H", "8C", "KD"], ["2S", "5C", "AH", "3D"]], ["5H"])
    assert playable(state, 0) == ["5S", "8C", "9H"]
    assert {"type": "draw"} in GAME.legal_actions(state, 0)
    play(state, 0, "8C", "spades")
    assert playable(state, 1) == ["2S"]
