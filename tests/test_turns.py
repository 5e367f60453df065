"""One action at a time per game in one process (cardroom.table.turns).

Two actions on one game in one process used to run side by side from the same game: the
second's compare-and-set was refused and it ran again (its rules, its answer, a round trip
for nothing). Queued, the second starts from the game the first wrote.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from cardroom.serve.app import create_app
from cardroom.store import Conflict
from cardroom.table.turns import GameTurns

from helpers import auth, new_table, view

JOIN_SECONDS = 10


def run_in_threads(*calls: Any) -> list[Any]:
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Any) -> None:
        results[index] = call()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_SECONDS)
        assert not thread.is_alive(), "an action did not finish"
    return results


def test_a_second_action_on_a_game_waits_for_the_first():
    turns = GameTurns(wait=JOIN_SECONDS)
    order: list[str] = []
    first_in = threading.Event()

    def first() -> None:
        with turns.turn("g"):
            first_in.set()
            order.append("first starts")
            time.sleep(0.2)
            order.append("first ends")

    def second() -> None:
        first_in.wait(JOIN_SECONDS)
        with turns.turn("g") as held:
            assert held
            order.append("second starts")

    run_in_threads(first, second)
    assert order == ["first starts", "first ends", "second starts"]
    assert turns.waiting() == 0, "a game nobody acts on holds no line"


def test_actions_on_other_games_do_not_wait():
    """With game g's turn held, an action on h gets its own turn at once (one that waited
    for g's would give up after ``wait`` without it)."""
    turns = GameTurns(wait=0.2)

    def on_h() -> bool:
        with turns.turn("h") as held:
            return held

    with turns.turn("g"):
        assert run_in_threads(on_h) == [True]
    assert turns.waiting() == 0


def test_a_wait_past_its_bound_goes_ahead_without_the_turn():
    turns = GameTurns(wait=0.1)
    release = threading.Event()
    holding = threading.Event()

    def holder() -> None:
        with turns.turn("g"):
            holding.set()
            release.wait(JOIN_SECONDS)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        holding.wait(JOIN_SECONDS)
        with turns.turn("g") as held:
            assert held is False
    finally:
        release.set()
        thread.join(JOIN_SECONDS)
    assert turns.waiting() == 0


@pytest.fixture()
def solo(settings):
    """An API process of its own, so its store can be watched."""
    return create_app(settings)


def test_racing_actions_in_one_process_never_commit_over_each_other(solo):
    """Two actions of one seat sent at once: the second is judged on the game the first
    wrote. Without the queue both commit from the same game, the first commit's wait below
    lets the second reach Redis meanwhile, and the second is refused there (Conflict) and
    runs again."""
    client = solo.test_client()
    store = solo.extensions["cardroom.tables"].store
    game_id, tokens = new_table(client, "mr-toast", 2, seed=7)
    seat = view(client, game_id)["awaiting"][0]
    legal = view(client, game_id, tokens[seat])["legal_actions"]
    commit = store.commit
    in_flight = 0
    most_in_flight = 0
    conflicts = 0
    second_arrived = threading.Event()
    guard = threading.Lock()

    def watched_commit(*args: Any, **kwargs: Any) -> None:
        nonlocal in_flight, most_in_flight, conflicts
        with guard:
            in_flight += 1
            most_in_flight = max(most_in_flight, in_flight)
            if in_flight > 1:
                second_arrived.set()
        second_arrived.wait(0.5)  # the first commit lingers: room for the second to race it
        try:
            return commit(*args, **kwargs)
        except Conflict:
            conflicts += 1
            raise
        finally:
            with guard:
                in_flight -= 1

    store.commit = watched_commit  # type: ignore[method-assign]

    def act(action: dict[str, Any]) -> Any:
        return solo.test_client().post(
            f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
        )

    answers = run_in_threads(lambda: act(legal[0]), lambda: act(legal[-1]))
    assert 200 in [answer.status_code for answer in answers]
    assert most_in_flight == 1, "two commits of one game were in flight at once"
    assert conflicts == 0, "an action was committed from a game another had changed"
