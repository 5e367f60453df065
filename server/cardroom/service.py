"""The table: loads a game, lets its engine rule, plays bot seats, commits, and shapes views.

This module knows the engine contract, not any game's rules. Every change is a load, pure
engine calls, and one compare-and-set; a concurrent writer makes the whole step run again
against the new state, so an action is never lost, merged or applied twice. An action skips
the load when this process kept the game (``GameStore.recall``): the compare-and-set checks
that guess like any other read.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from cardroom import rematch, replays, steps
from cardroom.bots import choose, next_bot_seat
from cardroom.games import get_game, get_policy, policies, registry
from cardroom.games.base import (
    Game,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    RuleError,
    redact_event,
)
from cardroom.history import History
from cardroom.store import Answered, Conflict, GameRecord, GameStore, Gone, OutcomeUnknown
from cardroom.store.buckets import new_game_id
from cardroom.store.changes import Watch
from cardroom.store.connection import counter_storage
from cardroom.store.games import Loaded, hash_token, idempotency_key
from cardroom.turns import GameTurns

if TYPE_CHECKING:
    from limits.storage import Storage

MAX_ATTEMPTS = 50
# A secret option that is set (a stacked deck) shows as this until the game ends.
STACKED = "stacked"


@dataclass(frozen=True)
class BotBudget:
    """How much bot play one request (or one step of the progression loop) may do.

    Bots stop at whichever bound comes first; the rest of their play is due work
    (``cardroom.store.due``), continued by the next request or the progression loop.
    """

    actions: int = 200
    seconds: float = 0.05


class _Spending:
    """What one request has spent of its bot budget so far."""

    def __init__(self, budget: BotBudget):
        self.budget = budget
        self.actions = 0
        self.started = time.perf_counter()

    def exhausted(self) -> bool:
        """Spent: at least one action is always allowed, so every request makes progress."""
        if self.actions == 0:
            return False
        return (
            self.actions >= self.budget.actions
            or time.perf_counter() - self.started >= self.budget.seconds
        )


# What the table refuses, as domain errors; api/problems.py maps each to its answer.


class NotFound(Exception):
    """No such game."""


class Unauthorized(Exception):
    """Missing or unknown seat token."""


class InvalidRequest(Exception):
    """A well-formed request naming a value that cannot be served; ``field`` names it."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.message = message
        self.field = field


class IdempotencyKeyReused(InvalidRequest):
    """An Idempotency-Key sent again with another request body."""


class StateConflict(Exception):
    """The game is not in a state that allows this request."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class GameNotStarted(StateConflict):
    """An action before every seat is taken."""


class GameFull(StateConflict):
    """A join when every seat is taken."""


class SeatTaken(StateConflict):
    """A join asking for a seat that is taken."""


class SeatReserved(StateConflict):
    """A join asking for a seat a rematch keeps for its previous player (cardroom.rematch)."""


class GameNotFinished(StateConflict):
    """A request that needs a finished game (a replay, a rematch)."""


class PreconditionFailed(Exception):
    """If-Match named an older version of the game."""


# The store's two refusals, which the table passes on as they are: Conflict (the game changes
# too fast: the table gave up after MAX_ATTEMPTS) and OutcomeUnknown (a write was sent and no
# answer came back). Its records (GameRecord) and watches (Watch) are the table's too.


# What an action may be refused for; on a recalled (unverified) game, checked on a fresh load.
_REFUSALS = (RuleError, Unauthorized, PreconditionFailed, StateConflict)


# The refusals of an action that its Idempotency-Key keeps (as Stripe's keys do), by name:
# a retry with the key gets the same refusal again, marked ``replayed``. A missing or wrong
# token is not kept: the key belongs to a seat, and nothing was judged.
_KEPT_REFUSALS: dict[str, type[Exception]] = {
    kind.__name__: kind
    for kind in (IllegalAction, NotYourTurn, GameOver, GameNotStarted, PreconditionFailed)
}


def kept_refusal(error: Exception) -> dict[str, Any] | None:
    """A refusal as its Idempotency-Key keeps it, or None if it is not kept."""
    kind = type(error).__name__
    if _KEPT_REFUSALS.get(kind) is not type(error):
        return None
    kept = {"refusal": kind, "message": getattr(error, "message", str(error))}
    for name in ("rule", "field"):
        if getattr(error, name, None) is not None:
            kept[name] = getattr(error, name)
    return kept


def replayed_refusal(kept: dict[str, Any]) -> Exception:
    """The refusal a key kept, to raise again; its ``replayed`` is True."""
    kind = _KEPT_REFUSALS[kept["refusal"]]
    error: Exception
    if issubclass(kind, RuleError):
        error = kind(kept["message"], rule=kept.get("rule"), field=kept.get("field"))
    elif issubclass(kind, StateConflict):
        error = kind(kept["message"])
    else:
        error = kind()
    error.replayed = True  # type: ignore[attr-defined]
    return error


@dataclass
class ActionOutcome:
    status: int
    body: dict[str, Any]
    replayed: bool = False


Clock = Callable[[], float]


# Where orjson may write otherwise than the stdlib, found in its output: any float (a dot, or
# an exponent: it writes 1e-05 as 0.00001 or 1e-5), and null, which is also how it writes
# NaN and the infinities. Text with a dot in it is left to the stdlib too: slower, the same.
_NOT_STDLIB = re.compile(rb"[.]|[0-9][eE]|null")


def sorted_json(value: Any) -> bytes:
    """``json.dumps(value, sort_keys=True, separators=(",", ":")).encode()``, the bytes an
    Idempotency-Key's body digest is taken of, made by orjson when they are the same (ASCII
    text, nothing ``_NOT_STDLIB`` finds, no integer beyond 64 bits), else by the stdlib: a
    key stored by any release matches a retry served by any other."""
    try:
        out = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, a key not a str
        out = b""
    if out and out.isascii() and b"\x7f" not in out and _NOT_STDLIB.search(out) is None:
        return out
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def etag_for(record: GameRecord, seat: int | None, rev: int | None = None) -> str:
    """The ETag of ``seat``'s view: it changes whenever the game is written."""
    basis = f"{record.id}:{record.rev if rev is None else rev}:{'-' if seat is None else seat}"
    return hashlib.sha1(basis.encode()).hexdigest()[:20]


class Tables:
    def __init__(
        self,
        store: GameStore,
        clock: Clock = time.time,
        history: History | None = None,
        bot_budget: BotBudget | None = None,
    ):
        self.store = store
        self.clock = clock
        self.history = history or History()
        self.bot_budget = bot_budget or BotBudget()
        self.turns = GameTurns()

    # --- game types ---------------------------------------------------------------------

    @staticmethod
    def game_types() -> list[dict[str, Any]]:
        described = []
        for game in registry().values():
            entry = game.describe()
            entry["bot_policies"] = list(policies(game.game_type))
            described.append(entry)
        return described

    # --- create, join -------------------------------------------------------------------

    def create(
        self,
        game_type: str,
        players: int,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        bots: list[dict[str, Any]] | None = None,
    ) -> GameRecord:
        try:
            game = get_game(game_type)
        except KeyError:
            known = ", ".join(sorted(registry()))
            raise InvalidRequest(
                f"unknown game type {game_type!r}; known: {known}", "game_type"
            ) from None
        try:
            full_options = game.validate_options(players, options)
        except InvalidOptions as error:
            raise InvalidRequest(error.message, error.field) from None
        seats: list[dict[str, Any]] = [{"name": None, "bot": None} for _ in range(players)]
        for index, bot in enumerate(bots or []):
            seat, policy = bot["seat"], bot["policy"]
            where = f"bots.{index}.seat"
            if not 0 <= seat < players:
                raise InvalidRequest(f"seat {seat} does not exist (0 to {players - 1})", where)
            if seats[seat]["bot"] is not None:
                raise InvalidRequest(f"seat {seat} is given two bots", where)
            try:
                get_policy(policy, game_type)
            except KeyError:
                known = ", ".join(policies(game_type))
                raise InvalidRequest(
                    f"unknown bot policy {policy!r} for {game.title}; known: {known}",
                    f"bots.{index}.policy",
                ) from None
            seats[seat] = {"name": None, "bot": policy}
        _name_bots(seats)
        seed_chosen = seed is not None
        if seed is None:
            seed = secrets.randbelow(2**53)
        now = self.clock()
        record = GameRecord(
            id=new_game_id(),  # in a random bucket: cardroom.store.buckets
            game_type=game_type,
            players=players,
            options=full_options,
            seed=seed,
            seed_chosen=seed_chosen,
            seats=seats,
            state=game.new_game(players, full_options, seed),
            created_at=now,
            updated_at=now,
            logged_ms=steps.clock_ms(now),
        )
        steps.begin(record)
        if record.status == "active":
            self._run_bots(record, game, steps.time_for(record, now), self._spending())
        self._schedule_due_work(record, game, now)
        self.store.create(record)
        return record

    def join(
        self, game_id: str, name: str, seat: int | None, token: str | None = None
    ) -> tuple[GameRecord, int, str]:
        """Take a free seat. A seat a rematch reserved (cardroom.rematch) is taken only with
        ``token``, the token that held it in the previous game."""
        new_token = secrets.token_urlsafe(32)
        for _ in range(MAX_ATTEMPTS):
            record = self._load(game_id).record
            free = [i for i, entry in enumerate(record.seats) if entry["name"] is None]
            mine = _reserved_for(record, token)
            open_seats = [i for i in free if not record.seats[i].get("reserved") or i == mine]
            if seat is not None:
                if not 0 <= seat < record.players:
                    raise InvalidRequest(
                        f"seat {seat} does not exist (0 to {record.players - 1})", "seat"
                    )
                if seat not in free:
                    raise SeatTaken(f"seat {seat} is taken")
                if seat not in open_seats:
                    raise SeatReserved(
                        f"seat {seat} is kept for its player in the previous game: join it "
                        "with that game's token"
                    )
                chosen = seat
            elif mine is not None and mine in free:
                chosen = mine
            elif open_seats:
                chosen = open_seats[0]
            elif free:
                raise SeatReserved("every free seat is kept for a player of the previous game")
            else:
                raise GameFull("every seat of this game is taken")
            now = self.clock()
            record.updated_at = now
            ms = steps.time_for(record, now)
            steps.take_seat(record, chosen, name, ms)
            game = get_game(record.game_type)
            if record.status == "active":
                self._run_bots(record, game, ms, self._spending())
            self._schedule_due_work(record, game, now)
            try:
                self.store.commit(record, token=(chosen, new_token))
            except Conflict:
                continue
            return record, chosen, new_token
        raise Conflict(game_id)

    # --- reading ------------------------------------------------------------------------

    def summary(self, game_id: str) -> dict[str, Any]:
        return self.summarise(self._fresh(game_id))

    def summarise(self, record: GameRecord) -> dict[str, Any]:
        game = get_game(record.game_type)
        finished = record.status == "finished"
        return {
            "id": record.id,
            "game_type": record.game_type,
            "status": record.status,
            "players": record.players,
            "seats": self._seats(record, game),
            "options": self._public_options(game, record),
            "version": record.version,
            "scores": game.scores(record.state),
            "to_act": sorted(game.to_act(record.state)) if record.status == "active" else [],
            "result": game.result(record.state),
            "deal": self.deal(game, record),
            "seed": record.seed if finished else None,
            "rematch": record.rematch,
            "created_at": record.created_at,
            "updated_at": record.updated_at,
        }

    def list_games(
        self, game_type: str | None, status: str | None, before: int | None, limit: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of the listing (``GameStore.page``): the summaries of up to ``limit`` games
        of ``game_type`` and ``status`` (None: any), newest first, placed before ``before``,
        and where the next page starts (None: no next page)."""

        def wanted(record: GameRecord) -> bool:
            return game_type in (None, record.game_type) and status in (None, record.status)

        records, after = self.store.page(before, limit, wanted)
        return [self.summarise(record) for record in records], after

    def open(self, game_id: str, token: str | None) -> tuple[GameRecord, int | None]:
        """The game as ``token``'s seat sees it (``None``: a spectator), deadlines settled."""
        record = self._fresh(game_id)
        seat = self._authenticate(record, token) if token is not None else None
        return record, seat

    def snapshot(self, game_id: str, heard: int | None = None) -> GameRecord:
        """The game as stored now, for reading only: this process's kept copy when it is at
        least at revision ``heard`` (what a watch heard of), else one load shared by the
        followers asking at once (``GameStore.snapshot``). A passed deadline or bot play
        left due is settled first, as by any read (``_fresh``)."""
        try:
            record = self.store.snapshot(game_id, heard)
        except Gone:
            raise NotFound(game_id) from None
        if self.unsettled(record):
            return self._fresh(game_id)
        return record

    def unsettled(self, record: GameRecord) -> bool:
        """A read of this game has work to do first: a passed deadline, or bots to play."""
        if record.status != "active":
            return False
        game = get_game(record.game_type)
        deadline = game.deadline(record.state)
        if deadline is not None and self.clock() >= deadline:
            return True
        return self._bots_pending(record, game)

    def view_after(
        self, game_id: str, token: str | None, seen: Callable[[str], bool], wait: float
    ) -> tuple[GameRecord, int | None]:
        """The game as ``token``'s seat sees it, once its view's ETag is not one ``seen``
        (the caller's If-None-Match), waiting up to ``wait`` seconds for a write. The
        record is for reading only (``snapshot``): views of one write share its parts."""
        record = self.snapshot(game_id)
        seat = self._authenticate(record, token) if token is not None else None
        if wait <= 0 or not seen(etag_for(record, seat)):
            return record, seat
        ends = self.clock() + wait
        with self.store.watch(game_id) as watch:
            record = self.snapshot(game_id)  # looked at again once watched
            while seen(etag_for(record, seat)) and (left := ends - self.clock()) > 0:
                self.wait_on(watch, record, left)
                record = self.snapshot(game_id, watch.heard)
        return record, seat

    def watch(self, game_id: str) -> AbstractContextManager[Watch]:
        """Watch a game's writes (``GameStore.watch``): read it after this began, and wait
        for the next write with ``wait_on``."""
        return self.store.watch(game_id)

    def wait_on(self, watch: Watch, record: GameRecord, seconds: float) -> bool:
        """Wait until ``watch`` hears of a write or ``seconds`` pass, at most until the game's
        timed window closes (the next read settles it). True if a write was heard."""
        if record.status == "active":
            deadline = get_game(record.game_type).deadline(record.state)
            if deadline is not None:
                seconds = min(seconds, max(0.0, deadline - self.clock()) + 0.01)
        return watch.wait(seconds)

    def shape_view(self, record: GameRecord, seat: int | None) -> dict[str, Any]:
        game = get_game(record.game_type)
        shared = self._view_parts(record, game)
        you = game.private_view(record.state, seat)
        to_act = shared["to_act"]
        legal = game.legal_actions(record.state, seat) if seat in to_act else []
        return {
            "game_id": record.id,
            "game_type": record.game_type,
            "status": record.status,
            "version": record.version,
            "last_seq": record.seq,
            "to_act": to_act,
            "awaiting": shared["awaiting"],
            "you": you,
            "legal_actions": legal,
            "deadline": shared["deadline"],
            "clock": shared["clock"],
            "rematch": shared["rematch"],
            "result": shared["result"],
            "deal": shared["deal"],
            "seats": shared["seats"],
            "scores": shared["scores"],
            "options": shared["options"],
            "public": shared["public"],
        }

    def _view_parts(self, record: GameRecord, game: Game) -> dict[str, Any]:
        """What every seat's view of this version shares, made once per record and version:
        the followers of a game in this process read one record (``snapshot``), so each
        change shapes these once, not once per seat. Shared between views: never changed."""
        # Every step adds an event; a rematch is named by a write that adds none.
        mark = (record.version, record.seq, record.status, record.rematch)
        cached = record.view_parts
        if cached is not None and cached[0] == mark:
            return cached[1]
        active = record.status == "active"
        parts = {
            "to_act": sorted(game.to_act(record.state)) if active else [],
            "awaiting": sorted(game.awaiting(record.state)) if active else [],
            "deadline": game.deadline(record.state) if active else None,
            "clock": game.clock_view(record.state) if active else None,
            "rematch": record.rematch,
            "result": game.result(record.state),
            "deal": self.deal(game, record),
            "seats": self._seats(record, game),
            "scores": game.scores(record.state),
            "options": self._public_options(game, record),
            "public": game.public_view(record.state),
        }
        record.view_parts = (mark, parts)
        return parts

    def events(
        self, game_id: str, token: str | None, after: int, wait: float, limit: int
    ) -> tuple[int | None, list[dict[str, Any]], int]:
        record = self._fresh(game_id)
        seat = self._authenticate(record, token) if token is not None else None
        if record.seq <= after and wait > 0:
            ends = self.clock() + wait
            with self.store.watch(game_id) as watch:
                record = self.snapshot(game_id)  # looked at again once watched
                while record.seq <= after and (left := ends - self.clock()) > 0:
                    self.wait_on(watch, record, left)
                    record = self.snapshot(game_id, watch.heard)
        raw = self.history.events_after(record, after, limit)
        last = raw[-1]["seq"] if raw else max(after, 0)
        visible = [shown for event in raw if (shown := redact_event(event, seat)) is not None]
        return seat, visible, last

    def stream(
        self, game_id: str, token: str | None, after: int, heartbeat: float, lifetime: float
    ) -> tuple[int | None, Iterator[tuple[int, dict[str, Any]] | None]]:
        """Events after ``after`` as they happen, redacted for the caller.

        Yields ``(seq, event)``, or ``None`` as a heartbeat when ``heartbeat`` seconds pass
        quietly. Ends once the game is finished and every event is out, or after
        ``lifetime`` seconds (the client resumes with Last-Event-ID).
        """
        record = self._fresh(game_id)
        seat = self._authenticate(record, token) if token is not None else None

        def generate() -> Iterator[tuple[int, dict[str, Any]] | None]:
            cursor = after
            ends = self.clock() + lifetime
            with self.store.watch(game_id) as watch:
                current = self.snapshot(game_id)  # looked at again once watched
                while True:
                    raw = self.history.events_after(current, cursor, 200)
                    for event in raw:
                        cursor = event["seq"]
                        shown = redact_event(event, seat)
                        if shown is not None:
                            yield cursor, shown
                    if raw:
                        continue
                    if current.status == "finished" or self.clock() >= ends:
                        return
                    woken = self.wait_on(watch, current, heartbeat)
                    current = self.snapshot(game_id, watch.heard)
                    if not woken and current.seq <= cursor:
                        yield None  # a quiet spell: the heartbeat

        return seat, generate()

    # --- finished games -----------------------------------------------------------------

    def replay(self, game_id: str) -> dict[str, Any]:
        """A finished game, step by step (``cardroom.replays``); before it ends, refused."""
        record = self._fresh(game_id)
        if record.status != "finished":
            raise GameNotFinished("a replay is shown once the game is finished")
        return replays.build(record)

    def rematch(self, game_id: str, token: str | None) -> GameRecord:
        """The rematch of a finished game, asked for by one of its seats (``cardroom.rematch``):
        created on the first ask, the same game on every ask after it."""
        for _ in range(MAX_ATTEMPTS):
            old = self._fresh(game_id)
            self._authenticate(old, token)
            if old.status != "finished":
                raise GameNotFinished("a rematch is offered once the game is finished")
            if old.rematch is None:
                old.rematch = new_game_id()
                try:
                    self.store.commit(old)
                except Conflict:
                    continue
            try:
                return self.store.load(old.rematch).record
            except Gone:
                pass  # named, not created yet
            with suppress(Conflict):  # another ask created it first
                self.store.commit(rematch.new_game(old, self.clock()), create=True)
            return self._load(old.rematch).record
        raise Conflict(game_id)

    # --- acting -------------------------------------------------------------------------

    def act(
        self,
        game_id: str,
        token: str | None,
        action: dict[str, Any],
        if_match: set[str] | None = None,
        idempotency: str | None = None,
    ) -> ActionOutcome:
        idem_key = body_digest = None
        if idempotency:
            idem_key = idempotency_key(game_id, token or "", idempotency)
            body_digest = hashlib.sha256(sorted_json(action)).hexdigest()
        # After the actions on this game already running here (cardroom.turns): this one then
        # starts from the game they wrote, not from a game they are about to change.
        with self.turns.turn(game_id):
            # The game as this process last saw it is tried first, without a load: the commit
            # proves it current (and finds a stored answer for the Idempotency-Key), and a
            # refusal is checked again on a fresh load.
            record = self.store.recall(game_id)
            guessed = record is not None
            for _ in range(MAX_ATTEMPTS):
                if record is None:
                    loaded = self._load(game_id, idem_key, acting=True)
                    record, guessed = loaded.record, False
                    if loaded.idempotent_answer is not None:
                        self._authenticate(record, token)
                        return self._replay_answer(
                            game_id, loaded.idempotent_answer, body_digest, record
                        )
                try:
                    return self._act_on(record, token, action, if_match, idem_key, body_digest)
                except Conflict as conflict:
                    record, guessed = conflict.current, False  # written since: as it is now
                except Answered as answered:
                    return self._replay_answer(game_id, answered.stored, body_digest)
                except Gone:
                    raise NotFound(game_id) from None
                except _REFUSALS as refusal:
                    kept = kept_refusal(refusal) if idem_key else None
                    if guessed and kept is None:
                        record = None
                        continue
                    if kept is None:
                        raise
                    # As Stripe's keys do, the key keeps its first answer, a refusal too: the
                    # same key can never apply the action later. Stored only if the game is
                    # still the one judged (a guessed game too: the write proves it current);
                    # if not, the action is judged again on the new one.
                    try:
                        self.store.remember_refusal(
                            record, idem_key or "", {"body": body_digest, **kept}
                        )
                    except Conflict as conflict:
                        record, guessed = conflict.current, False
                        continue
                    except Answered as answered:
                        return self._replay_answer(game_id, answered.stored, body_digest)
                    except Gone:
                        raise NotFound(game_id) from None
                    except OutcomeUnknown:
                        if guessed:  # judged on a guess that no write proved current
                            record = None
                            continue
                        # Judged on the game as loaded: the refusal is certain, nothing applied.
                    raise refusal from None
            raise Conflict(game_id)

    def _act_on(
        self,
        record: GameRecord,
        token: str | None,
        action: dict[str, Any],
        if_match: set[str] | None,
        idem_key: str | None,
        body_digest: str | None,
    ) -> ActionOutcome:
        """One attempt: authenticate, rule, let bots answer, commit (Conflict if stale)."""
        seat = self._authenticate(record, token)
        # An empty set is an If-Match of weak tags only: they never match (RFC 9110 §13.1.1).
        if if_match is not None and "*" not in if_match and etag_for(record, seat) not in if_match:
            raise PreconditionFailed()
        game = get_game(record.game_type)
        now = self.clock()
        ms = steps.time_for(record, now)
        spending = self._spending()
        if (
            self._expire(record, game, ms, spending)
            and if_match is not None
            and "*" not in if_match
        ):
            # A deadline passed (or bots moved) since the view If-Match names: the action was
            # decided on a game that is no longer current.
            raise PreconditionFailed()
        if record.status == "waiting":
            raise GameNotStarted("the game waits for players to join")
        if record.status == "finished":
            raise GameOver("the game is over")
        before = record.seq
        events = steps.act(record, game, seat, action, ms)
        events += self._run_bots(record, game, ms, spending)
        # An away seat's turn that this action began is not waited for (MT-17, EP-19).
        events += self._expire(record, game, ms, spending)
        record.updated_at = now
        self._schedule_due_work(record, game, now)
        shown = [
            redacted
            for event in events
            if event["seq"] > before and (redacted := redact_event(event, seat)) is not None
        ]
        if idem_key is None:
            self.store.commit(record, final=True)
            return ActionOutcome(200, self._action_answer(record, seat, shown))
        # The answer is stored with the action, so it is made first, with the ETag of the
        # version the commit makes (rev + 1). Its view, the bulk of it, is not stored: a
        # replay makes it again from the game's log (``_answered_view``).
        answer = self._action_answer(record, seat, shown, rev=record.rev + 1)
        stored = {
            "body": body_digest,
            "status": 200,
            "seat": seat,
            "seq": record.seq,
            "etag": answer["view"]["etag"],
            "response": {"version": answer["version"], "events": shown},
        }
        self.store.commit(record, idempotency=(idem_key, stored), final=True)
        return ActionOutcome(200, answer)

    def _action_answer(
        self, record: GameRecord, seat: int, events: list[dict[str, Any]], rev: int | None = None
    ) -> dict[str, Any]:
        view = self.shape_view(record, seat)
        view["etag"] = etag_for(record, seat, rev)
        return {"version": record.version, "events": events, "view": view}

    def _replay_answer(
        self,
        game_id: str,
        stored: dict[str, Any],
        body_digest: str | None,
        loaded: GameRecord | None = None,
    ) -> ActionOutcome:
        """An Idempotency-Key's first answer again (``loaded``: the game, if just loaded)."""
        if stored["body"] != body_digest:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was used with another request body", "Idempotency-Key"
            )
        if "refusal" in stored:
            raise replayed_refusal(stored)
        response = stored["response"]
        if "view" not in response:
            view = self._answered_view(loaded or self._load(game_id).record, stored)
            response = {**response, "view": view}
        return ActionOutcome(stored["status"], response, replayed=True)

    def _answered_view(self, record: GameRecord, stored: dict[str, Any]) -> dict[str, Any]:
        """The view an accepted action answered with, made again from the game's log: a view
        is made from the record alone, and the log rebuilds the record as the action left
        it, so it is the first view byte for byte (docs/architecture.md, "An action's path")."""
        then = steps.as_it_was(record, stored["seq"])
        if then is None:  # not this game's past: the game was replaced since (a restore)
            raise NotFound(record.id)
        view = self.shape_view(then, stored["seat"])
        view["etag"] = stored["etag"]
        return view

    def come_back(self, game_id: str, token: str | None) -> tuple[GameRecord, int]:
        """The token's seat is back from being away (MT-17, EP-19): the game waits for it
        again. Nothing changes for a seat that is not away."""
        for _ in range(MAX_ATTEMPTS):
            record = self._fresh(game_id)
            seat = self._authenticate(record, token)
            if record.status != "active":
                return record, seat
            game = get_game(record.game_type)
            now = self.clock()
            if not steps.come_back(record, game, seat, steps.time_for(record, now)):
                return record, seat
            if self._write_change(record, game, now):
                return record, seat
        raise Conflict(game_id)

    # --- internals ----------------------------------------------------------------------

    def _load(self, game_id: str, idempotency: str | None = None, acting: bool = False) -> Loaded:
        try:
            return self.store.load(game_id, idempotency, acting)
        except Gone:
            raise NotFound(game_id) from None

    def _fresh(self, game_id: str) -> GameRecord:
        """The game, with any passed deadline resolved first (lazily, MT-14), and bot play
        that an earlier request's budget left over continued (within this one's budget)."""
        for _ in range(MAX_ATTEMPTS):
            record = self._load(game_id).record
            game = get_game(record.game_type)
            now = self.clock()
            ms = steps.time_for(record, now)
            spending = self._spending()
            before = record.version
            self._expire(record, game, ms, spending)
            if self._bots_pending(record, game):
                self._run_bots(record, game, ms, spending)
            if record.version == before:
                return record
            try:
                if not self._write_change(record, game, now):
                    continue
            except OutcomeUnknown as unknown:
                # A read's own write (a deadline, bot play) was lost in the store: to the
                # reader that is the store being unavailable, nothing it asked for.
                raise unknown.__cause__ or unknown from None
            return record
        raise Conflict(game_id)

    def _write_change(self, record: GameRecord, game: Game, now: float) -> bool:
        """Write what this request changed in the game (due work entered first); False if
        the game was written since it was loaded (the caller loads it again)."""
        record.updated_at = now
        self._schedule_due_work(record, game, now)
        try:
            self.store.commit(record)
        except Conflict:
            return False
        return True

    def _expire(
        self, record: GameRecord, game: Game, ms: int, spending: _Spending
    ) -> list[dict[str, Any]]:
        """Resolve passed deadlines (a reaction window, MT-14; a turn clock, MT-17/EP-19),
        one logged step each, and let bots answer, within the request's bot budget: each
        timeout counts as a bot action (what is left is due work)."""
        events: list[dict[str, Any]] = []
        while record.status == "active" and not spending.exhausted():
            deadline = game.deadline(record.state)
            if deadline is None or ms / 1000 < deadline:
                break
            produced = steps.expire(record, game, ms)
            if not produced:
                break
            spending.actions += 1
            events += produced
            events += self._run_bots(record, game, ms, spending)
        return events

    def _spending(self) -> _Spending:
        return _Spending(self.bot_budget)

    def _run_bots(
        self, record: GameRecord, game: Game, ms: int, spending: _Spending
    ) -> list[dict[str, Any]]:
        """Play the bot seats that are to act, until a person must act, the game ends or the
        request's bot budget is spent (what is left is due work: ``_schedule_due_work``)."""
        events: list[dict[str, Any]] = []
        bot_seats = _bot_seats(record, game)
        if not bot_seats:
            return events
        while not spending.exhausted():
            seat = next_bot_seat(game, record.state, bot_seats)
            if seat is None:
                break
            policy = get_policy(bot_seats[seat], record.game_type)
            rng = random.Random(f"{record.seed}:{record.version}:{seat}")
            action = choose(game, record.state, seat, policy, rng)
            events += steps.act(record, game, seat, action, ms)
            spending.actions += 1
        return events

    @staticmethod
    def _bots_pending(record: GameRecord, game: Game) -> bool:
        """Bots have moves to make now (a request's budget ran out before they were done)."""
        if record.status != "active":
            return False
        bot_seats = _bot_seats(record, game)
        return bool(bot_seats) and next_bot_seat(game, record.state, bot_seats) is not None

    def due_time(self, record: GameRecord) -> float | None:
        """When the game next has work that must happen with no request (None: none).

        Bot play left over by a request's budget is due at once; a deadline (a timed
        reaction window, a turn clock) when it passes. Before the commit that leaves such
        work, ``_schedule_due_work`` enters the game in the due set.
        """
        return self._due(record, get_game(record.game_type), self.clock())

    def _due(self, record: GameRecord, game: Game, now: float) -> float | None:
        if record.status != "active":
            return None
        if self._bots_pending(record, game):
            return now
        return game.deadline(record.state)

    def _schedule_due_work(self, record: GameRecord, game: Game, now: float) -> None:
        """Enter the game in the due set if bots still have moves to make or a deadline is
        set (before the commit that leaves them: an entry without work costs a load, a
        missing one a stalled game)."""
        due = self._due(record, game, now)
        if due is not None:
            self.store.due.schedule(record.id, due)

    def advance(self, game_id: str) -> tuple[int, float | None]:
        """Do a game's due work, as a request would (the progression loop calls this).

        Returns the game's revision as judged and when it is next due (None: nothing due).
        """
        record = self._fresh(game_id)
        return record.rev, self.due_time(record)

    # --- the store's Redis ----------------------------------------------------------------

    def storage_health(self) -> dict[str, Any]:
        """Whether the game store's Redis answers (``GameStore.health``): ``{}``, with
        ``cluster`` on a Redis Cluster; ``error`` (the error's class name) if it does not."""
        return self.store.health()

    def counter_storage(
        self, uri: str, *, pool_size: int, socket_timeout: float, shared: bool
    ) -> Callable[[], Storage]:
        """The rate limits' counters (the ``limits`` library's storage) on ``uri``;
        ``shared``: ``uri`` is the game store's Redis, whose connection pool they share
        (``cardroom.store.connection.counter_storage``)."""
        sharing = self.store.client if shared else None
        return counter_storage(
            uri, pool_size=pool_size, socket_timeout=socket_timeout, sharing=sharing
        )

    def authenticate(self, record: GameRecord, token: str | None) -> int:
        """The seat whose token this is; Unauthorized if none."""
        return self._authenticate(record, token)

    def _authenticate(self, record: GameRecord, token: str | None) -> int:
        if not token:
            raise Unauthorized("this request needs a seat token: Authorization: Bearer <token>")
        seat = record.seat_for_token(token)
        if seat is None:
            raise Unauthorized("the token is not a seat token of this game")
        return seat

    @staticmethod
    def _seats(record: GameRecord, game: Game) -> list[dict[str, Any]]:
        away = game.away_seats(record.state) if record.status == "active" else set()
        return [
            {
                "seat": index,
                "name": entry["name"],
                "bot": entry["bot"],
                "taken": entry["name"] is not None,
                "away": index in away,
                "reserved": entry["name"] is None and bool(entry.get("reserved")),
            }
            for index, entry in enumerate(record.seats)
        ]

    @staticmethod
    def deal(game: Game, record: GameRecord) -> str:
        """How the cards were dealt, for everyone to see from the start (docs/api.md):
        ``stacked`` (the creator set the deck), ``seeded`` (the creator chose the seed, so
        may know every hand) or ``random`` (the server's secret seed: nobody knows them)."""
        if any(
            spec.secret and record.options.get(spec.name) is not None for spec in game.option_specs
        ):
            return "stacked"
        return "seeded" if record.seed_chosen else "random"

    @staticmethod
    def _public_options(game: Game, record: GameRecord) -> dict[str, Any]:
        """Options as everyone may see them: a stacked deck shows as "stacked" until the end."""
        if record.status == "finished":
            return record.options
        secret = {spec.name for spec in game.option_specs if spec.secret}
        return {
            name: (STACKED if name in secret and value is not None else value)
            for name, value in record.options.items()
        }


def _reserved_for(record: GameRecord, token: str | None) -> int | None:
    """The free seat a rematch keeps for ``token`` (its seat in the previous game), if any."""
    if not token:
        return None
    digest = hash_token(token)
    for seat, entry in enumerate(record.seats):
        kept = entry.get("reserved")
        if entry["name"] is None and kept and hmac.compare_digest(kept, digest):
            return seat
    return None


def _name_bots(seats: list[dict[str, Any]]) -> None:
    """Give each bot seat a distinct name a person can tell apart: "Greedy bot", or "Greedy
    bot 1", "Greedy bot 2"… when several seats play the same policy."""
    playing = Counter(entry["bot"] for entry in seats if entry["bot"])
    numbered: Counter[str] = Counter()
    for entry in seats:
        policy = entry["bot"]
        if not policy:
            continue
        numbered[policy] += 1
        name = f"{policy.replace('_', ' ').capitalize()} bot"
        entry["name"] = f"{name} {numbered[policy]}" if playing[policy] > 1 else name


def _bot_seats(record: GameRecord, game: Game) -> dict[int, str]:
    """The seats the server plays, with their policies: bot seats, and away seats when the
    game's ``away_bot`` option names a policy (games/clock.py)."""
    seats = {seat: entry["bot"] for seat, entry in enumerate(record.seats) if entry["bot"]}
    policy = record.options.get("away_bot")
    if policy and game.away_bot(record.state):
        for seat in game.away_seats(record.state):
            seats.setdefault(seat, policy)
    return seats


__all__ = [
    "ActionOutcome",
    "BotBudget",
    "Conflict",
    "GameFull",
    "GameNotFinished",
    "GameNotStarted",
    "GameRecord",
    "IdempotencyKeyReused",
    "InvalidRequest",
    "NotFound",
    "NotYourTurn",
    "OutcomeUnknown",
    "PreconditionFailed",
    "SeatReserved",
    "SeatTaken",
    "StateConflict",
    "Tables",
    "Unauthorized",
    "Watch",
    "etag_for",
]
