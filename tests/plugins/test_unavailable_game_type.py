"""A game whose type is not installed here (its package removed, or refused at start) is
answered with a clear problem, never a 500, and left out of the listing; the other games
are served as before (issue 30, "Versions and deployments")."""

from __future__ import annotations

from typing import Any

import pytest

from cardroom import registry
from cardroom.progress import Progression

from helpers import auth, create_game, join_all


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
    ids = {summary["id"] for summary in listed.get_json()["games"]}
    assert other["id"] in ids and game_id not in ids
    assert client.get(f"/v1/games/{other['id']}").status_code == 200

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
