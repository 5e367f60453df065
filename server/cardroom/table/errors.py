"""What the table refuses, as domain errors; api/problems.py maps each to its answer.

The store's two refusals are passed on as they are: ``Conflict`` (the game changes too fast:
the table gave up after ``MAX_ATTEMPTS``) and ``OutcomeUnknown`` (a write was sent and no answer
came back).
"""

from __future__ import annotations

from cardroom.store import Conflict, OutcomeUnknown

# How many times a step runs again on a game written since it was loaded.
MAX_ATTEMPTS = 50


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
    """A join asking for a seat a rematch keeps for its previous player (table/rematch.py)."""


class GameNotFinished(StateConflict):
    """A request that needs a finished game (a replay, a rematch)."""


class PreconditionFailed(Exception):
    """If-Match named an older version of the game."""


__all__ = [
    "MAX_ATTEMPTS",
    "Conflict",
    "GameFull",
    "GameNotFinished",
    "GameNotStarted",
    "IdempotencyKeyReused",
    "InvalidRequest",
    "NotFound",
    "OutcomeUnknown",
    "PreconditionFailed",
    "SeatReserved",
    "SeatTaken",
    "StateConflict",
    "Unauthorized",
]
