"""Helpers for the Exact Plays engine tests: stacked decks, acting, snapshots."""

from __future__ import annotations

import json
import re
from typing import Any

from cardroom.games.exact_plays import ExactPlays
from cardroom.games.exact_plays.cards import ALL_CODES, ORDER, SUITS

GAME = ExactPlays()

CODE_RE = re.compile(r'"([2-9][MSAB])"')


def deck(
    players: int,
    hands: dict[int, list[str]],
    draw: list[str] | None = None,
    removed: str | None = None,
) -> list[str]:
    """A stacked deck: the given hands (8 codes each) for their seats, the other seats
    filled from the unused cards in canonical order, then ``draw`` (2 players: draw pile
    top first; 3 players: set aside) and the remaining cards."""
    used = [c for hand in hands.values() for c in hand] + list(draw or [])
    if players == 2:
        if removed is None:
            present = {c[1] for c in used}
            removed = next(s for s in reversed(SUITS) if s not in present)
        pool = [c for c in ALL_CODES if c[1] != removed]
    else:
        pool = list(ALL_CODES)
    assert all(c in pool for c in used), "a stacked card is not in this game's deck"
    assert len(set(used)) == len(used), "a stacked card appears twice"
    spare = [c for c in pool if c not in used]
    order: list[str] = []
    for seat in range(players):
        if seat in hands:
            assert len(hands[seat]) == 8
            order.extend(hands[seat])
        else:
            order.extend(spare[:8])
            spare = spare[8:]
    order.extend(draw or [])
    order.extend(spare)
    assert len(order) == len(pool)
    return order


def new_game(
    players: int,
    hands: dict[int, list[str]] | None = None,
    *,
    draw: list[str] | None = None,
    seed: int = 1,
    **options: Any,
) -> dict:
    if hands is not None:
        options.setdefault("decks", [deck(players, hands, draw)])
    return GAME.new_game(players, GAME.validate_options(players, options), seed)


def act(state: dict, seat: int, kind: str, **fields: Any) -> list[dict]:
    return GAME.apply(state, seat, {"type": kind, **fields})


def declare_all(state: dict, tokens: list[int]) -> list[dict]:
    events: list[dict] = []
    for seat, count in enumerate(tokens):
        events += act(state, seat, "declare", tokens=count)
    return events


def started(players: int, hands: dict[int, list[str]], tokens: list[int], **kwargs: Any) -> dict:
    """A game in its play phase after the given declarations."""
    state = new_game(players, hands, **kwargs)
    declare_all(state, tokens)
    return state


def play(state: dict, seat: int, cards: list[str], wild: int | None = None) -> list[dict]:
    action: dict[str, Any] = {"type": "play", "cards": cards}
    if wild is not None:
        action["wild"] = wild
    return GAME.apply(state, seat, action)


def snapshot(state: dict) -> str:
    return json.dumps(state, sort_keys=True)


def clone(state: dict) -> dict:
    return json.loads(json.dumps(state))


def canonical(action: Any) -> Any:
    """An action's meaning, for comparing: card order inside a play does not matter and an
    optional field given as null is the same as leaving it out."""
    if not isinstance(action, dict):
        return ("?", repr(action))
    fields = {k: v for k, v in action.items() if v is not None or k == "type"}
    cards = fields.get("cards")
    if isinstance(cards, list) and all(isinstance(c, str) and c in ORDER for c in cards):
        fields["cards"] = sorted(cards, key=ORDER.__getitem__)
    return tuple(sorted((k, repr(v)) for k, v in fields.items()))


def plays(state: dict, seat: int) -> set[tuple[tuple[str, ...], int | None]]:
    """The legal plays of a seat as (sorted cards, wild)."""
    return {
        (tuple(a["cards"]), a.get("wild"))
        for a in GAME.legal_actions(state, seat)
        if a["type"] == "play"
    }


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def codes_in(value: Any) -> set[str]:
    return set(CODE_RE.findall(json.dumps(value)))


def all_cards(state: dict) -> list[str]:
    """Every card of the round wherever it is (for conservation checks)."""
    out = [c for hand in state["hands"] for c in hand]
    return out + state["field"] + state["cleared"] + state["draw_pile"] + state["set_aside"]
