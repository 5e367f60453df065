"""What the conformance check raises: a problem named in a few words, and where."""

from __future__ import annotations

from typing import Any


class ConformanceError(AssertionError):
    """A game broke the contract. ``problem`` names what is wrong, in a few words (the
    same words for the same problem in any game); the message says where, and how to
    play that game again (game type, players, seed)."""

    def __init__(self, problem: str, detail: str, where: str = ""):
        self.problem = problem
        self.detail = detail
        self.where = where
        super().__init__(f"{problem}: {detail}{f' ({where})' if where else ''}")


def expect(condition: Any, problem: str, detail: str) -> None:
    if not condition:
        raise ConformanceError(problem, detail)
