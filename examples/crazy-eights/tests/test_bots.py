"""The game's own policy, ``eights_last`` (served as ``eights-last``): it only
ever picks a legal action, and it clearly beats uniformly random opponents. Games are played
in-process with the engine alone, no server."""

from __future__ import annotations

import random
from typing import Any

import pytest
from cardroom.kit import Action, Random, View

from crazy_eights.bots import eights_last
from crazy_eights.cards import RANK_NAMES, SUITS, name, suit
from crazy_eights.plugin import plugin

GAME = plugin.game
GAMES = 150


def random_policy(view: View, legal: list[Action], rng: Random) -> Action:
    """What every cardroom game's ``random`` bot does: any legal action, uniformly."""
    return rng.choice(legal)


def play_game(players: int, policies: list, seed: int, options: dict | None = None) -> dict:
    """One game to its end; every choice is checked to be one of the legal actions."""
    rng = random.Random(seed)
    state = GAME.new_game(players, GAME.validate_options(players, options or {}), seed)
    while GAME.result(state) is None:
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        action = policies[seat](GAME.view(state, seat), legal, rng)
        assert action in legal, f"{action!r} is not among {legal!r}"
        GAME.apply(state, seat, action)
    return GAME.result(state)


def test_the_plugin_serves_the_policy_under_both_names():
    assert plugin.policies == {"eights-last": eights_last}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_eights_last_only_ever_picks_a_legal_action(players):
    """Every seat eights-last, several deals to a target: each choice is checked."""
    for seed in range(10):
        play_game(players, [eights_last] * players, seed, {"target": 150})


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_eights_last_beats_random(players):
    """One eights-last seat (rotating) against random opponents: its share of the wins is
    far above the fair share 1/players (it is about 0.95, 0.9, 0.85, 0.8)."""
    share = 0.0
    for seed in range(GAMES):
        seat = seed % players
        policies: list[Any] = [random_policy] * players
        policies[seat] = eights_last
        result = play_game(players, policies, seed)
        if seat in result["winners"]:
            share += 1 / len(result["winners"])
    win_share = share / GAMES
    fair = 1 / players
    assert win_share >= min(0.8, 2.5 * fair), f"won {win_share:.0%}, fair share {fair:.0%}"


def card(card_id: str, code: str) -> dict[str, Any]:
    """A card as a view shows it."""
    return {
        "id": card_id,
        "code": code,
        "rank": RANK_NAMES[code[0]],
        "suit": suit(code),
        "name": name(code),
    }


def view_of(*hand: dict[str, Any]) -> View:
    return {"you": {"seat": 0, "hand": list(hand), "drawn": None}}


EIGHT = card("c1", "8C")
FIVE_HEARTS = card("c2", "5H")
KING_HEARTS = card("c3", "KH")
FIVE_SPADES = card("c4", "5S")
TWO_SPADES = card("c5", "2S")
SIX_SPADES = card("c6", "6S")
EIGHT_PLAYS = [{"type": "play", "card": "c1", "suit": named} for named in SUITS]


def test_an_eight_is_kept_while_an_ordinary_card_fits():
    legal = [*EIGHT_PLAYS, {"type": "play", "card": "c2"}, {"type": "draw"}]
    assert eights_last(view_of(EIGHT, FIVE_HEARTS), legal, random.Random(0)) == legal[4]


def test_of_the_cards_that_fit_the_one_of_the_suit_held_most_then_the_dearest():
    """5H and 5S fit a 5 on top: spades are held most (5S, 2S, 6S), so 5S; between the
    hearts alone, the king (10 points) before the 5."""
    hand = (FIVE_HEARTS, FIVE_SPADES, TWO_SPADES, SIX_SPADES)
    legal = [{"type": "play", "card": "c2"}, {"type": "play", "card": "c4"}, {"type": "draw"}]
    assert eights_last(view_of(*hand), legal, random.Random(0))["card"] == "c4"
    legal = [{"type": "play", "card": "c2"}, {"type": "play", "card": "c3"}]
    chosen = eights_last(view_of(FIVE_HEARTS, KING_HEARTS), legal, random.Random(0))
    assert chosen["card"] == "c3"


def test_when_stuck_an_eight_names_the_suit_held_most():
    hand = (EIGHT, FIVE_SPADES, TWO_SPADES, KING_HEARTS)
    legal = [*EIGHT_PLAYS, {"type": "draw"}]
    assert eights_last(view_of(*hand), legal, random.Random(0)) == {
        "type": "play",
        "card": "c1",
        "suit": "spades",
    }


def test_with_nothing_that_fits_it_draws():
    legal = [{"type": "draw"}]
    assert eights_last(view_of(FIVE_SPADES), legal, random.Random(0)) == {"type": "draw"}
