"""A game's log replays to exactly what live play produced (cardroom.table.steps), with no Redis.

Events are not stored: every event a client reads is rebuilt from the log. These tests play
random games the way the service does (a step, then the state through JSON as a commit and a
load would), keep the log lines as the store would, and check that a replay, whole or in
pieces, gives the same events, state, version and status, timed rules (MT-14) included.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from cardroom.kit.base import RuleError
from cardroom.registry import get_game
from cardroom.store.record import SEAL_AFTER, GameRecord, dump_json
from cardroom.table import Tables, steps
from cardroom.table.steps import Replay

CREATED_AT = 1_764_433_845.123456
THINKING_MS = (0, 1, 250, 1_500, 4_999, 40_000)


def play_live(
    game_type: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    bot_seat: int | None,
    seen: Callable[[GameRecord], None] = lambda record: None,
) -> tuple[GameRecord, list[dict[str, Any]], list[str]]:
    """A random game as the service plays it; returns the record, its events, its log lines.
    ``seen`` is shown the record at every commit, before it goes through JSON (as the
    service makes an action's answer)."""
    game = get_game(game_type)
    full = game.validate_options(players, options)
    seats: list[dict[str, Any]] = [{"name": None, "bot": None} for _ in range(players)]
    if bot_seat is not None:
        seats[bot_seat] = {"name": "random bot", "bot": "random"}
    record = GameRecord(
        id="g1",
        game_type=game_type,
        players=players,
        options=full,
        seed=seed,
        seats=seats,
        state=game.new_game(players, full, seed),
        created_at=CREATED_AT,
        updated_at=CREATED_AT,
        logged_ms=steps.clock_ms(CREATED_AT),
    )
    rng = random.Random(seed)
    stored: list[str] = []

    def commit() -> None:
        seen(record)
        stored.extend(record.pending)
        record.pending.clear()
        record.state = json.loads(json.dumps(record.state))

    events = steps.begin(record)
    commit()
    people = [seat for seat in range(players) if seat != bot_seat]
    rng.shuffle(people)
    for seat in people:
        events += steps.take_seat(record, seat, f"player {seat}")
        commit()
    ms = record.logged_ms
    for _ in range(2_000):
        if game.result(record.state) is not None:
            break
        ms += rng.choice(THINKING_MS)
        deadline = game.deadline(record.state)
        if deadline is not None and ms / 1000 >= deadline and rng.random() < 0.5:
            events += steps.expire(record, game, ms)
        else:
            seat = rng.choice(sorted(game.to_act(record.state)))
            legal = game.legal_actions(record.state, seat)
            if not legal:
                continue
            try:
                events += steps.act(record, game, seat, rng.choice(legal), ms)
            except RuleError:
                # Listed before the deadline, refused after it (MT-14): nothing changed.
                assert not record.pending
                continue
        commit()
    return record, events, stored


def replayed(record: GameRecord, lines: list[str], pieces: int = 1) -> Replay:
    replay = Replay(record)
    cut = sorted(random.Random(len(lines)).sample(range(len(lines) + 1), pieces - 1))
    for end in [*cut, len(lines)]:
        replay.advance(lines[:end])
    return replay


TABLES = [
    ("mr-toast", players, options)
    for players in (2, 3, 4, 6)
    for options in ({}, {"reaction_deadline": 5})
] + [("exact-plays", players, {}) for players in (2, 3, 4)]
# Turn clocks (MT-17, EP-19): timeouts, away seats and their bots replay exactly too.
CLOCKS = [
    ("mr-toast", 3, {"turn_seconds": 2, "bank_seconds": 3, "away_after": 2, "turn_limit": 80}),
    ("mr-toast", 4, {"turn_seconds": 5, "away_after": 1, "reaction_deadline": 5, "turn_limit": 80}),
    ("exact-plays", 2, {"turn_seconds": 2, "away_after": 1}),
    ("exact-plays", 3, {"bank_seconds": 20, "away_after": 3, "tiebreak": "rps"}),
]
TABLES += CLOCKS


@pytest.mark.parametrize(("game_type", "players", "options"), TABLES)
def test_a_replay_of_the_log_gives_every_event_and_the_state_live_play_gave(
    game_type: str, players: int, options: dict[str, Any]
) -> None:
    for seed in range(12):
        bot_seat = seed % players if seed % 3 == 0 else None
        record, events, lines = play_live(game_type, players, options, seed, bot_seat)
        for pieces in (1, 5):
            replay = replayed(record, lines, pieces)
            assert replay.events == events, f"seed {seed}: replayed events differ"
            assert replay.record.state == record.state
            assert (replay.record.version, replay.record.seq, replay.record.status) == (
                record.version,
                record.seq,
                record.status,
            )
            assert [event["seq"] for event in replay.events] == list(range(1, record.seq + 1))


def test_deadlines_are_replayed_at_the_millisecond_they_passed() -> None:
    """MT-14: a reaction window that timed out replays as timed out, live and in a replay."""
    expired = 0
    for seed in range(40):
        record, events, lines = play_live("mr-toast", 3, {"reaction_deadline": 5}, seed, None)
        assert replayed(record, lines).events == events
        expired += sum(json.loads(line)[0] == steps.EXPIRED for line in lines)
    assert expired > 0, "no game had a deadline pass: the test does not test MT-14"


def test_a_game_time_never_goes_back_and_reaches_the_engine_in_whole_milliseconds() -> None:
    record = GameRecord(
        id="g",
        game_type="mr-toast",
        players=2,
        options={},
        seed=1,
        seats=[],
        state={},
        logged_ms=5_000,
    )
    assert steps.time_for(record, 4.0) == 5_000, "a clock that went back is held at the log's"
    assert steps.time_for(record, 6.0015) == 6_001


def test_the_log_is_kept_whole_across_sealing() -> None:
    """The store folds the tail into the compressed log every SEAL_AFTER entries."""
    record = GameRecord(
        id="g", game_type="mr-toast", players=2, options={}, seed=1, seats=[], state={}
    )
    written: list[str] = []
    for index in range(SEAL_AFTER * 3 + 5):
        record.log([index % 2, {"type": "end_turn"}, index])
        written += record.pending
        record.log_written(*record.log_update())
        assert [line.decode() for line in record.log_lines()] == written
        assert record.log_tail.count(b"\n") < SEAL_AFTER
    assert record.log_sealed, "the log was never compressed"


@pytest.mark.parametrize(("game_type", "players", "options"), CLOCKS)
def test_turn_clock_timeouts_are_replayed_at_the_millisecond_they_passed(
    game_type: str, players: int, options: dict[str, Any]
) -> None:
    """MT-17, EP-19: a seat's clock that ran out replays as run out, its default move (drawn
    from the game's generator) and its away flag included."""
    timeouts = 0
    for seed in range(10):
        record, events, lines = play_live(game_type, players, options, seed, None)
        assert replayed(record, lines, 3).events == events
        timeouts += sum(event["type"] == "timed_out" for event in events)
    assert timeouts > 0, "no clock ran out: the test does not test the turn clock"


@pytest.mark.parametrize(("game_type", "players", "options"), TABLES)
def test_the_game_as_it_was_at_any_event_gives_every_seat_the_view_live_play_gave(
    game_type: str, players: int, options: dict[str, Any]
) -> None:
    """A retried Idempotency-Key's answer shows the view made again from the log
    (``steps.as_it_was``, docs/architecture.md "An action's path"): byte for byte the view
    each seat had then, clocks, away seats, bots and a chosen seed included."""
    tables = Tables(store=None)  # type: ignore[arg-type]  # views need no store
    for seed in range(4):
        bot_seat = seed % players if seed % 2 == 0 else None
        views: dict[int, list[bytes]] = {}

        def seen(record: GameRecord, views: dict[int, list[bytes]] = views) -> None:
            views[record.seq] = [
                dump_json(tables.shape_view(record, seat)) for seat in range(players)
            ]

        record, _, lines = play_live(game_type, players, options, seed, bot_seat, seen)
        record.log_tail = "\n".join(lines).encode()
        points = sorted(views)
        for seq in random.Random(seed).sample(points, min(10, len(points))) + points[-1:]:
            then = steps.as_it_was(record, seq)
            assert then is not None and then.seq == seq
            for seat in range(players):
                assert dump_json(tables.shape_view(then, seat)) == views[seq][seat], (seed, seq)
        assert steps.as_it_was(record, record.seq + 1) is None, "no such event: not its past"


def test_the_game_as_it_was_keeps_a_chosen_seed_chosen() -> None:
    """The view says how the cards were dealt; a seed the creator chose is shown as such."""
    record, _, lines = play_live("exact-plays", 2, {}, 3, None)
    record.seed_chosen = True
    record.log_tail = "\n".join(lines).encode()
    then = steps.as_it_was(record, 5)
    assert then is not None and then.seed_chosen
    assert Tables(store=None).shape_view(then, 0)["deal"] == "seeded"  # type: ignore[arg-type]
