"""Helpers for the Mr Toast engine tests: stacked decks and a small driver."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from cardroom.games.mr_toast import MrToast
from cardroom.games.mr_toast.cards import CODES, DEFAULT_COUNTS
from cardroom.kit.base import redact_event

GAME = MrToast()


def stacked_deck(hands: list[list[str]], draw: list[str] = (), *, fill: bool = True) -> list[str]:
    """A deck: the given hands (5 each), then ``draw`` (top first), then with ``fill`` the rest
    of the default deck in code order."""
    deck = [code for hand in hands for code in hand] + list(draw)
    if fill:
        left = Counter(DEFAULT_COUNTS)
        left.subtract(Counter(deck))
        assert all(count >= 0 for count in left.values()), "more cards than the default deck"
        for code in CODES:
            deck.extend([code] * left[code])
    return deck


def composition_of(deck: list[str]) -> list[dict[str, Any]]:
    counts = Counter(deck)
    return [{"code": code, "count": counts[code]} for code in CODES if counts[code]]


class Table:
    """A game driven by card codes: ``t.card(0, "G3")`` is the id of a G3 in seat 0's hand."""

    def __init__(
        self,
        hands: list[list[str]],
        draw: list[str] = (),
        *,
        fill: bool = True,
        first_seat: int = 0,
        seed: int = 1,
        **options: Any,
    ):
        self.game = GAME
        deck = stacked_deck(hands, draw, fill=fill)
        if not fill:
            options.setdefault("composition", composition_of(deck))
        options = {"deck": deck, "first_seat": first_seat, **options}
        self.players = len(hands)
        self.options = GAME.validate_options(self.players, options)
        self.state = GAME.new_game(self.players, self.options, seed)
        self.events: list[dict[str, Any]] = []

    # --- looking ---------------------------------------------------------------------------

    def view(self, seat: int | None = None) -> dict[str, Any]:
        return self.game.view(self.state, seat)

    def hand(self, seat: int) -> list[str]:
        """Codes in the seat's hand, in hand order."""
        return [card["code"] for card in self.view(seat)["you"]["hand"]]

    def hand_ids(self, seat: int) -> list[str]:
        return [card["id"] for card in self.view(seat)["you"]["hand"]]

    def card(self, seat: int, code: str, nth: int = 0) -> str:
        ids = [c["id"] for c in self.view(seat)["you"]["hand"] if c["code"] == code]
        assert len(ids) > nth, f"seat {seat} holds {self.hand(seat)}, not {nth + 1}x {code}"
        return ids[nth]

    def seat_public(self, seat: int) -> dict[str, Any]:
        return self.view(None)["seats"][seat]

    def scores(self) -> list[int]:
        return self.game.scores(self.state)

    def to_act(self) -> set[int]:
        return self.game.to_act(self.state)

    def legal(self, seat: int) -> list[dict[str, Any]]:
        return self.game.legal_actions(self.state, seat)

    # --- acting ----------------------------------------------------------------------------

    def act(self, seat: int, action: dict[str, Any], now: float | None = None) -> list[dict]:
        events = self.game.apply(self.state, seat, action, now)
        self.events.extend(events)
        return events

    def refused(self, seat: int, action: Any, error: type = Exception, now: float | None = None):
        """Assert the action is refused with ``error`` and changes nothing; return the error."""
        before = json.dumps(self.state, sort_keys=True)
        try:
            self.game.apply(self.state, seat, action, now)
        except error as exc:
            assert json.dumps(self.state, sort_keys=True) == before
            return exc
        raise AssertionError(f"{action!r} by seat {seat} was accepted")

    def score(self, seat: int, green: str, purple: str | None = None) -> list[dict]:
        action = {"type": "score", "green": self.card(seat, green)}
        if purple:
            action["purple"] = self.card(seat, purple)
        return self.act(seat, action)

    def end_turn(self, seat: int) -> list[dict]:
        return self.act(seat, {"type": "end_turn"})

    def allow_all(self) -> list[dict]:
        events = []
        while self.state["phase"] == "reaction":
            seat = min(self.to_act())
            events += self.act(seat, {"type": "allow"})
        return events


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def card_ids_in(value: Any) -> set[str]:
    """Every card id mentioned anywhere in a JSON value."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "id" and isinstance(item, str):
                found.add(item)
            found |= card_ids_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_ids_in(item)
    elif isinstance(value, str) and value.startswith("c") and value[1:].isdigit():
        found.add(value)
    return found


def hidden_from(state: dict[str, Any], seat: int | None) -> set[str]:
    """The ids ``seat`` must not see: other seats' hands and the draw pile."""
    hidden = {f"c{c}" for c in state["draw_pile"]}
    for other, hand in enumerate(state["hands"]):
        if other != seat:
            hidden |= {f"c{c}" for c in hand}
    return hidden


def redacted(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    return [e for e in (redact_event(event, seat) for event in events) if e is not None]


def play_game(
    players: int,
    policies: list,
    seed: int,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play a game in process; ``policies[seat](view, legal, rng)``. Returns the final state."""
    rng = random.Random(seed)
    state = GAME.new_game(players, GAME.validate_options(players, options or {}), seed)
    while GAME.result(state) is None:
        seat = min(GAME.to_act(state))
        legal = GAME.legal_actions(state, seat)
        action = policies[seat](GAME.view(state, seat), legal, rng)
        GAME.apply(state, seat, action)
    return state
