"""Games in Redis: the store a process reads and writes them through (``GameStore``).

What a game is in Redis, its keys and its record, is ``cardroom.store.record``; how it is
written, one compare-and-set script sent once, ``cardroom.store.writes``; how games are
listed, ``cardroom.store.listing``.

Each process keeps the games it last read or wrote (``cardroom.store.recent``):
``GameStore.recall`` gives one without a round trip, as a guess that the commit checks.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

from cardroom.store import buckets
from cardroom.store.changes import ChangeFeed, Watch
from cardroom.store.connection import CLUSTER_ERRORS, cluster_health, is_cluster
from cardroom.store.due import DueSet
from cardroom.store.listing import Listing, index_key
from cardroom.store.recent import KEPT_GAMES, RecentGames
from cardroom.store.record import GameRecord, dump_json, game_key, hash_token
from cardroom.store.record import idempotency_key as idempotency_key  # still imported from here
from cardroom.store.writes import (
    COMMIT_SCRIPT,
    REFUSE_SCRIPT,
    Answered,
    Client,
    Conflict,
    Gone,
    send_once,
    stored_answer,
    written_after,
)

# Refusals of a cluster that mean a create's script did not run: the game is made again in
# another bucket (TRYAGAIN while its slot moves to another master, CLUSTERDOWN, redirections
# that did not settle).
_CREATE_ELSEWHERE = (redis.exceptions.TryAgainError, redis.exceptions.ClusterError)
CREATE_ATTEMPTS = 3
# How long a follower waits for this process's own commit of its game before loading it.
WRITE_WAIT_SECONDS = 1.0


@dataclass
class Loaded:
    """A game as loaded, with the stored answer of the Idempotency-Key asked for (if any)."""

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
        self.changes = ChangeFeed(self.blocking_client, self._heard)
        self.due = DueSet(client)
        self.thinking = DueSet(client, "think")
        self.listing = Listing(client)
        self._commit = client.register_script(COMMIT_SCRIPT)
        self._refuse = client.register_script(REFUSE_SCRIPT)
        self._loading: dict[str, threading.Lock] = {}
        self._loading_lock = threading.Lock()
        # Commits this process has sent and not yet seen answered, by game: the change they
        # publish may reach this process's followers before the answer reaches the writer.
        self._writing: dict[str, threading.Event] = {}

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
        stored = stored_answer(results[1]) if idempotency and results[1] else None
        return Loaded(record, stored)

    def confirm(
        self, record: GameRecord, idempotency: str | None = None
    ) -> tuple[bool, dict[str, Any] | None]:
        """Whether the game as stored is still ``record``'s write (its ``rev`` and write id),
        and the stored answer of ``idempotency`` (a full key) if it has one: one round trip
        that reads two fields, where a load reads and decodes the whole game. A refusal
        judged on a recalled game is certain once this says the game was current."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(game_key(record.id), "rev", "w")
        if idempotency:
            pipe.get(idempotency)
        results = pipe.execute()
        rev, write_id = results[0]
        if rev is None:
            self.recent.forget(record.id)
            raise Gone(record.id)
        current = int(rev) == record.rev and (write_id or b"").decode() == record.write_id
        if record.recalled:
            self.recent.observe(current)
        stored = stored_answer(results[1]) if idempotency and results[1] else None
        return current, stored

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
        sealed, appended = record.log_update()
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
        written = self._writing[record.id] = threading.Event()
        try:
            result = send_once(self.client, self._commit, keys, args, record.id)
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
        finally:
            written.set()
            if self._writing.get(record.id) is written:
                del self._writing[record.id]

    def remember_refusal(self, record: GameRecord, key: str, stored: dict[str, Any]) -> None:
        """Store a refusal of an action as the answer of its Idempotency-Key ``key``, if the
        game is still as ``record`` (the refusal was judged on it).

        Raises Conflict (with the game as stored) if it was written since, Gone if it
        expired, Answered if the key has an answer already.
        """
        args = [record.rev, record.write_id, dump_json(stored), self.idempotency_ttl_seconds]
        result = send_once(self.client, self._refuse, [game_key(record.id), key], args, record.id)
        self._raise_refused_write(record, result)
        if result == -2:
            self.recent.forget(record.id)
            raise Gone(record.id)
        if record.recalled:
            self.recent.observe(True)

    def _raise_refused_write(self, record: GameRecord, result: Any) -> None:
        """A write script's answer that is not a write: a stored answer, or a newer game."""
        if isinstance(result, list) and len(result) == 1:
            raise Answered(stored_answer(result[0]))
        if isinstance(result, list):
            if record.recalled:
                self.recent.observe(False)
            stored = dict(zip(result[::2], result[1::2], strict=True))
            self.recent.keep(record.id, stored)
            raise Conflict(record.id, GameRecord.from_hash(record.id, stored))

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

    def _heard(self, game_id: str, change: bytes) -> None:
        """Another process wrote a game this one keeps: keep it as written (``written_after``),
        so that its followers here need no load and the next action's guess is current. A
        change of this process's own commit in flight is left to that commit."""
        if game_id in self._writing:
            return
        kept = self.recent.get(game_id)
        if kept is not None:
            stored = written_after(kept, change)
            if stored is not None:
                self.recent.keep(game_id, stored)

    def _writing_here(self, game_id: str) -> bool:
        """Wait for this process's commit of the game in flight, if there is one (True):
        a follower woken by its change before its answer came back then reads the game
        this process wrote instead of loading it."""
        written = self._writing.get(game_id)
        return written is not None and written.wait(WRITE_WAIT_SECONDS)

    def snapshot(self, game_id: str, heard: int | None) -> GameRecord:
        """The game as stored, for reading only (never change it): this process's kept copy
        when it is at least at revision ``heard`` (the newest a watch heard of; None: not
        known), else one load, shared by every follower that asks at the same time.
        """
        if heard is not None:
            kept = self.recent.snapshot(game_id, heard)
            if kept is None and self._writing_here(game_id):
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

    def page(
        self, before: int | None, limit: int, wanted: Callable[[GameRecord], bool]
    ) -> tuple[list[GameRecord], int | None]:
        """A page of the listing (``Listing.page``)."""
        return self.listing.page(before, limit, wanted)
