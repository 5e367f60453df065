"""What an engine raises: a refused action (``RuleError``) or unacceptable options."""

from __future__ import annotations


class RuleError(Exception):
    """An action was refused. ``rule`` names the rule or ruling (``MT-7``, ``EP-10``) and
    ``field`` the action's field at fault, when one is."""

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.field = field


class IllegalAction(RuleError):
    """The seat may act, but not this way."""


class NotYourTurn(RuleError):
    """The seat may not act at all now: another seat's turn, or another phase's action."""


class GameOver(RuleError):
    """The game has ended; no action is accepted any more."""


class InvalidOptions(ValueError):
    """Options or player count for a new game are not acceptable; ``field`` names which."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.message = message
        self.field = field
