"""Bots that think (issue 29): search levels at a table, played off the request path by the
thinking loop (cardroom/thinking.py) in a deciding process of its own.

In-process app and a real Redis; the loop is driven one step at a time here (a gunicorn
worker runs it by itself: tests/sdk/test_sdk_tables.py plays whole games so).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from cardroom.bots import choose_thought
from cardroom.registry import get_game, get_policy
from cardroom.store.due import bucket_of
from cardroom.table import Nothing, Tables, Thought
from cardroom.thinking import Mind, Thinking

from helpers import auth, card_ids, create_game, join_all, view


@pytest.fixture(scope="module")
def mind() -> Iterator[Mind]:
    made = Mind()
    yield made
    made.close()


def tables_of(app: Any) -> Tables:
    return app.extensions["cardroom.tables"]


def exact_plays_with_search(client: Any, bot: str = "search") -> tuple[str, dict[int, str]]:
    """Exact Plays, 2 players: a person in seat 0, a search bot in seat 1, both to declare."""
    game = create_game(client, "exact-plays", 2, seed=11, bots=[{"seat": 1, "policy": bot}])
    return game["id"], join_all(client, game)


def test_game_types_describe_the_search_levels(client: Any) -> None:
    listed = {t["game_type"]: t for t in client.get("/v1/game-types").get_json()["game_types"]}
    for game_type in ("mr-toast", "exact-plays"):
        bots = {bot["name"]: bot for bot in listed[game_type]["bots"]}
        assert list(bots) == listed[game_type]["bot_policies"]
        assert {"random", "greedy", "search", "search-strong"} <= set(bots)
        assert bots["search"]["thinks"] and bots["search-strong"]["thinks"]
        assert not bots["greedy"]["thinks"] and not bots["random"]["thinks"]
        assert all(bot["description"] for bot in bots.values())


def test_the_request_that_hands_a_search_bot_its_turn_answers_without_it(client: Any) -> None:
    """The person declares; the answer comes back with the bot's declaration still to make,
    the game waits in the thinking set, and the progression loop leaves it alone."""
    app = client.application
    tables = tables_of(app)
    game_id, tokens = exact_plays_with_search(client)
    hand = view(client, game_id, tokens[0])
    declare = next(a for a in hand["legal_actions"] if a["type"] == "declare")
    response = client.post(f"/v1/games/{game_id}/actions", json=declare, headers=auth(tokens[0]))
    assert response.status_code == 200, response.get_json()
    assert 1 in view(client, game_id, tokens[0])["to_act"]
    assert tables.store.thinking.due_at(game_id) is not None
    version = view(client, game_id, tokens[0])["version"]
    tables.advance(game_id)  # the progression loop's step: nothing for it to play
    assert view(client, game_id, tokens[0])["version"] == version


def test_a_thought_reads_only_what_its_seat_may_see(client: Any) -> None:
    tables = tables_of(client.application)
    game_id, tokens = exact_plays_with_search(client)
    thought = tables.pending_thought(game_id)
    assert isinstance(thought, Thought) and thought.seat == 1 and thought.bot == "search"
    person = card_ids(view(client, game_id, tokens[0])["you"]["hand"])
    sent = json.dumps(thought.request())
    assert person and not (card_ids(json.loads(sent)) & person), "a thought reads seat 0's hand"
    assert thought.view["you"]["seat"] == 1


def test_the_deciding_process_decides_as_the_bot_does_in_process(client: Any, mind: Mind) -> None:
    """Same thought, same seed: the process's action is the in-process one (a decision is a
    pure function of what it reads), and it is legal."""
    tables = tables_of(client.application)
    game_id, _ = exact_plays_with_search(client)
    thought = tables.pending_thought(game_id)
    assert isinstance(thought, Thought)
    game = get_game(thought.game_type)
    expected = choose_thought(
        game,
        get_policy(thought.bot, thought.game_type),
        thought.view,
        thought.legal,
        thought.seen,
        thought.options,
        random.Random(thought.seed),
    )
    assert mind.decide(thought) == expected
    assert expected in thought.legal


def test_the_thinking_loop_plays_the_bot_and_the_game_goes_on(client: Any, mind: Mind) -> None:
    """The loop takes waiting games one at a time, this one among those other tests left
    in the same Redis, where the suite's gunicorn workers run thinking loops too (one of
    them may hold this game's lease while its deciding process thinks): within a bounded
    time this game's bot has played."""
    tables = tables_of(client.application)
    game_id, tokens = exact_plays_with_search(client)
    before = view(client, game_id, tokens[0])
    loop = Thinking(tables, mind)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if not loop.run_once():
            time.sleep(0.05)  # nothing played here: another game, or another loop's lease
        if view(client, game_id, tokens[0])["version"] > before["version"]:
            break
    after = view(client, game_id, tokens[0])
    assert after["version"] > before["version"]
    assert 1 not in after["awaiting"]  # it has declared (it may still change it: to_act)


def test_a_game_that_moved_on_while_the_bot_thought_is_thought_about_again(
    client: Any, mind: Mind
) -> None:
    """The bot thinks about the declaration phase; meanwhile the person declares (a new
    version): its move is not played on the new state, and the game waits for it again."""
    tables = tables_of(client.application)
    game_id, tokens = exact_plays_with_search(client)
    thought = tables.pending_thought(game_id)
    assert isinstance(thought, Thought)
    action = mind.decide(thought)
    declare = next(
        a for a in view(client, game_id, tokens[0])["legal_actions"] if a["type"] == "declare"
    )
    assert (
        client.post(
            f"/v1/games/{game_id}/actions", json=declare, headers=auth(tokens[0])
        ).status_code
        == 200
    )
    assert tables.play_thought(thought, action) is False
    fresh = tables.pending_thought(game_id)
    assert isinstance(fresh, Thought) and fresh.version > thought.version


def test_a_failing_decision_falls_back_to_a_legal_move(client: Any, mind: Mind) -> None:
    """A bot that fails never stalls the game: the deciding process answers with the error,
    and the loop logs it and plays a legal action drawn from the decision's seed."""
    tables = tables_of(client.application)
    game_id, _ = exact_plays_with_search(client)
    thought = tables.pending_thought(game_id)
    assert isinstance(thought, Thought)
    broken = replace(thought, view={"you": None})  # a search cannot decide for no seat
    with pytest.raises(RuntimeError, match="ValueError"):
        mind.decide(broken)
    fallback = Thinking(tables, mind).decide(broken)
    assert fallback == random.Random(thought.seed).choice(thought.legal)


def test_a_deciding_process_that_died_is_started_again(client: Any) -> None:
    tables = tables_of(client.application)
    game_id, _ = exact_plays_with_search(client)
    thought = tables.pending_thought(game_id)
    assert isinstance(thought, Thought)
    mind = Mind()
    try:
        first = mind.decide(thought)
        process = mind._process
        assert process is not None
        process.kill()
        process.wait()
        assert mind.decide(thought) == first
        assert mind._process is not process
    finally:
        mind.close()


def test_a_game_entered_before_its_commit_is_looked_at_again(client: Any, mind: Mind) -> None:
    """A request enters the game in the thinking set just before its commit; a loop that
    loads it in between finds nothing to think about yet. It must not drop the game: a
    game written lately is looked at again a moment later (the stalled game a ladder run
    met), one long untouched is let go."""
    tables = tables_of(client.application)
    game_id, tokens = exact_plays_with_search(client)
    person = view(client, game_id, tokens[0])
    declare = next(a for a in person["legal_actions"] if a["type"] == "declare")
    assert client.post(f"/v1/games/{game_id}/actions", json=declare, headers=auth(tokens[0]))
    loop = Thinking(tables, mind)
    while loop.run_once():  # the bot declares; the round starts, seat 0 to play
        pass
    assert isinstance(tables.pending_thought(game_id), Nothing)
    now = tables.clock()
    tables.store.thinking.schedule(game_id, now)  # as a request does, before its commit
    # Lease it as a loop does (with any other game of its bucket due now: put back after).
    claimed = dict(tables.store.thinking.claim(bucket_of(game_id), now, 30.0, 1000))
    for other, lease in claimed.items():
        if other != game_id:
            tables.store.thinking.release(other, lease, now)
    assert loop.think(game_id, claimed[game_id]) == 0
    looked_again = tables.store.thinking.due_at(game_id)
    assert looked_again is not None and now < looked_again <= now + 1
