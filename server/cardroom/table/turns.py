"""One action at a time per game in this process (docs/architecture.md, "An action's path").

Two actions on one game that run side by side in one process both start from the game as it
was, and the second one's compare-and-set is refused: its rules were run, its answer shaped
and sent to Redis for nothing, and it runs again on the game Redis sends back. Queued here,
the second starts once the first is committed, from the game the first wrote (kept by this
process, so without a load). Processes still race one another, and the compare-and-set
still settles that: this only spares one process the work of racing itself.

A queue's wait is bounded: past ``WAIT_SECONDS`` (Redis slow to answer the action ahead)
an action goes ahead anyway, as it would without the queue.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from cardroom.store.recent import plain_lock

WAIT_SECONDS = 1.0


class _Line:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        # Made when needed, so it is gevent's lock under gevent's worker (waiting in it lets
        # other requests run) and the operating system's under threads.
        self.lock = threading.Lock()
        self.users = 0


class GameTurns:
    def __init__(self, wait: float = WAIT_SECONDS):
        self.wait = wait
        self._guard = plain_lock()
        self._lines: dict[str, _Line] = {}

    @contextmanager
    def turn(self, game_id: str) -> Iterator[bool]:
        """Wait for the actions on ``game_id`` ahead of this one; yields whether this one
        holds the turn (False: it waited ``wait`` seconds and goes ahead anyway)."""
        with self._guard:
            line = self._lines.get(game_id)
            if line is None:
                line = self._lines[game_id] = _Line()
            line.users += 1
        held = line.lock.acquire(timeout=self.wait)
        try:
            yield held
        finally:
            if held:
                line.lock.release()
            with self._guard:
                line.users -= 1
                if line.users == 0:
                    del self._lines[game_id]

    def waiting(self) -> int:
        """Games with an action running or queued here."""
        with self._guard:
            return len(self._lines)
