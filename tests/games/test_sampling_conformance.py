"""The kit's conformance check covers sampling (issue 29: "the conformance test covers
sampling for every registered game"): on samplers broken on purpose it fails, naming the
problem. Each broken sampler wraps Mr Toast's own; so does each broken ``apply_legal``, the
unchecked apply a search's play-outs use."""

from __future__ import annotations

import pytest

from cardroom.games.mr_toast.engine import MrToast
from cardroom.kit.conformance import ConformanceError, check_game


class ShowsAnotherHand(MrToast):
    """Deals the viewing seat's own hand anew: its view changes."""

    def sample_state(self, view, seen, options, rng):  # type: ignore[no-untyped-def]
        state = super().sample_state(view, seen, options, rng)
        seat = view["you"]["seat"]
        others = [s for s in range(state["players"]) if s != seat and state["hands"][s]]
        if others and state["hands"][seat]:
            mine, theirs = state["hands"][seat], state["hands"][others[0]]
            mine[0], theirs[0] = theirs[0], mine[0]
        return state


class LosesACard(MrToast):
    """Puts one draw-pile card there twice, so another is lost (the pile's size, all the
    view shows of it, is kept): the cards out of sight are no longer the same."""

    def sample_state(self, view, seen, options, rng):  # type: ignore[no-untyped-def]
        state = super().sample_state(view, seen, options, rng)
        if len(state["draw_pile"]) > 1:
            state["draw_pile"][-1] = state["draw_pile"][0]
        return state


class ReadsTheClock(MrToast):
    """Draws from something besides its rng (a counter kept between calls)."""

    calls = 0

    def sample_state(self, view, seen, options, rng):  # type: ignore[no-untyped-def]
        state = super().sample_state(view, seen, options, rng)
        ReadsTheClock.calls += 1
        state["turn_marker_noise"] = ReadsTheClock.calls
        return state


class SharesItsCopy(MrToast):
    """A "copy" for search that is the state itself: playing on it changes the original."""

    def copy_state(self, state):  # type: ignore[no-untyped-def]
        return state


class CopiesPartly(MrToast):
    """A copy that leaves out the discard pile."""

    def copy_state(self, state):  # type: ignore[no-untyped-def]
        copied = super().copy_state(state)
        copied["discard_pile"] = []
        return copied


class ForgetsTheEvents(MrToast):
    """An unchecked apply that changes the state as ``apply`` does but tells nothing."""

    def apply_legal(self, state, seat, action):  # type: ignore[no-untyped-def]
        super().apply_legal(state, seat, action)
        return []


class CrashesOnSomeMoves(MrToast):
    """An unchecked apply that cannot apply every legal action."""

    def apply_legal(self, state, seat, action):  # type: ignore[no-untyped-def]
        if action["type"] == "end_turn":
            raise KeyError("end_turn")
        return super().apply_legal(state, seat, action)


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        (SharesItsCopy, "copied state shares parts with the state"),
        (CopiesPartly, "copied state differs from the state"),
        (ShowsAnotherHand, "sampled state shows another view"),
        (LosesACard, "sampled state hides other cards"),
        (ReadsTheClock, "sampling depends on more than its arguments"),
        (ForgetsTheEvents, "apply_legal differs from apply"),
        (CrashesOnSomeMoves, "apply_legal fails on a legal action"),
    ],
)
def test_a_broken_sampler_fails_the_check_naming_the_problem(broken: type, problem: str) -> None:
    with pytest.raises(ConformanceError) as failed:
        check_game(broken(), games=6, players=[2, 3])
    assert failed.value.problem == problem, failed.value


def test_mr_toast_s_sampler_passes_it() -> None:
    check_game(MrToast(), games=4, players=[2, 4])
