"""The progression loop: due work done with no request (docs/operations.md, "Bot play").

A request plays bots only within its budget (``cardroom.table.bot_play.BotBudget``); a game whose
bots still have moves, or whose deadline (a timed reaction window, a turn clock) is set, is
entered in the due set (``cardroom.store.due``) for when its work is due. Every API worker
may run this loop: it claims due games under a lease, advances each through the same
load-and-compare-and-set as a request (``Tables.advance``), so two loops, or a loop and a
request, never apply a step twice, and the loser of a race simply retries on the new state.

The loop gives up the processor between games and works at most ``share`` of the time
(it sleeps as long again as it worked, at 0.5), so a flood of all-bot games slows their own
progress, not the requests a worker serves.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import Any

import redis

from cardroom.registry import UnavailableGameType
from cardroom.store import Conflict, OutcomeUnknown
from cardroom.store.connection import CLUSTER_ERRORS
from cardroom.store.due import RETRY_SECONDS
from cardroom.table import NotFound, Tables

log = logging.getLogger("cardroom.progress")

# A claimed game is left to its claimer this long; a claimer that dies loses it after that.
LEASE_SECONDS = 30.0
GAMES_PER_CLAIM = 8


class Progression:
    def __init__(
        self,
        tables: Tables,
        *,
        share: float = 0.5,
        idle_seconds: float = 0.5,
        lease_seconds: float = LEASE_SECONDS,
    ):
        self.tables = tables
        self.due = tables.store.due
        self.share = share
        self.idle_seconds = idle_seconds
        self.lease_seconds = lease_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> int:
        """Claim and advance the games due now; how many were advanced."""
        now = self.tables.clock()
        buckets = self.due.due_buckets(now)
        random.shuffle(buckets)  # loops on other workers start elsewhere
        done = 0
        for bucket in buckets:
            claimed = self.due.claim(bucket, now, self.lease_seconds, GAMES_PER_CLAIM)
            for index, (game_id, lease_end) in enumerate(claimed):
                if self._stop.is_set():
                    self._hand_back(claimed[index:], first_after=0.0)
                    return done
                started = time.perf_counter()
                try:
                    self.advance(game_id, lease_end)
                except (redis.exceptions.RedisError, OutcomeUnknown, *CLUSTER_ERRORS):
                    self._hand_back(claimed[index:], first_after=RETRY_SECONDS)
                    raise
                except BaseException:  # a fault in code: not retried before its lease ends
                    self._hand_back(claimed[index:], first_after=None)
                    raise
                done += 1
                self._rest(time.perf_counter() - started)
        return done

    def advance(self, game_id: str, lease_end: float) -> None:
        """One step of a claimed game's due work, then end the lease."""
        try:
            rev, next_due = self.tables.advance(game_id)
        except NotFound:
            self.due.release(game_id, lease_end, None)
            return
        except Conflict:  # too busy now
            self.due.release(game_id, lease_end, self.tables.clock() + RETRY_SECONDS)
            return
        except UnavailableGameType:
            return  # not played here; a process that has the game type takes it up
        if self.due.release(game_id, lease_end, next_due):
            # Judged at ``rev``: a write since may have left work whose schedule did not
            # lower the lease (a later time), and the release just removed or postponed it
            # (a turn clock's deadline can come sooner after a write): judge it again.
            current = self.tables.store.revision(game_id)
            if current is not None and current != rev:
                self.due.schedule(game_id, self.tables.clock())

    def _hand_back(self, leases: list[tuple[str, float]], first_after: float | None) -> None:
        """End the leases of claimed games this loop leaves: the first is due again
        ``first_after`` seconds from now (None: it keeps its lease), the others at once.
        After a Redis error the rest keep their leases, which end by themselves."""
        now = self.tables.clock()
        first = [] if first_after is None else [(*leases[0], now + first_after)]
        for game_id, lease_end, due_at in first + [(*lease, now) for lease in leases[1:]]:
            try:
                self.due.release(game_id, lease_end, due_at)
            except (redis.exceptions.RedisError, OutcomeUnknown, *CLUSTER_ERRORS):
                return

    def _rest(self, worked: float) -> None:
        """Sleep so that the loop works at most ``share`` of the time."""
        if self.share < 1:
            self._stop.wait(worked * (1 - self.share) / self.share)

    def run_forever(self) -> None:
        """Until ``stop``: advance due games; when none is due, wait ``idle_seconds``."""
        while not self._stop.is_set():
            try:
                done = self.run_once()
            except (redis.exceptions.RedisError, OutcomeUnknown, *CLUSTER_ERRORS) as error:
                # An outage: the due set keeps the work, and any process resumes it later.
                log.warning("progression: redis error %s", error.__class__.__name__)
                done = 0
            except Exception:
                log.exception("progression: unexpected error")
                done = 0
            if not done:
                self._stop.wait(self.idle_seconds)

    def start(self) -> threading.Thread:
        """Run the loop in a daemon thread (a greenlet under gunicorn's gevent worker)."""
        thread = threading.Thread(target=self.run_forever, name="cardroom-progress", daemon=True)
        thread.start()
        self._thread = thread
        return thread

    def stop(self, wait: float = 0.0) -> bool:
        """End the loop: what it claimed and did not start is handed back. Waits up to
        ``wait`` seconds for the loop started by ``start`` to end; True if it has ended."""
        self._stop.set()
        if self._thread is None:
            return True
        self._thread.join(wait)
        return not self._thread.is_alive()


def start_for_app(app: Any) -> Progression | None:
    """Start the loop for a Flask app built by ``create_app``, as its settings say (another
    WSGI app served with the same gunicorn config gets none)."""
    settings = getattr(app, "config", {}).get("CARDROOM_SETTINGS")
    if settings is None or not settings.progression:
        return None
    progression = Progression(app.extensions["cardroom.tables"])
    progression.start()
    app.extensions["cardroom.progression"] = progression
    return progression
