"""Every problem the live server reports becomes its exception class, with its message."""

from __future__ import annotations

import pytest

from cardroom_sdk import (
    CardroomError,
    Client,
    Conflict,
    GameFinished,
    GameFull,
    GameNotStarted,
    IllegalAction,
    InvalidRequest,
    NotFound,
    NotYourTurn,
    RandomBot,
    SeatTaken,
    StaleVersion,
    Unauthorized,
)


@pytest.fixture()
def client(live_server: str) -> Client:
    return Client(live_server)


def started(client: Client) -> tuple:
    """A 2-seat Mr Toast game where seat 0 plays first."""
    game = client.create_game("mr-toast", 2, options={"first_seat": 0})
    return game, client.join(game.id, "first"), client.join(game.id, "second")


def check(error: CardroomError, status: int, slug: str, *words: str) -> None:
    assert error.status == status
    assert error.type == f"/problems/{slug}" and error.slug == slug
    assert isinstance(error.body, dict) and error.detail == error.body["detail"]
    assert error.detail and error.detail in str(error) and str(status) in str(error)
    for word in words:
        assert word in error.detail


def test_not_your_turn(client: Client) -> None:
    _, _, second = started(client)
    with pytest.raises(NotYourTurn) as caught:
        second.act({"type": "end_turn"})
    check(caught.value, 409, "not-your-turn")
    assert isinstance(caught.value, Conflict)


def test_illegal_action_names_the_field(client: Client) -> None:
    _, first, _ = started(client)
    with pytest.raises(IllegalAction) as caught:
        first.act({"type": "score", "green": "no-such-card"})
    check(caught.value, 422, "illegal-action", "green")
    assert caught.value.field == "green"
    with pytest.raises(IllegalAction) as caught:
        first.act({"type": "frobnicate"})
    check(caught.value, 422, "illegal-action", "frobnicate")


def test_illegal_action_names_the_rule(client: Client) -> None:
    game = client.create_game("exact-plays", 2)
    seat = client.join(game.id, "a")
    client.join(game.id, "b")
    with pytest.raises(IllegalAction) as caught:
        seat.act({"type": "declare", "tokens": 99})
    check(caught.value, 422, "illegal-action", "tokens")
    assert caught.value.field == "tokens"
    assert caught.value.rule and caught.value.rule.startswith("EP-")
    assert f"rule {caught.value.rule}" in str(caught.value)


def test_invalid_requests_name_the_field(client: Client) -> None:
    with pytest.raises(InvalidRequest) as caught:
        client.create_game("mr-toast", 9)
    check(caught.value, 422, "invalid", "2 to 6 players")
    assert caught.value.field == "players"
    with pytest.raises(InvalidRequest) as caught:
        client.create_game("no-such-game", 2)
    check(caught.value, 422, "invalid", "no-such-game")
    assert caught.value.field == "game_type"
    with pytest.raises(InvalidRequest) as caught:
        client.create_game("mr-toast", 2, options={"colour": "blue"})
    assert caught.value.field == "options.colour"
    _, first, _ = started(client)
    with pytest.raises(InvalidRequest) as caught:
        first.act({"card": "c1"})  # no type
    check(caught.value, 422, "invalid-request", "type")
    assert caught.value.field == "type" and caught.value.errors[0]["field"] == "type"


def test_idempotency_key_reused_with_another_body(client: Client) -> None:
    _, first, _ = started(client)
    first.act({"type": "end_turn"}, idempotency_key="k1")
    with pytest.raises(InvalidRequest) as caught:
        first.act({"type": "score", "green": "c1"}, idempotency_key="k1")
    check(caught.value, 422, "idempotency-key-reused")


def test_stale_version(client: Client) -> None:
    _, first, second = started(client)
    old = first.view()
    first.act({"type": "end_turn"}, if_match=old.etag)  # current: accepted
    second.act({"type": "end_turn"})
    with pytest.raises(StaleVersion) as caught:
        first.act({"type": "end_turn"}, if_match=old.etag)
    check(caught.value, 412, "stale-version", "If-Match")


def test_unauthorized(client: Client) -> None:
    game, _, _ = started(client)
    with pytest.raises(Unauthorized) as caught:
        client.act(game.id, "not-a-token", {"type": "end_turn"})
    check(caught.value, 401, "unauthorized", "token")
    with pytest.raises(Unauthorized):
        client.view(game.id, "not-a-token")
    with pytest.raises(Unauthorized):
        client.events(game.id, "not-a-token")


def test_not_found(client: Client) -> None:
    with pytest.raises(NotFound) as caught:
        client.game("no-such-game")
    check(caught.value, 404, "game-not-found", "no-such-game")
    with pytest.raises(NotFound):
        client.join("no-such-game", "me")
    with pytest.raises(NotFound):
        client.view("no-such-game")


def test_conflicts_of_joining_and_starting(client: Client) -> None:
    game = client.create_game("mr-toast", 2)
    first = client.join(game.id, "first", seat=1)
    with pytest.raises(SeatTaken) as caught:
        client.join(game.id, "again", seat=1)
    check(caught.value, 409, "seat-taken", "seat 1")
    with pytest.raises(GameNotStarted) as caught:
        first.act({"type": "end_turn"})
    check(caught.value, 409, "game-not-started")
    client.join(game.id, "second")
    with pytest.raises(GameFull) as caught:
        client.join(game.id, "third")
    check(caught.value, 409, "game-full")
    assert all(isinstance(e, Conflict) for e in (caught.value,))


def test_game_finished(client: Client) -> None:
    game = client.create_game("mr-toast", 2, bots={1: "greedy"})
    seat = client.join(game.id, "me")
    final = seat.play(RandomBot(seed=1), timeout=20)
    assert final.finished and final.winners
    with pytest.raises(GameFinished) as caught:
        seat.act({"type": "end_turn"})
    check(caught.value, 409, "game-finished", "over")
    summary = client.game(game.id)
    assert summary.finished and summary.seed is not None  # revealed at the end
    assert summary.seats[1].bot == "greedy"


def test_bad_base_url() -> None:
    with pytest.raises(ValueError):
        Client("127.0.0.1:8000")
