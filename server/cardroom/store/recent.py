"""Games as this process last read or wrote them, kept for the next action on the same game.

An action on a kept game needs no load: the commit's compare-and-set proves the guess
current, and a stale guess costs one wasted attempt (``GameStore.commit`` answers a refused
write with the game as stored). What is kept is the stored hash itself, bytes that nobody
mutates; every recall decodes a record of its own.

A guess pays when a game's requests keep reaching the process that served its last one (a
keep-alive connection, sticky sessions), and costs when they are spread over many processes
at random. So each process measures how often a kept game was current when an action came
for it (a guess that committed, or an action's load that found the kept game unchanged), as
a moving average of the last few dozen actions, and guesses only while that share stays at
or above ``GUESS_FROM`` (about where a guess stops paying for the game whose stale guesses
cost most: docs/benchmark-history.md, "Kept games").
"""

from __future__ import annotations

import _thread
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

# One entry is the game's hash as Redis holds it: about 2 to 4 KB for a 4-player game.
KEPT_GAMES = 1024
GUESS_FROM = 0.75
# The weight of the newest observation in the moving average (about the last 32 actions).
_WEIGHT = 1 / 32


class RecentGames:
    def __init__(
        self, kept: int = KEPT_GAMES, decode: Callable[[str, dict[bytes, bytes]], Any] | None = None
    ):
        self.kept = kept
        self.current_share = 1.0
        self.decode = decode
        self._hashes: OrderedDict[str, dict[bytes, bytes]] = OrderedDict()
        # A kept hash decoded once, shared by the followers that read it (never changed).
        self._decoded: dict[str, Any] = {}
        self._lock = plain_lock()

    def keep(self, game_id: str, stored: dict[bytes, bytes], decoded: Any = None) -> None:
        """Keep a game's hash (and, if the caller has it and never changes it again, the
        record it decodes to)."""
        if self.kept <= 0:
            return
        with self._lock:
            kept = self._hashes.get(game_id)
            if decoded is not None:
                self._decoded[game_id] = decoded
            elif kept is not None and kept is not stored and same_write(kept, stored):
                stored = kept  # a load of the kept write: its decoded copy stays good
            elif kept is not stored:
                self._decoded.pop(game_id, None)
            self._hashes[game_id] = stored
            self._hashes.move_to_end(game_id)
            while len(self._hashes) > self.kept:
                dropped, _ = self._hashes.popitem(last=False)
                self._decoded.pop(dropped, None)

    def snapshot(self, game_id: str, at_least: int) -> Any | None:
        """The kept game decoded (one object shared by every reader: never change it), if
        it is kept at revision ``at_least`` or newer; else None."""
        with self._lock:
            stored = self._hashes.get(game_id)
            if stored is None or int(stored[b"rev"]) < at_least or self.decode is None:
                return None
            decoded = self._decoded.get(game_id)
        if decoded is None:
            decoded = self.decode(game_id, stored)
            with self._lock:
                if self._hashes.get(game_id) is stored:
                    self._decoded[game_id] = decoded
        return decoded

    def get(self, game_id: str) -> dict[bytes, bytes] | None:
        with self._lock:
            stored = self._hashes.get(game_id)
            if stored is not None:
                self._hashes.move_to_end(game_id)
            return stored

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._hashes.pop(game_id, None)
            self._decoded.pop(game_id, None)

    def observe(self, current: bool) -> None:
        """An action found its game's kept hash current (or not)."""
        with self._lock:
            self.current_share += _WEIGHT * ((1.0 if current else 0.0) - self.current_share)

    def observe_load(self, game_id: str, loaded: dict[bytes, bytes]) -> None:
        """An action loaded its game: was the kept hash (if any) the stored one?"""
        kept = self.get(game_id)
        if kept is not None:
            self.observe(same_write(kept, loaded))

    def worth_guessing(self) -> bool:
        return self.kept > 0 and self.current_share >= GUESS_FROM

    def __len__(self) -> int:
        return len(self._hashes)


def plain_lock() -> Any:
    """The OS's own lock, also under gevent, whose ``threading.Lock`` is a Python object
    costing about a microsecond an acquire (a move takes this one about seven times). Safe
    here because nothing done while holding it can switch greenlets (no I/O, no waiting):
    a greenlet that switched while holding it would block every other greenlet of the
    thread that asked for it."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the server
        return _thread.allocate_lock()
    return monkey.get_original("_thread", "allocate_lock")()


def same_write(one: dict[bytes, bytes], other: dict[bytes, bytes]) -> bool:
    """Two reads of a game's hash hold the same write: every write sets a new ``rev`` and
    write id ``w`` (store/writes.py), so equal pairs mean equal contents."""
    return one[b"rev"] == other[b"rev"] and one.get(b"w") == other.get(b"w")
