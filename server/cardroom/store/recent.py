"""Games as this process last read or wrote them, kept for the next action on the same game.

An action on a kept game needs no load: the commit's compare-and-set proves the guess
current, and a stale guess costs nothing but the attempt (``GameStore.commit`` answers a
refused write with the game as stored). What is kept is the stored hash itself, bytes that
nobody mutates; every recall decodes a record of its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

# One entry is the game's hash as Redis holds it: about 2 to 4 KB for a 4-player game.
KEPT_GAMES = 1024


class RecentGames:
    def __init__(self, kept: int = KEPT_GAMES):
        self.kept = kept
        self._hashes: OrderedDict[str, dict[bytes, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, game_id: str, stored: dict[bytes, bytes]) -> None:
        if self.kept <= 0:
            return
        with self._lock:
            self._hashes[game_id] = stored
            self._hashes.move_to_end(game_id)
            while len(self._hashes) > self.kept:
                self._hashes.popitem(last=False)

    def get(self, game_id: str) -> dict[bytes, bytes] | None:
        with self._lock:
            stored = self._hashes.get(game_id)
            if stored is not None:
                self._hashes.move_to_end(game_id)
            return stored

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._hashes.pop(game_id, None)

    def __len__(self) -> int:
        return len(self._hashes)
