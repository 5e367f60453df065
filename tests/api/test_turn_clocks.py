"""Turn clocks and away seats through the service, on a controlled clock (MT-17, EP-19;
docs/api.md "Turn clocks and away seats"): a seat that never acts is moved on for in every
phase of both games, lazily by the next request and with no request by the progression loop;
two instances racing apply a timeout once; a table whose every seat is away ends by itself.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from clock_kit import START, Clock, events_of, instance, opened, seated, stored

from cardroom.games.mr_toast.cards import DEFAULT_COUNTS
from cardroom.progress import Progression
from cardroom.store.embedded import EmbeddedRedis

TURN = 30


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory):
    with EmbeddedRedis(tmp_path_factory.mktemp("clock-redis")) as server:
        yield server


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def tables(own_redis, clock):
    return instance(own_redis.url, clock)


def find_a_penny_first() -> list[str]:
    codes = [code for code, count in DEFAULT_COUNTS.items() for _ in range(count)]
    codes.remove("FP")
    return ["FP", *codes]


def after_timeout(events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The events from ``seat``'s first timeout on."""
    index = next(i for i, e in enumerate(events) if e["type"] == "timed_out" and e["seat"] == seat)
    return events[index:]


def settle(tables, game_id: str) -> dict[str, Any]:
    """A spectator's request: it settles whatever deadline passed (lazily) and reads."""
    return tables.shape_view(*opened(tables, game_id, None))


# --- every phase of both games ------------------------------------------------------------------


def test_mr_toast_turn_a_seat_that_never_acts_ends_its_turn(tables, clock):
    game_id, _ = seated(tables, "mr-toast", 2, {"turn_seconds": TURN, "first_seat": 0})
    view = settle(tables, game_id)
    assert view["deadline"] == START + TURN and view["clock"]["seats"][0]["since"] == START
    clock.advance(TURN - 0.001)
    assert settle(tables, game_id)["to_act"] == [0], "not a moment early"
    clock.advance(0.002)
    view = settle(tables, game_id)
    assert view["to_act"] == [1] and view["public"]["current_seat"] == 1
    shown = [e["type"] for e in after_timeout(events_of(tables, game_id), 0)]
    assert shown[:2] == ["timed_out", "turn_ended"], "MT-17: the turn ends"
    assert view["clock"]["seats"][1]["deadline"] == pytest.approx(clock.now + TURN, abs=1e-3)


def test_mr_toast_step_three_a_seat_that_stalls_after_its_play_ends_its_turn(tables, clock):
    game_id, tokens = seated(tables, "mr-toast", 2, {"turn_seconds": TURN, "first_seat": 0})
    legal = tables.shape_view(*opened(tables, game_id, tokens[0]))["legal_actions"]
    step_two = next(a for a in legal if a["type"] in ("score", "give_red"))
    clock.advance(10)
    tables.act(game_id, tokens[0], step_two)
    assert settle(tables, game_id)["public"]["phase"] == "blue"
    clock.advance(TURN - 10)  # one clock for the whole turn, steps 2 and 3
    view = settle(tables, game_id)
    assert view["to_act"] == [1]
    shown = [e["type"] for e in after_timeout(events_of(tables, game_id), 0)]
    assert shown[:2] == ["timed_out", "turn_ended"]


def test_mr_toast_reaction_a_seat_that_never_answers_allows(tables, clock):
    options = {"turn_seconds": TURN, "first_seat": 0, "deck": find_a_penny_first()}
    game_id, tokens = seated(tables, "mr-toast", 2, options)
    legal = tables.shape_view(*opened(tables, game_id, tokens[0]))["legal_actions"]
    penny = next(a for a in legal if a["type"] == "play_blue")
    clock.advance(5)
    tables.act(game_id, tokens[0], penny)
    view = settle(tables, game_id)
    assert view["public"]["phase"] == "reaction" and view["deadline"] == START + 5 + TURN
    clock.advance(TURN)
    view = settle(tables, game_id)
    assert view["public"]["phase"] == "play" and view["to_act"] == [1]
    shown = after_timeout(events_of(tables, game_id), 1)
    assert [e["type"] for e in shown[:3]] == ["timed_out", "allowed", "blue_resolved"]
    assert shown[1]["seat"] == 1, "MT-17: a seat out of time in a No Way window allows"


def test_exact_plays_declaration_every_seat_that_never_declares_gets_a_random_one(tables, clock):
    game_id, _ = seated(tables, "exact-plays", 3, {"turn_seconds": TURN})
    clock.advance(TURN)
    view = settle(tables, game_id)
    assert view["public"]["phase"] != "declare"
    events = events_of(tables, game_id)
    timed = [e["seat"] for e in events if e["type"] == "timed_out"]
    assert timed == [0, 1, 2]
    declared = [e for e in events if e["type"] == "declared"]
    assert [e["seat"] for e in declared] == [0, 1, 2]
    assert all(0 <= e["private"][str(e["seat"])]["tokens"] <= 10 for e in declared)
    assert "tokens" not in declared[0], "a declaration stays secret (EP-3)"


def test_exact_plays_rock_paper_scissors_a_seat_that_never_throws_gets_a_random_throw(
    tables, clock
):
    game_id, tokens = seated(tables, "exact-plays", 2, {"turn_seconds": TURN, "tiebreak": "rps"})
    for seat in (0, 1):
        tables.act(game_id, tokens[seat], {"type": "declare", "tokens": 3})
    assert settle(tables, game_id)["public"]["phase"] == "rps"
    tables.act(game_id, tokens[0], {"type": "rps", "shape": "rock"})
    for _ in range(20):  # seat 1 never throws; a tie is thrown again (EP-4)
        if settle(tables, game_id)["public"]["phase"] != "rps":
            break
        clock.advance(TURN)
    view = settle(tables, game_id)
    assert view["public"]["phase"] == "play"
    events = events_of(tables, game_id)
    first = after_timeout(events, 1)
    assert first[1]["type"] == "rps_chosen" and first[1]["seat"] == 1
    assert first[1]["private"]["1"]["shape"] in ("rock", "paper", "scissors")


def test_exact_plays_play_a_seat_that_never_plays_passes_or_plays_at_random(tables, clock):
    options = {"turn_seconds": TURN, "tiebreak": "random"}
    game_id, tokens = seated(tables, "exact-plays", 2, options)
    for seat in (0, 1):
        tables.act(game_id, tokens[seat], {"type": "declare", "tokens": 2})
    view = settle(tables, game_id)
    current = view["public"]["turn"]
    clock.advance(TURN)
    settle(tables, game_id)
    shown = after_timeout(events_of(tables, game_id), current)
    assert shown[1]["type"] in ("passed", "played", "drew") and shown[1]["seat"] == current
    assert shown[1]["type"] == "played", "EP-10: an empty field with a Play token: a play"
    clock.advance(TURN)
    settle(tables, game_id)
    other = 1 - current
    shown = after_timeout(events_of(tables, game_id), other)
    assert shown[1]["type"] == "passed", "EP-19: a pass where the rules allow one"


# --- with no request ----------------------------------------------------------------------------


def test_the_progression_loop_fires_a_deadline_with_no_request(tables, clock):
    game_id, _ = seated(tables, "mr-toast", 2, {"turn_seconds": TURN, "first_seat": 0})
    assert tables.store.due.due_at(game_id) == START + TURN, "scheduled in the due set"
    version = stored(tables, game_id).version
    loop = Progression(tables, share=1.0)
    loop.run_once()
    assert stored(tables, game_id).version == version, "nothing is due before the deadline"
    clock.advance(TURN)
    loop.run_once()
    record = stored(tables, game_id)
    assert record.version == version + 1 and record.state["current_seat"] == 1
    assert tables.store.due.due_at(game_id) == pytest.approx(clock.now + TURN, abs=1e-3)


def test_two_instances_racing_apply_a_timeout_once(own_redis, clock):
    first, second = instance(own_redis.url, clock), instance(own_redis.url, clock)
    game_id, _ = seated(first, "mr-toast", 2, {"turn_seconds": TURN, "first_seat": 0})
    version = stored(first, game_id).version
    clock.advance(TURN)
    # Both load the same version before either commits: the compare-and-set decides.
    both_read = threading.Barrier(2, timeout=10)
    for tables in (first, second):
        load = tables.store.load
        loads = [0]

        def load_then_wait(*args: Any, _load: Any = load, _loads: Any = loads, **kw: Any) -> Any:
            loaded = _load(*args, **kw)
            _loads[0] += 1
            if _loads[0] == 1:  # the first load only: a retry after a lost race goes on
                both_read.wait()
            return loaded

        tables.store.load = load_then_wait  # type: ignore[method-assign]
    results: list[Any] = []
    threads = [
        threading.Thread(target=lambda t=tables: results.append(t.advance(game_id)))
        for tables in (first, second)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert len(results) == 2
    record = stored(first, game_id)
    assert record.version == version + 1, "the timeout was applied once"
    timed = [e for e in events_of(first, game_id) if e["type"] == "timed_out"]
    assert len(timed) == 1


# --- away seats ---------------------------------------------------------------------------------


def test_a_seat_that_times_out_in_a_row_is_away_and_not_waited_for_until_it_comes_back(
    tables, clock
):
    options = {"turn_seconds": TURN, "first_seat": 0, "away_after": 2}
    game_id, tokens = seated(tables, "mr-toast", 2, options)
    for _ in range(2):  # seat 0 never acts; seat 1 ends its turns at once
        clock.advance(TURN)
        settle(tables, game_id)
        tables.act(game_id, tokens[1], {"type": "end_turn"})
    summary = tables.summary(game_id)
    assert [seat["away"] for seat in summary["seats"]] == [True, False], "spectators see it"
    view = settle(tables, game_id)
    assert view["clock"]["seats"][0]["away"] and view["to_act"] == [1]
    # Away: seat 0's turn is not waited for: seat 1's action is answered with its next turn.
    answer = tables.act(game_id, tokens[1], {"type": "end_turn"})
    assert answer.body["view"]["to_act"] == [1]
    assert any(e["type"] == "timed_out" for e in answer.body["events"])

    record, seat = tables.come_back(game_id, tokens[0])
    view = tables.shape_view(record, seat)
    assert seat == 0 and not view["clock"]["seats"][0]["away"]
    assert events_of(tables, game_id)[-1]["type"] == "seat_back"
    tables.act(game_id, tokens[1], {"type": "end_turn"})
    view = settle(tables, game_id)
    assert view["to_act"] == [0], "seat 0 is waited for again"
    assert view["deadline"] == pytest.approx(clock.now + TURN, abs=1e-3)
    again = tables.come_back(game_id, tokens[0])[0]
    assert again.version == stored(tables, game_id).version, "back twice changes nothing"


def test_an_away_seat_is_played_by_the_away_bot(tables, clock):
    options = {"turn_seconds": TURN, "first_seat": 0, "away_after": 1, "away_bot": "greedy"}
    game_id, tokens = seated(tables, "mr-toast", 2, options)
    clock.advance(TURN)
    settle(tables, game_id)  # seat 0 times out once: away
    answer = tables.act(game_id, tokens[1], {"type": "end_turn"})
    assert answer.body["view"]["to_act"] == [1]
    played = [e for e in answer.body["events"] if e.get("actor") == 0]
    assert played, "the greedy bot played seat 0's turn"
    assert not any(e["type"] == "timed_out" for e in answer.body["events"])


@pytest.mark.parametrize(
    ("game_type", "players", "options"),
    [
        ("mr-toast", 3, {"turn_limit": 30}),
        ("exact-plays", 2, {"turn_limit": 40, "tiebreak": "rps"}),
    ],
)
def test_a_table_whose_every_seat_is_away_ends_with_no_request(
    tables, clock, game_type, players, options
):
    options = {**options, "turn_seconds": 5, "away_after": 1}
    game_id, _ = seated(tables, game_type, players, options)
    loop = Progression(tables, share=1.0)
    for _ in range(200):
        if stored(tables, game_id).status == "finished":
            break
        clock.advance(5)
        loop.run_once()  # the loop alone: no request reads or writes the game
    record = stored(tables, game_id)
    assert record.status == "finished", "the table did not end"
    assert record.state["clock"]["away"] == [True] * players
    assert tables.store.due.due_at(game_id) is None, "nothing is due once it ended"
