"""The listing of games: an index split into buckets, read newest first.

Games are listed from an index split into buckets (``cardroom.store.buckets``): a game's id
puts it in one of 64 buckets, each one cluster slot, and the bucket's sorted set
``cardroom:{<bucket tag>}:games`` shares that slot, so the script that creates a game adds
its index entry in the same step (``cardroom.store.writes``): no game is ever stored
unlisted, and creates spread over the cluster's masters. An entry's score is its place in the
listing, unique over all buckets: ``x * 64 + bucket``, where ``x`` is the creation time in
ms, raised past the bucket's newest entry if need be. A listing merges the buckets newest
first (``Listing.list_index``), so a cursor (a place) orders exactly. Entries of expired
games are dropped lazily, by the listings that meet them.

Games created before buckets are listed from ``cardroom:{index}:games`` (scored by a
counter, so below every bucket entry) for as long as it holds any; their keys are as
before.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from cardroom.store import buckets
from cardroom.store.record import GameRecord, game_key
from cardroom.store.writes import Client

# The listing index of games created before buckets: read while it holds any game.
LEGACY_INDEX_KEY = "cardroom:{index}:games"
# How often a process looks again whether the legacy index exists.
LEGACY_CHECK_SECONDS = 60.0
# A page of the listing reads at most this many index entries (and their games), LIST_BATCH
# at a time.
LIST_SCAN_LIMIT = 1000
LIST_BATCH = 100


def index_key(bucket: int) -> str:
    """The bucket's part of the listing index."""
    return buckets.bucket_key(bucket, "games")


@dataclass(frozen=True)
class IndexEntry:
    """A game in the listing index: its place (newer games have higher places, no two the
    same) and the index key that holds it."""

    game_id: str
    place: int
    key: str


class Listing:
    """The listing index of one store's Redis, and the pages of games read from it."""

    def __init__(self, client: Client):
        self.client = client
        self._legacy_index = False
        self._legacy_checked = -LEGACY_CHECK_SECONDS

    def index_keys(self) -> list[str]:
        """Every part of the listing index: the buckets, and the legacy index while it holds
        games (looked up at most every LEGACY_CHECK_SECONDS)."""
        now = time.monotonic()
        if now - self._legacy_checked >= LEGACY_CHECK_SECONDS:
            self._legacy_index = bool(self.client.exists(LEGACY_INDEX_KEY))
            self._legacy_checked = now
        keys = [index_key(bucket) for bucket in range(buckets.BUCKETS)]
        return [*keys, LEGACY_INDEX_KEY] if self._legacy_index else keys

    def list_index(self, before: int | None, count: int) -> list[IndexEntry]:
        """The ``count`` newest index entries placed before ``before``, over every bucket.

        Each bucket is read newest first, a few entries at a time, in one pipeline per round.
        Entries are merged by place (unique over all buckets); the merge is exact down to
        the highest place where some bucket's read stopped short (``frontier``): every
        entry not read yet lies below it. A bucket whose unread entries could still make the
        page is read further in the next round, twice as many at a time.
        """
        keys = self.index_keys()
        bounds: dict[str, int | None] = dict.fromkeys(keys, before)
        sizes = dict.fromkeys(keys, max(2, -(-count // len(keys)) + 1))
        pending = list(keys)
        read: list[IndexEntry] = []
        while True:
            pipe = self.client.pipeline(transaction=False)
            for key in pending:
                bound = bounds[key]
                top = "+inf" if bound is None else f"({bound}"
                pipe.zrevrangebyscore(key, top, "-inf", start=0, num=sizes[key], withscores=True)
            for key, rows in zip(pending, pipe.execute(), strict=True):
                read += [IndexEntry(member.decode(), int(score), key) for member, score in rows]
                if len(rows) < sizes[key]:
                    bounds.pop(key)  # read to its end
                else:
                    bounds[key] = int(rows[-1][1])
                    sizes[key] = min(2 * sizes[key], max(count, 2))
            read.sort(key=lambda entry: entry.place, reverse=True)
            open_bounds = [bound for bound in bounds.values() if bound is not None]
            if not open_bounds:
                return read[:count]
            frontier = max(open_bounds)
            complete = [entry for entry in read if entry.place >= frontier]
            if len(complete) >= count:
                return complete[:count]
            kth = read[count - 1].place if len(read) >= count else None
            pending = [
                key
                for key, bound in bounds.items()
                if bound is not None and (kth is None or bound > kth)
            ]

    def page(
        self, before: int | None, limit: int, wanted: Callable[[GameRecord], bool]
    ) -> tuple[list[GameRecord], int | None]:
        """Up to ``limit`` games that ``wanted`` keeps, newest first, placed before ``before``
        (None: from the newest), and the place the next page starts before (None: there is
        no next page). At most LIST_SCAN_LIMIT entries are read, so a page may hold fewer
        games and still have a next one. Entries of expired games met are dropped."""
        found: list[GameRecord] = []
        expired: list[IndexEntry] = []
        scanned = 0
        more: bool | None = None  # None: not known yet
        while len(found) < limit and scanned < LIST_SCAN_LIMIT:
            # The first read asks for what the page needs and one more (whether a next page
            # exists, without another read of every bucket); a filter may need more.
            size = min(limit + 1 if scanned == 0 else LIST_BATCH, LIST_SCAN_LIMIT - scanned)
            batch = self.list_index(before, size)
            records = self.load_many([entry.game_id for entry in batch])
            consumed = 0
            for entry, record in zip(batch, records, strict=True):
                before = entry.place
                scanned += 1
                consumed += 1
                if record is None:
                    expired.append(entry)
                elif wanted(record):
                    found.append(record)
                    if len(found) == limit:
                        break
            if consumed < len(batch):
                more = True  # the page filled before the batch ended
            elif len(batch) < size:
                more = False  # the index ends here
                break
        self.forget(expired)
        if more is None:
            more = before is not None and bool(self.list_index(before, 1))
        return found, before if more else None

    def load_many(self, game_ids: list[str]) -> list[GameRecord | None]:
        pipe = self.client.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(game_key(game_id))
        rows = pipe.execute()
        return [
            GameRecord.from_hash(game_id, row) if row else None
            for game_id, row in zip(game_ids, rows, strict=True)
        ]

    def forget(self, entries: list[IndexEntry]) -> None:
        """Drop index entries of games that have expired."""
        if not entries:
            return
        pipe = self.client.pipeline(transaction=False)
        for entry in entries:
            pipe.zrem(entry.key, entry.game_id)
        pipe.execute()
