"""Games stored before buckets (docs/operations.md, "Upgrading from one index"): their keys
are unchanged, and ``cardroom:{index}:games`` (scored by a counter) keeps listing them, after
every newer game, until none is left. On a single Redis, where they were made, and on the
cluster too (a store copied into one)."""

from __future__ import annotations

import secrets

import pytest

from cardroom.serve.app import create_app
from cardroom.store import buckets, listing
from cardroom.store.connection import plain_client
from cardroom.store.listing import LEGACY_INDEX_KEY
from cardroom.store.record import game_key

from cluster_kit import stored_index
from helpers import auth, create_game, join_all, view

OLD_COUNTER_KEY = "cardroom:{index}:counter"
# What the create path ran before buckets, after the game's own script: a second round trip.
OLD_INDEX_SCRIPT = """
local n = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], n, ARGV[1])
return n
"""


def old_game_id() -> str:
    """An id as it was drawn before buckets: 12 random letters and digits."""
    while True:
        game_id = "".join(secrets.choice(buckets.ID_ALPHABET) for _ in range(12))
        if buckets.bucket_of(game_id) is None:
            return game_id


@pytest.fixture()
def raw(redis_server):
    client = plain_client(redis_server.url)
    yield client
    client.delete(LEGACY_INDEX_KEY, OLD_COUNTER_KEY)
    client.close()


@pytest.fixture()
def old_games(client, raw) -> list[str]:
    """Four waiting games written as the old code wrote them: their hash under
    ``cardroom:game:{ID}``, then an entry in the one index, scored by a counter."""
    template = raw.dump(game_key(create_game(client, "mr-toast", 2)["id"]))
    index = raw.register_script(OLD_INDEX_SCRIPT)
    made = []
    for _ in range(4):
        game_id = old_game_id()
        raw.restore(game_key(game_id), 0, template)
        index(keys=[LEGACY_INDEX_KEY, OLD_COUNTER_KEY], args=[game_id])
        made.append(game_id)
    return made


def test_old_games_are_listed_after_every_new_one_and_page_exactly(settings, raw, old_games):
    app = create_app(settings)  # a fresh process: it looks for the old index at once
    client = app.test_client()
    for _ in range(3):
        create_game(client, "exact-plays", 2)
    truth = [game_id for game_id, _ in stored_index(raw)]
    assert truth[-4:] == old_games[::-1], "the old games come last, newest first"
    places = dict(stored_index(raw))
    # Pages of 3 across the border between the buckets and the old index.
    cursor = str(places[truth[-7]])
    seen = []
    while cursor:
        page = client.get(f"/v1/games?limit=3&cursor={cursor}").get_json()
        seen += [game["id"] for game in page["games"]]
        cursor = page["next_cursor"]
    assert seen == truth[-6:]
    # A cursor handed out before the upgrade (a counter value) goes on in the old index.
    old_cursor = raw.zscore(LEGACY_INDEX_KEY, old_games[2])
    page = client.get(f"/v1/games?limit=10&cursor={int(old_cursor)}").get_json()
    assert [game["id"] for game in page["games"]] == old_games[1::-1]
    assert page["next_cursor"] is None


def test_old_games_are_played_under_their_old_keys(client, raw, old_games):
    game_id = old_games[0]
    summary = client.get(f"/v1/games/{game_id}").get_json()
    tokens = join_all(client, summary)
    seat = view(client, game_id)["to_act"][0]
    action = view(client, game_id, tokens[seat])["legal_actions"][0]
    answer = client.post(f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat]))
    assert answer.status_code == 200
    assert answer.get_json()["version"] == summary["version"] + 1
    assert raw.hget(game_key(game_id), "rev") == b"4", "created, two seats taken, one action"


def test_expired_old_games_leave_the_old_index_and_then_it_is_read_no_more(
    settings, raw, old_games, monkeypatch
):
    monkeypatch.setattr(listing, "LEGACY_CHECK_SECONDS", 0.0)
    store = create_app(settings).extensions["cardroom.tables"].store
    raw.delete(game_key(old_games[1]))  # expired
    client = create_app(settings).test_client()
    listed = client.get("/v1/games?limit=100&status=waiting&game_type=mr-toast").get_json()
    # The listing met the expired game's entry and dropped it (it may need more pages to
    # reach the old index if many games are stored: page until it does).
    cursor = listed["next_cursor"]
    while cursor and raw.zscore(LEGACY_INDEX_KEY, old_games[1]) is not None:
        cursor = client.get(f"/v1/games?limit=100&cursor={cursor}").get_json()["next_cursor"]
    assert raw.zscore(LEGACY_INDEX_KEY, old_games[1]) is None
    assert LEGACY_INDEX_KEY in store.listing.index_keys()
    for game_id in old_games:
        raw.delete(game_key(game_id))
        raw.zrem(LEGACY_INDEX_KEY, game_id)
    assert not raw.exists(LEGACY_INDEX_KEY), "Redis drops an empty sorted set"
    assert LEGACY_INDEX_KEY not in store.listing.index_keys()
    assert len(store.listing.index_keys()) == buckets.BUCKETS
