"""Steps: every change to a game, as a request makes it and as a replay makes it again.

A game's events are not stored: its *log* is (``GameRecord.log``), one short entry per step,
and the pure, deterministic engine rebuilds every event from it. The live service and the
replay apply steps through the same functions below, so the two cannot drift apart.

Entries are compact JSON arrays:

- ``["j", seat, name, dt]``  a person took ``seat`` (older logs: no ``dt``)
- ``[seat, action, dt]``  ``seat`` acted (a person or a bot; a bot's choice is logged, not
                          chosen again), ``dt`` milliseconds after the previous timed entry
- ``["x", dt]``           a deadline had passed (a reaction window, a seat's turn clock) and
                          the engine resolved it (``Game.advance``: one deadline an entry)
- ``["b", seat, dt]``     an away seat's owner came back (``Game.seat_back``)

Time reaches the engine in whole milliseconds (``ms / 1000``), live and in a replay alike:
that is what makes a timed rule (MT-14's reaction deadline, the turn clocks of MT-17 and
EP-19) replay exactly.
"""

from __future__ import annotations

from typing import Any

import orjson

from cardroom.kit.base import Action, Event, Game
from cardroom.registry import get_game
from cardroom.store.games import GameRecord, dump_json

JOINED = "j"
EXPIRED = "x"
BACK = "b"


def clock_ms(now: float) -> int:
    return int(now * 1000)


def time_for(record: GameRecord, now: float) -> int:
    """The game's time for a step at ``now``, in ms: never before its previous step."""
    return max(clock_ms(now), record.logged_ms)


def begin(record: GameRecord) -> list[Event]:
    """A new game's first event, and its start when every seat is a bot's."""
    events = [_stamp(record, {"type": "game_created", "players": record.players})]
    if _all_seated(record):
        events += _start(record, record.logged_ms)
    return events


def take_seat(record: GameRecord, seat: int, name: str, ms: int | None = None) -> list[Event]:
    """A person sits at ``seat`` (at ``ms``, if known); the game starts when it was the last
    free one (its turn clocks start then)."""
    record.seats[seat] = {"name": name, "bot": None}
    if ms is None:
        record.log([JOINED, seat, name])
    else:
        record.log([JOINED, seat, name, _elapsed(record, ms)])
    events = [_stamp(record, {"type": "seat_taken", "seat": seat, "name": name})]
    if _all_seated(record):
        events += _start(record, record.logged_ms)
    return events


def act(record: GameRecord, game: Game, seat: int, action: Action, ms: int) -> list[Event]:
    """``seat`` plays ``action``; a refused action raises before anything changes."""
    produced = game.apply(record.state, seat, action, ms / 1000)
    record.version += 1
    record.log([seat, action, _elapsed(record, ms)])
    return _settled(record, game, [_stamp(record, event, actor=seat) for event in produced])


def come_back(record: GameRecord, game: Game, seat: int, ms: int) -> list[Event]:
    """An away seat's owner is back; nothing is logged if the seat was not away."""
    produced = game.seat_back(record.state, seat, ms / 1000)
    if not produced:
        return []
    record.version += 1
    record.log([BACK, seat, _elapsed(record, ms)])
    return [_stamp(record, event) for event in produced]


def expire(record: GameRecord, game: Game, ms: int) -> list[Event]:
    """Let the engine resolve a passed deadline (one); nothing is logged if nothing happened."""
    produced = game.advance(record.state, ms / 1000)
    if not produced:
        return []
    record.version += 1
    record.log([EXPIRED, _elapsed(record, ms)])
    return _settled(record, game, [_stamp(record, event) for event in produced])


class Replay:
    """A game rebuilt from its log, entry by entry: its record and every event so far."""

    def __init__(self, stored: GameRecord):
        self.game = get_game(stored.game_type, stored.rules_version)
        # The state as the engine first dealt it, in its stored (JSON) form, as live play had it.
        state = orjson.loads(
            dump_json(self.game.new_game(stored.players, stored.options, stored.seed))
        )
        self.record = GameRecord(
            id=stored.id,
            game_type=stored.game_type,
            players=stored.players,
            options=stored.options,
            seed=stored.seed,
            seed_chosen=stored.seed_chosen,
            seats=[_as_created(seat) for seat in stored.seats],
            state=state,
            created_at=stored.created_at,
            logged_ms=clock_ms(stored.created_at),
        )
        self.events: list[Event] = begin(self.record)
        self.applied = 0

    def belongs_to(self, stored: GameRecord) -> bool:
        return (
            stored.id == self.record.id
            and stored.created_at == self.record.created_at
            and stored.seed == self.record.seed
            and stored.seq >= self.record.seq
        )

    def advance(self, entries: list[Any]) -> None:
        """Apply the entries not applied yet (``entries`` is the whole log, decoded or not)."""
        for entry in entries[self.applied :]:
            self.step(entry)

    def step(self, entry: Any) -> list[Event]:
        """Apply the next entry of the log; its events."""
        if isinstance(entry, bytes | str):
            entry = orjson.loads(entry)
        events = self._apply(entry)
        self.events += events
        self.record.pending.clear()
        self.applied += 1
        return events

    def _apply(self, entry: list[Any]) -> list[Event]:
        record, game = self.record, self.game
        if entry[0] == JOINED:
            ms = record.logged_ms + entry[3] if len(entry) > 3 else None
            return take_seat(record, entry[1], entry[2], ms)
        if entry[0] == EXPIRED:
            return expire(record, game, record.logged_ms + entry[1])
        if entry[0] == BACK:
            return come_back(record, game, entry[1], record.logged_ms + entry[2])
        seat, action, elapsed = entry
        return act(record, game, seat, action, record.logged_ms + elapsed)


def as_it_was(stored: GameRecord, seq: int) -> GameRecord | None:
    """The game as it was when its ``seq``-th event was the last (every step adds at least
    one), rebuilt from ``stored``'s log; None if its log never had that many events."""
    replay = Replay(stored)
    for line in stored.log_lines():
        if replay.record.seq >= seq:
            break
        replay.step(line)
    return replay.record if replay.record.seq == seq else None


def _as_created(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat as it was when the game was created: bots are seated from the start."""
    return dict(seat) if seat["bot"] else {"name": None, "bot": None}


def _all_seated(record: GameRecord) -> bool:
    return all(seat["name"] is not None for seat in record.seats)


def _start(record: GameRecord, ms: int) -> list[Event]:
    record.status = "active"
    bots = {seat for seat, entry in enumerate(record.seats) if entry["bot"]}
    produced = get_game(record.game_type, record.rules_version).start(record.state, ms / 1000, bots)
    return [_stamp(record, {"type": "game_started"}), *(_stamp(record, e) for e in produced)]


def _elapsed(record: GameRecord, ms: int) -> int:
    elapsed = ms - record.logged_ms
    record.logged_ms = ms
    return elapsed


def _settled(record: GameRecord, game: Game, events: list[Event]) -> list[Event]:
    if record.status == "active" and game.result(record.state) is not None:
        record.status = "finished"
    return events


def _stamp(record: GameRecord, event: Event, actor: int | None = None) -> Event:
    record.seq += 1
    stamped = {"seq": record.seq, "version": record.version, **event}
    if actor is not None and "actor" not in stamped:
        stamped["actor"] = actor
    return stamped
