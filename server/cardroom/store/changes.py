"""Every game's changes, heard once per process and passed to whoever here waits for them.

Each commit ``PUBLISH``es ``<rev> <write id>`` on ``cardroom:game:{ID}:changed``, most of
them followed by the write itself (``cardroom.store.writes.written_after``). A process holds
one pattern subscription to all of those channels (``PSUBSCRIBE``, on one connection read by
one background thread: a greenlet under gunicorn's gevent worker), keeps the games it kept
as written (``GameStore``), and wakes the waiters of the game named, instead of opening a
subscription, and a connection, per waiting request (docs/architecture.md, "Following a
game").

A waiter ``watch``es a game, then checks the game as stored, then waits: a write after the
watch began always wakes it. When the subscription is lost (Redis restarted, a failover) a
message may have been missed, so every waiter is woken to look again, and the feed
subscribes anew.

On a Redis Cluster a ``PUBLISH`` reaches every node, so the pattern subscription may sit on
any one of them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis

log = logging.getLogger("cardroom.changes")

PATTERN = "cardroom:game:*:changed"
_PREFIX = "cardroom:game:{"
_SUFFIX = "}:changed"
# How long a read of the subscription blocks before the thread looks whether it should stop.
_READ_SECONDS = 5.0
# The pause before subscribing again after the subscription failed.
_RETRY_SECONDS = 0.5


def game_of(channel: str) -> str | None:
    """The game id a change channel names (``cardroom:game:{ID}:changed``)."""
    if channel.startswith(_PREFIX) and channel.endswith(_SUFFIX):
        return channel[len(_PREFIX) : -len(_SUFFIX)]
    return None


class Watch:
    """One waiter's watch of one game: ``wait`` returns when the game was written since the
    watch began (or since the last ``wait`` returned), or when the feed may have missed a
    write."""

    def __init__(self, game_id: str):
        self.game_id = game_id
        self._event = threading.Event()
        # The newest revision heard of (0: none yet); None after a missed message.
        self.heard: int | None = 0

    def notify(self, rev: int | None) -> None:
        if rev is None or self.heard is None:
            self.heard = None
        else:
            self.heard = max(self.heard, rev)
        self._event.set()

    def wait(self, seconds: float) -> bool:
        """True if woken within ``seconds``; the next wait then waits for a newer write."""
        woken = self._event.wait(max(0.0, seconds))
        self._event.clear()
        return woken

    def pending(self) -> bool:
        return self._event.is_set()


class ChangeFeed:
    """The games' change messages, through one pattern subscription per process."""

    def __init__(self, client: Any, heard: Callable[[str, bytes], None] | None = None):
        self.client = client  # a client whose socket timeout outlasts a read of the feed
        # Called with each change of a game before its waiters are woken.
        self.heard = heard
        self._lock = threading.Lock()
        self._watches: dict[str, set[Watch]] = {}
        self._live = threading.Event()
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self.messages = 0

    # --- waiting ------------------------------------------------------------------------

    @contextmanager
    def watch(self, game_id: str) -> Iterator[Watch]:
        """Watch a game for as long as the block runs. Look at the game (a read) after this
        has begun, not before: a write after the read then always wakes the watch."""
        watch = Watch(game_id)
        with self._lock:
            self._watches.setdefault(game_id, set()).add(watch)
        self._start()  # after the watch is in: a feed ending for want of waiters sees it
        try:
            yield watch
        finally:
            with self._lock:
                watching = self._watches.get(game_id)
                if watching is not None:
                    watching.discard(watch)
                    if not watching:
                        del self._watches[game_id]

    def live(self, seconds: float) -> bool:
        """Wait up to ``seconds`` until the subscription is in place; True if it is."""
        self._start()
        return self._live.wait(max(0.0, seconds))

    def watched(self) -> int:
        with self._lock:
            return sum(len(watches) for watches in self._watches.values())

    # --- the subscription ---------------------------------------------------------------

    def _start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stopped.clear()
            self._thread = threading.Thread(target=self._run, name="cardroom-changes", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def _run(self) -> None:
        while not self._stopped.is_set():
            pubsub = None
            try:
                pubsub = self.client.pubsub()
                pubsub.psubscribe(PATTERN)
                while not self._stopped.is_set():
                    message = pubsub.get_message(timeout=_READ_SECONDS)
                    if message is None:
                        continue
                    if message["type"] == "pmessage":
                        self._deliver(message["channel"], message["data"])
                    elif message["type"] == "psubscribe" and not self._live.is_set():
                        self._wake_all()  # anything written before this was not heard
                        self._live.set()
            except (redis.exceptions.RedisError, OSError) as error:
                if self._end_if_idle():
                    log.debug("change feed: %s, nobody waiting: ended", error.__class__.__name__)
                    return
                log.warning("change feed: %s; subscribing again", error.__class__.__name__)
            except Exception:
                log.exception("change feed: unexpected error; subscribing again")
            finally:
                if self._live.is_set():
                    self._live.clear()
                    self._wake_all()  # messages may be lost until the next subscription
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:  # closing a broken connection
                        log.debug("change feed: close failed", exc_info=True)
            if not self._stopped.is_set():
                time.sleep(_RETRY_SECONDS)

    def _end_if_idle(self) -> bool:
        """After a lost subscription: if nobody waits, end this thread (the next ``watch`` or
        ``live`` starts another), so a process whose Redis is gone and whom nobody asks does
        not retry, and log, twice a second for ever."""
        with self._lock:
            if self._watches or self._thread is not threading.current_thread():
                return False
            self._live.clear()
            self._thread = None
            return True

    def _deliver(self, channel: bytes | str, data: bytes | str) -> None:
        self.messages += 1
        name = channel.decode() if isinstance(channel, bytes) else channel
        game_id = game_of(name)
        if game_id is None:
            return
        change = data if isinstance(data, bytes) else str(data).encode()
        if self.heard is not None:
            self.heard(game_id, change)
        with self._lock:
            watching = list(self._watches.get(game_id, ()))
        if not watching:
            return
        head = change.split(b" ", 1)[0]
        rev = int(head) if head.isdigit() else None
        for watch in watching:
            watch.notify(rev)

    def _wake_all(self) -> None:
        with self._lock:
            watching = [watch for watches in self._watches.values() for watch in watches]
        for watch in watching:
            watch.notify(None)
