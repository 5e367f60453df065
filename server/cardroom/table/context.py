"""What every part of the table works with: the store, the clock, the history, the bot budget
and the actions running in this process."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from cardroom.store import GameStore, Gone, Loaded
from cardroom.table.bot_play import BotBudget, Spending
from cardroom.table.errors import NotFound
from cardroom.table.history import History
from cardroom.table.turns import GameTurns

Clock = Callable[[], float]


@dataclass
class Context:
    store: GameStore
    clock: Clock = time.time
    history: History = field(default_factory=History)
    bot_budget: BotBudget = field(default_factory=BotBudget)
    turns: GameTurns = field(default_factory=GameTurns)

    def spending(self) -> Spending:
        """A fresh bot budget for one request."""
        return Spending(self.bot_budget)

    def load(self, game_id: str, idempotency: str | None = None, acting: bool = False) -> Loaded:
        """The game as stored (and the Idempotency-Key's kept answer, in the same round trip)."""
        try:
            return self.store.load(game_id, idempotency, acting)
        except Gone:
            raise NotFound(game_id) from None
