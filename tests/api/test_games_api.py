"""The HTTP API against a real Redis server: shapes, status codes, problem details."""

from __future__ import annotations

import random
import threading
import time

import pytest

from cardroom.games.mr_toast.cards import DEFAULT_COUNTS
from cardroom.registry import registry

from helpers import auth, card_ids, create_game, join_all, new_table, play_random_game, view

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, type_: str | None = None, field: str | None = None):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json()
    assert body["status"] == status and body["title"] and body["detail"]
    if type_:
        assert body["type"] == f"/problems/{type_}", body
    if field:
        assert body["field"] == field, body
    return body


def mover(client, game_id, tokens):
    current = view(client, game_id, next(iter(tokens.values())))
    seat = current["to_act"][0]
    return seat, view(client, game_id, tokens[seat])


# --- game types and creation ---------------------------------------------------------------


def test_game_types_describe_every_game_and_its_options(client):
    body = client.get("/v1/game-types").get_json()
    described = {entry["game_type"]: entry for entry in body["game_types"]}
    assert set(described) == set(registry())
    for entry in described.values():
        assert entry["min_players"] >= 2 and entry["max_players"] >= entry["min_players"]
        assert entry["options"], "options are described"
        for option in entry["options"]:
            assert {"name", "type", "default", "description"} <= set(option)
            assert option["description"]
        assert entry["bot_policies"] == ["random", "greedy", "search", "search-strong"]


@pytest.mark.parametrize("game_type", sorted(registry()))
def test_create_returns_the_summary_and_a_location(client, game_type):
    response = client.post("/v1/games", json={"game_type": game_type, "players": 2, "seed": 7})
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/v1/games/{body['id']}"
    assert body["status"] == "waiting" and body["version"] == 0
    assert body["seed"] is None, "the seed would let anyone replay the deal: hidden until the end"
    assert [seat["taken"] for seat in body["seats"]] == [False, False]
    assert set(body["options"]) == {o["name"] for o in registry()[game_type].describe()["options"]}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": 4}, "game_type"),
        ({"game_type": "mr-toast"}, "players"),
        ({"game_type": "mr-toast", "players": "four"}, "players"),
        ({"game_type": "mr-toast", "players": 4, "seed": -1}, "seed"),
        ({"game_type": "mr-toast", "players": 4, "options": []}, "options"),
        ({"game_type": "mr-toast", "players": 4, "bots": [{"seat": 0}]}, "bots.0.policy"),
    ],
)
def test_create_with_schema_errors_names_the_field(client, body, field):
    body = assert_problem(client.post("/v1/games", json=body), 422, "invalid-request", field)
    assert body["errors"][0]["field"] == field


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game_type": "chess", "players": 2}, "game_type"),
        ({"game_type": "", "players": 2}, "game_type"),
        ({"game_type": "mr-toast", "players": 7}, "players"),
        ({"game_type": "mr-toast", "players": 1}, "players"),
        ({"game_type": "mr-toast", "players": 0}, "players"),
        ({"game_type": "mr-toast", "players": 17}, "players"),
        ({"game_type": "exact-plays", "players": 5}, "players"),
        ({"game_type": "mr-toast", "players": 2, "options": {"colour": 1}}, "options.colour"),
        ({"game_type": "mr-toast", "players": 2, "options": {"mode": "wild"}}, "options.mode"),
        ({"game_type": "mr-toast", "players": 2, "bots": [{"seat": 2, "policy": "random"}]},
         "bots.0.seat"),
        ({"game_type": "mr-toast", "players": 2, "bots": [{"seat": 16, "policy": "random"}]},
         "bots.0.seat"),
        ({"game_type": "mr-toast", "players": 2, "bots": [{"seat": -1, "policy": "random"}]},
         "bots.0.seat"),
        ({"game_type": "mr-toast", "players": 2,
          "bots": [{"seat": 1, "policy": "random"}, {"seat": 1, "policy": "greedy"}]},
         "bots.1.seat"),
        ({"game_type": "mr-toast", "players": 2,
          "bots": [{"seat": 0, "policy": "random"}, {"seat": 1, "policy": "clever"}]},
         "bots.1.policy"),
    ],
)  # fmt: skip
def test_create_with_unacceptable_values_names_the_field(client, body, field):
    """A value the game cannot accept is one problem type, whichever field holds it."""
    assert_problem(client.post("/v1/games", json=body), 422, "invalid", field)


def test_an_unknown_bot_policy_is_refused_in_words_listing_the_game_policies(client):
    body = {"game_type": "exact-plays", "players": 2, "bots": [{"seat": 1, "policy": "clever"}]}
    refused = assert_problem(client.post("/v1/games", json=body), 422, "invalid", "bots.0.policy")
    assert refused["detail"] == (
        "unknown bot policy 'clever' for Exact Plays; known: random, greedy, search, search-strong"
    )


@pytest.mark.parametrize("seat", [2, 15, 16, 99, -1])
def test_joining_a_seat_the_game_has_not_is_invalid(client, seat):
    game = create_game(client, "mr-toast", 2)
    response = client.post(f"/v1/games/{game['id']}/join", json={"name": "Ann", "seat": seat})
    refused = assert_problem(response, 422, "invalid", "seat")
    assert refused["detail"] == f"seat {seat} does not exist (0 to 1)"


def test_malformed_json_is_400(client):
    response = client.post("/v1/games", data="{nope", content_type="application/json")
    assert_problem(response, 400, "malformed-json")


def test_unknown_paths_and_methods_are_problems(client):
    assert_problem(client.get("/v1/nothing"), 404, "not-found")
    assert_problem(client.get("/v1/games/nosuchgame"), 404, "game-not-found")
    response = client.delete("/v1/game-types")
    assert_problem(response, 405, "method-not-allowed")
    assert "GET" in response.headers["Allow"]


def test_problem_types_are_documented(client):
    body = client.get("/v1/games/nosuchgame").get_json()
    page = client.get(body["type"])
    assert page.status_code == 200 and "expired" in page.get_data(as_text=True)


# --- joining ------------------------------------------------------------------------------


def test_join_fills_seats_then_the_game_starts(client):
    game = create_game(client, "mr-toast", 2)
    first = client.post(f"/v1/games/{game['id']}/join", json={"name": "Ann", "seat": 1})
    assert first.status_code == 201
    assert first.get_json()["seat"] == 1 and len(first.get_json()["token"]) >= 22
    assert first.get_json()["status"] == "waiting"
    taken = client.post(f"/v1/games/{game['id']}/join", json={"name": "Bob", "seat": 1})
    assert_problem(taken, 409, "seat-taken")
    second = client.post(f"/v1/games/{game['id']}/join", json={"name": "Bob"})
    assert second.get_json()["seat"] == 0 and second.get_json()["status"] == "active"
    full = client.post(f"/v1/games/{game['id']}/join", json={"name": "Cy"})
    assert_problem(full, 409, "game-full")
    summary = client.get(f"/v1/games/{game['id']}").get_json()
    assert [s["name"] for s in summary["seats"]] == ["Bob", "Ann"]
    assert "token" not in str(summary)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "x" * 41}, "name"),
        ({"name": "a", "seat": "1"}, "seat"),
    ],
)  # fmt: skip
def test_join_validates_fields(client, body, field):
    game = create_game(client, "mr-toast", 2)
    assert_problem(client.post(f"/v1/games/{game['id']}/join", json=body), 422, field=field)


def test_acting_before_every_seat_is_taken_is_refused(client):
    game = create_game(client, "mr-toast", 3)
    token = client.post(f"/v1/games/{game['id']}/join", json={"name": "a"}).get_json()["token"]
    response = client.post(
        f"/v1/games/{game['id']}/actions", json={"type": "end_turn"}, headers=auth(token)
    )
    assert_problem(response, 409, "game-not-started")


# --- views --------------------------------------------------------------------------------


def test_view_shows_own_hand_legal_actions_and_an_etag(client):
    game_id, tokens = new_table(client, "mr-toast", 3, seed=11)
    seat, mine = mover(client, game_id, tokens)
    assert mine["you"]["seat"] == seat and mine["you"]["hand"]
    assert mine["legal_actions"] and all("type" in a for a in mine["legal_actions"])
    assert mine["status"] == "active" and mine["to_act"] == [seat]
    other = next(s for s in tokens if s != seat)
    theirs = view(client, game_id, tokens[other])
    assert theirs["legal_actions"] == []
    response = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[seat]))
    etag = response.headers["ETag"]
    again = client.get(
        f"/v1/games/{game_id}/view", headers={**auth(tokens[seat]), "If-None-Match": etag}
    )
    assert again.status_code == 304


def test_spectator_sees_only_the_public_state(client):
    game_id, _ = new_table(client, "mr-toast", 2)
    spectator = view(client, game_id)
    assert spectator["you"] is None and spectator["legal_actions"] == []


def test_a_wrong_token_is_401(client):
    game_id, _ = new_table(client, "mr-toast", 2)
    _, other_tokens = new_table(client, "mr-toast", 2)
    for headers in (auth("not-a-token"), auth(other_tokens[0]), {"Authorization": "Basic eA=="}):
        response = client.get(f"/v1/games/{game_id}/view", headers=headers)
        assert_problem(response, 401, "unauthorized")
        assert response.headers["WWW-Authenticate"].startswith("Bearer")


# --- actions ------------------------------------------------------------------------------


def test_action_errors_change_nothing(client):
    game_id, tokens = new_table(client, "mr-toast", 3, seed=5)
    seat, mine = mover(client, game_id, tokens)
    version = mine["version"]
    other = next(s for s in tokens if s != seat)
    url = f"/v1/games/{game_id}/actions"
    assert_problem(client.post(url, json={"type": "end_turn"}), 401, "unauthorized")
    assert_problem(
        client.post(url, json={"type": "end_turn"}, headers=auth("x" * 43)), 401, "unauthorized"
    )
    assert_problem(
        client.post(url, json={"type": "end_turn"}, headers=auth(tokens[other])),
        409,
        "not-your-turn",
    )
    refused = assert_problem(
        client.post(url, json={"type": "score", "green": "nope"}, headers=auth(tokens[seat])),
        422,
        "illegal-action",
    )
    assert refused.get("rule") or refused.get("field")
    assert_problem(client.post(url, json={"kind": "x"}, headers=auth(tokens[seat])), 422,
                   "invalid-request", "type")  # fmt: skip
    assert_problem(
        client.post(url, data="[", content_type="application/json", headers=auth(tokens[seat])),
        400,
    )
    stale = client.post(
        url, json={"type": "end_turn"}, headers={**auth(tokens[seat]), "If-Match": '"abc"'}
    )
    assert_problem(stale, 412, "stale-version")
    assert view(client, game_id, tokens[seat])["version"] == version


def test_if_match_with_the_current_etag_is_accepted(client):
    game_id, tokens = new_table(client, "mr-toast", 2, seed=3)
    seat, mine = mover(client, game_id, tokens)
    response = client.post(
        f"/v1/games/{game_id}/actions",
        json=mine["legal_actions"][0],
        headers={**auth(tokens[seat]), "If-Match": f'"{mine["etag"]}"'},
    )
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["version"] == mine["version"] + 1
    assert body["view"]["version"] == body["version"] and body["events"]
    assert response.headers["ETag"].strip('"') == body["view"]["etag"]


def test_a_weak_etag_never_matches_if_match(client):
    """RFC 9110 §13.1.1: If-Match compares strongly, so W/"<etag>" is stale even when the
    tag is current; the action is refused and nothing changes."""
    game_id, tokens = new_table(client, "mr-toast", 2, seed=3)
    seat, mine = mover(client, game_id, tokens)
    weak = client.post(
        f"/v1/games/{game_id}/actions",
        json=mine["legal_actions"][0],
        headers={**auth(tokens[seat]), "If-Match": f'W/"{mine["etag"]}"'},
    )
    assert_problem(weak, 412, "stale-version")
    assert view(client, game_id, tokens[seat])["version"] == mine["version"]


def test_idempotency_key_applies_once(client):
    game_id, tokens = new_table(client, "mr-toast", 2, seed=9)
    seat, mine = mover(client, game_id, tokens)
    action = mine["legal_actions"][0]
    headers = {**auth(tokens[seat]), "Idempotency-Key": "k-1"}
    first = client.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    second = client.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert first.status_code == second.status_code == 200
    assert first.get_json() == second.get_json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert view(client, game_id, tokens[seat])["version"] >= mine["version"] + 1
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] == first.get_json()["version"]
    other_body = client.post(
        f"/v1/games/{game_id}/actions", json={"type": "allow"}, headers=headers
    )
    assert_problem(other_body, 422, "idempotency-key-reused", "Idempotency-Key")


@pytest.mark.parametrize("game_type", ["mr-toast", "exact-plays"])
def test_a_retry_after_the_game_moved_on_gets_the_first_answer_byte_for_byte(client, game_type):
    """The stored answer keeps the game as the action left it (docs/architecture.md
    "Storage"): a retry later shows that game, not the one as it is now."""
    game_id, tokens = new_table(client, game_type, 3, seed=8)
    seat, mine = mover(client, game_id, tokens)
    action = mine["legal_actions"][0]
    headers = {**auth(tokens[seat]), "Idempotency-Key": "late"}
    first = client.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert first.status_code == 200
    for _ in range(4):
        other, theirs = mover(client, game_id, tokens)
        moved = client.post(
            f"/v1/games/{game_id}/actions",
            json=theirs["legal_actions"][0],
            headers=auth(tokens[other]),
        )
        assert moved.status_code == 200, moved.get_json()
    assert view(client, game_id)["version"] > first.get_json()["version"]
    again = client.post(f"/v1/games/{game_id}/actions", json=action, headers=headers)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == first.get_data()
    assert again.headers["ETag"] == first.headers["ETag"]


# --- events -------------------------------------------------------------------------------


def test_events_are_numbered_and_redacted_per_viewer(client):
    game_id, tokens = new_table(client, "mr-toast", 2, seed=21)
    everything = client.get(f"/v1/games/{game_id}/events?after=0").get_json()
    seqs = [event["seq"] for event in everything["events"]]
    assert seqs == sorted(seqs) and seqs[0] == 1
    assert everything["last_seq"] >= seqs[-1]
    later = client.get(f"/v1/games/{game_id}/events?after={seqs[1]}").get_json()
    assert [e["seq"] for e in later["events"]] == [s for s in seqs if s > seqs[1]]
    hands = {
        seat: card_ids(view(client, game_id, token)["you"]["hand"])
        for seat, token in tokens.items()
    }
    assert not card_ids(everything["events"]) & set().union(*hands.values())
    for seat, token in tokens.items():
        own = client.get(f"/v1/games/{game_id}/events", headers=auth(token)).get_json()["events"]
        others = set().union(*(hand for s, hand in hands.items() if s != seat))
        assert not card_ids(own) & others, "a seat's events show another seat's cards"
    starter = view(client, game_id)["to_act"][0]
    ended = client.post(
        f"/v1/games/{game_id}/actions", json={"type": "end_turn"}, headers=auth(tokens[starter])
    )
    assert ended.status_code == 200
    drawer = 1 - starter
    drawn = card_ids(view(client, game_id, tokens[drawer])["you"]["hand"]) - hands[drawer]
    assert len(drawn) == 1
    mine = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[drawer])).get_json()
    assert card_ids(mine["events"]) & drawn, "the drawer sees the card it drew (MT-15)"
    theirs = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[starter])).get_json()
    assert not card_ids(theirs["events"]) & drawn, "the other seat does not"
    public = client.get(f"/v1/games/{game_id}/events").get_json()
    assert not card_ids(public["events"]) & drawn, "nor does a spectator"
    assert_problem(client.get(f"/v1/games/{game_id}/events?after=-1"), 422, field="after")
    assert_problem(client.get(f"/v1/games/{game_id}/events?wait=31"), 422, field="wait")


def test_long_poll_returns_when_an_event_arrives(client, app):
    game_id, tokens = new_table(client, "mr-toast", 2, seed=4)
    last = client.get(f"/v1/games/{game_id}/events").get_json()["last_seq"]
    seat, mine = mover(client, game_id, tokens)

    def act_soon() -> None:
        time.sleep(0.3)
        url = f"/v1/games/{game_id}/actions"
        app.test_client().post(url, json=mine["legal_actions"][0], headers=auth(tokens[seat]))

    threading.Thread(target=act_soon).start()
    started = time.monotonic()
    body = client.get(f"/v1/games/{game_id}/events?after={last}&wait=10").get_json()
    elapsed = time.monotonic() - started
    assert body["events"], "the long-poll returned without the event"
    assert elapsed < 5


# --- whole games --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game_type", "players"),
    [(name, n) for name, game in sorted(registry().items())
     for n in range(game.min_players, game.max_players + 1)],
)  # fmt: skip
def test_whole_games_over_http_end_with_a_result(client, game_type, players):
    rng = random.Random(players)
    game_id, tokens = new_table(client, game_type, players, seed=players * 101)
    summary = play_random_game(client, game_id, tokens, rng, check_secrets=players <= 3)
    assert summary["seed"] == players * 101, "the seed is revealed at the end for replays"
    assert summary["to_act"] == []


@pytest.mark.parametrize("game_type", sorted(registry()))
def test_bots_play_their_seats_inside_the_request(client, game_type):
    players = registry()[game_type].min_players + 1
    bots = [{"seat": seat, "policy": "greedy"} for seat in range(1, players)]
    game = create_game(client, game_type, players, bots=bots, seed=2)
    assert [s["bot"] for s in game["seats"]] == [None] + ["greedy"] * (players - 1)
    tokens = join_all(client, game)
    assert list(tokens) == [0]
    summary = play_random_game(client, game["id"], tokens, random.Random(1))
    assert summary["result"]["winners"]


def test_an_all_bot_game_plays_out_at_creation(client):
    bots = [{"seat": s, "policy": "random"} for s in range(3)]
    game = create_game(client, "mr-toast", 3, bots=bots, seed=8)
    assert game["status"] == "finished" and game["result"]["winners"]


@pytest.mark.parametrize(("game_type", "option"), [("mr-toast", "deck"), ("exact-plays", "decks")])
def test_a_stacked_deck_stays_hidden_until_the_end(client, game_type, option):
    game = registry()[game_type]
    secret = [spec.name for spec in game.option_specs if spec.secret]
    assert secret == [option]
    first = client.post("/v1/games", json={"game_type": game_type, "players": 2, "seed": 1})
    record_options = first.get_json()["options"]
    assert record_options[option] is None, "an unset option shows as null"
    stacked = stacked_deck_of(game_type)
    body = {"game_type": game_type, "players": 2, "options": {option: stacked}}
    created = client.post("/v1/games", json=body)
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["options"][option] == "stacked"
    game_id = created.get_json()["id"]
    join_all(client, created.get_json())
    assert view(client, game_id)["options"][option] == "stacked"
    assert "stacked" in str(client.get("/v1/games?limit=100").get_json())


def stacked_deck_of(game_type: str) -> list:
    """A valid stacked deck for a 2-player game of this type, in a fixed order."""
    if game_type == "mr-toast":
        return [code for code, count in DEFAULT_COUNTS.items() for _ in range(count)]
    return [[f"{number}{suit}" for suit in "MSA" for number in range(2, 10)]]


def test_games_are_listed_filtered_and_paged_without_secrets(client):
    made = [create_game(client, "exact-plays", 2)["id"] for _ in range(5)]
    active_id, tokens = new_table(client, "exact-plays", 2)
    seen: list[str] = []
    cursor = None
    while True:
        query = "/v1/games?game_type=exact-plays&limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(query).get_json()
        assert len(page["games"]) <= 2
        seen += [game["id"] for game in page["games"]]
        assert all(game["game_type"] == "exact-plays" for game in page["games"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
        create_game(client, "exact-plays", 2)  # new games do not shift the pages
    assert len(seen) == len(set(seen)), "a game was listed twice"
    assert {*made, active_id} <= set(seen)
    active = client.get("/v1/games?status=active&game_type=exact-plays&limit=100").get_json()
    assert active_id in [game["id"] for game in active["games"]]
    assert all(game["status"] == "active" for game in active["games"])
    text = str(active)
    assert not any(token in text for token in tokens.values())
    assert "hand" not in text
    assert_problem(client.get("/v1/games?limit=0"), 422, field="limit")
    assert_problem(client.get("/v1/games?status=odd"), 422, field="status")


@pytest.mark.parametrize("game_type", sorted(registry()))
def test_every_illegal_action_names_its_rule(client, game_type):
    """422 illegal-action always carries `rule`: malformed forms included (MT-16, EP-18)."""
    game_id, tokens = new_table(client, game_type, 2)
    seat, mine = mover(client, game_id, tokens)
    sample = mine["legal_actions"][0]
    for action in (
        {"type": "zzz"},
        {**sample, "zzz": 1},
        {"type": sample["type"], **{key: [] for key in sample if key != "type"}},
    ):
        if action == sample:
            continue
        response = client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
        )
        if response.status_code == 422:
            body = assert_problem(response, 422, "illegal-action")
            assert body["rule"] and body["field"], body
    response = client.post(
        f"/v1/games/{game_id}/actions", json={"type": "zzz"}, headers=auth(tokens[seat])
    )
    assert assert_problem(response, 422, "illegal-action")["rule"] in ("MT-16", "EP-18")
