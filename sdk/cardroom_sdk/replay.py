"""A finished game's replay (``GET /v1/games/{id}/replay``), to step through.

>>> replay = client.replay(game_id)
>>> table = replay.state_at(10)          # the table after step 10 (0: the deal)
>>> table.hands[2], table.scores, table.step.events
>>> replay.forward(); replay.back()      # a cursor, for a viewer
>>> replay.current                       # the table at the cursor

The server sends each card once (``cards``) and each step only the hands and scores it
changed; :meth:`Replay.state_at` puts them back together. Hands hold cards as the server
describes them (dicts with at least ``id`` and ``code``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardroom_sdk.models import Card, Event

JSON = dict[str, Any]

__all__ = ["Replay", "ReplayStep", "TableAt"]


@dataclass(frozen=True)
class ReplayStep:
    """One step of the game: ``kind`` is ``join``, ``action`` (a person's or a bot's),
    ``timeout`` (a deadline passed: a reaction window, a turn clock) or ``back`` (an away
    seat came back). ``events`` are unredacted: secrets sit under ``private``, by seat."""

    index: int
    kind: str
    seat: int | None
    at_ms: int
    events: list[Event]
    action: JSON | None = None
    name: str | None = None
    hands: dict[int, list[str]] = field(default_factory=dict)
    scores: list[int] | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, index: int, data: JSON) -> ReplayStep:
        return cls(
            index=index,
            kind=str(data.get("kind", "")),
            seat=data.get("seat"),
            at_ms=int(data.get("at") or 0),
            events=[Event.from_json(e) for e in data.get("events") or [] if isinstance(e, dict)],
            action=data.get("action"),
            name=data.get("name"),
            hands={int(seat): list(hand) for seat, hand in (data.get("hands") or {}).items()},
            scores=data.get("scores"),
            raw=data,
        )


@dataclass(frozen=True)
class TableAt:
    """The table after step ``index`` (0: the deal, before any step): every hand face up,
    the scores, and the step that led here (None at the deal)."""

    index: int
    hands: list[list[Card]]
    scores: list[int]
    step: ReplayStep | None


class Replay:
    """A whole finished game, with a cursor for stepping through it."""

    def __init__(self, data: JSON):
        self.raw = data
        self.game_id: str = data.get("game_id", "")
        self.game_type: str = data.get("game_type", "")
        self.players: int = int(data.get("players") or 0)
        self.options: JSON = data.get("options") or {}
        self.seed: int | None = data.get("seed")
        self.seats: list[JSON] = list(data.get("seats") or [])
        self.result: JSON | None = data.get("result")
        self.cards: dict[str, Card] = dict(data.get("cards") or {})
        self.opening_events = [Event.from_json(e) for e in data.get("opening_events") or []]
        self.steps = [ReplayStep.from_json(i + 1, s) for i, s in enumerate(data.get("steps") or [])]
        deal = data.get("deal") or {}
        self._deal_hands: list[list[str]] = [list(hand) for hand in deal.get("hands") or []]
        self._deal_scores: list[int] = list(deal.get("scores") or [])
        self.position = 0

    def __len__(self) -> int:
        """The number of steps (positions run from 0, the deal, to ``len(replay)``)."""
        return len(self.steps)

    def __repr__(self) -> str:
        return f"Replay(game_id={self.game_id!r}, steps={len(self.steps)})"

    @property
    def winners(self) -> list[int]:
        return list((self.result or {}).get("winners") or [])

    def events_until(self, index: int) -> list[Event]:
        """Every event up to step ``index``, the game's creation included."""
        events = list(self.opening_events)
        for step in self.steps[: self._bounded(index)]:
            events += step.events
        return events

    def state_at(self, index: int) -> TableAt:
        """The table after step ``index`` (0: the deal; ``len(replay)``: the end)."""
        index = self._bounded(index)
        hands = [list(hand) for hand in self._deal_hands]
        scores = list(self._deal_scores)
        for step in self.steps[:index]:
            for seat, hand in step.hands.items():
                hands[seat] = list(hand)
            if step.scores is not None:
                scores = list(step.scores)
        return TableAt(
            index=index,
            hands=[[self.cards.get(card, {"id": card}) for card in hand] for hand in hands],
            scores=scores,
            step=self.steps[index - 1] if index else None,
        )

    # --- a cursor ------------------------------------------------------------------------

    @property
    def current(self) -> TableAt:
        return self.state_at(self.position)

    @property
    def at_end(self) -> bool:
        return self.position == len(self.steps)

    def forward(self, steps: int = 1) -> TableAt:
        """Move the cursor on (it stops at the end) and return the table there."""
        self.position = self._bounded(self.position + steps)
        return self.current

    def back(self, steps: int = 1) -> TableAt:
        """Move the cursor back (it stops at the deal) and return the table there."""
        self.position = self._bounded(self.position - steps)
        return self.current

    def seek(self, index: int) -> TableAt:
        self.position = self._bounded(index)
        return self.current

    def _bounded(self, index: int) -> int:
        return max(0, min(len(self.steps), index))
