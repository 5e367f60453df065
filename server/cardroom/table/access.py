"""Who may do what: a seat's token is the only key to its seat (tokens are stored hashed)."""

from __future__ import annotations

import hmac

from cardroom.store import GameRecord, hash_token
from cardroom.table.errors import Unauthorized


def authenticate(record: GameRecord, token: str | None) -> int:
    """The seat whose token this is; Unauthorized if none."""
    if not token:
        raise Unauthorized("this request needs a seat token: Authorization: Bearer <token>")
    seat = record.seat_for_token(token)
    if seat is None:
        raise Unauthorized("the token is not a seat token of this game")
    return seat


def seat_or_spectator(record: GameRecord, token: str | None) -> int | None:
    """The token's seat, or None for a reader with no token (a spectator)."""
    return authenticate(record, token) if token is not None else None


def reserved_for(record: GameRecord, token: str | None) -> int | None:
    """The free seat a rematch keeps for ``token`` (its seat in the previous game), if any."""
    if not token:
        return None
    digest = hash_token(token)
    for seat, entry in enumerate(record.seats):
        kept = entry.get("reserved")
        if entry["name"] is None and kept and hmac.compare_digest(kept, digest):
            return seat
    return None
