"""Games with work due at a time T, which must happen with no request: the due set.

A game whose bots still have moves left when a request's budget ran out (and, later, a game
whose turn clock must fire) is entered here with the time its work is due. Any API process
may run the progression loop (``cardroom.progress``): it claims due games, does their work
through the same compare-and-set as a request, and enters them again while work remains.

The set is sharded into ``BUCKETS`` sorted sets, each with a hash tag of its own
(``cardroom:{due:7}``), so on a Redis Cluster the due games spread over many slots instead of
one hot key. ``bucket_of`` maps a game to its bucket; nothing else knows the mapping.

Entries only ever name *possible* work. A spurious entry costs one load that finds nothing to
do; a missing one would leave a game stalled, so the rules are:

- ``schedule`` runs *before* the commit that leaves work pending, and keeps the earlier time
  when the game is already there (``ZADD LT``).
- ``claim`` leases a due game: its score moves ``lease`` seconds ahead, so another process
  skips it meanwhile, and it becomes due again by itself if the claimer dies.
- ``release`` ends a lease: it sets the game's next due time (or removes it) only if the
  score is still the lease's, so a request that scheduled earlier work meanwhile wins. The
  caller then checks that the game was not written after the state it judged (see
  ``cardroom.progress``), which covers a request that scheduled *later* work meanwhile.
"""

from __future__ import annotations

import zlib

import redis

BUCKETS = 16
# A leased game whose work failed for a passing reason (Redis out, a race lost at every
# attempt) is due again this soon, not when its lease ends.
RETRY_SECONDS = 2.0

# KEYS[1]: a bucket. ARGV: now, lease end, most games. Returns the ids it leased.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, id in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id) end
return due
"""

# KEYS[1]: a bucket. ARGV: game id, lease end, next due time ('' for none).
# Returns 1 if the lease was still the game's entry (and is now released), else 0.
_RELEASE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""


def bucket_of(game_id: str) -> int:
    """The bucket a game's due entry lives in (stable across processes and restarts)."""
    return zlib.crc32(game_id.encode()) % BUCKETS


def bucket_key(bucket: int, name: str = "due") -> str:
    return f"cardroom:{{{name}:{bucket}}}"


class DueSet:
    """The due set over one Redis client (a plain client or a cluster client alike).

    ``name`` tells sets apart: ``due`` holds the progression loop's work; ``think`` the games
    waiting for a bot that thinks (cardroom.thinking), which only the thinking loop takes.
    """

    def __init__(self, client: redis.Redis, name: str = "due"):
        self.client = client
        self.name = name
        self._claim = client.register_script(_CLAIM)
        self._release = client.register_script(_RELEASE)

    def schedule(self, game_id: str, at: float) -> None:
        """The game has work due at ``at`` (Unix time); an earlier time already set stays."""
        self.client.zadd(bucket_key(bucket_of(game_id), self.name), {game_id: at}, lt=True)

    def due_buckets(self, now: float) -> list[int]:
        """The buckets holding at least one game due by ``now``."""
        pipe = self.client.pipeline(transaction=False)
        for bucket in range(BUCKETS):
            pipe.zrangebyscore(bucket_key(bucket, self.name), "-inf", now, start=0, num=1)
        return [bucket for bucket, found in enumerate(pipe.execute()) if found]

    def claim(self, bucket: int, now: float, lease: float, most: int) -> list[tuple[str, float]]:
        """Lease up to ``most`` games of ``bucket`` due by ``now``: (id, lease end) each."""
        ends = round(now + lease, 3)
        ids = self._claim(keys=[bucket_key(bucket, self.name)], args=[now, ends, most])
        return [(game_id.decode(), ends) for game_id in ids]

    def release(self, game_id: str, lease_end: float, next_due: float | None) -> bool:
        """End a lease: the game is next due at ``next_due`` (None: nothing is due)."""
        released = self._release(
            keys=[bucket_key(bucket_of(game_id), self.name)],
            args=[game_id, lease_end, "" if next_due is None else next_due],
        )
        return bool(released)

    def due_at(self, game_id: str) -> float | None:
        """When the game is due (or leased until), if it is in the set."""
        score = self.client.zscore(bucket_key(bucket_of(game_id), self.name), game_id)
        return None if score is None else float(score)
