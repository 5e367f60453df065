"""An Idempotency-Key's first answer, kept and given again (docs/api.md, Idempotency-Key).

An accepted action keeps its status, seat, events and the log position it left; its view is
made again from the game's log on a retry. A refusal is kept by name (as Stripe's keys do):
a retry with the key gets the same refusal again, marked ``replayed``. A missing or wrong
token is not kept: the key belongs to a seat, and nothing was judged.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import orjson

from cardroom.jsonbytes import orjson_if_stdlib
from cardroom.kit.base import GameOver, IllegalAction, NotYourTurn, RuleError
from cardroom.store import GameRecord
from cardroom.table import steps
from cardroom.table.errors import (
    GameNotStarted,
    IdempotencyKeyReused,
    NotFound,
    PreconditionFailed,
    StateConflict,
)
from cardroom.table.views import shape_view

_KEPT_REFUSALS: dict[str, type[Exception]] = {
    kind.__name__: kind
    for kind in (IllegalAction, NotYourTurn, GameOver, GameNotStarted, PreconditionFailed)
}

# Where orjson may write otherwise than the stdlib, found in its output: any float (a dot, or
# an exponent: it writes 1e-05 as 0.00001 or 1e-5), and null, which is also how it writes
# NaN and the infinities. Text with a dot in it is left to the stdlib too: slower, the same.
_NOT_STDLIB = re.compile(rb"[.]|[0-9][eE]|null")


def sorted_json(value: Any) -> bytes:
    """``json.dumps(value, sort_keys=True, separators=(",", ":")).encode()``, the bytes an
    Idempotency-Key's body digest is taken of, made by orjson when they are the same
    (``cardroom.jsonbytes``, and nothing ``_NOT_STDLIB`` finds), else by the stdlib: a
    key stored by any release matches a retry served by any other."""
    out = orjson_if_stdlib(value, option=orjson.OPT_SORT_KEYS)
    if out is not None and _NOT_STDLIB.search(out) is None:
        return out
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def body_digest(action: dict[str, Any]) -> str:
    """What a retry's body must match: the digest of the action's canonical JSON."""
    return hashlib.sha256(sorted_json(action)).hexdigest()


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


def check_same_body(stored: dict[str, Any], digest: str | None) -> None:
    """A key sent again must come with the same body; its kept refusal is raised again."""
    if stored["body"] != digest:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used with another request body", "Idempotency-Key"
        )
    if "refusal" in stored:
        raise replayed_refusal(stored)


def kept_answer(
    seat: int, seq: int, etag: str, version: int, events: list[dict[str, Any]], digest: str
) -> dict[str, Any]:
    """What the key keeps of an accepted action (its view is not kept: ``answered_view``)."""
    return {
        "body": digest,
        "status": 200,
        "seat": seat,
        "seq": seq,
        "etag": etag,
        "response": {"version": version, "events": events},
    }


def answered_view(record: GameRecord, stored: dict[str, Any]) -> dict[str, Any]:
    """The view an accepted action answered with, made again from the game's log: a view
    is made from the record alone, and the log rebuilds the record as the action left
    it, so it is the first view byte for byte (docs/architecture.md, "An action's path")."""
    then = steps.as_it_was(record, stored["seq"])
    if then is None:  # not this game's past: the game was replaced since (a restore)
        raise NotFound(record.id)
    view = shape_view(then, stored["seat"])
    view["etag"] = stored["etag"]
    return view
