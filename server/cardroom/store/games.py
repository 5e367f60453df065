"""Games in Redis.

Every key of a game carries the hash tag of its id, so one game lives in one cluster slot:

- ``cardroom:game:{ID}``          hash: ``rev`` (write counter), ``rec`` (the record as JSON),
                                  ``t<seat>`` (SHA-256 of the seat's token)
- ``cardroom:game:{ID}:events``   stream, entry id ``<seq>-0``, field ``e`` (the full event)
- ``cardroom:game:{ID}:idem:<h>`` a stored action response, for Idempotency-Key retries

Every write is one Lua compare-and-set on ``rev``: record, token, events and idempotency
record land together or not at all. A stale ``rev`` is refused, never merged.
``cardroom:{index}:games`` (a sorted set, by a creation counter) indexes games for listing;
it is maintained beside the game (another slot), and entries of expired games are dropped
lazily.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import redis

# The listing index: game ids scored by a counter, so every game has its own place (one hash
# tag, one cluster slot for both keys).
INDEX_KEY = "cardroom:{index}:games"
INDEX_COUNTER_KEY = "cardroom:{index}:counter"

_INDEX = """
local n = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], n, ARGV[1])
return n
"""

_COMMIT = """
local rev = redis.call('HGET', KEYS[1], 'rev')
if ARGV[1] == '' then
  if rev then return -1 end
  rev = '0'
elseif not rev then
  return -2
elseif rev ~= ARGV[1] then
  return -1
end
local new = tonumber(rev) + 1
-- Events first: Redis does not undo a script that fails halfway, and a record must never
-- be written without its events.
for i = 9, #ARGV, 2 do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], ARGV[i], 'e', ARGV[i + 1])
end
redis.call('HSET', KEYS[1], 'rev', new, 'rec', ARGV[2])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], ARGV[6], ARGV[7]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5]) end
return new
"""


class Conflict(Exception):
    """The game changed since it was loaded (compare-and-set refused)."""


class Gone(Exception):
    """The game does not exist (never created, or expired)."""


def _compressed(value: Any) -> bytes:
    """A stored answer, zlib-compressed: a 2.5 KB view shrinks about fivefold, and SDK
    clients send an Idempotency-Key with every action."""
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode(), 1)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def game_key(game_id: str) -> str:
    return f"cardroom:game:{{{game_id}}}"


def events_key(game_id: str) -> str:
    return f"{game_key(game_id)}:events"


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
    status: str = "waiting"
    version: int = 0
    seq: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    rev: int = 0
    token_hashes: dict[int, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {
                "game_type": self.game_type,
                "players": self.players,
                "options": self.options,
                "seed": self.seed,
                "seats": self.seats,
                "state": self.state,
                "status": self.status,
                "version": self.version,
                "seq": self.seq,
                "created_at": self.created_at,
                "updated_at": self.updated_at,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_hash(cls, game_id: str, data: dict[bytes, bytes]) -> GameRecord:
        body = json.loads(data[b"rec"])
        tokens = {
            int(name[1:]): value.decode()
            for name, value in ((k.decode(), v) for k, v in data.items())
            if name.startswith("t") and name[1:].isdigit()
        }
        return cls(id=game_id, rev=int(data[b"rev"]), token_hashes=tokens, **body)

    def seat_for_token(self, token: str) -> int | None:
        """The seat whose token this is, compared in constant time against every seat."""
        candidate = hash_token(token)
        found = None
        for seat, stored in self.token_hashes.items():
            if hmac.compare_digest(candidate, stored):
                found = seat
        return found


@dataclass
class Loaded:
    record: GameRecord
    idempotent_response: dict[str, Any] | None = None


class GameStore:
    def __init__(
        self,
        client: redis.Redis,
        blocking_client: redis.Redis | None = None,
        *,
        ttl_seconds: int,
        idempotency_ttl_seconds: int,
        event_retention: int,
    ):
        self.client = client
        self.blocking_client = blocking_client or client
        self.ttl_seconds = ttl_seconds
        self.idempotency_ttl_seconds = idempotency_ttl_seconds
        self.event_retention = event_retention
        self._commit = client.register_script(_COMMIT)
        self._index = client.register_script(_INDEX)

    def ping(self) -> bool:
        return bool(self.client.ping())

    def load(self, game_id: str, idempotency: str | None = None) -> Loaded:
        """The game (and a stored response for ``idempotency``, a full key) in one round trip."""
        if idempotency:
            pipe = self.client.pipeline(transaction=False)
            pipe.hgetall(game_key(game_id))
            pipe.get(idempotency)
            results = pipe.execute()
        else:
            results = [self.client.hgetall(game_key(game_id))]
        if not results[0]:
            raise Gone(game_id)
        record = GameRecord.from_hash(game_id, results[0])
        stored = json.loads(zlib.decompress(results[1])) if idempotency and results[1] else None
        return Loaded(record, stored)

    def commit(
        self,
        record: GameRecord,
        events: Iterable[dict[str, Any]] = (),
        *,
        create: bool = False,
        token: tuple[int, str] | None = None,
        idempotency: tuple[str, dict[str, Any]] | None = None,
    ) -> None:
        """Write the record, its new events, a token hash and a stored response, or nothing.

        ``events`` must already carry their ``seq``; ``record.seq`` is the last of them.
        Raises Conflict if the game changed since ``record.rev`` was read, Gone if it expired.
        """
        args: list[Any] = [
            "" if create else record.rev,
            record.to_json(),
            self.ttl_seconds,
            _compressed(idempotency[1]) if idempotency else "",
            self.idempotency_ttl_seconds,
            f"t{token[0]}" if token else "",
            hash_token(token[1]) if token else "",
            self.event_retention,
        ]
        for event in events:
            args += [f"{event['seq']}-0", json.dumps(event, separators=(",", ":"))]
        keys = [
            game_key(record.id),
            events_key(record.id),
            idempotency[0] if idempotency else game_key(record.id),
        ]
        result = self._commit(keys=keys, args=args)
        if result == -1:
            raise Conflict(record.id)
        if result == -2:
            raise Gone(record.id)
        record.rev = int(result)
        if create:
            self._index(keys=[INDEX_KEY, INDEX_COUNTER_KEY], args=[record.id])

    def events_after(self, game_id: str, after: int, limit: int) -> list[dict[str, Any]]:
        entries = self.client.xrange(events_key(game_id), min=f"({after}-0", max="+", count=limit)
        return [json.loads(fields[b"e"]) for _, fields in entries]

    def wait_for_events(self, game_id: str, after: int, seconds: float) -> bool:
        """Block in Redis (XREAD BLOCK) until an event after ``after`` exists or time passes.

        True if there is one.
        """
        if seconds <= 0:
            return False
        found = self.blocking_client.xread(
            {events_key(game_id): f"{after}-0"}, count=1, block=max(1, int(seconds * 1000))
        )
        return bool(found)

    def list_ids(self, before: int | None, count: int) -> list[tuple[str, int]]:
        """Game ids with their places in the index, newest first, placed before ``before``."""
        rows = self.client.zrevrangebyscore(
            INDEX_KEY,
            "+inf" if before is None else f"({before}",
            "-inf",
            start=0,
            num=count,
            withscores=True,
        )
        return [(member.decode(), int(score)) for member, score in rows]

    def load_many(self, game_ids: list[str]) -> list[GameRecord | None]:
        pipe = self.client.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(game_key(game_id))
        rows = pipe.execute()
        return [
            GameRecord.from_hash(game_id, row) if row else None
            for game_id, row in zip(game_ids, rows, strict=True)
        ]

    def forget(self, game_ids: list[str]) -> None:
        """Drop index entries of games that have expired."""
        if game_ids:
            self.client.zrem(INDEX_KEY, *game_ids)
