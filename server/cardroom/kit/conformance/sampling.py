"""A game's sampler (``Game.sample_state``), checked where a search bot would call it: for a
seat at a step of a random game, from that seat's view, the events as it saw them and the
options as every seat sees them. A sampled state gives the seat exactly its view (its clock
aside) and the same legal actions, keeps the same cards out of its sight, round-trips
through JSON, and depends on nothing but its arguments (the same ``rng`` seed gives the same
state); its copy (``Game.copy_state``) equals it and plays on, leaving it untouched."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence
from typing import Any

from cardroom.kit.base import Game, redact_event
from cardroom.kit.conformance.problems import ConformanceError, expect
from cardroom.kit.contract_types import Event, State, View
from cardroom.kit.errors import RuleError

SAMPLES = 2  # per seat, at a checked step


def without_clock(view: View) -> View:
    return {key: value for key, value in view.items() if key != "clock"}


def seen_by(events: Sequence[Event], seat: int) -> list[Event]:
    """The events as ``seat`` saw them, oldest first."""
    return [shown for event in events if (shown := redact_event(event, seat)) is not None]


def check_sampling(
    game: Game, state: State, events: Sequence[Event], options: dict[str, Any], rng: random.Random
) -> None:
    """Every seat's samples of ``state`` (after ``events``), as the module says."""
    public = game.public_options(options)
    for seat in range(state["players"]):
        view = game.view(state, seat)
        seen = seen_by(events, seat)
        hidden = game.hidden_cards(state, seat)
        for _ in range(SAMPLES):
            seed = rng.getrandbits(32)
            arguments = (copy.deepcopy(view), copy.deepcopy(seen), dict(public))
            sampled = game.sample_state(*arguments, random.Random(seed))
            who = f"seat {seat} at phase {game.phase(state)!r}"
            expect(
                without_clock(game.view(sampled, seat)) == without_clock(view),
                "sampled state shows another view",
                who,
            )
            expect(
                game.legal_actions(sampled, seat) == game.legal_actions(state, seat),
                "sampled state gives other legal actions",
                who,
            )
            expect(
                game.to_act(sampled) == game.to_act(state),
                "sampled state awaits other seats",
                who,
            )
            expect(
                game.hidden_cards(sampled, seat) == hidden,
                "sampled state hides other cards",
                f"{who}: the same cards must stay out of its sight, placed anew",
            )
            text = json.dumps(sampled)
            expect(json.loads(text) == sampled, "sampled state is not JSON", who)
            again = game.sample_state(*arguments, random.Random(seed))
            expect(again == sampled, "sampling depends on more than its arguments", who)
            copied = game.copy_state(sampled)
            expect(copied == sampled, "copied state differs from the state", who)
            _plays_on(game, copied, random.Random(seed), who)
            expect(
                json.dumps(sampled) == text,
                "copied state shares parts with the state",
                f"{who}: playing on the copy changed the original",
            )


def _plays_on(game: Game, state: State, rng: random.Random, who: str) -> None:
    """A few random steps from the sampled state are accepted, as a search plays them."""
    for _ in range(5):
        to_act = sorted(game.to_act(state))
        if not to_act:
            return
        seat = rng.choice(to_act)
        legal = game.legal_actions(state, seat)
        expect(legal, "sampled state has a seat to act with no legal action", who)
        action = rng.choice(legal)
        try:
            game.apply(state, seat, action)
        except RuleError as error:
            raise ConformanceError(
                "sampled state refuses a legal action", f"{who}, then {action!r}: {error.message}"
            ) from error
