"""The engine contract every game implements (see DESIGN.md, "Engine contract").

An engine is pure: no I/O, no clock, no global random. State is a plain JSON-able dict,
mutated in place by ``apply``; an action that is refused raises before anything changes.
Time, where a rule needs it (a reaction deadline), is passed in as ``now`` (seconds).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]


class RuleError(Exception):
    """An action was refused. ``rule`` names the rule or ruling (``MT-7``, ``EP-10``)."""

    problem_type = "illegal-action"

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.field = field


class IllegalAction(RuleError):
    """The seat may act, but not this way (HTTP 422)."""


class NotYourTurn(RuleError):
    """The seat may not act at all now: another seat's turn or the wrong phase (HTTP 409)."""

    problem_type = "not-your-turn"


class GameOver(RuleError):
    """The game has ended; no action is accepted any more (HTTP 409)."""

    problem_type = "game-finished"


class InvalidOptions(ValueError):
    """Options or player count for a new game are not acceptable (HTTP 422)."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True)
class OptionSpec:
    """One game option, described for clients (``GET /v1/game-types``) and validated here."""

    name: str
    type: str  # "integer", "boolean", "string", "number", "array", "object"
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    nullable: bool = False
    # A secret option (a stacked deck) is shown as "stacked" to players until the game ends.
    secret: bool = False

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "description": self.description,
            "nullable": self.nullable,
            "secret": self.secret,
        }
        if self.choices is not None:
            described["choices"] = list(self.choices)
        if self.minimum is not None:
            described["minimum"] = self.minimum
        if self.maximum is not None:
            described["maximum"] = self.maximum
        return described


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
}


class Game(ABC):
    """A game type. One stateless instance serves every game of that type."""

    game_type: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    option_specs: ClassVar[tuple[OptionSpec, ...]]
    rules_url: ClassVar[str] = ""

    # --- options --------------------------------------------------------------------------

    def validate_options(self, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Return the full option set (defaults filled in), or raise InvalidOptions.

        The generic checks (known names, JSON types, bounds, choices) happen here; an engine
        overrides ``check_options`` for checks that need the game's knowledge.
        """
        if not isinstance(players, int) or isinstance(players, bool):
            raise InvalidOptions("players must be an integer", field="players")
        if not self.min_players <= players <= self.max_players:
            raise InvalidOptions(
                f"{self.title} is played by {self.min_players} to {self.max_players} players",
                field="players",
            )
        given = dict(options or {})
        specs = {spec.name: spec for spec in self.option_specs}
        unknown = sorted(set(given) - set(specs))
        if unknown:
            raise InvalidOptions(
                f"unknown option {unknown[0]!r}; known: {', '.join(sorted(specs))}",
                field=f"options.{unknown[0]}",
            )
        full: dict[str, Any] = {}
        for name, spec in specs.items():
            value = given.get(name, copy.deepcopy(spec.default))
            if value is None:
                if name in given and not spec.nullable:
                    raise InvalidOptions(f"{name} may not be null", field=f"options.{name}")
                full[name] = value
                continue
            _check_value(spec, value)
            full[name] = value
        self.check_options(players, full)
        return full

    def check_options(self, players: int, options: dict[str, Any]) -> None:  # noqa: B027
        """Game-specific option checks; raise InvalidOptions naming ``options.<name>``."""

    # --- the contract ---------------------------------------------------------------------

    @abstractmethod
    def new_game(self, players: int, options: dict[str, Any], seed: int) -> State:
        """A fresh state; ``options`` are already validated and complete."""

    @abstractmethod
    def to_act(self, state: State) -> set[int]:
        """The seats that may act now (empty once the game is over)."""

    @abstractmethod
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every action the seat may take now (empty if it may not act)."""

    @abstractmethod
    def apply(
        self, state: State, seat: int, action: Action, now: float | None = None
    ) -> list[Event]:
        """Apply one action in place and return its events, or raise a RuleError unchanged."""

    @abstractmethod
    def view(self, state: State, seat: int | None) -> View:
        """What ``seat`` may know (``None``: a spectator).

        Returns the game's public state plus ``"you"``: the seat's private part (at least
        ``{"seat": n, "hand": [cards]}``), or ``None`` for a spectator.
        """

    @abstractmethod
    def result(self, state: State) -> dict[str, Any] | None:
        """``None`` while the game runs; then ``{"winners": [seats], "scores": [...], ...}``."""

    @abstractmethod
    def scores(self, state: State) -> list[int]:
        """The public score of each seat (Fun points, or penalty totals as negatives)."""

    def awaiting(self, state: State) -> set[int]:
        """The seats the game waits for: a subset of ``to_act``.

        They differ in a simultaneous phase where a seat may still change its answer until
        every answer is in: that seat may act, but the game no longer waits for it. Bots act
        only when awaited, so they never change their minds in a loop.
        """
        return self.to_act(state)

    def deadline(self, state: State) -> float | None:
        """When the current wait expires (same clock as ``now``), or ``None``."""
        return None

    def advance(self, state: State, now: float) -> list[Event]:
        """Resolve whatever a passed deadline decides. Default: nothing is timed."""
        return []

    def is_over(self, state: State) -> bool:
        return self.result(state) is not None

    def describe(self) -> dict[str, Any]:
        return {
            "game_type": self.game_type,
            "title": self.title,
            "description": self.description,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": [spec.describe() for spec in self.option_specs],
            "rules_url": self.rules_url,
        }


def _check_value(spec: OptionSpec, value: Any) -> None:
    where = f"options.{spec.name}"
    allowed = _JSON_TYPES[spec.type]
    if isinstance(value, bool) and bool not in allowed:
        raise InvalidOptions(f"{spec.name} must be of type {spec.type}", field=where)
    if not isinstance(value, allowed):
        raise InvalidOptions(f"{spec.name} must be of type {spec.type}", field=where)
    if spec.choices is not None and value not in spec.choices:
        choices = ", ".join(repr(choice) for choice in spec.choices)
        raise InvalidOptions(f"{spec.name} must be one of {choices}", field=where)
    if spec.minimum is not None and value < spec.minimum:
        raise InvalidOptions(f"{spec.name} must be at least {spec.minimum}", field=where)
    if spec.maximum is not None and value > spec.maximum:
        raise InvalidOptions(f"{spec.name} must be at most {spec.maximum}", field=where)


def redact_event(event: Event, seat: int | None) -> Event | None:
    """The event as ``seat`` may see it (``None``: a spectator).

    An engine writes secret details under ``event["private"][str(seat)]``: only that seat
    sees them, merged into the public fields. ``event["audience"]``, when present, lists the
    only seats that see the event at all.
    """
    audience = event.get("audience")
    if audience is not None and seat not in audience:
        return None
    public = {key: value for key, value in event.items() if key not in ("private", "audience")}
    if seat is not None:
        secret = event.get("private", {}).get(str(seat))
        if secret:
            public.update(secret)
    return public
