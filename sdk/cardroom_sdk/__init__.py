"""cardroom-sdk: the Python client of the cardroom game server.

::

    from cardroom_sdk import Client, EagerBot

    client = Client("http://127.0.0.1:8000")
    game = client.create_game("mr-toast", 4, bots={1: "greedy", 2: "greedy", 3: "random"})
    seat = client.join(game.id, "me")
    final = seat.play(EagerBot())
    print(final.winners)
"""

from __future__ import annotations

from typing import Any

from cardroom_sdk import bot as _bot
from cardroom_sdk._version import __version__
from cardroom_sdk.bot import Bot, EagerBot, FunctionBot, RandomBot, load_bot, run_bot
from cardroom_sdk.client import MAX_WAIT, Client, Seat
from cardroom_sdk.errors import (
    Busy,
    CardroomError,
    Conflict,
    GameFinished,
    GameFull,
    GameNotFinished,
    GameNotStarted,
    IllegalAction,
    InvalidRequest,
    NotFound,
    NotYourTurn,
    RateLimited,
    SeatReserved,
    SeatTaken,
    ServerError,
    ServerUnavailable,
    StaleVersion,
    Unauthorized,
)
from cardroom_sdk.models import (
    ActionResult,
    Event,
    EventBatch,
    GameList,
    GameOption,
    GameSummary,
    GameType,
    Health,
    Joined,
    SeatInfo,
    View,
)
from cardroom_sdk.replay import Replay, ReplayStep, TableAt

__all__ = [
    "MAX_WAIT",
    "ActionResult",
    "Bot",
    "Busy",
    "CardroomError",
    "Client",
    "Conflict",
    "EagerBot",
    "Event",
    "EventBatch",
    "FunctionBot",
    "GameFinished",
    "GameFull",
    "GameList",
    "GameNotFinished",
    "GameNotStarted",
    "GameOption",
    "GameSummary",
    "GameType",
    "Health",
    "IllegalAction",
    "InvalidRequest",
    "Joined",
    "NotFound",
    "NotYourTurn",
    "RandomBot",
    "RateLimited",
    "Replay",
    "ReplayStep",
    "Seat",
    "SeatInfo",
    "SeatReserved",
    "SeatTaken",
    "ServerError",
    "ServerUnavailable",
    "StaleVersion",
    "TableAt",
    "Unauthorized",
    "View",
    "__version__",
    "load_bot",
    "run_bot",
]


def __getattr__(name: str) -> Any:
    try:
        return _bot.renamed(name)  # GreedyBot, the name before 0.2, kept for a while
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
