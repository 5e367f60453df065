"""The table: the domain between the API and the store (docs/architecture.md, Layers).

``Tables`` is its front: what the API, the progression loop and the simulator may ask, one
line each, in the table's terms. Each job is a module of its own:

- ``seating``: create a game, take a seat, come back from away, a rematch;
- ``move``: an action, from its request to its answer, as a straight line of stages;
- ``views``: what a seat or a spectator sees, its ETag, a game's summary;
- ``following``: one waiter for everyone who waits until a game changes;
- ``settling``: clocks and due work (passed deadlines, bot play left over);
- ``bot_play``: the server's seats and their budget; ``steps``: every change as a logged step;
  ``history`` and ``replays``: a game's events and its replay, rebuilt from the log;
  ``idempotency``: an Idempotency-Key's first answer, kept and given again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from cardroom.store import GameRecord, GameStore
from cardroom.store.changes import Watch
from cardroom.store.connection import counter_storage
from cardroom.table import access, following, move, seating, settling, thinking, views
from cardroom.table.bot_play import BotBudget
from cardroom.table.context import Clock, Context
from cardroom.table.errors import (
    Conflict,
    GameFull,
    GameNotFinished,
    GameNotStarted,
    IdempotencyKeyReused,
    InvalidRequest,
    NotFound,
    OutcomeUnknown,
    PreconditionFailed,
    SeatReserved,
    SeatTaken,
    StateConflict,
    Unauthorized,
)
from cardroom.table.following import Follow, redacted
from cardroom.table.history import History
from cardroom.table.move import ActionOutcome
from cardroom.table.replays import build as build_replay
from cardroom.table.thinking import Nothing, Thought
from cardroom.table.views import etag_for

if TYPE_CHECKING:
    from limits.storage import Storage


class Tables:
    """The table's front: every request of the API, in the table's terms."""

    def __init__(
        self,
        store: GameStore,
        clock: Clock | None = None,
        history: History | None = None,
        bot_budget: BotBudget | None = None,
    ):
        self.ctx = Context(store)
        if clock is not None:
            self.ctx.clock = clock
        if history is not None:
            self.ctx.history = history
        if bot_budget is not None:
            self.ctx.bot_budget = bot_budget

    @property
    def store(self) -> GameStore:
        return self.ctx.store

    @property
    def clock(self) -> Clock:
        return self.ctx.clock

    @property
    def history(self) -> History:
        return self.ctx.history

    # --- seating (table/seating.py) ------------------------------------------------------

    game_types = staticmethod(seating.game_types)

    def create(
        self,
        game_type: str,
        players: int,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        bots: list[dict[str, Any]] | None = None,
    ) -> GameRecord:
        return seating.create(self.ctx, game_type, players, options, seed, bots)

    def join(
        self, game_id: str, name: str, seat: int | None, token: str | None = None
    ) -> tuple[GameRecord, int, str]:
        return seating.join(self.ctx, game_id, name, seat, token)

    def come_back(self, game_id: str, token: str | None) -> tuple[GameRecord, int]:
        return seating.come_back(self.ctx, game_id, token)

    def rematch(self, game_id: str, token: str | None) -> GameRecord:
        return seating.rematch(self.ctx, game_id, token)

    # --- an action (table/move.py) -------------------------------------------------------

    def act(
        self,
        game_id: str,
        token: str | None,
        action: dict[str, Any],
        if_match: set[str] | None = None,
        idempotency: str | None = None,
    ) -> ActionOutcome:
        return move.act(self.ctx, game_id, token, action, if_match, idempotency)

    # --- reading and following (table/views.py, table/following.py) ----------------------

    def summary(self, game_id: str) -> dict[str, Any]:
        return views.summarise(settling.settled(self.ctx, game_id))

    def list_games(
        self, game_type: str | None, status: str | None, before: int | None, limit: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of the listing (``GameStore.page``): the summaries of up to ``limit`` games
        of ``game_type`` and ``status`` (None: any), newest first, placed before ``before``,
        and where the next page starts (None: no next page)."""

        def wanted(record: GameRecord) -> bool:
            # A game this server cannot play is listed too, as unavailable (views.summarise).
            return game_type in (None, record.game_type) and status in (None, record.status)

        records, after = self.store.page(before, limit, wanted)
        return [views.summarise(record) for record in records], after

    seat_of = staticmethod(access.seat_or_spectator)

    def snapshot(self, game_id: str, heard: int | None = None) -> GameRecord:
        return settling.snapshot(self.ctx, game_id, heard)

    shape_view = staticmethod(views.shape_view)
    summarise = staticmethod(views.summarise)

    def view_after(
        self, game_id: str, token: str | None, seen: Callable[[str], bool], wait: float
    ) -> tuple[GameRecord, int | None]:
        return following.view_after(self.ctx, game_id, token, seen, wait)

    def follow(self, game_id: str) -> AbstractContextManager[Follow]:
        return following.follow(self.ctx, game_id)

    def events(
        self, game_id: str, token: str | None, after: int, wait: float, limit: int
    ) -> tuple[int | None, list[dict[str, Any]], int]:
        return following.events(self.ctx, game_id, token, after, wait, limit)

    def stream(
        self, game_id: str, token: str | None, after: int, heartbeat: float, lifetime: float
    ) -> tuple[int | None, Iterator[tuple[int, dict[str, Any]] | None]]:
        return following.stream(self.ctx, game_id, token, after, heartbeat, lifetime)

    def events_after(self, record: GameRecord, after: int, limit: int) -> list[dict[str, Any]]:
        """The events after ``after``, unredacted (``following.redacted`` hides secrets)."""
        return self.ctx.history.events_after(record, after, limit)

    def replay(self, game_id: str) -> dict[str, Any]:
        """A finished game, step by step (table/replays.py); before it ends, refused."""
        record = settling.settled(self.ctx, game_id)
        if record.status != "finished":
            raise GameNotFinished("a replay is shown once the game is finished")
        return build_replay(record)

    # --- due work (table/settling.py) ----------------------------------------------------

    def advance(self, game_id: str) -> tuple[int, float | None]:
        return settling.advance(self.ctx, game_id)

    # --- bots that think (table/thinking.py) -------------------------------------------------

    def pending_thought(self, game_id: str) -> Thought | Nothing:
        return thinking.pending_thought(self.ctx, game_id)

    def play_thought(self, thought: Thought, action: dict[str, Any]) -> bool:
        return thinking.play_thought(self.ctx, thought, action)

    # --- the store's Redis -----------------------------------------------------------------

    def storage_health(self) -> dict[str, Any]:
        """Whether the game store's Redis answers (``GameStore.health``): ``{}``, with
        ``cluster`` on a Redis Cluster; ``error`` (the error's class name) if it does not."""
        return self.store.health()

    def counter_storage(
        self, uri: str, *, pool_size: int, socket_timeout: float, shared: bool
    ) -> Callable[[], Storage]:
        """The rate limits' counters (the ``limits`` library's storage) on ``uri``;
        ``shared``: ``uri`` is the game store's Redis, whose connection pool they share."""
        sharing = self.store.client if shared else None
        return counter_storage(
            uri, pool_size=pool_size, socket_timeout=socket_timeout, sharing=sharing
        )


__all__ = [
    "ActionOutcome",
    "BotBudget",
    "Conflict",
    "Follow",
    "GameFull",
    "GameNotFinished",
    "GameNotStarted",
    "GameRecord",
    "IdempotencyKeyReused",
    "InvalidRequest",
    "NotFound",
    "Nothing",
    "OutcomeUnknown",
    "PreconditionFailed",
    "SeatReserved",
    "SeatTaken",
    "StateConflict",
    "Tables",
    "Thought",
    "Unauthorized",
    "Watch",
    "etag_for",
    "redacted",
]
