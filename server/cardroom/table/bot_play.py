"""The server's seats: bot seats, and away seats an ``away_bot`` option hands to a policy.

Bot play runs inside a request within its budget (``BotBudget``); what is left is due work
(table/settling.py), continued by the next request or the progression loop. A bot that
thinks (a search level) never plays inside a request: bot play stops at its seat, and the
game waits in the thinking set for the thinking loop (table/thinking.py, cardroom.thinking).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from cardroom.bots import choose, next_bot_seat, thinks
from cardroom.kit.base import Game
from cardroom.registry import get_policy
from cardroom.store import GameRecord
from cardroom.table import steps


@dataclass(frozen=True)
class BotBudget:
    """How much bot play one request (or one step of the progression loop) may do.

    Bots stop at whichever bound comes first; the rest of their play is due work
    (``cardroom.store.due``), continued by the next request or the progression loop.
    """

    actions: int = 200
    seconds: float = 0.05


class Spending:
    """What one request has spent of its bot budget so far."""

    def __init__(self, budget: BotBudget):
        self.budget = budget
        self.actions = 0
        self.started = time.perf_counter()

    def exhausted(self) -> bool:
        """Spent: at least one action is always allowed, so every request makes progress."""
        if self.actions == 0:
            return False
        return (
            self.actions >= self.budget.actions
            or time.perf_counter() - self.started >= self.budget.seconds
        )


def play_bots(record: GameRecord, game: Game, ms: int, spending: Spending) -> list[dict[str, Any]]:
    """Play the bot seats that are to act, until a person or a bot that thinks must act, the
    game ends or the request's bot budget is spent (what is left is due work)."""
    events: list[dict[str, Any]] = []
    seats = bot_seats(record, game)
    if not seats:
        return events
    while not spending.exhausted():
        seat = next_bot_seat(game, record.state, seats)
        if seat is None:
            break
        policy = get_policy(seats[seat], record.game_type)
        if thinks(policy):
            break
        rng = random.Random(f"{record.seed}:{record.version}:{seat}")
        action = choose(game, record.state, seat, policy, rng)
        events += steps.act(record, game, seat, action, ms)
        spending.actions += 1
    return events


def bots_pending(record: GameRecord, game: Game) -> bool:
    """Bots that do not think have moves to make now (a request's budget ran out before
    they were done)."""
    _, bot = _next_bot(record, game)
    return bot is not None and not thinks(get_policy(bot, record.game_type))


def thinking_seat(record: GameRecord, game: Game) -> tuple[int, str] | None:
    """The seat whose bot thinks that plays next, and its bot's name; None if the next bot
    to play does not think, or no bot is to play."""
    seat, bot = _next_bot(record, game)
    if bot is None or not thinks(get_policy(bot, record.game_type)):
        return None
    return seat, bot


def _next_bot(record: GameRecord, game: Game) -> tuple[int, str | None]:
    if record.status != "active":
        return -1, None
    seats = bot_seats(record, game)
    seat = next_bot_seat(game, record.state, seats) if seats else None
    return (-1, None) if seat is None else (seat, seats[seat])


def bot_seats(record: GameRecord, game: Game) -> dict[int, str]:
    """The seats the server plays, with their policies: bot seats, and away seats when the
    game's ``away_bot`` option names a policy (kit/clock.py)."""
    seats = {seat: entry["bot"] for seat, entry in enumerate(record.seats) if entry["bot"]}
    policy = record.options.get("away_bot")
    if policy and game.away_bot(record.state):
        for seat in game.away_seats(record.state):
            seats.setdefault(seat, policy)
    return seats
