"""One step of a game, checked: the acting seat's legal actions accepted and everything
else refused, then every view and event against what each seat may not see."""

from __future__ import annotations

import json
import random
from typing import Any

from cardroom.kit.base import Game, redact_event
from cardroom.kit.conformance.draws import (
    action_cards,
    built_actions,
    card_ids,
    hand_of,
    malformed_actions,
)
from cardroom.kit.conformance.problems import ConformanceError, expect
from cardroom.kit.conformance.shapes import Shapes
from cardroom.kit.contract_types import Action, Event, State
from cardroom.kit.errors import IllegalAction, NotYourTurn, RuleError


def check_refused(
    game: Game, state: State, seat: Any, action: Any, error: type, now: float
) -> RuleError:
    before = json.dumps(state, sort_keys=True)
    phase = game.phase(state)  # as it was: an action wrongly accepted may change it
    try:
        game.apply(state, seat, action, now)
    except error as caught:
        changed = json.dumps(state, sort_keys=True) != before
        expect(not changed, "refused action changed the state", f"{action!r} by seat {seat!r}")
        if isinstance(caught, IllegalAction):
            expect(caught.rule, "refusal names no rule", f"{action!r}: {caught.message}")
        assert isinstance(caught, RuleError)
        return caught
    except RuleError as caught:
        raise ConformanceError(
            "refused with the wrong kind of error",
            f"{action!r} by seat {seat!r}: {type(caught).__name__} ({caught.message}),"
            f" expected {error.__name__}",
        ) from caught
    raise ConformanceError(
        "action accepted that is not legal",
        f"{action!r} by seat {seat!r} in phase {phase!r} was accepted, but it"
        " is not among that seat's legal actions",
    )


def check_step(game: Game, state: State, seat: int, now: float, rng: random.Random) -> None:
    """The seat about to act: its legal actions accepted, everything else refused."""
    players = state["players"]
    to_act = game.to_act(state)
    legal = game.legal_actions(state, seat)
    expect(legal, "seat to act has no legal action", f"seat {seat}")
    for other in range(players):
        if other not in to_act:
            expect(
                game.legal_actions(state, other) == [],
                "legal actions for a seat that may not act",
                f"seat {other}",
            )
    text = json.dumps(state)
    phase = game.phase(state)
    hand = hand_of(game, state, seat)
    listed: set[tuple] = set()
    for action in legal:
        move = game.moves_by_type.get(action.get("type"))
        expect(move is not None, "legal action of no declared move", repr(action))
        assert move is not None
        expect(
            phase in move.phases,
            "legal action outside its phase",
            f"{action!r} is listed in phase {phase!r}; its move's phases are {move.phases}",
        )
        try:
            game.read_action(state, seat, action)
            game.apply(json.loads(text), seat, json.loads(json.dumps(action)), now)
        except RuleError as error:
            raise ConformanceError(
                "legal action refused", f"{action!r} by seat {seat}: {error.message}"
            ) from error
        listed.add(move.canonical(action))
    expect(json.dumps(state) == text, "listing legal actions changed the state", f"seat {seat}")
    check_apply_legal(game, text, seat, rng.choice(legal))

    # Not objects, unknown types, other phases' moves, seats that may not act.
    for junk in (None, "pass", 3, [], {}, {"type": None}, {"type": "zzz"}, {"type": ["x"]}):
        error = check_refused(game, state, seat, junk, IllegalAction, now)
        expect(error.field == "type", "refusal names the wrong field", f"{junk!r}: {error.field}")
    for move in game.moves:
        if phase not in move.phases:
            check_refused(game, state, seat, {"type": move.type}, NotYourTurn, now)
    for other in {-1, players, "0", None, *set(range(players)) - to_act}:
        check_refused(game, state, other, rng.choice(legal), NotYourTurn, now)

    # Malformed actions of this phase's moves, and well-formed ones that are not listed.
    for move in game.moves:
        if phase not in move.phases:
            continue
        samples = [a for a in legal if a["type"] == move.type] or [{"type": move.type}]
        sample = rng.choice(samples)
        for action, at_fault in malformed_actions(game, move, sample, hand, state, seat):
            if move.canonical(action) in listed:
                continue
            error = check_refused(game, state, seat, action, RuleError, now)
            if sample in legal:  # every other field is good: this one is named
                expect(
                    isinstance(error, IllegalAction) and error.field == at_fault,
                    "refusal names the wrong field",
                    f"{action!r}: {error.field!r}, not {at_fault!r}",
                )
        if not move.lists_all:
            continue
        for action in built_actions(move, hand, state, rng):
            if move.canonical(action) not in listed:
                check_refused(game, state, seat, action, RuleError, now)


def check_apply_legal(game: Game, text: str, seat: int, action: Action) -> None:
    """``apply_legal`` gives the state and events ``apply`` gives, for one legal action of
    each step (a whole game's steps cover every kind)."""
    checked = json.loads(text)
    events = game.apply(checked, seat, json.loads(json.dumps(action)))
    trusted = json.loads(text)
    try:
        trusted_events = game.apply_legal(trusted, seat, json.loads(json.dumps(action)))
    except Exception as error:  # a plug-in's failure, reported by name
        raise ConformanceError(
            "apply_legal fails on a legal action", f"{action!r} by seat {seat}: {error!r}"
        ) from error
    expect(
        trusted == checked and trusted_events == events,
        "apply_legal differs from apply",
        f"{action!r} by seat {seat}: the state or events differ",
    )


def hidden_by_viewer(game: Game, state: State) -> dict[int | None, set[str]]:
    return {viewer: game.hidden_cards(state, viewer) for viewer in [None, *range(state["players"])]}


def check_secrets(
    game: Game,
    state: State,
    before_hidden: dict[int | None, set[str]],
    events: list[Event],
    action: Action | None,
    shapes: Shapes,
) -> None:
    """After a step: every view, legal action and event as each seat sees it, against the
    cards that seat may not see (and the declared shapes)."""
    # Cards the action names, or that any event shows everyone, are public from this step on
    # (a played card may come back into a hand or the draw pile within the same step).
    played = action_cards(game, action) if action is not None else set()
    for event in events:
        played |= card_ids(redact_event(event, None) or {})
    for viewer in [None, *range(state["players"])]:
        who = "a spectator" if viewer is None else f"seat {viewer}"
        hidden = game.hidden_cards(state, viewer)
        view = game.view(state, viewer)
        shapes.check_view(view)
        leaked = card_ids(view) & hidden
        expect(not leaked, "view leaks a hidden card", f"{who} sees {sorted(leaked)}")
        if viewer is None:
            expect(view["you"] is None, "spectator has a seat", repr(view["you"]))
        else:
            expect(view["you"]["seat"] == viewer, "view of the wrong seat", who)
            for legal in game.legal_actions(state, viewer):
                leaked = action_cards(game, legal) & hidden
                expect(not leaked, "legal action names a hidden card", f"{who}: {legal!r}")
        secret = (before_hidden[viewer] & hidden) - played
        for event in events:
            shown = redact_event(event, viewer)
            if shown is None:
                continue
            shapes.check_event(shown)
            # What an event of the viewer's own seat shows it alone (the card it drew) is
            # its own: within one step that card may go back out of sight (a draw that ends
            # a round, and the next round's deal). Every other seat is still checked.
            mine = viewer is not None and event.get("seat") == viewer
            own = card_ids(shown) if mine else set()
            leaked = (card_ids(shown) - own) & secret
            expect(not leaked, "event leaks a hidden card", f"{who} sees {sorted(leaked)}")
