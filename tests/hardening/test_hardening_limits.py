"""Limits: body size, hostile JSON, field bounds, and rate limits per client IP."""

from __future__ import annotations

import dataclasses
import io
import json
import random

import pytest

from cardroom.config import Settings
from cardroom.serve.app import create_app

from helpers import auth, create_game, join_all

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, slug: str, field: str | None = None) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json()
    assert body["type"] == f"/problems/{slug}" and body["status"] == status
    assert body["request_id"] == response.headers["X-Request-ID"]
    if field is not None:
        assert body["field"] == field, body
    return body


# --- body size ---------------------------------------------------------------------------------


def test_bodies_over_the_size_limit_get_413(settings):
    small = create_app(dataclasses.replace(settings, max_body_bytes=1024))
    client = small.test_client()
    game = create_game(client, "exact-plays", 2)
    tokens = join_all(client, game)
    padding = "x" * 2000
    for path, body, headers in (
        ("/v1/games", {"game_type": "mr-toast", "players": 2, "pad": padding}, {}),
        (f"/v1/games/{game['id']}/join", {"name": padding}, {}),
        (f"/v1/games/{game['id']}/actions", {"type": "declare", "pad": padding}, auth(tokens[0])),
    ):
        assert_problem(client.post(path, json=body, headers=headers), 413, "payload-too-large")
        # Without a Content-Length (chunked): the reading stops at the limit all the same.
        chunked = client.post(
            path,
            input_stream=io.BytesIO(json.dumps(body).encode()),
            content_type="application/json",
            headers=headers,
        )
        assert_problem(chunked, 413, "payload-too-large")
    fits = client.post("/v1/games", json={"game_type": "mr-toast", "players": 2, "pad": "x"})
    assert fits.status_code == 422, "under the limit the body is read (and its field refused)"


def test_the_default_size_limit_is_64_kib(client, settings):
    assert settings.max_body_bytes == 64 * 1024
    body = {"game_type": "mr-toast", "players": 2, "pad": ""}
    overhead = len(json.dumps(body))
    body["pad"] = "x" * (64 * 1024 - overhead)
    assert client.post("/v1/games", json=body).status_code == 422
    body["pad"] += "x"
    assert_problem(client.post("/v1/games", json=body), 413, "payload-too-large")


# --- hostile JSON ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[" * 30_000,
        '{"game_type": "mr-toast", "players": 2, "options": {"deck": ' + "[" * 17 + "]" * 17 + "}}",
        '{"game_type": "mr-toast", "players": 2, "options": {"reaction_deadline": NaN}}',
        '{"game_type": "mr-toast", "players": 2, "options": {"reaction_deadline": Infinity}}',
        '{"game_type": "mr-toast", "players": 2, "options": {"reaction_deadline": 1e999}}',
        '{"game_type": "mr-toast", "players": 2, "seed": ' + "9" * 5000 + "}",
    ],
    ids=["deep-array", "deep-option", "nan", "infinity", "huge-float", "5000-digits"],
)
def test_hostile_json_is_a_400_not_a_crash(client, text):
    response = client.post("/v1/games", data=text, content_type="application/json")
    assert_problem(response, 400, "malformed-json")


def test_hostile_json_in_an_action_is_a_400_too(client):
    game = create_game(client, "mr-toast", 2)
    tokens = join_all(client, game)
    deep = '{"type": "end_turn", "x": ' + "[" * 900 + "]" * 900 + "}"
    response = client.post(
        f"/v1/games/{game['id']}/actions",
        data=deep,
        content_type="application/json",
        headers={**auth(tokens[0]), "Idempotency-Key": "deep"},
    )
    assert_problem(response, 400, "malformed-json")
    assert client.get(f"/v1/games/{game['id']}").get_json()["version"] == 0


def test_json_nested_to_the_limit_still_reaches_the_schema(client):
    nested = "[" * 14 + "]" * 14  # the body object, options, deck: 16 levels in all
    text = '{"game_type": "mr-toast", "players": 2, "options": {"deck": ' + nested + "}}"
    response = client.post("/v1/games", data=text, content_type="application/json")
    assert_problem(response, 422, "invalid", "options.deck")


def test_plain_malformed_json_keeps_its_400_with_errors(client):
    response = client.post("/v1/games", data="{nope", content_type="application/json")
    assert assert_problem(response, 400, "malformed-json")["errors"]


# --- bounds on fields --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game_type": "x" * 65, "players": 2}, "game_type"),
        ({"game_type": "mr-toast", "players": 2.5}, "players"),
        ({"game_type": "mr-toast", "players": 2, "seed": 2**53}, "seed"),
        ({"game_type": "mr-toast", "players": 2, "options": {f"o{i}": 1 for i in range(33)}},
         "options"),
        ({"game_type": "mr-toast", "players": 2, "options": {"": 1}}, "options"),
        ({"game_type": "mr-toast", "players": 2,
          "bots": [{"seat": 0, "policy": "random"}] * 17}, "bots"),
    ],
)  # fmt: skip
def test_create_bounds_are_schema_errors(client, body, field):
    """The general bounds; a value the game cannot take is `invalid` (tests/api)."""
    body = assert_problem(client.post("/v1/games", json=body), 422, "invalid-request")
    assert body["field"].startswith(field), body


@pytest.mark.parametrize(
    ("game_type", "players", "options", "field"),
    [
        ("mr-toast", 7, {}, "players"),
        ("exact-plays", 5, {}, "players"),
        ("mr-toast", 2, {"turn_limit": 0}, "options.turn_limit"),
        ("mr-toast", 2, {"turn_limit": 10_001}, "options.turn_limit"),
        ("mr-toast", 2, {"first_seat": 2}, "options.first_seat"),
        ("mr-toast", 2, {"reaction_deadline": 0}, "options.reaction_deadline"),
        ("mr-toast", 2, {"deck": ["G1"] * 5000}, "options.deck"),
        ("mr-toast", 2, {"composition": [{"code": "G1", "count": 201}]}, "options.composition"),
        ("exact-plays", 2, {"turn_limit": 1_000_001}, "options.turn_limit"),
        ("exact-plays", 2, {"decks": [None] * 4}, "options.decks"),
        ("exact-plays", 2, {"tiebreak": "coin"}, "options.tiebreak"),
    ],
)
def test_option_values_and_seat_counts_are_bounded_by_each_game(
    client, game_type, players, options, field
):
    response = client.post(
        "/v1/games", json={"game_type": game_type, "players": players, "options": options}
    )
    assert_problem(response, 422, "invalid", field)


@pytest.mark.parametrize(
    "name", ["", "x" * 41, "   ", "\t", "nul\x00", "line\nbreak", "bell\x07", "del\x7f"]
)
def test_names_are_1_to_40_printable_characters(client, name):
    game = create_game(client, "mr-toast", 2)
    response = client.post(f"/v1/games/{game['id']}/join", json={"name": name})
    assert_problem(response, 422, "invalid-request", "name")


@pytest.mark.parametrize("name", ["A", "x" * 40, "Zoë", "Anne-Marie O'Neil", "🂡 ace"])
def test_ordinary_names_are_accepted(client, name):
    game = create_game(client, "mr-toast", 2)
    response = client.post(f"/v1/games/{game['id']}/join", json={"name": name})
    assert response.status_code == 201
    summary = client.get(f"/v1/games/{game['id']}").get_json()
    assert name in [seat["name"] for seat in summary["seats"]]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"wait": -1}, "wait"),
        ({"wait": 30.5}, "wait"),
        ({"wait": "nan"}, "wait"),
        ({"wait": "inf"}, "wait"),
        ({"after": -1}, "after"),
        ({"after": 2**53}, "after"),
        ({"after": 2**64}, "after"),
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
    ],
)
def test_event_query_bounds(client, query, field):
    game = create_game(client, "mr-toast", 2)
    response = client.get(f"/v1/games/{game['id']}/events", query_string=query)
    assert_problem(response, 422, "invalid-request", field)
    if field == "after":
        stream = client.get(f"/v1/games/{game['id']}/events/stream", query_string=query)
        assert_problem(stream, 422, "invalid-request", field)


@pytest.mark.parametrize(
    ("query", "field"),
    [({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"cursor": "-1"}, "cursor"),
     ({"cursor": "next"}, "cursor"), ({"status": "paused"}, "status")],
)  # fmt: skip
def test_game_list_query_bounds(client, query, field):
    assert_problem(client.get("/v1/games", query_string=query), 422, "invalid-request", field)


def test_idempotency_keys_are_1_to_255_characters(client):
    game = create_game(client, "mr-toast", 2)
    tokens = join_all(client, game)
    response = client.post(
        f"/v1/games/{game['id']}/actions",
        json={"type": "end_turn"},
        headers={**auth(tokens[0]), "Idempotency-Key": "k" * 256},
    )
    assert_problem(response, 422, "invalid", "Idempotency-Key")


# --- rate limits -------------------------------------------------------------------------------


def an_address() -> str:
    """A client address of this test run alone (the counters live in the shared Redis)."""
    return "10.{}.{}.{}".format(*random.Random().sample(range(1, 255), 3))


def limited(settings: Settings, **limits: object):
    return create_app(dataclasses.replace(settings, **limits))


def test_creates_are_rate_limited_per_client_address_across_api_processes(settings):
    first = limited(settings, rate_limit_create="3/minute")
    second = limited(settings, rate_limit_create="3/minute")  # another API process
    address, neighbour = an_address(), an_address()
    body = {"game_type": "mr-toast", "players": 2}

    def create(app, remote: str):
        return app.test_client().post("/v1/games", json=body, environ_base={"REMOTE_ADDR": remote})

    assert [create(first, address).status_code for _ in range(2)] == [201, 201]
    assert create(second, address).status_code == 201
    refused = create(first, address)
    problem = assert_problem(refused, 429, "rate-limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert "3 per 1 minute" in problem["detail"]
    assert_problem(create(second, address), 429, "rate-limited")
    assert create(first, neighbour).status_code == 201, "another address has its own count"
    listing = first.test_client().get("/v1/games", environ_base={"REMOTE_ADDR": address})
    assert listing.status_code == 200, "only creating is limited, not listing"
    assert first.test_client().get("/problems/rate-limited").status_code == 200


def test_joins_are_rate_limited_per_client_address(settings):
    app = limited(settings, rate_limit_join="4/minute")
    client = app.test_client()
    address = an_address()
    outcomes = []
    for _ in range(3):
        game = create_game(client, "mr-toast", 2)
        for _ in range(2):
            response = client.post(
                f"/v1/games/{game['id']}/join",
                json={"name": "j"},
                environ_base={"REMOTE_ADDR": address},
            )
            outcomes.append(response.status_code)
    assert outcomes == [201, 201, 201, 201, 429, 429]
    game = create_game(client, "mr-toast", 2)
    response = client.post(
        f"/v1/games/{game['id']}/join", json={"name": "j"}, environ_base={"REMOTE_ADDR": address}
    )
    assert_problem(response, 429, "rate-limited")
    assert client.get(f"/v1/games/{game['id']}").get_json()["seats"][0]["taken"] is False


def test_behind_trusted_proxies_the_forwarded_address_counts(settings):
    direct = limited(settings, rate_limit_create="1/minute")
    proxied = limited(settings, rate_limit_create="1/minute", trusted_proxies=1)
    proxy = an_address()
    body = {"game_type": "mr-toast", "players": 2}

    def create(app, forwarded: str):
        return app.test_client().post(
            "/v1/games",
            json=body,
            environ_base={"REMOTE_ADDR": proxy},
            headers={"X-Forwarded-For": forwarded},
        )

    # Not trusted: a client cannot dodge its limit by claiming another address.
    assert create(direct, an_address()).status_code == 201
    assert create(direct, an_address()).status_code == 429
    # Trusted: each client behind the proxy has its own count.
    clients = [an_address(), an_address()]
    assert [create(proxied, c).status_code for c in clients] == [201, 201]
    assert create(proxied, clients[0]).status_code == 429


def test_rate_limits_are_settings_from_the_environment(monkeypatch, settings):
    monkeypatch.setenv("CARDROOM_RATE_LIMIT_CREATE", "60/minute")
    monkeypatch.setenv("CARDROOM_RATE_LIMIT_JOIN", "off")
    monkeypatch.setenv("CARDROOM_TRUSTED_PROXIES", "2")
    loaded = Settings.from_env(redis_url=settings.redis_url)
    assert (loaded.rate_limit_create, loaded.rate_limit_join) == ("60/minute", "off")
    assert loaded.trusted_proxies == 2
    defaults = Settings()
    assert defaults.rate_limit_create == "600/minute" and defaults.rate_limit_join == "1200/minute"
    assert "cardroom.limiter" not in limited(settings, rate_limit_create="off",
                                              rate_limit_join="off").extensions  # fmt: skip
    with pytest.raises(ValueError):
        limited(settings, rate_limit_create="lots")
