"""Shared by the hardening tests: read a game straight from Redis and replay it.

A replay rebuilds the game from its seed with the pure engine, applying exactly the actions
the clients were told were accepted (HTTP 200), in the order of the versions they were given.
If the stored state and events equal the replay's, every accepted action was applied exactly
once, in that order, and nothing refused or lost changed anything.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cardroom.registry import get_game
from cardroom.store.connection import plain_client
from cardroom.store.record import GameRecord, game_key
from cardroom.table.steps import Replay

STAMPS = ("seq", "version", "actor")


@dataclass
class Accepted:
    """An action a client was told was accepted: its seat, body and the version it made."""

    seat: int
    action: dict[str, Any]
    version: int


def stored_game(redis_url: str, game_id: str) -> tuple[GameRecord, list[dict[str, Any]]]:
    """The game's record and its full (unredacted) event log, rebuilt from the stored log."""
    client = plain_client(redis_url)  # one Redis or a cluster
    try:
        record = GameRecord.from_hash(game_id, client.hgetall(game_key(game_id)))
    finally:
        client.close()
    replay = Replay(record)
    replay.advance(record.log_lines())
    assert replay.record.state == record.state, "the log does not replay to the stored state"
    return record, replay.events


def check_event_log(events: list[dict[str, Any]], final_version: int) -> None:
    """Events numbered 1, 2, 3…; versions never go back; each version's events together."""
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    versions = [event["version"] for event in events]
    assert versions == sorted(versions), "event versions go back"
    assert not versions or versions[-1] <= final_version
    acted = sorted({event["version"] for event in events if "actor" in event})
    assert acted == list(range(1, final_version + 1)), (
        f"versions with actions {acted[:5]}… are not exactly 1..{final_version}"
    )


def check_versions(accepted: Iterable[Accepted], final_version: int, start: int = 0) -> None:
    """Each accepted action got its own version; together they are start+1..final, no gaps."""
    counts = Counter(item.version for item in accepted)
    twice = [version for version, count in counts.items() if count > 1]
    assert not twice, f"versions given to two accepted actions: {twice}"
    assert sorted(counts) == list(range(start + 1, final_version + 1)), (
        f"accepted versions {sorted(counts)} are not {start + 1}..{final_version}"
    )


def _strip(event: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in event.items() if key not in STAMPS}


def replay_matches(redis_url: str, game_id: str, accepted: Iterable[Accepted]) -> GameRecord:
    """Replay the accepted actions from the seed; the stored game must be exactly that."""
    record, events = stored_game(redis_url, game_id)
    ordered = sorted(accepted, key=lambda item: item.version)
    check_versions(ordered, record.version)
    check_event_log(events, record.version)
    game = get_game(record.game_type)
    state = game.new_game(record.players, record.options, record.seed)
    by_version: dict[int, list[dict[str, Any]]] = {}
    for event in events:
        by_version.setdefault(event["version"], []).append(event)
    for item in ordered:
        produced = game.apply(state, item.seat, item.action, None)
        logged = [event for event in by_version.get(item.version, []) if "actor" in event]
        assert {event["actor"] for event in logged} == {item.seat}, (
            f"version {item.version} was not acted by seat {item.seat}"
        )
        assert [_strip(event) for event in logged] == [_strip(event) for event in produced], (
            f"version {item.version}: the log differs from a replay of {item.action}"
        )
    assert json.loads(json.dumps(state)) == record.state, "the stored state is not the replay's"
    return record
