"""Schemathesis against the app: generated requests for every operation of the document,
every response checked against it (status, content type, headers, body; a Server-Sent
Events stream event by event), and real games' views, events and streams checked the same
way. Bounded: a few examples per operation, long-polls and streams cut short."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from cardroom.api import games as games_api
from cardroom.config import Settings
from cardroom.registry import registry
from cardroom.serve.app import create_app

from helpers import auth, create_game, join_all

EXAMPLES = 12
SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


@pytest.fixture(scope="module")
def checked_app(settings: Settings, redis_server: Any) -> Any:
    """The app, with long-polls and streams cut short (schemathesis waits for each answer)."""
    patch = pytest.MonkeyPatch()
    patch.setattr(games_api, "SSE_HEARTBEAT_SECONDS", 0.2)
    patch.setattr(games_api, "SSE_LIFETIME_SECONDS", 0.5)
    app = create_app(Settings(**{**vars(settings), "max_wait_seconds": 0.2}))
    yield app
    patch.undo()


@pytest.fixture(scope="module")
def api_schema(checked_app: Any) -> Any:
    return schemathesis.openapi.from_wsgi("/openapi.json", checked_app)


# A create or a join that the schema allows may still be refused: an option that depends on
# another (first_seat below players), a bot on a seat beyond the players, a seat taken. The
# document says what it can (types, ranges, choices per game); the rest is a 422 or a 409
# naming the field, which these two operations may answer to schema-valid data.
# The game socket is a WebSocket upgrade, which a WSGI test client cannot make: here it
# answers only its documented refusals (400, 422); tests/live/test_game_socket.py plays on it.
EXCLUDED = {
    "POST /v1/games": [positive_data_acceptance],
    "POST /v1/games/{game_id}/join": [positive_data_acceptance],
    "GET /v1/games/{game_id}/socket": [positive_data_acceptance],
}

# Every operation of the committed document (test_openapi.py keeps it equal to the served).
OPERATIONS = [
    (method.upper(), path)
    for path, item in json.loads(SPEC_FILE.read_text())["paths"].items()
    for method in item
    if method != "parameters"
]


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_every_operation_answers_as_documented(api_schema: Any, method: str, path: str):
    """Requests generated from the document, valid and invalid, each answer checked by
    every schemathesis check. (Schemathesis's own pytest plugin does not run on pytest 9:
    the operations are driven here with its Python API.)"""
    strategy = api_schema[path][method].as_strategy()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: schemathesis.Case) -> None:
        case.call_and_validate(excluded_checks=EXCLUDED.get(case.operation.label, []))

    run()


@pytest.mark.parametrize("game_type", sorted(registry()))
def test_real_games_answer_as_documented(api_schema: Any, checked_app: Any, game_type: str):
    """Views, events, streams and actions of real games, checked against the document: a
    game in play (seat and spectator) and one the bots finished."""
    client = checked_app.test_client()
    game = registry()[game_type]
    players = game.min_players
    game_id, tokens = _table(client, game_type, players)
    finished = create_game(
        client,
        game_type,
        players,
        bots=[{"seat": s, "policy": "greedy"} for s in range(players)],
        options={"turn_limit": 30},
    )
    assert finished["status"] == "finished"
    for gid, token in [(game_id, tokens[0]), (game_id, None), (finished["id"], None)]:
        headers = auth(token) if token else {}
        for path, query in [
            ("/v1/games/{game_id}", {}),
            ("/v1/games/{game_id}/view", {}),
            ("/v1/games/{game_id}/events", {"after": 0}),
            ("/v1/games/{game_id}/events/stream", {"after": 0}),
        ]:
            case = api_schema[path]["GET"].Case(
                path_parameters={"game_id": gid}, query=query, headers=headers
            )
            case.call_and_validate()
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
    seat = view["to_act"][0]
    mine = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[seat])).get_json()
    case = api_schema["/v1/games/{game_id}/actions"]["POST"].Case(
        path_parameters={"game_id": game_id},
        headers=auth(tokens[seat]),
        body=mine["legal_actions"][0],
        media_type="application/json",
    )
    response = case.call_and_validate()
    assert response.status_code == 200


def _table(client: Any, game_type: str, players: int) -> tuple[str, dict[int, str]]:
    game = create_game(client, game_type, players)
    return game["id"], join_all(client, game)
