"""Typed results, built from the server's JSON.

Every model keeps the JSON object it was built from as ``raw``, and reads only the fields it
knows: the server may add fields at any time and old SDKs keep working. Cards and actions
stay plain dicts (``{"id": "c17", "code": "G3", ...}``, ``{"type": "score", ...}``), exactly
as the server sends them, so an action from ``view.legal_actions`` can be posted back as is.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ActionResult",
    "Card",
    "Event",
    "EventBatch",
    "GameList",
    "GameOption",
    "GameSummary",
    "GameType",
    "Health",
    "Joined",
    "SeatInfo",
    "View",
]

Card = dict[str, Any]
"""A card as the server sends it: at least ``id`` and ``code``, often more."""

JSON = dict[str, Any]


def _dict(value: Any) -> JSON:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _ints(value: Any) -> list[int]:
    return [item for item in _list(value) if isinstance(item, int)]


def _winners(result: Any) -> list[int]:
    return _ints(_dict(result).get("winners"))


@dataclass(frozen=True)
class GameOption:
    """One option of a game type, with its type, default and meaning."""

    name: str
    type: str | None = None
    default: Any = None
    description: str = ""
    nullable: bool = False
    secret: bool = False
    choices: list[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON) -> GameOption:
        choices = data.get("choices")
        return cls(
            name=data.get("name", ""),
            type=data.get("type"),
            default=data.get("default"),
            description=data.get("description") or "",
            nullable=bool(data.get("nullable", False)),
            secret=bool(data.get("secret", False)),
            choices=list(choices) if isinstance(choices, list) else None,
            minimum=data.get("minimum"),
            maximum=data.get("maximum"),
            raw=data,
        )


@dataclass(frozen=True)
class GameType:
    """A game the server hosts (``GET /v1/game-types``)."""

    game_type: str
    title: str = ""
    description: str = ""
    min_players: int | None = None
    max_players: int | None = None
    options: list[GameOption] = field(default_factory=list)
    bot_policies: list[str] = field(default_factory=list)
    rules_url: str | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON) -> GameType:
        return cls(
            game_type=data.get("game_type", ""),
            title=data.get("title") or "",
            description=data.get("description") or "",
            min_players=data.get("min_players"),
            max_players=data.get("max_players"),
            options=[GameOption.from_json(_dict(o)) for o in _list(data.get("options"))],
            bot_policies=[str(p) for p in _list(data.get("bot_policies"))],
            rules_url=data.get("rules_url"),
            raw=data,
        )

    def option(self, name: str) -> GameOption:
        """The option called ``name``; KeyError if this game has none."""
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(name)

    @property
    def defaults(self) -> dict[str, Any]:
        """Every option's default value."""
        return {option.name: option.default for option in self.options}


@dataclass(frozen=True)
class SeatInfo:
    """A seat as everyone sees it: its number, player name, bot policy (or None)."""

    seat: int
    name: str | None = None
    bot: str | None = None
    taken: bool = False
    # The turn clock marked the seat away; a rematch keeps the seat for its old player.
    away: bool = False
    reserved: bool = False
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON) -> SeatInfo:
        name = data.get("name")
        return cls(
            seat=int(data.get("seat", -1)),
            name=name,
            bot=data.get("bot"),
            taken=bool(data.get("taken", name is not None)),
            away=bool(data.get("away", False)),
            reserved=bool(data.get("reserved", False)),
            raw=data,
        )


def _seats(value: Any) -> list[SeatInfo]:
    return [SeatInfo.from_json(_dict(seat)) for seat in _list(value)]


@dataclass(frozen=True)
class GameSummary:
    """A game's public summary (create, ``GET /v1/games/{id}``, list)."""

    id: str
    game_type: str
    status: str
    players: int | None = None
    seats: list[SeatInfo] = field(default_factory=list)
    options: JSON = field(default_factory=dict)
    version: int = 0
    scores: list[int] = field(default_factory=list)
    to_act: list[int] = field(default_factory=list)
    result: JSON | None = None
    seed: int | None = None
    created_at: float | None = None
    updated_at: float | None = None
    rematch: str | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON) -> GameSummary:
        result = data.get("result")
        return cls(
            id=data.get("id", ""),
            game_type=data.get("game_type", ""),
            status=data.get("status", ""),
            players=data.get("players"),
            seats=_seats(data.get("seats")),
            options=_dict(data.get("options")),
            version=int(data.get("version") or 0),
            scores=_list(data.get("scores")),
            to_act=_ints(data.get("to_act")),
            result=result if isinstance(result, dict) else None,
            seed=data.get("seed"),
            created_at=data.get("created_at"),
            updated_at=data.get("updated_at"),
            rematch=data.get("rematch"),
            raw=data,
        )

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def winners(self) -> list[int]:
        """The winning seats once the game is finished; [] before."""
        return _winners(self.result)

    @property
    def free_seats(self) -> list[int]:
        return [seat.seat for seat in self.seats if not seat.taken]


@dataclass(frozen=True)
class GameList:
    """One page of ``GET /v1/games``; pass ``next_cursor`` as ``cursor`` for the next."""

    games: list[GameSummary]
    next_cursor: str | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON) -> GameList:
        return cls(
            games=[GameSummary.from_json(_dict(g)) for g in _list(data.get("games"))],
            next_cursor=data.get("next_cursor"),
            raw=data,
        )

    def __iter__(self) -> Iterator[GameSummary]:
        return iter(self.games)

    def __len__(self) -> int:
        return len(self.games)


@dataclass(frozen=True)
class Joined:
    """The answer to a join: the seat and its token (shown once: keep it)."""

    game_id: str
    seat: int
    token: str = field(repr=False)
    status: str | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON, game_id: str = "") -> Joined:
        return cls(
            game_id=data.get("game_id") or game_id,
            seat=int(data["seat"]),
            token=str(data["token"]),
            status=data.get("status"),
            raw={key: value for key, value in data.items() if key != "token"},
        )


@dataclass(frozen=True)
class View:
    """What one seat (or a spectator) may see of a game now.

    ``legal_actions`` lists exactly what this seat may post now (empty unless it may act);
    ``you`` is the seat's private part (``seat``, ``hand``, …) or None for a spectator;
    ``public`` is the game's public state, as its rules page describes it.

    ``to_act`` are the seats that may act, ``awaiting`` the seats the game waits for. They
    differ in a simultaneous phase where an answer may be changed until every answer is in
    (an Exact Plays declaration): a seat that has answered may still act, but the game no
    longer waits for it. ``last_seq`` is the game's latest event ``seq`` when the view was
    made: long-poll the events after it to hear of the next change.
    """

    game_id: str
    game_type: str
    status: str
    version: int
    to_act: list[int] = field(default_factory=list)
    you: JSON | None = None
    legal_actions: list[JSON] = field(default_factory=list)
    deadline: float | None = None
    result: JSON | None = None
    seats: list[SeatInfo] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    options: JSON = field(default_factory=dict)
    public: JSON = field(default_factory=dict)
    etag: str | None = None
    awaiting: list[int] = field(default_factory=list)
    last_seq: int | None = None
    # The turn clock (null without one) and the id of the game's rematch, once asked for.
    clock: JSON | None = None
    rematch: str | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON, etag: str | None = None) -> View:
        you = data.get("you")
        result = data.get("result")
        to_act = _ints(data.get("to_act"))
        last_seq = data.get("last_seq")
        return cls(
            game_id=data.get("game_id", ""),
            game_type=data.get("game_type", ""),
            status=data.get("status", ""),
            version=int(data.get("version") or 0),
            to_act=to_act,
            # A server without ``awaiting`` waits for every seat that may act.
            awaiting=_ints(data["awaiting"]) if "awaiting" in data else to_act,
            last_seq=last_seq if isinstance(last_seq, int) else None,
            you=you if isinstance(you, dict) else None,
            legal_actions=[a for a in _list(data.get("legal_actions")) if isinstance(a, dict)],
            deadline=data.get("deadline"),
            result=result if isinstance(result, dict) else None,
            seats=_seats(data.get("seats")),
            scores=_list(data.get("scores")),
            options=_dict(data.get("options")),
            public=_dict(data.get("public")),
            etag=data.get("etag") or (etag.strip('"') if etag else None),
            clock=data.get("clock") if isinstance(data.get("clock"), dict) else None,
            rematch=data.get("rematch"),
            raw=data,
        )

    @property
    def seat(self) -> int | None:
        """This view's seat; None for a spectator."""
        return self.you.get("seat") if self.you else None

    @property
    def hand(self) -> list[Card]:
        """This seat's cards ([] for a spectator)."""
        return [card for card in _list(_dict(self.you).get("hand")) if isinstance(card, dict)]

    @property
    def my_turn(self) -> bool:
        """True if the game waits for this seat: it is in ``awaiting`` and has legal actions.

        False for a seat that has already answered in a simultaneous phase, even though it
        may still change its answer (see :attr:`can_act`).
        """
        return self.seat is not None and self.seat in self.awaiting and bool(self.legal_actions)

    @property
    def can_act(self) -> bool:
        """True if this seat may post an action now: its turn (:attr:`my_turn`), or an answer
        it gave in a simultaneous phase that it may still change."""
        return self.seat is not None and self.seat in self.to_act and bool(self.legal_actions)

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def winners(self) -> list[int]:
        return _winners(self.result)


@dataclass(frozen=True)
class Event(Mapping[str, Any]):
    """One game event, as the caller may see it. Also a read-only mapping of every field."""

    seq: int
    type: str
    version: int | None = None
    actor: int | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON) -> Event:
        return cls(
            seq=int(data.get("seq") or 0),
            type=str(data.get("type", "")),
            version=data.get("version"),
            actor=data.get("actor"),
            raw=data,
        )

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)


def _events(value: Any) -> list[Event]:
    return [Event.from_json(event) for event in _list(value) if isinstance(event, dict)]


@dataclass(frozen=True)
class EventBatch:
    """Events after some ``seq``; pass ``last_seq`` as ``after`` next time.

    ``last_seq`` also covers events this caller may not see, so it can be larger than the
    last visible event's ``seq``.
    """

    game_id: str
    events: list[Event]
    last_seq: int
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON) -> EventBatch:
        events = _events(data.get("events"))
        last = data.get("last_seq")
        if not isinstance(last, int):
            last = max((event.seq for event in events), default=0)
        return cls(
            game_id=data.get("game_id", ""),
            events=events,
            last_seq=last,
            raw=data,
        )

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)


@dataclass(frozen=True)
class ActionResult:
    """An accepted action: the new version, the caller's new events and view.

    ``replayed`` is True when the server answered a retry with the first answer
    (``Idempotent-Replayed``): the action was applied once, by the first attempt.
    """

    version: int
    events: list[Event] = field(default_factory=list)
    view: View | None = None
    replayed: bool = False
    idempotency_key: str | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(
        cls, data: JSON, *, replayed: bool = False, idempotency_key: str | None = None
    ) -> ActionResult:
        view = data.get("view")
        return cls(
            version=int(data.get("version") or 0),
            events=_events(data.get("events")),
            view=View.from_json(view) if isinstance(view, dict) else None,
            replayed=replayed,
            idempotency_key=idempotency_key,
            raw=data,
        )


@dataclass(frozen=True)
class Health:
    """``GET /healthz``: ``ok`` is True when the server can serve (its Redis answers; on a
    Redis Cluster with a primary down it is ``degraded``: it serves the games of the others)."""

    status: str
    redis: str | None = None
    raw: JSON = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: JSON) -> Health:
        return cls(status=str(data.get("status", "")), redis=data.get("redis"), raw=data)

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "degraded")

    @property
    def degraded(self) -> bool:
        """A Redis Cluster with a primary that does not answer: some games cannot be served."""
        return self.status == "degraded"
