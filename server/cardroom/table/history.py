"""Every event of a game, rebuilt from its log (cardroom.table.steps), with recent replays kept.

Events are read far more often than a game is written: each seat follows them. A replay is
kept per game in this process, so a read applies only the entries logged since the last one
(usually one or two) instead of replaying the game from its deal.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from cardroom.kit.base import Event
from cardroom.store.games import GameRecord
from cardroom.table.steps import Replay

KEPT_REPLAYS = 512


class LogMismatch(RuntimeError):
    """A replay of the log disagrees with the stored record: a bug, never a client's fault."""


class History:
    def __init__(self, kept: int = KEPT_REPLAYS):
        self.kept = kept
        self._replays: OrderedDict[str, Replay] = OrderedDict()
        self._lock = threading.Lock()

    def events_after(self, record: GameRecord, after: int, limit: int) -> list[Event]:
        """The game's events with ``seq`` above ``after`` (at most ``limit``), unredacted."""
        if record.seq <= after:
            return []
        with self._lock:
            replay = self._replays.pop(record.id, None)
        if replay is None or not replay.belongs_to(record):
            replay = Replay(record)
        replay.advance(record.log_lines())
        if (replay.record.seq, replay.record.version) != (record.seq, record.version):
            raise LogMismatch(
                f"game {record.id}: its log replays to seq {replay.record.seq}, "
                f"version {replay.record.version}; the record has {record.seq}, {record.version}"
            )
        # seq n is events[n - 1]: the events are numbered 1, 2, 3… with no gap.
        found = replay.events[max(after, 0) : max(after, 0) + limit]
        with self._lock:
            self._replays[record.id] = replay
            while len(self._replays) > self.kept:
                self._replays.popitem(last=False)
        return found
