"""An action, from its request to its answer (docs/architecture.md, "An action's path").

``act`` reads top to bottom as the stages of a move: load, authenticate, answered before,
If-Match, settle, rule, bots, commit, answer. Each stage is a function below it.

Concurrency, told once: actions of one game in this process take turns (table/turns.py);
processes race, and the store's compare-and-set settles it. An attempt that loses the race
(``Again``) runs once more on the game as the store has it now, so an action is never lost,
merged or applied twice. The first attempt may start from the game this process kept
(``GameStore.recall``), without a load: the commit proves that guess current like any read,
and a refusal judged on a guess is judged again on a fresh load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardroom.kit.base import Game, GameOver, RuleError, redact_event
from cardroom.registry import get_game
from cardroom.store import Answered, GameRecord, Gone, idempotency_key
from cardroom.table import steps
from cardroom.table.access import authenticate
from cardroom.table.bot_play import Spending, play_bots
from cardroom.table.context import Context
from cardroom.table.envelopes import ACTION_RESULT
from cardroom.table.errors import (
    MAX_ATTEMPTS,
    Conflict,
    GameNotStarted,
    NotFound,
    OutcomeUnknown,
    PreconditionFailed,
    StateConflict,
    Unauthorized,
)
from cardroom.table.idempotency import (
    answered_view,
    body_digest,
    check_same_body,
    kept_answer,
    kept_refusal,
)
from cardroom.table.settling import expire, schedule_due_work
from cardroom.table.views import etag_for, shape_view

# What an action may be refused for; on a guessed (kept, unproven) game, judged again.
REFUSALS = (RuleError, Unauthorized, PreconditionFailed, StateConflict)


@dataclass
class ActionOutcome:
    status: int
    body: dict[str, Any]
    replayed: bool = False


@dataclass(frozen=True)
class Move:
    """One action as asked: the seat's token, the action, If-Match's tags (None: no header;
    empty: weak tags only, which never match, RFC 9110 §13.1.1) and the Idempotency-Key's
    storage key and the body's digest (None: no key)."""

    game_id: str
    token: str | None
    action: dict[str, Any]
    if_match: set[str] | None
    key: str | None
    digest: str | None


class Again(Exception):
    """The attempt lost a race: run it again on ``record`` (None: on a fresh load)."""

    def __init__(self, record: GameRecord | None):
        self.record = record


def act(
    ctx: Context,
    game_id: str,
    token: str | None,
    action: dict[str, Any],
    if_match: set[str] | None = None,
    idempotency: str | None = None,
) -> ActionOutcome:
    keyed = bool(idempotency)
    move = Move(
        game_id,
        token,
        action,
        if_match,
        idempotency_key(game_id, token or "", idempotency or "") if keyed else None,
        body_digest(action) if keyed else None,
    )
    with ctx.turns.turn(game_id):
        record, proven = ctx.store.recall(game_id), False
        for _ in range(MAX_ATTEMPTS):
            try:
                return attempt(ctx, move, record, proven)
            except Again as again:
                record, proven = again.record, again.record is not None
        raise Conflict(game_id)


def attempt(ctx: Context, move: Move, record: GameRecord | None, proven: bool) -> ActionOutcome:
    """One try at the move, on ``record`` (None: load it); ``proven``: not a guess."""
    if record is None:
        record, answered = load(ctx, move)
        proven = True
        if answered is not None:
            authenticate(record, move.token)
            return answer_again(ctx, move, answered, record)
    game = get_game(record.game_type, record.rules_version)
    now = ctx.clock()
    ms = steps.time_for(record, now)
    spending = ctx.spending()
    try:
        seat = authenticate(record, move.token)
        check_if_match(record, seat, move.if_match)
        settle(record, game, ms, spending, move.if_match)
        events = rule(record, game, seat, move.action, ms)
    except REFUSALS as refusal:
        return refuse(ctx, move, record, proven, refusal)
    events += bots(record, game, ms, spending)
    record.updated_at = now
    schedule_due_work(ctx, record, game, now)
    return commit(ctx, move, record, seat, events)


def load(ctx: Context, move: Move) -> tuple[GameRecord, dict[str, Any] | None]:
    """The game, and the answer its Idempotency-Key kept if the key was used before."""
    loaded = ctx.load(move.game_id, move.key, acting=True)
    return loaded.record, loaded.idempotent_answer


def check_if_match(record: GameRecord, seat: int, if_match: set[str] | None) -> None:
    if if_match is not None and "*" not in if_match and etag_for(record, seat) not in if_match:
        raise PreconditionFailed()


def settle(
    record: GameRecord, game: Game, ms: int, spending: Spending, if_match: set[str] | None
) -> None:
    """Resolve passed deadlines first (and let bots answer them). If they changed the game,
    an If-Match naming a view is stale: the action was decided on a game no longer current."""
    if expire(record, game, ms, spending) and if_match is not None and "*" not in if_match:
        raise PreconditionFailed()


def rule(
    record: GameRecord, game: Game, seat: int, action: dict[str, Any], ms: int
) -> list[dict[str, Any]]:
    """The engine rules on the action (a RuleError names the rule it breaks)."""
    if record.status == "waiting":
        raise GameNotStarted("the game waits for players to join")
    if record.status == "finished":
        raise GameOver("the game is over")
    return steps.act(record, game, seat, action, ms)


def bots(record: GameRecord, game: Game, ms: int, spending: Spending) -> list[dict[str, Any]]:
    """Bot seats answer, then an away seat's turn this action began is not waited for
    (MT-17, EP-19), within the request's bot budget."""
    events = play_bots(record, game, ms, spending)
    return events + expire(record, game, ms, spending)


def commit(
    ctx: Context, move: Move, record: GameRecord, seat: int, events: list[dict[str, Any]]
) -> ActionOutcome:
    """Write the game (compare-and-set) with the key's answer, and answer."""
    shown = [redacted for event in events if (redacted := redact_event(event, seat)) is not None]
    try:
        if move.key is None or move.digest is None:
            ctx.store.commit(record, final=True)
            return ActionOutcome(200, answer(record, seat, shown))
        # The answer is kept with the action, so it is made first, with the ETag of the
        # version the commit makes (rev + 1). Its view, the bulk of it, is not kept: a
        # retry makes it again from the game's log (``answered_view``).
        body = answer(record, seat, shown, rev=record.rev + 1)
        kept = kept_answer(
            seat, record.seq, body["view"]["etag"], body["version"], shown, move.digest
        )
        ctx.store.commit(record, idempotency=(move.key, kept), final=True)
        return ActionOutcome(200, body)
    except Conflict as conflict:
        raise Again(conflict.current) from None
    except Answered as answered:  # the same key, committed by another attempt first
        return answer_again(ctx, move, answered.stored)
    except Gone:
        raise NotFound(move.game_id) from None


def answer(
    record: GameRecord, seat: int, events: list[dict[str, Any]], rev: int | None = None
) -> dict[str, Any]:
    """The action's answer: the new version, what the seat may see of its events, its view."""
    view = shape_view(record, seat)
    view["etag"] = etag_for(record, seat, rev)
    return ACTION_RESULT.checked({"version": record.version, "events": events, "view": view})


def refuse(
    ctx: Context, move: Move, record: GameRecord, proven: bool, refusal: Exception
) -> ActionOutcome:
    """Refuse the action: raises ``refusal`` once it is certain, kept by the Idempotency-Key
    if the key keeps it; a refusal judged on a guess is certain if the game is still the
    guess (``GameStore.confirm``), else judged again on a load (``Again``). If the key was
    answered meanwhile, that answer is given instead."""
    kept = kept_refusal(refusal) if move.key else None
    if kept is None:
        if not proven:
            confirmed = confirm(ctx, move, record, refusal)
            if confirmed is not None:
                return confirmed
        raise refusal
    # As Stripe's keys do, the key keeps its first answer, a refusal too: the same key can
    # never apply the action later. Kept only if the game is still the one judged (a guess
    # too: the write proves it current); if not, the action is judged again on the new one.
    try:
        ctx.store.remember_refusal(record, move.key or "", {"body": move.digest, **kept})
    except Conflict as conflict:
        raise Again(conflict.current) from None
    except Answered as answered:
        return answer_again(ctx, move, answered.stored)
    except Gone:
        raise NotFound(move.game_id) from None
    except OutcomeUnknown:
        if not proven:
            raise Again(None) from None
        # Judged on the game as loaded: the refusal is certain, nothing applied.
    raise refusal


def confirm(
    ctx: Context, move: Move, record: GameRecord, refusal: Exception
) -> ActionOutcome | None:
    """A refusal judged on a recalled game: None if the game as stored is that game (the
    refusal stands); the key's first answer if it has one; else ``Again`` (load and judge
    again). A wrong token is refused before any answer is given again, as after a load."""
    try:
        current, answered = ctx.store.confirm(record, move.key)
    except Gone:
        raise NotFound(move.game_id) from None
    if not current:
        raise Again(None)
    if answered is not None and not isinstance(refusal, Unauthorized):
        return answer_again(ctx, move, answered, record)
    return None


def answer_again(
    ctx: Context, move: Move, stored: dict[str, Any], loaded: GameRecord | None = None
) -> ActionOutcome:
    """The Idempotency-Key's first answer again (``loaded``: the game, if just loaded)."""
    check_same_body(stored, move.digest)
    response = stored["response"]
    if "view" not in response:
        view = answered_view(loaded or ctx.load(move.game_id).record, stored)
        response = ACTION_RESULT.checked({**response, "view": view})
    return ActionOutcome(stored["status"], response, replayed=True)
