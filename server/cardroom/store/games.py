"""Games in Redis.

Every key of a game carries the hash tag of its id, so one game lives in one cluster slot:

- ``cardroom:game:{ID}``          hash: ``rev`` (write counter), ``w`` (a random id of the
                                  write), ``rec`` (the record as JSON), ``t<seat>`` (SHA-256
                                  of the seat's token), ``log`` (the game's log,
                                  zlib-compressed) and ``tail`` (its newest entries, one JSON
                                  array a line, not yet compressed)
- ``cardroom:game:{ID}:idem:<h>`` a stored action response, for Idempotency-Key retries

Events are not stored: the log (``cardroom.steps``) rebuilds them. It takes a few hundred
bytes where the events took tens of kilobytes (docs/benchmarks.md). New entries are appended
to ``tail`` by the commit script; every ``SEAL_AFTER`` entries the writer folds the tail into
``log``, so an action neither re-compresses the whole log nor keeps it all uncompressed.

Every write is one Lua compare-and-set on ``rev`` and ``w``: record, log, token and
idempotency record land together or not at all. A write is sent once, never re-sent by the
client library: when no answer comes back after it was sent, its outcome is unknown
(``OutcomeUnknown``), since Redis may still run it; a re-send could apply it twice. A stale
read is refused, never merged, and the refusal carries the game as stored, so the writer
tries again without another load.
``w`` makes every write's mark unique: a game restored from an older snapshot counts its
``rev`` up again, but never matches a record read before. A write publishes the new ``rev``
and ``w`` on ``cardroom:game:{ID}:changed``; each process hears them through one pattern
subscription (``cardroom.store.changes``), which wakes its long-polls and game sockets.

Each process keeps the games it last read or wrote (``cardroom.store.recent``):
``GameStore.recall`` gives one without a round trip, as a guess that the commit checks.

Games are listed from an index split into buckets (``cardroom.store.buckets``): a game's id
puts it in one of 64 buckets, each one cluster slot, and the bucket's sorted set
``cardroom:{<bucket tag>}:games`` shares that slot, so the script that creates a game adds
its index entry in the same step: no game is ever stored unlisted, and creates spread over
the cluster's masters. An entry's score is its place in the listing, unique over all
buckets: ``x * 64 + bucket``, where ``x`` is the creation time in ms, raised past the
bucket's newest entry if need be. A listing merges the buckets newest first
(``list_index``), so a cursor (a place) orders exactly. Entries of expired games are dropped
lazily, by the listings that meet them.

Games created before buckets are listed from ``cardroom:{index}:games`` (scored by a
counter, so below every bucket entry) for as long as it holds any; their keys are as
before.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis
from redis.cluster import RedisCluster
from redis.commands.core import Script

from cardroom.store import buckets
from cardroom.store.changes import ChangeFeed, Watch
from cardroom.store.connection import CLUSTER_ERRORS, DeferredCluster, cluster_health, is_cluster
from cardroom.store.due import DueSet
from cardroom.store.recent import KEPT_GAMES, RecentGames

# One Redis, a Redis Cluster (cardroom.store.connection): the same commands.
Client = redis.Redis | RedisCluster | DeferredCluster
# The listing index of games created before buckets: read while it holds any game.
LEGACY_INDEX_KEY = "cardroom:{index}:games"
# How often a process looks again whether the legacy index exists.
LEGACY_CHECK_SECONDS = 60.0
# Log entries kept uncompressed before the writer folds them into the compressed log.
SEAL_AFTER = 16
# Refusals of a cluster that mean a create's script did not run: the game is made again in
# another bucket (TRYAGAIN while its slot moves to another master, CLUSTERDOWN, redirections
# that did not settle).
_CREATE_ELSEWHERE = (redis.exceptions.TryAgainError, redis.exceptions.ClusterError)
CREATE_ATTEMPTS = 3
# A page of the listing reads at most this many index entries (and their games), LIST_BATCH
# at a time.
LIST_SCAN_LIMIT = 1000
LIST_BATCH = 100


def index_key(bucket: int) -> str:
    """The bucket's part of the listing index."""
    return buckets.bucket_key(bucket, "games")


# KEYS: game hash, idempotency key (or the game hash again); to create, the bucket's index.
# ARGV: 1 rev read ('' to create), 2 record JSON, 3 TTL, 4 idempotency value or '',
# 5 its TTL, 6 token field or '', 7 token hash, 8 sealed log or '', 9 entries to append or '',
# 10 the write id read, 11 this write's id; to create: 12 the creation time in ms, 13 the
# bucket, 14 the number of buckets, 15 the game id.
# Returns the new rev; -2 if the game is gone; -1 if a game to create exists; the game's hash
# (HGETALL) if it was written since the read; a list of one item, the stored answer, if the
# Idempotency-Key has one already.
_COMMIT = """
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
redis.call('PUBLISH', KEYS[1] .. ':changed', new .. ' ' .. ARGV[11])
return new
"""


# KEYS: game hash, idempotency key. ARGV: 1 rev read, 2 write id read, 3 the stored refusal,
# 4 its TTL. Stores a refusal under an Idempotency-Key if the game is still as judged.
# Returns 0 once stored; -2 if the game is gone; the game's hash (HGETALL) if it was written
# since; a list of one item, the stored answer, if the key has one already.
_REFUSE = """
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


def _stored_answer(stored: bytes) -> dict[str, Any]:
    """An Idempotency-Key's stored answer: its JSON (zlib-compressed JSON, as earlier releases
    stored answers, is read too: they live an hour)."""
    return orjson.loads(stored if stored[:1] == b"{" else zlib.decompress(stored))


def dump_json(value: Any) -> bytes:
    """Compact JSON, as the stdlib writes it (keys that are numbers become strings)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # an integer beyond 64 bits, which a client may send inside an action
        return json.dumps(value, separators=(",", ":")).encode()


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def game_key(game_id: str) -> str:
    return f"cardroom:game:{{{game_id}}}"


def changes_channel(game_id: str) -> str:
    return f"{game_key(game_id)}:changed"


def idempotency_key(game_id: str, token: str, key: str) -> str:
    """Scoped to the caller's token: two seats may use the same key independently."""
    digest = hashlib.sha256(f"{hash_token(token)}:{key}".encode()).hexdigest()[:32]
    return f"{game_key(game_id)}:idem:{digest}"


@dataclass
class GameRecord:
    """One game as stored: the engine state plus what the server keeps around it."""

    id: str
    game_type: str
    players: int
    options: dict[str, Any]
    seed: int
    seats: list[dict[str, Any]]
    state: dict[str, Any]
    # The creator chose the seed (and so may know every hand): shown to everyone.
    seed_chosen: bool = False
    status: str = "waiting"
    version: int = 0
    seq: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    # The time of the last timed log entry, in whole ms (cardroom.steps).
    logged_ms: int = 0
    # The id of this game's rematch, once a seat asked for one (cardroom.rematch).
    rematch: str | None = None
    rev: int = 0
    write_id: str = ""
    token_hashes: dict[int, str] = field(default_factory=dict)
    # The log as loaded (compressed part, uncompressed newest lines) and entries to append.
    log_sealed: bytes = b""
    log_tail: bytes = b""
    pending: list[str] = field(default_factory=list)
    # Recalled from this process's kept games (GameStore.recall), not loaded: a guess.
    recalled: bool = field(default=False, compare=False)
    # What every seat's view of this version shares (Tables._view_parts), once made.
    view_parts: tuple[Any, dict[str, Any]] | None = field(default=None, compare=False, repr=False)

    def log(self, entry: list[Any]) -> None:
        """Add an entry to the game's log; it is written with the record."""
        self.pending.append(dump_json(entry).decode())

    def log_written(self, sealed: bytes, appended: str) -> None:
        """The pending entries are stored (as ``GameStore._log_update`` wrote them): the
        record's log now says what Redis holds, so it can be written again."""
        self.pending.clear()
        if sealed:
            self.log_sealed, self.log_tail = sealed, b""
        elif appended:
            added = appended.encode()
            self.log_tail = self.log_tail + b"\n" + added if self.log_tail else added

    def log_lines(self) -> list[bytes]:
        """Every stored entry of the log, oldest first, as JSON lines (pending ones aside)."""
        lines = zlib.decompress(self.log_sealed).split(b"\n") if self.log_sealed else []
        if self.log_tail:
            lines += self.log_tail.split(b"\n")
        return lines

    def to_json(self) -> bytes:
        return dump_json(
            {
                "game_type": self.game_type,
                "players": self.players,
                "options": self.options,
                "seed": self.seed,
                "seed_chosen": self.seed_chosen,
                "seats": self.seats,
                "state": self.state,
                "status": self.status,
                "version": self.version,
                "seq": self.seq,
                "created_at": self.created_at,
                "updated_at": self.updated_at,
                "logged_ms": self.logged_ms,
                **({"rematch": self.rematch} if self.rematch else {}),
            }
        )

    @classmethod
    def from_hash(cls, game_id: str, data: dict[bytes, bytes]) -> GameRecord:
        body = orjson.loads(data[b"rec"])
        tokens = {
            int(name[1:]): value.decode()
            for name, value in data.items()
            if name[:1] == b"t" and name[1:].isdigit()
        }
        return cls(
            id=game_id,
            rev=int(data[b"rev"]),
            write_id=data.get(b"w", b"").decode(),
            token_hashes=tokens,
            log_sealed=data.get(b"log", b""),
            log_tail=data.get(b"tail", b""),
            **body,
        )

    def as_stored(self, body: bytes) -> dict[bytes, bytes]:
        """The game's hash as Redis holds it once this record is written (``body``: its JSON)."""
        stored = {b"rev": str(self.rev).encode(), b"w": self.write_id.encode(), b"rec": body}
        if self.log_sealed:
            stored[b"log"] = self.log_sealed
        if self.log_tail:
            stored[b"tail"] = self.log_tail
        for seat, token_hash in self.token_hashes.items():
            stored[f"t{seat}".encode()] = token_hash.encode()
        return stored

    def joined(self) -> bool:
        """A person has taken a seat (bots aside)."""
        return any(seat["name"] is not None and not seat["bot"] for seat in self.seats)

    def seat_for_token(self, token: str) -> int | None:
        """The seat whose token this is, compared in constant time against every seat."""
        candidate = hash_token(token)
        found = None
        for seat, stored in self.token_hashes.items():
            if hmac.compare_digest(candidate, stored):
                found = seat
        return found


@dataclass(frozen=True)
class IndexEntry:
    """A game in the listing index: its place (newer games have higher places, no two the
    same) and the index key that holds it."""

    game_id: str
    place: int
    key: str


@dataclass
class Loaded:
    record: GameRecord
    idempotent_answer: dict[str, Any] | None = None


class GameStore:
    def __init__(
        self,
        client: Client,
        blocking_client: Client | None = None,
        *,
        ttl_seconds: int,
        idempotency_ttl_seconds: int,
        kept_games: int = KEPT_GAMES,
        unjoined_ttl_seconds: int | None = None,
    ):
        self.client = client
        self.blocking_client = blocking_client or client
        self.ttl_seconds = ttl_seconds
        # A game no person has joined lives this long (all-bot games and untaken tables).
        self.unjoined_ttl_seconds = unjoined_ttl_seconds or ttl_seconds
        self.idempotency_ttl_seconds = idempotency_ttl_seconds
        self.recent = RecentGames(kept_games, GameRecord.from_hash)
        self.changes = ChangeFeed(self.blocking_client)
        self.due = DueSet(client)
        self._commit = client.register_script(_COMMIT)
        self._refuse = client.register_script(_REFUSE)
        self._legacy_index = False
        self._legacy_checked = -LEGACY_CHECK_SECONDS
        self._loading: dict[str, threading.Lock] = {}
        self._loading_lock = threading.Lock()

    def ping(self) -> bool:
        return bool(self.client.ping())

    def health(self) -> dict[str, Any]:
        """Whether Redis answers: ``{}`` when one Redis answers PING; on a Redis Cluster,
        ``cluster``: what its primaries say (``cluster_health``); ``error``, the error's class
        name, when it cannot be reached."""
        try:
            if not is_cluster(self.client):
                self.ping()
                return {}
            return {"cluster": cluster_health(self.client)}
        except (redis.exceptions.RedisError, *CLUSTER_ERRORS) as error:
            return {"error": error.__class__.__name__}

    def load(self, game_id: str, idempotency: str | None = None, acting: bool = False) -> Loaded:
        """The game (and a stored response for ``idempotency``, a full key) in one round trip.

        ``acting``: the load of an action, which tells whether the kept game was current.
        """
        if idempotency:
            pipe = self.client.pipeline(transaction=False)
            pipe.hgetall(game_key(game_id))
            pipe.get(idempotency)
            results = pipe.execute()
        else:
            results = [self.client.hgetall(game_key(game_id))]
        if not results[0]:
            self.recent.forget(game_id)
            raise Gone(game_id)
        if acting:
            self.recent.observe_load(game_id, results[0])
        self.recent.keep(game_id, results[0])
        record = GameRecord.from_hash(game_id, results[0])
        stored = _stored_answer(results[1]) if idempotency and results[1] else None
        return Loaded(record, stored)

    def revision(self, game_id: str) -> int | None:
        """The game's write counter as stored now (None: no such game)."""
        rev = self.client.hget(game_key(game_id), "rev")
        return None if rev is None else int(rev)

    def recall(self, game_id: str) -> GameRecord | None:
        """The game as this process last read or wrote it, without a round trip, if kept and
        if kept games have lately been current here (``RecentGames.worth_guessing``).

        A guess: another process may have written the game since. ``commit`` refuses a stale
        one (Conflict, with the game as stored); a refusal of the guess itself (a rule, a
        token) must be checked again on a fresh ``load``.
        """
        if not self.recent.worth_guessing():
            return None
        stored = self.recent.get(game_id)
        if stored is None:
            return None
        record = GameRecord.from_hash(game_id, stored)
        record.recalled = True
        return record

    def create(self, record: GameRecord) -> None:
        """Write a new game and its index entry (one script, the game's slot).

        If a cluster refuses the script without running it (the bucket's slot is moving to
        another master, or its master is down), the game is given an id in another bucket
        and written there: a create is not refused for its slot.
        """
        for attempt in range(CREATE_ATTEMPTS):
            try:
                self.commit(record, create=True)
                return
            except _CREATE_ELSEWHERE:
                if attempt == CREATE_ATTEMPTS - 1:
                    raise
                record.id = buckets.new_game_id()

    def commit(
        self,
        record: GameRecord,
        *,
        create: bool = False,
        token: tuple[int, str] | None = None,
        idempotency: tuple[str, dict[str, Any]] | None = None,
        final: bool = False,
    ) -> None:
        """Write the record, its new log entries, a token hash and a stored response, or nothing.

        Raises Conflict if the game changed since ``record.rev`` was read, Gone if it expired,
        Answered if the idempotency key has an answer already. ``create``: the game must not
        exist, and its index entry is written with it (its id must come from
        ``buckets.new_game_id``). ``final``: the caller never changes the record again, so
        once written it is this process's snapshot of the game as it is (``snapshot``),
        read by the followers here without decoding the kept hash again.
        """
        sealed, appended = self._log_update(record)
        body = record.to_json()
        write_id = secrets.token_hex(6)
        token_hash = hash_token(token[1]) if token else ""
        args: list[Any] = [
            "" if create else record.rev,
            body,
            self.ttl_seconds if token or record.joined() else self.unjoined_ttl_seconds,
            dump_json(idempotency[1]) if idempotency else "",
            self.idempotency_ttl_seconds,
            f"t{token[0]}" if token else "",
            token_hash,
            sealed,
            appended,
            record.write_id,
            write_id,
        ]
        keys = [game_key(record.id), idempotency[0] if idempotency else game_key(record.id)]
        if create:
            bucket = buckets.bucket_of(record.id)
            if bucket is None:
                raise ValueError(f"game id {record.id!r} is in no bucket: use new_game_id")
            keys.append(index_key(bucket))
            args += [int(record.created_at * 1000), bucket, buckets.BUCKETS, record.id]
        result = self._write_once(self._commit, keys, args, record.id)
        self._raise_refused_write(record, result)
        if result == -1:
            raise Conflict(record.id)
        if result == -2:
            self.recent.forget(record.id)
            raise Gone(record.id)
        if record.recalled:
            self.recent.observe(True)
            record.recalled = False
        record.rev, record.write_id = int(result), write_id
        if token:
            record.token_hashes[token[0]] = token_hash
        record.log_written(sealed, appended)
        self.recent.keep(record.id, record.as_stored(body), record if final else None)

    def remember_refusal(self, record: GameRecord, key: str, stored: dict[str, Any]) -> None:
        """Store a refusal of an action as the answer of its Idempotency-Key ``key``, if the
        game is still as ``record`` (the refusal was judged on it).

        Raises Conflict (with the game as stored) if it was written since, Gone if it
        expired, Answered if the key has an answer already.
        """
        args = [record.rev, record.write_id, dump_json(stored), self.idempotency_ttl_seconds]
        result = self._write_once(self._refuse, [game_key(record.id), key], args, record.id)
        self._raise_refused_write(record, result)
        if result == -2:
            self.recent.forget(record.id)
            raise Gone(record.id)
        if record.recalled:
            self.recent.observe(True)

    def _raise_refused_write(self, record: GameRecord, result: Any) -> None:
        """A write script's answer that is not a write: a stored answer, or a newer game."""
        if isinstance(result, list) and len(result) == 1:
            raise Answered(_stored_answer(result[0]))
        if isinstance(result, list):
            if record.recalled:
                self.recent.observe(False)
            stored = dict(zip(result[::2], result[1::2], strict=True))
            self.recent.keep(record.id, stored)
            raise Conflict(record.id, GameRecord.from_hash(record.id, stored))

    def _write_once(self, script: Script, keys: list[str], args: list[Any], game_id: str) -> Any:
        """Run a write script, sent once: an error before it was sent whole is raised as it
        is (nothing was applied); an error after it is OutcomeUnknown.

        redis-py retries a command on a timeout or a dropped connection, which for a write
        whose answer was lost means sending it again: this sends it on a pooled connection
        itself. A client without a connection pool (a cluster client) cannot tell sent from
        unsent, so every such error of it is OutcomeUnknown.
        """
        pool = getattr(self.client, "connection_pool", None)
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

    @staticmethod
    def _log_update(record: GameRecord) -> tuple[bytes, str]:
        """(a new sealed log or b"", the entries to append to the tail or "")."""
        if not record.pending:
            return b"", ""
        tail_lines = record.log_tail.count(b"\n") + 1 if record.log_tail else 0
        if tail_lines + len(record.pending) < SEAL_AFTER:
            return b"", "\n".join(record.pending)
        lines = record.log_lines() + [line.encode() for line in record.pending]
        return zlib.compress(b"\n".join(lines), 6), ""

    def wait_for_change(self, game_id: str, rev: int, seconds: float) -> bool:
        """Wait until the game is written after ``rev``, or ``seconds`` pass. True if it was
        (or may have been: the change feed lost its subscription meanwhile).

        Watched before looking again, so a write in between is never missed.
        """
        if seconds <= 0:
            return False
        ends = time.monotonic() + seconds
        with self.changes.watch(game_id) as watch:
            if not self.changes.live(seconds):
                return False
            current = self.client.hget(game_key(game_id), "rev")
            if current is None or int(current) != rev:
                return True
            return watch.wait(ends - time.monotonic())

    def watch(self, game_id: str) -> contextlib.AbstractContextManager[Watch]:
        """Watch a game's writes (``cardroom.store.changes``): look at it after this began."""
        return self.changes.watch(game_id)

    def snapshot(self, game_id: str, heard: int | None) -> GameRecord:
        """The game as stored, for reading only (never change it): this process's kept copy
        when it is at least at revision ``heard`` (the newest a watch heard of; None: not
        known), else one load, shared by every follower that asks at the same time.
        """
        if heard is not None:
            kept = self.recent.snapshot(game_id, heard)
            if kept is not None:
                return kept
        with self._loading_lock:
            lock = self._loading.setdefault(game_id, threading.Lock())
        with lock:
            if heard is not None:
                kept = self.recent.snapshot(game_id, heard)
                if kept is not None:
                    return kept
            try:
                loaded = self.load(game_id)
                kept = self.recent.snapshot(game_id, 0)
            finally:
                with self._loading_lock:
                    self._loading.pop(game_id, None)
        return loaded.record if kept is None else kept  # None: kept games turned off

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
