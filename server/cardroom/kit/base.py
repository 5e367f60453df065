"""The engine contract every game implements (docs/architecture.md, "Engines").

An engine is pure: no I/O, no clock, no global random. State is a plain JSON-able dict,
mutated in place by ``apply``; an action that is refused raises before anything changes.
Time, where a rule needs it (a reaction deadline), is passed in as ``now`` (seconds).
"""

from __future__ import annotations

import copy
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import orjson

from cardroom.kit import clock as clockmod
from cardroom.kit.contract_types import Action, Args, Event, State, View
from cardroom.kit.errors import GameOver, IllegalAction, InvalidOptions, NotYourTurn, RuleError
from cardroom.kit.moves import Move, is_int
from cardroom.kit.options import CLOCK_SPECS, STACKED, OptionSpec, check_value
from cardroom.kit.rng import Random

__all__ = [
    "CLOCK_SPECS",
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
    # Every action type, declared once (kit/moves.py).
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
    # (kit/shapes.py).
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
            check_value(spec, value)
            full[name] = value
        clockmod.check(full)
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
        nothing. ``now`` (seconds) settles every passed deadline first (``advance``)."""
        deadline = self.deadline(state)
        if now is not None and deadline is not None and now >= deadline:
            # The deadlines decide first; work on a copy so that a refused action still
            # leaves the state exactly as it was.
            work = copy.deepcopy(state)
            events: list[Event] = []
            while (due := self.deadline(work)) is not None and now >= due:
                settled = self.advance(work, now)
                if not settled:
                    break
                events += settled
            events += self._acted(work, seat, action, now)
            state.clear()
            state.update(work)
            return events
        return self._acted(state, seat, action, now)

    def _acted(self, state: State, seat: Any, action: Any, now: float | None) -> list[Event]:
        """A seat's own action (a person's or a bot's): its clock starts afresh."""
        events = self._apply(state, seat, action, now)
        self._clock_afresh(state, seat)
        self._tick(state, now)
        return events

    def _clock_afresh(self, state: State, seat: int) -> None:
        if (clock := state.get("clock")) is not None:
            clock["missed"][seat] = 0

    def _apply(self, state: State, seat: Any, action: Any, now: float | None) -> list[Event]:
        if self.is_over(state):
            raise GameOver("the game is over", rule=self.end_rule)
        if not is_int(seat) or not 0 <= seat < state["players"]:
            raise NotYourTurn(f"there is no seat {seat!r} in this game")
        if seat not in self.to_act(state):
            message, rule = self.not_your_turn(state, seat)
            raise NotYourTurn(message, rule=rule)
        move, args = self.read_action(state, seat, action)
        return self._perform(state, seat, move, args, now)

    def _perform(
        self, state: State, seat: int, move: Move, args: Args, now: float | None
    ) -> list[Event]:
        """A move whose fields are read: its handler, then what follows every move."""
        events: list[Event] = []
        getattr(self, move.handler)(state, seat, args, events, now)
        self.after_move(state, events)
        return events

    def apply_legal(self, state: State, seat: int, action: Action) -> list[Event]:
        """Apply in place, unchecked, an action ``legal_actions(state, seat)`` listed, as
        ``apply(state, seat, action)`` would (state and events; no deadline settles), for
        a search's play-outs (docs/bots.md: what it saves). Any other action is undefined
        behaviour: ``apply`` is the door from outside. The conformance check compares."""
        move = self.moves_by_type[action["type"]]
        args: Args = {}
        for field in move.fields:
            value = action.get(field.name)
            args[field.name] = None if value is None else field.trusted(value, self, state, seat)
        events = self._perform(state, seat, move, args, None)
        self._clock_afresh(state, seat)
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

    def view(self, state: State, seat: int | None) -> View:
        """What ``seat`` may know (``None``: a spectator).

        Returns the game's public state plus ``"you"``: the seat's private part (at least
        ``{"seat": n, "hand": [cards]}``), or ``None`` for a spectator (or a number that is
        not a seat of the game).
        """
        return {**self.public_view(state), "you": self.private_view(state, seat)}

    @abstractmethod
    def public_view(self, state: State) -> View:
        """The part of every view that is the same for every seat and spectator: the
        server shapes it once per version of a game, however many seats follow it."""

    @abstractmethod
    def private_view(self, state: State, seat: int | None) -> dict[str, Any] | None:
        """``seat``'s own part of its view (``"you"``); None for a spectator or a number
        that is not a seat of the game."""

    def public_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` as every seat sees them while the game runs: a secret one that is set
        (a stacked deck) reads ``"stacked"``."""
        secret = {spec.name for spec in self.option_specs if spec.secret}
        return {
            name: (STACKED if name in secret and value is not None else value)
            for name, value in options.items()
        }

    def sample_state(
        self, view: View, seen: Sequence[Event], options: dict[str, Any], rng: Random
    ) -> State:
        """A full state drawn at random among those consistent with what the viewing seat
        (``view["you"]["seat"]``) knows, for a search bot that sees only its seat.

        ``view`` is that seat's view now; ``seen`` every event of the game so far as that seat
        saw it, oldest first (``redact_event(event, seat)``; events may carry the server's
        stamps and its own kinds); ``options`` the game's options as every seat sees them (a
        secret one that is set reads ``"stacked"``). The state gives that seat exactly
        ``view`` (its ``clock`` aside: search does not simulate time) and the same legal
        actions; the cards out of its sight are the same ones, placed anew; it carries no
        part of the real game's seed. Randomness only from ``rng``.

        The default raises NotImplementedError: a game without a sampler has no search bot
        (``samples``).
        """
        raise NotImplementedError(f"{self.title} offers no sampling of its hidden state")

    def samples(self) -> bool:
        """Whether this game offers ``sample_state`` (and so a search bot)."""
        return type(self).sample_state is not Game.sample_state

    def copy_state(self, state: State) -> State:
        """An independent copy of ``state``, for a search to play in (it copies a sampled
        state once per candidate move and sample). A state is JSON, so the default is a JSON
        round trip through orjson, about ten times as fast as ``copy.deepcopy`` on cardroom's
        games; a game whose state holds anything else overrides it. The conformance check
        plays on a copy and checks the original is untouched."""
        return orjson.loads(orjson.dumps(state))

    def values(self, state: State) -> list[float]:
        """Each seat's value of a finished game, in [0, 1], which a search bot maximises: by
        default 1 for a win, ``1/k`` for a win shared by ``k`` seats, else 0 (no winners: a
        draw, ``1/players`` each). A game may value more than winning (a margin)."""
        players: int = state["players"]
        winners = (state["result"] or {}).get("winners") or []
        if not winners:
            return [1 / players] * players
        values = [0.0] * players
        for winner in winners:
            values[winner] = 1 / len(winners)
        return values

    def result(self, state: State) -> dict[str, Any] | None:
        """``None`` while the game runs; then ``{"winners": [seats], "scores": [...], ...}``,
        as the engine stored it under ``state["result"]`` when the game ended."""
        result = state["result"]
        return None if result is None else copy.deepcopy(result)

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

    # --- time: the game's own timed rule, and the turn clock (kit/clock.py) -------------

    def rule_deadline(self, state: State) -> float | None:
        """When the game's own timed rule fires (same clock as ``now``), or ``None``."""
        return None

    def resolve_rule_deadline(self, state: State, now: float) -> list[Event]:
        """What the game's own timed rule decides once its deadline passed."""
        return []

    def turn_marker(self, state: State) -> Any:
        """A JSON value that changes whenever a new wait begins (a new turn, a new reaction
        window, a new throw): a seat still awaited after it changed gets a new turn clock."""
        return None

    def timeout_action(self, state: State, seat: int) -> Action:
        """The default move of an awaited ``seat`` whose time ran out (a legal action; any
        randomness from the state's seeded generator). Each game documents its choice."""
        raise NotImplementedError(f"{self.title} has no default move")

    def deadline(self, state: State) -> float | None:
        """When the current wait next expires (same clock as ``now``), or ``None``: the
        game's own timed rule or the first seat's turn clock, whichever comes first."""
        rule = self.rule_deadline(state)
        clock = state.get("clock")
        if clock is None or self.is_over(state):
            return rule
        first = clockmod.earliest(clock)
        if first is None:
            return rule
        timed = first[0] / 1000
        return timed if rule is None else min(rule, timed)

    def advance(self, state: State, now: float) -> list[Event]:
        """Resolve *one* passed deadline (the earliest): the game's own timed rule, or one
        seat's timeout, whose default move is played. Nothing happens before a deadline."""
        if now is None or self.is_over(state):
            return []
        rule = self.rule_deadline(state)
        clock = state.get("clock")
        first = clockmod.earliest(clock) if clock is not None else None
        timed = None if first is None else first[0] / 1000
        if rule is not None and now >= rule and (timed is None or rule <= timed):
            events = self.resolve_rule_deadline(state, now)
        elif first is not None and timed is not None and now >= timed:
            events = self._time_out(state, first[1], now)
        else:
            return []
        self._tick(state, now)
        return events

    def _time_out(self, state: State, seat: int, now: float) -> list[Event]:
        clock = state["clock"]
        clock["missed"][seat] += 1
        if clock["missed"][seat] >= clock["away_after"]:
            clock["away"][seat] = True
        events: list[Event] = [
            {
                "type": "timed_out",
                "seat": seat,
                "missed": clock["missed"][seat],
                "away": clock["away"][seat],
            }
        ]
        clock["since"][seat] = None  # this wait is over, whatever the default move leads to
        events += self._apply(state, seat, self.timeout_action(state, seat), now)
        return events

    def start(self, state: State, now: float, bot_seats: set[int]) -> list[Event]:
        """Every seat is taken: bot seats get no clock, the first waits begin."""
        clock = state.get("clock")
        if clock is not None:
            for seat in bot_seats:
                clock["exempt"][seat] = True
            self._tick(state, now)
        return []

    def seat_back(self, state: State, seat: int, now: float) -> list[Event]:
        """An away seat's owner is back: the game waits for it again, with a fresh clock."""
        clock = state.get("clock")
        if clock is None or not clock["away"][seat] or self.is_over(state):
            return []
        clock["away"][seat] = False
        clock["missed"][seat] = 0
        clock["since"][seat] = None
        self._tick(state, now)
        return [{"type": "seat_back", "seat": seat}]

    def away_seats(self, state: State) -> set[int]:
        clock = state.get("clock")
        return set() if clock is None else {s for s, away in enumerate(clock["away"]) if away}

    def away_bot(self, state: State) -> bool:
        """Whether the server's bot plays this game's away seats (the ``away_bot`` option)."""
        clock = state.get("clock")
        return clock is not None and clock["away_bot"]

    def clock_view(self, state: State) -> dict[str, Any] | None:
        """The turn clock as everyone sees it (null for a game without one)."""
        return clockmod.public(state.get("clock"))

    def _tick(self, state: State, now: float | None) -> None:
        clock = state.get("clock")
        if clock is None or now is None:
            return
        awaited = set() if self.is_over(state) else self.awaiting(state)
        clockmod.tick(clock, round(now * 1000), awaited, self.turn_marker(state))

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
        }


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
