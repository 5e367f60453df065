"""The engine contract every game implements (docs/architecture.md, "Engines").

An engine is pure: no I/O, no clock, no global random. State is a plain JSON-able dict,
mutated in place by ``apply``; an action that is refused raises before anything changes.
Time, where a rule needs it (a reaction deadline), is passed in as ``now`` (seconds).
"""

from __future__ import annotations

import copy
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from cardroom.games.errors import GameOver, IllegalAction, InvalidOptions, NotYourTurn, RuleError
from cardroom.games.moves import Args, Move, is_int

__all__ = [
    "Action",
    "Args",
    "Event",
    "Game",
    "GameOver",
    "IllegalAction",
    "InvalidOptions",
    "Move",
    "NotYourTurn",
    "OptionSpec",
    "RuleError",
    "State",
    "View",
    "redact_event",
]

State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]


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
    # For an array: the JSON Schema of an item (for the API document).
    items: dict[str, Any] | None = None

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
    """A game type. One stateless instance serves every game of that type.

    A state is a dict with at least ``players`` (the number of seats) and ``phase``; the
    engine keeps the rest in keys that say what they hold.
    """

    game_type: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    option_specs: ClassVar[tuple[OptionSpec, ...]]
    rules_url: ClassVar[str] = ""
    # Every action type, declared once (games/moves.py).
    moves: ClassVar[tuple[Move, ...]]
    # The ruling that refuses an action of no known type, a missing or unknown field.
    form_rule: ClassVar[str]
    # The ruling that ends the game (refuses any action after it), if the game has one.
    end_rule: ClassVar[str | None] = None
    # A card's id on the wire: the pattern every id matches, and one example.
    card_id_pattern: ClassVar[str]
    card_example: ClassVar[str]
    # A create request that plays well as it is (the API document's example).
    example: ClassVar[dict[str, Any]]
    # What the engine gives out, as JSON Schema: Card, Public, You, Result, Events
    # (games/shapes.py).
    shapes: ClassVar[dict[str, Any]]

    card_id_re: ClassVar[re.Pattern[str]]
    moves_by_type: ClassVar[dict[str, Move]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if getattr(cls, "moves", None) is None:
            return  # an abstract intermediate class
        cls.card_id_re = re.compile(cls.card_id_pattern)
        cls.moves_by_type = {move.type: move for move in cls.moves}
        for move in cls.moves:
            if not callable(getattr(cls, move.handler, None)):
                raise TypeError(f"{cls.__name__}: move {move.type!r} has no method {move.handler}")

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

    def apply(
        self, state: State, seat: int, action: Action, now: float | None = None
    ) -> list[Event]:
        """Apply one action in place and return its events, or raise a RuleError and change
        nothing. ``now`` (seconds) settles a passed deadline first (``advance``)."""
        deadline = self.deadline(state)
        if now is not None and deadline is not None and now >= deadline:
            # The deadline decides first; work on a copy so that a refused action still
            # leaves the state exactly as it was.
            work = copy.deepcopy(state)
            events = self.advance(work, now)
            events += self._apply(work, seat, action, now)
            state.clear()
            state.update(work)
            return events
        return self._apply(state, seat, action, now)

    def _apply(self, state: State, seat: Any, action: Any, now: float | None) -> list[Event]:
        if self.is_over(state):
            raise GameOver("the game is over", rule=self.end_rule)
        if not is_int(seat) or not 0 <= seat < state["players"]:
            raise NotYourTurn(f"there is no seat {seat!r} in this game")
        if seat not in self.to_act(state):
            message, rule = self.not_your_turn(state, seat)
            raise NotYourTurn(message, rule=rule)
        move, args = self.read_action(state, seat, action)
        events: list[Event] = []
        getattr(self, move.handler)(state, seat, args, events, now)
        self.after_move(state, events)
        return events

    def read_action(self, state: State, seat: int, action: Any) -> tuple[Move, Args]:
        """The action's move and its fields as the handler wants them, or a RuleError."""
        if not isinstance(action, dict):
            raise IllegalAction(
                'an action is a JSON object with a "type"', rule=self.form_rule, field="type"
            )
        kind = action.get("type")
        move = self.moves_by_type.get(kind) if isinstance(kind, str) else None
        if move is None:
            known = ", ".join(self.moves_by_type)
            raise IllegalAction(
                f"{self.title} has no action type {kind!r}; its types are {known}",
                rule=self.form_rule,
                field="type",
            )
        phase = self.phase(state)
        if phase not in move.phases:
            now = ", ".join(m.type for m in self.moves if phase in m.phases)
            raise NotYourTurn(
                f"{move.type} is not an action of the {phase} phase (now: {now})",
                rule=move.rule,
                field="type",
            )
        if move.allowed is not None:
            why = move.allowed(state, seat)
            if why is not None:
                raise IllegalAction(why, rule=move.rule, field="type")
        fields = {field.name: field for field in move.fields}
        for name in action:
            if name != "type" and name not in fields:
                raise IllegalAction(
                    f"{move.type} has no field {name!r}", rule=self.form_rule, field=name
                )
        args: Args = {}
        for name, field in fields.items():
            value = action.get(name)
            if value is None:
                if not field.optional:
                    raise IllegalAction(
                        f"{move.type} needs the field {name!r}", rule=field.rule, field=name
                    )
                args[name] = None
                continue
            args[name] = field.read(value, self, state, seat)
        return move, args

    @abstractmethod
    def phase(self, state: State) -> str:
        """The current phase, as the view names it (``"over"`` once the game has ended)."""

    @abstractmethod
    def hand_card(self, state: State, seat: int, card_id: str) -> Any:
        """The engine's form of the card ``card_id`` if it is in ``seat``'s hand, else None."""

    @abstractmethod
    def hidden_cards(self, state: State, seat: int | None) -> set[str]:
        """The ids of every card ``seat`` (None: a spectator) may not see now: the other
        hands, the draw pile, cards set aside. No view of that seat may show one."""

    def not_your_turn(self, state: State, seat: int) -> tuple[str, str | None]:
        """Why ``seat`` (a seat of the game, not in ``to_act``) may not act: message, rule."""
        return f"seat {seat} may not act now", None

    def after_move(self, state: State, events: list[Event]) -> None:  # noqa: B027
        """What the engine does itself after every accepted move (forced moves, say)."""

    @abstractmethod
    def view(self, state: State, seat: int | None) -> View:
        """What ``seat`` may know (``None``: a spectator).

        Returns the game's public state plus ``"you"``: the seat's private part (at least
        ``{"seat": n, "hand": [cards]}``), or ``None`` for a spectator.
        """

    def result(self, state: State) -> dict[str, Any] | None:
        """``None`` while the game runs; then ``{"winners": [seats], "scores": [...], ...}``,
        as the engine stored it under ``state["result"]`` when the game ended."""
        return copy.deepcopy(state["result"])

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
        return self.phase(state) == "over"

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
