"""What two SDK modules need of each other, as types of their own, so that the SDK's modules
import one way (bot -> client -> seat -> socket):

- a seat plays with a :class:`Player` (``Seat.play``); every :class:`~cardroom_sdk.Bot` is one;
- a seat calls the server through a :class:`SeatClient`, and a game socket is opened for a
  :class:`Connection` (``GameSocket``); every :class:`~cardroom_sdk.Client` is both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from cardroom_sdk.models import ActionResult, EventBatch, GameSummary, Joined, View

__all__ = ["MAX_WAIT", "Action", "Connection", "Player", "SeatClient"]

Action = dict[str, Any]

MAX_WAIT = 30.0
"""The longest long-poll the server holds (``wait`` ≤ 30 seconds)."""


class Player(Protocol):
    """A policy for one seat: :meth:`~cardroom_sdk.Bot.choose` and its hooks."""

    def choose(self, view: View) -> Mapping[str, Any]: ...

    def reconsider(self, view: View) -> Mapping[str, Any] | None: ...

    def game_started(self, view: View) -> None: ...

    def game_over(self, view: View) -> None: ...


class Connection(Protocol):
    """What a game socket needs of its client: the server's address, the client's timeout
    and the User-Agent it sends."""

    base_url: str
    timeout: float
    user_agent: str


class SeatClient(Connection, Protocol):
    """What a :class:`~cardroom_sdk.Seat` needs of its client: the endpoints it calls for
    its seat, the client's retries and backoff, and how the client follows games (on game
    sockets while the server opens them; else held view requests, else the events)."""

    retries: int
    sockets: bool
    held_views: bool

    def game(self, game_id: str) -> GameSummary: ...

    def rematch(self, game_id: str, token: str) -> GameSummary: ...

    def come_back(self, game_id: str, token: str) -> View: ...

    def view(
        self,
        game_id: str,
        token: str | None = None,
        *,
        changed_from: View | None = None,
        wait: float = 0,
    ) -> View: ...

    def act(
        self,
        game_id: str,
        token: str,
        action: Mapping[str, Any],
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> ActionResult: ...

    def events(
        self,
        game_id: str,
        token: str | None = None,
        after: int = 0,
        wait: float = 0,
        limit: int | None = None,
    ) -> EventBatch: ...

    def _joined(self, game_id: str, name: str, seat: int | None, token: str | None) -> Joined: ...

    def _back_off(self, attempt: int) -> None: ...
