"""The conformance check catches a broken game: copies of the engine, each breaking the
contract in one way an author might, each failing ``check_game`` with the problem named.

- a view that leaks a hand (the public part shows every hand);
- an action accepted outside its phase (``draw`` declared for the phase after drawing too,
  while ``legal_actions`` does not list it there);
- a deal that is not reproducible (``new_game`` that does not follow the seed alone);
- a game that never ends (deals follow one another for ever).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from typing import Any

import pytest
from cardroom.kit import Event, State, View, shapes
from cardroom.kit.conformance import ConformanceError, check_game

from crazy_eights.cards import wire
from crazy_eights.engine import MOVES, CrazyEights
from crazy_eights.shapes import SHAPES


def shapes_with_hands_in_seats() -> dict[str, Any]:
    """The game's shapes, a hand declared in each seat of the public part: so that the leak
    is found as a leak, not as an undeclared field."""
    declared = copy.deepcopy(SHAPES)
    seat = declared["Public"]["properties"]["seats"]["items"]
    seat["properties"]["hand"] = shapes.array(shapes.ref("Card"))
    seat["required"].append("hand")
    return declared


class LeaksHands(CrazyEights):
    """Its public part, which every seat and spectator sees, shows every hand."""

    shapes = shapes_with_hands_in_seats()

    def public_view(self, state: State) -> View:
        view = super().public_view(state)
        for seat, entry in enumerate(view["seats"]):
            entry["hand"] = [wire(number, state["codes"]) for number in state["hands"][seat]]
        return view


class DrawsAfterDrawing(CrazyEights):
    """``draw`` is declared for the phase after drawing too, and its handler does not check
    the phase: a second draw is accepted though ``legal_actions`` never lists it."""

    moves = tuple(
        dataclasses.replace(move, phases=("play", "drawn")) if move.type == "draw" else move
        for move in MOVES
    )


class DealsDifferently(CrazyEights):
    """``new_game`` draws from something besides the seed (here a counter of its calls)."""

    def __init__(self) -> None:
        self.calls = itertools.count()

    def new_game(self, players: int, options: dict[str, Any], seed: int) -> State:
        return super().new_game(players, options, seed + next(self.calls))


class NeverEnds(CrazyEights):
    """A deal that ends is followed by another, whatever the target and the turn limit."""

    def _end_deal(
        self, state: State, events: list[Event], reason: str, out: int | None = None
    ) -> None:
        self._deal(state)


def test_the_real_game_passes_the_same_check():
    check_game(CrazyEights(), games=4, seed=0)


def test_a_view_that_leaks_a_hand_fails():
    with pytest.raises(ConformanceError) as caught:
        check_game(LeaksHands(), games=4, seed=0)
    assert caught.value.problem == "view leaks a hidden card"
    assert "crazy-eights, 2 players, seed 0" in str(caught.value)


def test_an_action_accepted_outside_its_phase_fails():
    with pytest.raises(ConformanceError) as caught:
        check_game(DrawsAfterDrawing(), games=8, seed=0)
    assert caught.value.problem == "action accepted that is not legal"
    assert caught.value.detail.startswith("{'type': 'draw'} by seat")


def test_a_new_game_that_does_not_follow_the_seed_alone_fails():
    with pytest.raises(ConformanceError) as caught:
        check_game(DealsDifferently(), games=1, seed=0)
    assert caught.value.problem == "new_game is not deterministic"


def test_a_game_that_never_ends_fails():
    """``check_game`` allows 20,000 steps a game by default; a smaller bound keeps this quick."""
    with pytest.raises(ConformanceError) as caught:
        check_game(NeverEnds(), games=1, players=[3], max_steps=300)
    assert caught.value.problem == "game does not end"
    assert "no result after 300 steps" in str(caught.value)
