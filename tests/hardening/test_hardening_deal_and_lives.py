"""Findings 6 and 7: a chosen seed is marked for everyone, like a stacked deck, and data nobody
needs lives shorter (docs/api.md, "Games and seats"; docs/operations.md, "Memory").
"""

from __future__ import annotations

import pytest
import redis

from cardroom.config import Settings
from cardroom.games.mr_toast.cards import DEFAULT_COUNTS
from cardroom.serve.app import create_app
from cardroom.store.record import game_key

from helpers import auth, create_game, join_all, view

MR_TOAST_DECK = [code for code, count in DEFAULT_COUNTS.items() for _ in range(count)]


def summary(client, game_id: str) -> dict:
    return client.get(f"/v1/games/{game_id}").get_json()


def listed(client, game_id: str) -> dict:
    games = client.get("/v1/games?limit=100").get_json()["games"]
    return next(game for game in games if game["id"] == game_id)


def test_a_chosen_seed_is_marked_seeded_for_everyone_until_the_end(client):
    game = create_game(client, "exact-plays", 2, seed=7)
    assert game["deal"] == "seeded" and game["seed"] is None
    tokens = join_all(client, game)
    for token in (*tokens.values(), None):
        assert view(client, game["id"], token)["deal"] == "seeded"
    assert summary(client, game["id"])["deal"] == "seeded"
    assert listed(client, game["id"])["deal"] == "seeded"


def test_a_server_seed_is_marked_random(client):
    game = create_game(client, "mr-toast", 2)
    assert game["deal"] == "random"
    join_all(client, game)
    assert view(client, game["id"])["deal"] == "random"


def test_a_stacked_deck_is_shown_as_stacked_not_hidden(client):
    deck = sorted(MR_TOAST_DECK)
    created = client.post(
        "/v1/games", json={"game_type": "mr-toast", "players": 2, "options": {"deck": deck}}
    )
    assert created.status_code == 201, created.get_json()
    game = created.get_json()
    assert game["deal"] == "stacked" and game["options"]["deck"] == "stacked"
    tokens = join_all(client, game)
    seen = view(client, game["id"], tokens[0])
    assert seen["deal"] == "stacked" and seen["options"]["deck"] == "stacked"
    assert "hidden" not in str(seen["options"])


@pytest.fixture()
def short_lives(settings: Settings):
    app = create_app(
        Settings.from_env(
            redis_url=settings.redis_url,
            game_ttl_seconds=7 * 24 * 3600,
            unjoined_game_ttl_seconds=600,
            idempotency_ttl_seconds=120,
        )
    )
    return app.test_client(), redis.Redis.from_url(settings.redis_url)


def test_a_game_nobody_joined_lives_shorter_until_someone_joins(short_lives):
    client, store = short_lives
    game = create_game(client, "exact-plays", 2)
    assert 0 < store.ttl(game_key(game["id"])) <= 600
    bots = create_game(
        client,
        "mr-toast",
        2,
        bots=[{"seat": 0, "policy": "random"}, {"seat": 1, "policy": "random"}],
    )
    assert 0 < store.ttl(game_key(bots["id"])) <= 600, "an all-bot game nobody joined"
    tokens = join_all(client, game)
    assert store.ttl(game_key(game["id"])) > 600
    answer = client.post(
        f"/v1/games/{game['id']}/actions",
        json={"type": "declare", "tokens": 3},
        headers={**auth(tokens[0]), "Idempotency-Key": "k"},
    )
    assert answer.status_code == 200
    records = list(store.scan_iter(f"{game_key(game['id'])}:idem:*"))
    assert len(records) == 1 and 0 < store.ttl(records[0]) <= 120


def test_the_default_lives_are_short_for_unjoined_games_and_idempotency_records():
    settings = Settings()
    assert settings.unjoined_game_ttl_seconds == 3600
    assert settings.idempotency_ttl_seconds == 3600
    assert settings.game_ttl_seconds == 7 * 24 * 3600


def test_lives_are_settings_from_the_environment(monkeypatch):
    monkeypatch.setenv("CARDROOM_UNJOINED_GAME_TTL", "900")
    monkeypatch.setenv("CARDROOM_IDEMPOTENCY_TTL", "60")
    settings = Settings.from_env()
    assert (settings.unjoined_game_ttl_seconds, settings.idempotency_ttl_seconds) == (900, 60)
