"""Bots that think: what a search level may read, and how its move is played
(docs/architecture.md, "Bots that think").

A bot that thinks never plays inside a request (table/bot_play.py stops at its seat, and the
commit enters the game in the thinking set). The thinking loop (cardroom.thinking) asks
``pending_thought`` for everything the decision may read: the seat's view and legal
actions, every event so far *as that seat saw it*, and the public options; nothing else of
the game leaves this module. The decision is made in another process, and ``play_thought``
plays it through the same steps as any bot's move, only if the game is still at the version
the bot thought about: a game that moved on meanwhile (a person's answer in a simultaneous
phase, a timed-out window) is thought about again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardroom.kit import redact_event
from cardroom.kit.contract_types import Action, Event, View
from cardroom.registry import get_game
from cardroom.table import steps
from cardroom.table.bot_play import play_bots, thinking_seat
from cardroom.table.context import Context
from cardroom.table.errors import MAX_ATTEMPTS
from cardroom.table.settling import settled, write_change


@dataclass(frozen=True)
class Thought:
    """A decision a bot that thinks is to make, with all it may read."""

    game_id: str
    game_type: str
    rules_version: int
    version: int
    seat: int
    bot: str
    view: View
    legal: list[Action]
    seen: list[Event]
    options: dict[str, Any]
    # The decision's random generator's seed: a game replays its bots' choices.
    seed: str

    def request(self) -> dict[str, Any]:
        """What the deciding process is sent (JSON)."""
        return {
            "game_type": self.game_type,
            "rules_version": self.rules_version,
            "bot": self.bot,
            "view": self.view,
            "legal": self.legal,
            "seen": self.seen,
            "options": self.options,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class Nothing:
    """No decision awaited, as the game stood when it was last written (``written_at``)."""

    written_at: float


def pending_thought(ctx: Context, game_id: str) -> Thought | Nothing:
    """The decision the game awaits from a bot that thinks, due work settled first; else
    ``Nothing``, with when the game was last written."""
    record = settled(ctx, game_id)
    game = get_game(record.game_type, record.rules_version)
    found = thinking_seat(record, game)
    if found is None:
        return Nothing(record.updated_at)
    seat, bot = found
    events = ctx.history.events_after(record, 0, record.seq)
    return Thought(
        game_id=record.id,
        game_type=record.game_type,
        rules_version=record.rules_version,
        version=record.version,
        seat=seat,
        bot=bot,
        view=game.view(record.state, seat),
        legal=game.legal_actions(record.state, seat),
        seen=[shown for event in events if (shown := redact_event(event, seat)) is not None],
        options=game.public_options(record.options),
        seed=f"{record.seed}:{record.version}:{seat}",
    )


def play_thought(ctx: Context, thought: Thought, action: Action) -> bool:
    """Play ``action`` for the thought's seat if the game is still where it was thought of,
    then the bots that follow within a request's budget, and commit (which enters the game
    in the thinking set again if a bot that thinks is to play next). False when the game
    moved on meanwhile: the caller looks again."""
    for _ in range(MAX_ATTEMPTS):
        record = ctx.load(thought.game_id).record
        if record.version != thought.version or record.status != "active":
            return False
        game = get_game(record.game_type, record.rules_version)
        now = ctx.clock()
        ms = steps.time_for(record, now)
        steps.act(record, game, thought.seat, action, ms)
        play_bots(record, game, ms, ctx.spending())
        if write_change(ctx, record, game, now):
            return True
    return False
