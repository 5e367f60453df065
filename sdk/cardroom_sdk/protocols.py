"""What two SDK modules need of each other, as types of their own, so that the SDK's modules
import one way (bot -> client -> socket):

- a seat plays with a :class:`Player` (``Seat.play``); every :class:`~cardroom_sdk.Bot` is one;
- a game socket is opened for a :class:`Connection` (``GameSocket``); every
  :class:`~cardroom_sdk.Client` is one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from cardroom_sdk.models import View

__all__ = ["Action", "Connection", "Player"]

Action = dict[str, Any]


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
