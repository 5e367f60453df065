"""Following a game: one waiter for everyone who waits until a game changes.

The view's long-poll, the events' long-poll, the event stream (SSE) and the game socket all
follow a game through ``Follow``: the game read once its watch began (so no write slips
between the read and the wait), then ``next`` to wait for the next change. A wait never
outlasts a timed window: when it closes, the next read settles it (table/settling.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from cardroom.kit.base import redact_event
from cardroom.registry import get_game
from cardroom.store import GameRecord
from cardroom.table.access import seat_or_spectator
from cardroom.table.context import Context
from cardroom.table.settling import settled, snapshot, unsettled
from cardroom.table.views import etag_for

Events = list[dict[str, Any]]


class Follow:
    """One follower of one game: ``record`` is the game as this follower last read it."""

    def __init__(self, ctx: Context, game_id: str, watch: Any):
        self.ctx = ctx
        self.game_id = game_id
        self.watch = watch
        self.record = snapshot(ctx, game_id)

    def next(self, seconds: float) -> bool:
        """Wait until the game changes or ``seconds`` pass, at most until its timed window
        closes; True if it may have changed, ``record`` then read again."""
        record = self.record
        if record.status == "active":
            deadline = get_game(record.game_type, record.rules_version).deadline(record.state)
            if deadline is not None:
                seconds = min(seconds, max(0.0, deadline - self.ctx.clock()) + 0.01)
        if not self.watch.wait(seconds) and not unsettled(self.ctx, record):
            return False
        heard = self.watch.heard
        self.record = snapshot(self.ctx, self.game_id, heard)
        if heard is None:  # the feed may have missed a write: from now on, newer than this
            self.watch.heard = self.record.rev
        return True

    def until(self, done: Callable[[GameRecord], bool], seconds: float) -> GameRecord:
        """The game once ``done`` holds of it, or as it is when ``seconds`` have passed."""
        ends = self.ctx.clock() + seconds
        while not done(self.record) and (left := ends - self.ctx.clock()) > 0:
            self.next(left)
        return self.record

    def look(self) -> GameRecord:
        """The game as it is now, for another thread of the follower (``record`` unchanged)."""
        return snapshot(self.ctx, self.game_id, self.watch.heard)

    def wake(self) -> None:
        """End a wait now (the follower is leaving)."""
        self.watch.notify(0)


@contextmanager
def follow(ctx: Context, game_id: str) -> Iterator[Follow]:
    with ctx.store.watch(game_id) as watch:
        yield Follow(ctx, game_id, watch)


def view_after(
    ctx: Context, game_id: str, token: str | None, seen: Callable[[str], bool], wait: float
) -> tuple[GameRecord, int | None]:
    """The game as ``token``'s seat sees it, once its view's ETag is not one ``seen`` (the
    caller's If-None-Match), waiting up to ``wait`` seconds for a write. The record is for
    reading only (``snapshot``): views of one write share their parts."""
    record = snapshot(ctx, game_id)
    seat = seat_or_spectator(record, token)
    if wait <= 0 or not seen(etag_for(record, seat)):
        return record, seat
    with follow(ctx, game_id) as following:
        record = following.until(lambda now: not seen(etag_for(now, seat)), wait)
    return record, seat


def events(
    ctx: Context, game_id: str, token: str | None, after: int, wait: float, limit: int
) -> tuple[int | None, Events, int]:
    """Up to ``limit`` events after ``after`` as the caller may see them, waiting up to
    ``wait`` seconds for one; and the last seq looked at (where the next page starts)."""
    record = settled(ctx, game_id)
    seat = seat_or_spectator(record, token)
    if record.seq <= after and wait > 0:
        with follow(ctx, game_id) as following:
            record = following.until(lambda now: now.seq > after, wait)
    raw = ctx.history.events_after(record, after, limit)
    last = raw[-1]["seq"] if raw else max(after, 0)
    return seat, redacted(raw, seat), last


def stream(
    ctx: Context, game_id: str, token: str | None, after: int, heartbeat: float, lifetime: float
) -> tuple[int | None, Iterator[tuple[int, dict[str, Any]] | None]]:
    """Events after ``after`` as they happen, redacted for the caller.

    Yields ``(seq, event)``, or ``None`` as a heartbeat when ``heartbeat`` seconds pass
    quietly. Ends once the game is finished and every event is out, or after ``lifetime``
    seconds (the client resumes with Last-Event-ID).
    """
    seat = seat_or_spectator(settled(ctx, game_id), token)

    def generate() -> Iterator[tuple[int, dict[str, Any]] | None]:
        cursor = after
        ends = ctx.clock() + lifetime
        with follow(ctx, game_id) as following:
            while True:
                raw = ctx.history.events_after(following.record, cursor, 200)
                for event in raw:
                    cursor = event["seq"]
                    shown = redact_event(event, seat)
                    if shown is not None:
                        yield cursor, shown
                if raw:
                    continue
                if following.record.status == "finished" or ctx.clock() >= ends:
                    return
                if not following.next(heartbeat):
                    yield None  # a quiet spell: the heartbeat

    return seat, generate()


def redacted(raw: Events, seat: int | None) -> Events:
    """The events as ``seat`` may see them (None: a spectator): others' secrets left out."""
    return [shown for event in raw if (shown := redact_event(event, seat)) is not None]
