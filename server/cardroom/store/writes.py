"""How a game is written: one Lua compare-and-set per write, sent once, and its refusals.

Every write is one Lua compare-and-set on ``rev`` and ``w`` (``cardroom.store.record``):
record, log, token and idempotency record land together or not at all. A write is sent once,
never re-sent by the client library: when no answer comes back after it was sent, its outcome
is unknown (``OutcomeUnknown``), since Redis may still run it; a re-send could apply it twice.
A stale read is refused, never merged, and the refusal carries the game as stored, so the
writer tries again without another load.
``w`` makes every write's mark unique: a game restored from an older snapshot counts its
``rev`` up again, but never matches a record read before. A write publishes the new ``rev``
and ``w`` on ``cardroom:game:{ID}:changed``; each process hears them through one pattern
subscription (``cardroom.store.changes``), which wakes its long-polls and game sockets.
"""

from __future__ import annotations

import zlib
from typing import Any

import orjson
import redis
from redis.cluster import RedisCluster
from redis.commands.core import Script

from cardroom.store.connection import DeferredCluster
from cardroom.store.record import GameRecord

# One Redis, a Redis Cluster (cardroom.store.connection): the same commands.
Client = redis.Redis | RedisCluster | DeferredCluster

# KEYS: game hash, idempotency key (or the game hash again); to create, the bucket's index.
# ARGV: 1 rev read ('' to create), 2 record JSON, 3 TTL, 4 idempotency value or '',
# 5 its TTL, 6 token field or '', 7 token hash, 8 sealed log or '', 9 entries to append or '',
# 10 the write id read, 11 this write's id; to create: 12 the creation time in ms, 13 the
# bucket, 14 the number of buckets, 15 the game id.
# Publishes the change (``written_after`` reads it). Returns the new rev; -2 if the game is
# gone; -1 if a game to create exists; the game's hash (HGETALL) if it was written since the
# read; a list of one item, the stored answer, if the Idempotency-Key has one already.
COMMIT_SCRIPT = """
if ARGV[4] ~= '' then
  local answered = redis.call('GET', KEYS[2])
  if answered then return {answered} end
end
local seen = redis.call('HMGET', KEYS[1], 'rev', 'w', 'tail')
local rev = seen[1]
if ARGV[1] == '' then
  if rev then return -1 end
  rev = '0'
elseif not rev then
  return -2
elseif rev ~= ARGV[1] or (seen[2] or '') ~= ARGV[10] then
  return redis.call('HGETALL', KEYS[1])
end
local new = tonumber(rev) + 1
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'rev', new, 'w', ARGV[11], 'rec', ARGV[2], 'log', ARGV[8],
             'tail', ARGV[9])
elseif ARGV[9] ~= '' then
  local tail = seen[3]
  if tail and tail ~= '' then tail = tail .. '\\n' .. ARGV[9] else tail = ARGV[9] end
  redis.call('HSET', KEYS[1], 'rev', new, 'w', ARGV[11], 'rec', ARGV[2], 'tail', tail)
else
  redis.call('HSET', KEYS[1], 'rev', new, 'w', ARGV[11], 'rec', ARGV[2])
end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], ARGV[6], ARGV[7]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
if ARGV[4] ~= '' then redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[5]) end
if ARGV[1] == '' and KEYS[3] then
  local buckets = tonumber(ARGV[14])
  local x = tonumber(ARGV[12])
  local newest = redis.call('ZREVRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2]
  if newest then x = math.max(x, math.floor(tonumber(newest) / buckets) + 1) end
  redis.call('ZADD', KEYS[3], string.format('%.0f', x * buckets + tonumber(ARGV[13])), ARGV[15])
end
local change = new .. ' ' .. ARGV[11]
if ARGV[1] ~= '' then
  local previous = seen[2] or ''
  if previous == '' then previous = '-' end
  local field, value = ARGV[6], ARGV[7]
  if field == '' then field, value = '-', '-' end
  local log, logged = 'tail', ARGV[9]
  if ARGV[8] ~= '' then log, logged = 'sealed', ARGV[8] end
  change = change .. ' ' .. previous .. ' ' .. field .. ' ' .. value .. ' ' .. log .. '\\n'
           .. ARGV[2] .. '\\n' .. logged
end
redis.call('PUBLISH', KEYS[1] .. ':changed', change)
return new
"""


def written_after(kept: dict[bytes, bytes], change: bytes) -> dict[bytes, bytes] | None:
    """The game's hash after the write a change message tells of, made from ``kept``, the
    hash as it was just before that write; None if ``kept`` is not that (or the message does
    not carry the write: a create, a write that sealed the log, an earlier release's).

    The message is ``<rev> <write id>`` and, for every write but a create, `` <previous
    write id> <token field> <token hash> <tail|sealed>`` (``-`` for an empty id or no
    token), a newline, the record's JSON, a newline and either the log entries appended to
    the tail or the new sealed log: a process that kept the game before the write keeps it
    after without loading it.
    """
    head, newline, rest = change.partition(b"\n")
    fields = head.split(b" ")
    if not newline or len(fields) != 6:
        return None
    rev, write_id, previous, field, value, log = fields
    if kept.get(b"w", b"") != (b"" if previous == b"-" else previous):
        return None
    if not rev.isdigit() or int(kept[b"rev"]) + 1 != int(rev):
        return None
    record, _, logged = rest.partition(b"\n")
    stored = {**kept, b"rev": rev, b"w": write_id, b"rec": record}
    if log == b"sealed":
        stored[b"log"], stored[b"tail"] = logged, b""
    elif logged:
        tail = kept.get(b"tail")
        stored[b"tail"] = tail + b"\n" + logged if tail else logged
    if field != b"-":
        stored[field] = value
    return stored


# KEYS: game hash, idempotency key. ARGV: 1 rev read, 2 write id read, 3 the stored refusal,
# 4 its TTL. Stores a refusal under an Idempotency-Key if the game is still as judged.
# Returns 0 once stored; -2 if the game is gone; the game's hash (HGETALL) if it was written
# since; a list of one item, the stored answer, if the key has one already.
REFUSE_SCRIPT = """
local answered = redis.call('GET', KEYS[2])
if answered then return {answered} end
local seen = redis.call('HMGET', KEYS[1], 'rev', 'w')
if not seen[1] then return -2 end
if seen[1] ~= ARGV[1] or (seen[2] or '') ~= ARGV[2] then
  return redis.call('HGETALL', KEYS[1])
end
redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4])
return 0
"""


class OutcomeUnknown(Exception):
    """A write was sent and no answer came back (a timeout, a dropped connection): Redis
    may have applied it, or may still. Reading the game tells; so does a retry with the same
    Idempotency-Key, whose answer the write stores with it."""

    def __init__(self, game_id: str):
        super().__init__(game_id)
        self.game_id = game_id


class Conflict(Exception):
    """The game changed since it was loaded (compare-and-set refused).

    ``current`` is the game as stored when the write was refused, when the store knows it.
    """

    def __init__(self, game_id: str, current: GameRecord | None = None):
        super().__init__(game_id)
        self.current = current


class Answered(Exception):
    """The Idempotency-Key of a write already has a stored answer (``stored``): nothing
    was written."""

    def __init__(self, stored: dict[str, Any]):
        super().__init__("answered")
        self.stored = stored


class Gone(Exception):
    """The game does not exist (never created, or expired)."""


def stored_answer(stored: bytes) -> dict[str, Any]:
    """An Idempotency-Key's stored answer: its JSON (zlib-compressed JSON, as earlier releases
    stored answers, is read too: they live an hour)."""
    return orjson.loads(stored if stored[:1] == b"{" else zlib.decompress(stored))


def send_once(
    client: Client, script: Script, keys: list[str], args: list[Any], game_id: str
) -> Any:
    """Run a write script, sent once: an error before it was sent whole is raised as it
    is (nothing was applied); an error after it is OutcomeUnknown.

    redis-py retries a command on a timeout or a dropped connection, which for a write
    whose answer was lost means sending it again: this sends it on a pooled connection
    itself. A client without a connection pool (a cluster client) cannot tell sent from
    unsent, so every such error of it is OutcomeUnknown.
    """
    pool = getattr(client, "connection_pool", None)
    if pool is None:
        try:
            return script(keys=keys, args=args)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
            raise OutcomeUnknown(game_id) from error
    connection = pool.get_connection()
    try:
        connection.send_command("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            try:
                return connection.read_response()
            except redis.exceptions.NoScriptError:  # answered: nothing ran
                connection.send_command("EVAL", script.script, len(keys), *keys, *args)
                return connection.read_response()
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
            connection.disconnect()
            raise OutcomeUnknown(game_id) from error
    finally:
        pool.release(connection)
