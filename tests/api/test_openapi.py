"""The committed spec is the served spec, valid OpenAPI 3, with offline Swagger UI."""

from __future__ import annotations

import json
from pathlib import Path

from openapi_spec_validator import validate

from cardroom.registry import registry

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
REGENERATE = "cardroom openapi -o openapi/openapi.json"


def test_committed_spec_equals_the_served_one(client):
    served = client.get("/openapi.json").get_json()
    committed = json.loads(SPEC_FILE.read_text())
    assert committed == served, f"openapi/openapi.json is stale: run `{REGENERATE}`"


def test_spec_is_valid_openapi_3(client):
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    validate(spec)


# Posts that take no body: the token and the path say everything.
BODILESS_POSTS = {"comeBack", "rematch"}


def test_every_operation_documents_its_bodies_and_problems(client):
    spec = client.get("/openapi.json").get_json()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            assert operation.get("summary") or operation.get("description"), (method, path)
            if method == "post" and operation["operationId"] not in BODILESS_POSTS:
                assert "requestBody" in operation, (method, path)
                assert "422" in operation["responses"], (method, path)


def test_swagger_ui_is_served_without_a_cdn(client):
    page = client.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "http://" not in html and "https://" not in html, "the UI must not load from a CDN"
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"):
        response = client.get(f"/docs/assets/{asset}")
        assert response.status_code == 200, asset
        assert len(response.get_data()) > 1000


# --- the typed document (api/apidoc/) -----------------------------------------------------


def operations(spec):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield method, path, operation


def test_every_operation_has_an_id_and_problem_details_as_default(client):
    spec = client.get("/openapi.json").get_json()
    ids = [operation["operationId"] for _, _, operation in operations(spec)]
    assert len(ids) == len(set(ids)), ids
    default = spec["components"]["responses"]["Problem"]
    assert set(default["content"]) == {"application/problem+json"}
    for _, path, operation in operations(spec):
        assert operation["responses"]["default"] == {"$ref": "#/components/responses/Problem"}
        for status, response in operation["responses"].items():
            if status.startswith(("4", "5")) and path != "/healthz":  # 503: the health body
                assert set(response["content"]) == {"application/problem+json"}, (path, status)
    assert "Error" not in spec["components"]["schemas"], "flask-smorest's Error is not sent"


def test_every_header_the_server_sends_or_reads_is_documented(client):
    spec = client.get("/openapi.json").get_json()
    paths = spec["paths"]
    headers = spec["components"]["headers"]
    assert {"X-Request-ID", "Location", "ETag", "Retry-After", "Idempotent-Replayed"} <= set(
        headers
    )
    create = paths["/v1/games"]["post"]["responses"]
    assert "Location" in create["201"]["headers"]
    assert "Retry-After" in create["429"]["headers"] and "Retry-After" in create["503"]["headers"]
    action = paths["/v1/games/{game_id}/actions"]["post"]
    assert {"ETag", "Idempotent-Replayed", "X-Request-ID"} <= set(
        action["responses"]["200"]["headers"]
    )
    read = {p["name"]: p for p in action["parameters"]}
    assert read["Idempotency-Key"]["schema"] == {"type": "string", "minLength": 1, "maxLength": 255}
    assert "If-Match" in read
    view = paths["/v1/games/{game_id}/view"]["get"]
    assert "If-None-Match" in {p["name"] for p in view["parameters"]}
    assert "ETag" in view["responses"]["200"]["headers"] and "304" in view["responses"]
    stream = paths["/v1/games/{game_id}/events/stream"]["get"]
    assert "Last-Event-ID" in {p["name"] for p in stream["parameters"]}
    for _, _, operation in operations(spec):
        assert "X-Request-ID" in {p["name"] for p in operation["parameters"]}


def test_actions_views_and_events_are_typed_from_the_declarations(client):
    spec = client.get("/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    body = spec["paths"]["/v1/games/{game_id}/actions"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Action"}
    mapping = schemas["Action"]["discriminator"]["mapping"]
    for game in registry().values():
        for move in game.moves:
            target = mapping[move.type].rsplit("/", 1)[1]
            action = schemas[target]
            assert action["properties"]["type"]["const"] == move.type
            assert set(action["properties"]) == {"type", *(f.name for f in move.fields)}
    views = schemas["View"]["discriminator"]["mapping"]
    assert set(views) == set(registry())
    for game_type, target in views.items():
        view = schemas[target.rsplit("/", 1)[1]]
        assert view["properties"]["game_type"]["const"] == game_type
        assert view["properties"]["you"]["anyOf"][1] == {"type": "null"}
        assert view["properties"]["legal_actions"]["items"]["$ref"].endswith("Action")
    stream = spec["paths"]["/v1/games/{game_id}/events/stream"]["get"]["responses"]["200"]
    event = stream["content"]["text/event-stream"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert schemas[event]["properties"]["data"]["contentSchema"] == {
        "$ref": "#/components/schemas/Event"
    }


def test_constants_default_to_their_one_value_and_stay_required(client):
    """A generated client fills in an action's `type` and a create's `game_type` by itself
    (tests/api/test_generated_client.py); the wire still carries them."""
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    for game in registry().values():
        for move in game.moves:
            target = schemas["Action"]["discriminator"]["mapping"][move.type].rsplit("/", 1)[1]
            action = schemas[target]
            kind = action["properties"]["type"]
            assert kind["default"] == kind["const"] == move.type
            assert "type" in action["required"]
        target = schemas["CreateGameRequest"]["discriminator"]["mapping"][game.game_type]
        create = schemas[target.rsplit("/", 1)[1]]
        assert create["properties"]["game_type"]["default"] == game.game_type
        assert "game_type" in create["required"]
        assert create["properties"]["bots"]["items"] == {"$ref": "#/components/schemas/BotSeat"}
    assert schemas["BotSeat"]["required"] == ["seat", "policy"]


def test_the_create_examples_play_as_they_are(client):
    """Swagger UI's Try it out sends an example as it is: each must create a game."""
    spec = client.get("/openapi.json").get_json()
    examples = spec["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"][
        "examples"
    ]
    assert set(examples) == set(registry())
    for example in examples.values():
        response = client.post("/v1/games", json=example["value"])
        assert response.status_code == 201, response.get_json()
        assert response.get_json()["status"] == "waiting"


def test_an_action_type_of_two_games_keeps_the_document_valid(monkeypatch):
    """A game registered later may reuse an action type's name: the body's discriminator
    maps it to a shared schema that is any of the games' forms of it."""
    from cardroom.api.apidoc import components
    from cardroom.games.exact_plays import ExactPlays
    from cardroom.kit.moves import IntegerField, Move

    class Other(ExactPlays):
        game_type = "other"
        title = "Other"
        moves = (
            Move(
                type="pass",
                description="Pass with a number.",
                phases=("play",),
                rule="OT-1",
                handler="_pass",
                fields=(
                    IntegerField(
                        name="n", description="A number.", rule="OT-1", minimum=0, maximum=3
                    ),
                ),
            ),
        )

    from cardroom.api.apidoc import document
    from cardroom.registry import policies

    monkeypatch.setattr(
        document,
        "policies",
        lambda kind: {"random": None} if kind == "other" else policies(kind),
    )
    games = [*registry().values(), Other()]
    built = components(games)
    mapping = built["Action"]["discriminator"]["mapping"]
    assert mapping["pass"] == "#/components/schemas/SharedPassAction"
    assert len(built["SharedPassAction"]["anyOf"]) == 2
    targets = [entry["$ref"] for entry in built["Action"]["oneOf"]]
    assert len(targets) == len(set(targets))
    assert "#/components/schemas/OtherPassAction" not in targets
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {"schemas": {**built, "Seat": {"type": "object"}}},
    }
    validate(spec)
