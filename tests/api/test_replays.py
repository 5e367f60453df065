"""Replays and rematches of finished games over HTTP (docs/api.md, "Replays", "Rematch").

Games are finished quickly on a controlled clock: people who never act time out, go away and
are moved on for (MT-17, EP-19), so the logs hold joins, actions of bots, timeouts and all.
"""

from __future__ import annotations

from typing import Any

import pytest
from clock_kit import Clock, clocked_app, events_of, hands, instance, seated, stored

from cardroom.progress import Progression
from cardroom.registry import get_game
from cardroom.store.embedded import EmbeddedRedis

from helpers import auth, card_ids

FAST = {"turn_seconds": 5, "away_after": 1}


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory):
    with EmbeddedRedis(tmp_path_factory.mktemp("replay-redis")) as server:
        yield server


@pytest.fixture(scope="module")
def client(own_redis):
    return clocked_app(own_redis.url).test_client()


def finished_game(
    own_redis, game_type: str, players: int, options: dict[str, Any], bots: list | None = None
) -> tuple[str, dict[int, str]]:
    clock = Clock()
    tables = instance(own_redis.url, clock)
    game_id, tokens = seated(tables, game_type, players, {**FAST, **options}, bots)
    loop = Progression(tables, share=1.0)
    for _ in range(500):
        if stored(tables, game_id).status == "finished":
            return game_id, tokens
        clock.advance(5)
        loop.run_once()
    raise AssertionError("the game did not finish")


def step_through(replay: dict[str, Any], upto: int) -> dict[str, Any]:
    """The table after step ``upto`` (0: the deal), as a client rebuilds it."""
    table = {"hands": [list(hand) for hand in replay["deal"]["hands"]]}
    table["scores"] = list(replay["deal"]["scores"])
    for step in replay["steps"][:upto]:
        for seat, hand in step.get("hands", {}).items():
            table["hands"][int(seat)] = hand
        if "scores" in step:
            table["scores"] = step["scores"]
    return table


@pytest.mark.parametrize(
    ("game_type", "players", "options", "bots"),
    [
        ("mr-toast", 3, {"turn_limit": 40}, [{"seat": 0, "policy": "greedy"}]),
        ("exact-plays", 3, {"turn_limit": 60}, [{"seat": 1, "policy": "random"}]),
    ],
)
def test_a_replay_stepped_to_the_end_reproduces_the_final_state_and_result(
    own_redis, client, game_type, players, options, bots
):
    game_id, _ = finished_game(own_redis, game_type, players, options, bots)
    answer = client.get(f"/v1/games/{game_id}/replay")
    assert answer.status_code == 200
    replay = answer.get_json()
    record = stored(instance(own_redis.url, Clock()), game_id)
    summary = client.get(f"/v1/games/{game_id}").get_json()

    assert replay["seed"] == record.seed and replay["options"] == record.options
    assert replay["result"] == summary["result"]
    end = step_through(replay, len(replay["steps"]))
    assert end["hands"] == hands(record) == replay["final"]["hands"]
    assert end["scores"] == summary["scores"] == replay["result"]["scores"]
    # Every event, unredacted, in order: the opening ones, then each step's.
    events = replay["opening_events"] + [e for step in replay["steps"] for e in step["events"]]
    assert events == events_of(instance(own_redis.url, Clock()), game_id)
    assert [e["seq"] for e in events] == list(range(1, record.seq + 1))
    kinds = {step["kind"] for step in replay["steps"]}
    assert {"join", "action", "timeout"} <= kinds
    # Each step at any point: every hand is made of described cards.
    middle = step_through(replay, len(replay["steps"]) // 2)
    assert all(card in replay["cards"] for hand in middle["hands"] for card in hand)
    assert all(step["at"] >= 0 for step in replay["steps"])


def test_the_replay_of_an_unfinished_game_is_refused_and_reveals_nothing(own_redis, client):
    tables = instance(own_redis.url, Clock())
    game_id, tokens = seated(tables, "mr-toast", 3, {"turn_seconds": 60}, seed=None)
    record = stored(tables, game_id)
    game = get_game("mr-toast")
    secrets = game.hidden_cards(record.state, None)
    answer = client.get(f"/v1/games/{game_id}/replay", headers=auth(tokens[0]))
    assert answer.status_code == 409
    problem = answer.get_json()
    assert problem["type"].endswith("/problems/game-not-finished")
    text = answer.get_data(as_text=True)
    assert not card_ids(problem) and not any(f'"{card}"' in text for card in secrets)
    assert str(record.seed) not in text and "hand" not in text


def test_a_rematch_is_the_same_game_for_every_seat_and_keeps_their_seats(own_redis, client):
    bots = [{"seat": 2, "policy": "greedy"}]
    game_id, tokens = finished_game(own_redis, "mr-toast", 3, {"turn_limit": 20}, bots)
    first = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))
    assert first.status_code == 200, first.get_json()
    rematch = first.get_json()
    assert first.headers["Location"] == f"/v1/games/{rematch['id']}"
    second = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[1])).get_json()
    assert second["id"] == rematch["id"], "every seat that asks gets the same game"
    assert client.post(f"/v1/games/{game_id}/rematch").status_code == 401
    assert client.get(f"/v1/games/{game_id}").get_json()["rematch"] == rematch["id"]
    old_view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
    assert old_view["rematch"] == rematch["id"]

    old = client.get(f"/v1/games/{game_id}").get_json()
    assert rematch["status"] == "waiting" and rematch["options"] == old["options"]
    assert rematch["seed"] is None and rematch["id"] != game_id
    seats = rematch["seats"]
    assert seats[2]["bot"] == "greedy", "bot seats stay bots"
    assert [seat["reserved"] for seat in seats] == [True, True, False]

    stranger = client.post(f"/v1/games/{rematch['id']}/join", json={"name": "x"})
    assert stranger.status_code == 409
    assert stranger.get_json()["type"].endswith("/problems/seat-reserved")
    taken = client.post(
        f"/v1/games/{rematch['id']}/join", json={"name": "p1", "seat": 1}, headers=auth(tokens[1])
    )
    assert taken.status_code == 201 and taken.get_json()["seat"] == 1
    mine = client.post(
        f"/v1/games/{rematch['id']}/join", json={"name": "p0"}, headers=auth(tokens[0])
    )
    assert mine.status_code == 201 and mine.get_json()["seat"] == 0
    assert mine.get_json()["status"] == "active", "every seat taken: the rematch begins"
    new_token = mine.get_json()["token"]
    view = client.get(f"/v1/games/{rematch['id']}/view", headers=auth(new_token)).get_json()
    assert view["you"]["seat"] == 0


def test_a_rematch_of_an_unfinished_game_is_refused(own_redis, client):
    tables = instance(own_redis.url, Clock())
    game_id, tokens = seated(tables, "exact-plays", 2, {})
    answer = client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))
    assert answer.status_code == 409
    assert answer.get_json()["type"].endswith("/problems/game-not-finished")
    assert client.get(f"/v1/games/{game_id}").get_json()["rematch"] is None
