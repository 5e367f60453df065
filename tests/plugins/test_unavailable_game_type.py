"""A game this server cannot play is answered with a clear problem, never a 500, and listed
as unavailable; the other games are served as before (issue 30, "Versions and
deployments"). Two ways a game becomes one: its type is not installed here (its package
removed, or refused at start), or the installed package plays another version of its rules
than the game was recorded under (``GamePlugin.rules_version``): it is then not replayed
under rules it was not played by."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from cardroom import registry
from cardroom.progress import Progression

from helpers import auth, create_game, join_all
from inprocess_socket import InProcessSocket


@pytest.fixture
def without_mr_toast(monkeypatch: pytest.MonkeyPatch) -> None:
    """This server as if Mr Toast's package were not installed."""
    entries = {name: e for name, e in registry.installed().items() if name != "mr-toast"}
    monkeypatch.setattr(registry, "_LOADED", (entries, []))
    monkeypatch.setattr(registry, "_GAMES", None)


def assert_unavailable(response: Any) -> None:
    assert response.status_code == 503, response.get_data(as_text=True)
    body = response.get_json()
    assert body["type"] == "/problems/game-type-unavailable"
    assert "cannot play 'mr-toast' games" in body["detail"]


def test_a_game_of_a_type_not_installed_answers_a_problem_not_a_500(
    client: Any, request: pytest.FixtureRequest
) -> None:
    game = create_game(client, "mr-toast", 2)
    tokens = join_all(client, game)
    other = create_game(client, "exact-plays", 2)
    request.getfixturevalue("without_mr_toast")
    game_id, headers = game["id"], auth(tokens[0])

    assert_unavailable(client.get(f"/v1/games/{game_id}"))
    assert_unavailable(client.get(f"/v1/games/{game_id}/view", headers=headers))
    assert_unavailable(client.get(f"/v1/games/{game_id}/events", headers=headers))
    assert_unavailable(client.get(f"/v1/games/{game_id}/replay"))
    assert_unavailable(
        client.post(f"/v1/games/{game_id}/actions", json={"type": "pass"}, headers=headers)
    )

    listed = client.get("/v1/games?limit=100")
    assert listed.status_code == 200
    summaries = {summary["id"]: summary for summary in listed.get_json()["games"]}
    assert summaries[other["id"]]["available"] is True
    unavailable = summaries[game_id]
    assert unavailable["available"] is False and unavailable["deal"] == "unknown"
    assert unavailable["plugin"] == {"package": "cardroom", "version": "0.1.0", "rules_version": 1}
    assert (unavailable["scores"], unavailable["to_act"], unavailable["options"]) == ([], [], {})
    assert [seat["taken"] for seat in unavailable["seats"]] == [True, True]
    assert client.get(f"/v1/games/{other['id']}").status_code == 200

    socket = InProcessSocket(client.application, game_id, tokens[0], greet=False)
    try:
        socket.send({"type": "hello", "token": tokens[0]})
        answer = socket.receive()
        assert answer["type"] == "problem", answer
        assert answer["problem"]["type"] == "/problems/game-type-unavailable"
    finally:
        socket.close()

    created = client.post("/v1/games", json={"game_type": "mr-toast", "players": 2})
    assert created.status_code == 422
    assert created.get_json()["type"] == "/problems/invalid"


def test_the_progression_loop_leaves_such_a_game_to_a_process_that_has_its_type(
    client: Any, app: Any, request: pytest.FixtureRequest
) -> None:
    game = create_game(client, "mr-toast", 2)
    request.getfixturevalue("without_mr_toast")
    progression = Progression(app.extensions["cardroom.tables"])
    progression.advance(game["id"], 0.0)  # no exception: the lease simply ends


@pytest.fixture
def mr_toast_rules_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """This server as if Mr Toast's package had been upgraded to rules version 2."""
    entries = dict(registry.installed())
    old = entries["mr-toast"]
    upgraded = dataclasses.replace(old.plugin, rules_version=2)
    entries["mr-toast"] = dataclasses.replace(old, plugin=upgraded, version="0.2.0")
    monkeypatch.setattr(registry, "_LOADED", (entries, []))
    monkeypatch.setattr(registry, "_GAMES", None)


def test_a_game_recorded_under_other_rules_says_so_instead_of_replaying_wrongly(
    client: Any, request: pytest.FixtureRequest
) -> None:
    running = create_game(client, "mr-toast", 2)
    tokens = join_all(client, running)
    finished = create_game(
        client,
        "mr-toast",
        2,
        bots=[{"seat": 0, "policy": "greedy"}, {"seat": 1, "policy": "random"}],
    )
    assert client.get(f"/v1/games/{finished['id']}").get_json()["status"] == "finished"
    assert running["plugin"] == {"package": "cardroom", "version": "0.1.0", "rules_version": 1}
    request.getfixturevalue("mr_toast_rules_2")

    for path in (f"/v1/games/{running['id']}", f"/v1/games/{finished['id']}/replay"):
        answer = client.get(path, headers=auth(tokens[0]))
        assert answer.status_code == 503, answer.get_data(as_text=True)
        body = answer.get_json()
        assert body["type"] == "/problems/game-rules-changed"
        assert body["detail"] == (
            "this game was recorded under rules version 1 of 'mr-toast'; this server has"
            " cardroom 0.2.0, which plays rules version 2, so it will not replay the game"
            " under other rules"
        )
    acted = client.post(
        f"/v1/games/{running['id']}/actions", json={"type": "pass"}, headers=auth(tokens[0])
    )
    assert acted.status_code == 503
    assert acted.get_json()["type"] == "/problems/game-rules-changed"

    listed = {s["id"]: s for s in client.get("/v1/games?limit=100").get_json()["games"]}
    assert listed[running["id"]]["available"] is False
    assert listed[finished["id"]]["plugin"]["rules_version"] == 1

    fresh = create_game(client, "mr-toast", 2)  # a new game is played by the new rules
    assert fresh["plugin"] == {"package": "cardroom", "version": "0.2.0", "rules_version": 2}
    assert fresh["available"] is True
    types = {t["game_type"]: t for t in client.get("/v1/game-types").get_json()["game_types"]}
    assert (types["mr-toast"]["version"], types["mr-toast"]["rules_version"]) == ("0.2.0", 2)


def test_a_game_recorded_before_versions_were_kept_is_played_by_rules_version_1(
    client: Any, redis_client: Any, request: pytest.FixtureRequest
) -> None:
    """Records written before GameRecord.plugin existed (the rolling-deploy fixture holds
    some) are rules version 1: served while the package plays 1, refused once it plays 2."""
    game = create_game(client, "mr-toast", 2)
    key = f"cardroom:game:{{{game['id']}}}"
    record = json.loads(redis_client.hget(key, "rec"))
    del record["plugin"]
    redis_client.hset(key, "rec", json.dumps(record))
    summary = client.get(f"/v1/games/{game['id']}").get_json()
    assert summary["available"] is True
    assert summary["plugin"] == {"package": None, "version": None, "rules_version": 1}
    request.getfixturevalue("mr_toast_rules_2")
    assert client.get(f"/v1/games/{game['id']}").status_code == 503
