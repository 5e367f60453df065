"""A game as Redis holds it: its keys, its hash and the record decoded from it.

Every key of a game carries the hash tag of its id, so one game lives in one cluster slot:

- ``cardroom:game:{ID}``          hash: ``rev`` (write counter), ``w`` (a random id of the
                                  write), ``rec`` (the record as JSON), ``t<seat>`` (SHA-256
                                  of the seat's token), ``log`` (the game's log,
                                  zlib-compressed) and ``tail`` (its newest entries, one JSON
                                  array a line, not yet compressed)
- ``cardroom:game:{ID}:idem:<h>`` a stored action response, for Idempotency-Key retries
  (``cardroom.store.writes``)

Events are not stored: the log (``cardroom.table.steps``) rebuilds them. It takes a few
hundred bytes where the events took tens of kilobytes (docs/benchmarks.md). New entries are
appended to ``tail`` by the commit script; every ``SEAL_AFTER`` entries the writer folds the
tail into ``log`` (``GameRecord.log_update``), so an action neither re-compresses the whole
log nor keeps it all uncompressed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

import orjson

# Log entries kept uncompressed before the writer folds them into the compressed log.
SEAL_AFTER = 16


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
    # The time of the last timed log entry, in whole ms (cardroom.table.steps).
    logged_ms: int = 0
    # The id of this game's rematch, once a seat asked for one (cardroom.table.rematch).
    rematch: str | None = None
    # The package that plays it, as created: {"package", "version", "rules_version"}
    # (registry.Registered.played_by). None for a game recorded before it was kept: those
    # were all played under rules version 1.
    plugin: dict[str, Any] | None = None
    rev: int = 0
    write_id: str = ""
    token_hashes: dict[int, str] = field(default_factory=dict)
    # The log as loaded (compressed part, uncompressed newest lines) and entries to append.
    log_sealed: bytes = b""
    log_tail: bytes = b""
    pending: list[str] = field(default_factory=list)
    # Recalled from this process's kept games (GameStore.recall), not loaded: a guess.
    recalled: bool = field(default=False, compare=False)
    # What every seat's view of this version shares (table/views.py, view_parts), once made.
    view_parts: tuple[Any, dict[str, Any]] | None = field(default=None, compare=False, repr=False)

    def log(self, entry: list[Any]) -> None:
        """Add an entry to the game's log; it is written with the record."""
        self.pending.append(dump_json(entry).decode())

    def log_written(self, sealed: bytes, appended: str) -> None:
        """The pending entries are stored (as ``log_update`` made them): the record's log
        now says what Redis holds, so it can be written again."""
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

    def log_update(self) -> tuple[bytes, str]:
        """What a write of the pending entries stores: (a new sealed log or b"", the entries
        to append to the tail or "")."""
        if not self.pending:
            return b"", ""
        tail_lines = self.log_tail.count(b"\n") + 1 if self.log_tail else 0
        if tail_lines + len(self.pending) < SEAL_AFTER:
            return b"", "\n".join(self.pending)
        lines = self.log_lines() + [line.encode() for line in self.pending]
        return zlib.compress(b"\n".join(lines), 6), ""

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
                **({"plugin": self.plugin} if self.plugin else {}),
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

    @property
    def rules_version(self) -> int:
        """The version of its game's rules it is played under (GamePlugin.rules_version)."""
        return self.plugin["rules_version"] if self.plugin else 1

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
