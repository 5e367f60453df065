"""Secrets stay secret: seat tokens, hands, declarations and rock-paper-scissors choices.

The big test plays random games of both types through the API (the Flask test client, for
speed; every seat a person, so every version is observed) and scans every response, every
view of every seat and of a spectator after every action, and every event as each of them
reads it afterwards.
"""

from __future__ import annotations

import hmac
import json
import logging
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from cardroom.api.observability import JsonFormatter
from cardroom.config import Settings
from cardroom.games.exact_plays.engine import SHAPES
from cardroom.serve.app import create_app

from helpers import auth, card_ids, create_game, join_all

SECRET_KEYS = ("declaration", "declarations")
# After one of these, cards change hands within the same version (a reshuffled discard pile,
# a new deal): events before it may show cards that are back in a hand by the end of it.
REDEALS = ("reshuffled", "round_started")


# --- constant-time comparison ------------------------------------------------------------


def test_tokens_are_compared_in_constant_time_against_every_seat(client, monkeypatch):
    game = create_game(client, "mr-toast", 4)
    tokens = join_all(client, game)
    calls: list[tuple[str, str]] = []
    original = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return original(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    for token in (tokens[0], tokens[3], "x" * 43):
        calls.clear()
        client.get(f"/v1/games/{game['id']}/view", headers=auth(token))
        # Every seat's hash is compared, found or not: the time says nothing about which.
        assert len(calls) == 4, calls
        assert all(len(a) == len(b) == 64 for a, b in calls)
        assert token not in {value for pair in calls for value in pair}, "only hashes compared"

    monkeypatch.setattr(hmac, "compare_digest", lambda a, b: False)
    refused = client.get(f"/v1/games/{game['id']}/view", headers=auth(tokens[0]))
    assert refused.status_code == 401, "the seat is decided by hmac.compare_digest alone"


def test_a_seat_token_is_256_random_bits_in_hex_so_a_command_line_reads_it_as_a_value(client):
    # URL-safe base64 tokens began with "-" one time in 64, and `cardroom-bot --token TOKEN`
    # (sdk/README.md) then read the token as an option and exited 2.
    games = [create_game(client, "mr-toast", 4) for _ in range(8)]
    tokens = [token for game in games for token in join_all(client, game).values()]
    assert all(re.fullmatch(r"[0-9a-f]{64}", token) for token in tokens), tokens
    assert len(set(tokens)) == len(tokens)


# --- random games, scanned -------------------------------------------------------------------


@dataclass
class Scan:
    games: int = 0
    responses: int = 0
    views: int = 0
    events: int = 0
    declarations: int = 0
    rps_choices: int = 0
    tokens: set[str] = field(default_factory=set)
    bodies: list[tuple[str, str]] = field(default_factory=list)


class Recorder:
    """The test client, keeping every response's headers and body for the token scan."""

    def __init__(self, client: Any, scan: Scan):
        self.client = client
        self.scan = scan

    def _keep(self, what: str, response: Any) -> Any:
        self.scan.responses += 1
        text = response.get_data(as_text=True)
        self.scan.bodies.append((what, f"{dict(response.headers)}\n{text}"))
        return response

    def get(self, path: str, **kwargs: Any) -> Any:
        return self._keep(f"GET {path}", self.client.get(path, **kwargs))

    def post(self, path: str, **kwargs: Any) -> Any:
        return self._keep(f"POST {path}", self.client.post(path, **kwargs))


def walk(value: Any, skip: tuple[str, ...] = ()) -> Any:
    """Every (key, value) pair in a JSON value, depth first, leaving out keys in ``skip``."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in skip:
                continue
            yield key, item
            yield from walk(item, skip)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item, skip)


def strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(strings(item) for item in value))
    return set()


def check_views(views: dict[int | None, dict[str, Any]], scan: Scan) -> dict[int, set[str]]:
    """At one version: nobody sees another seat's cards, declaration or unrevealed choice."""
    hands = {
        seat: card_ids(view["you"]["hand"]) for seat, view in views.items() if seat is not None
    }
    for viewer, view in views.items():
        scan.views += 1
        shown = {key: value for key, value in view.items() if key != "you"}
        for seat, hand in hands.items():
            if seat != viewer:
                leaked = card_ids(shown) & hand
                assert not leaked, f"{viewer} sees cards {leaked} of seat {seat}"
        public = view["public"]
        if view["game_type"] != "exact-plays":
            continue
        if public["phase"] == "declare":
            for key, value in walk(shown):
                assert key not in SECRET_KEYS or value is None, f"{viewer} sees {key}={value}"
        if public["phase"] == "rps":
            unrevealed = {**public, "rps": {**public["rps"], "throws": []}}
            seen = strings({**shown, "public": unrevealed, "legal_actions": []})
            assert not seen & set(SHAPES), f"{viewer} sees a choice before the reveal"
    return hands


def check_events(
    by_viewer: dict[int | None, list[dict[str, Any]]],
    hands_at: dict[int, dict[int, set[str]]],
    scan: Scan,
) -> None:
    public = {event["seq"]: event for event in by_viewer[None]}
    redeal_seq: dict[int, int] = {}
    for event in by_viewer[None]:
        if event["type"] in REDEALS:
            redeal_seq[event["version"]] = event["seq"]
    for viewer, events in by_viewer.items():
        for event in events:
            scan.events += 1
            assert "private" not in event and "audience" not in event, event
            owner = event.get("seat")
            if viewer is None or (owner is not None and owner != viewer):
                # What the engine keeps for the seat in `seat` is its alone.
                assert event == public[event["seq"]], (viewer, event)
                assert "tokens" not in event and "shape" not in event, (viewer, event)
                assert event["type"] != "drew" or set(event) & {"card", "cards"} == set()
            version = event["version"]
            if version not in hands_at or event["seq"] < redeal_seq.get(version, 0):
                continue
            secret = set().union(
                *(hand for seat, hand in hands_at[version].items() if seat != viewer)
            )
            leaked = card_ids(event) & secret
            assert not leaked, f"{viewer} sees {leaked} held by another seat in {event}"


def read_events(recorder: Recorder, game_id: str, token: str | None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        response = recorder.get(
            f"/v1/games/{game_id}/events",
            query_string={"after": after, "limit": 1000},
            headers=auth(token) if token else {},
        )
        assert response.status_code == 200
        page = response.get_json()
        events += page["events"]
        if page["last_seq"] == after:
            return events
        after = page["last_seq"]


def play_scanned_game(
    recorder: Recorder, game_type: str, players: int, seed: int, options: dict[str, Any]
) -> None:
    scan = recorder.scan
    created = recorder.post(
        "/v1/games",
        json={"game_type": game_type, "players": players, "seed": seed, "options": options},
    )
    assert created.status_code == 201
    game_id = created.get_json()["id"]
    tokens: dict[int, str] = {}
    for _ in range(players):
        joined = recorder.post(f"/v1/games/{game_id}/join", json={"name": "scan"}).get_json()
        tokens[joined["seat"]] = joined["token"]
    scan.tokens |= set(tokens.values())
    rng = random.Random(seed)
    hands_at: dict[int, dict[int, set[str]]] = {}
    while True:
        views: dict[int | None, dict[str, Any]] = {
            viewer: recorder.get(
                f"/v1/games/{game_id}/view", headers=auth(token) if token else {}
            ).get_json()
            for viewer, token in [(None, None), *tokens.items()]
        }
        spectator = views[None]
        assert {view["version"] for view in views.values()} == {spectator["version"]}
        hands_at[spectator["version"]] = check_views(views, scan)
        if spectator["status"] == "finished":
            break
        seat = rng.choice(spectator["to_act"])
        legal = views[seat]["legal_actions"]
        if legal[0]["type"] == "declare":
            # Mostly the same few numbers: ties, so rock-paper-scissors, come often.
            legal = [a for a in legal if a["tokens"] in (2, 3)] if rng.random() < 0.8 else legal
        action = rng.choice(legal)
        scan.declarations += action["type"] == "declare"
        scan.rps_choices += action["type"] == "rps"
        answer = recorder.post(
            f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
        )
        assert answer.status_code == 200, answer.get_json()
    by_viewer = {
        viewer: read_events(recorder, game_id, token)
        for viewer, token in [(None, None), *tokens.items()]
    }
    check_events(by_viewer, hands_at, scan)
    scan.games += 1


GAMES = [
    ("mr-toast", players, seed, {"turn_limit": 25})
    for players, seed in ((2, 1), (3, 2), (4, 3), (5, 4), (6, 5), (3, 6), (4, 7))
] + [
    ("exact-plays", players, seed, {"turn_limit": 40})
    for players, seed in ((2, 11), (3, 12), (4, 13), (2, 14), (3, 15), (4, 16), (4, 17))
]


@pytest.fixture()
def logging_client(settings: Settings):
    """A client of an app that logs every request (CARDROOM_REQUEST_LOG=all)."""
    app = create_app(Settings.from_env(redis_url=settings.redis_url, request_log="all"))
    return app.test_client()


def test_random_games_show_no_secret_to_anyone_else(logging_client, caplog):
    client = logging_client
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="cardroom")
    scan = Scan()
    recorder = Recorder(client, scan)
    for game_type, players, seed, options in GAMES:
        play_scanned_game(recorder, game_type, players, seed, options)
    listed = recorder.get("/v1/games", query_string={"limit": 100})
    assert listed.status_code == 200
    for summary in listed.get_json()["games"]:
        assert not {"state", "hands", "token", "tokens"} & set(summary)
        assert not card_ids(summary), "a game summary shows cards"

    assert scan.declarations and scan.rps_choices, "the games had no secret choices to keep"
    # A token is in its own join answer and nowhere else: not in any other response or log.
    for what, text in scan.bodies:
        found = {token for token in scan.tokens if token in text}
        if what.endswith("/join"):
            assert len(found) == 1, (what, text)
        else:
            assert not found, f"{what} returned a seat token"
    formatter = JsonFormatter()
    log_text = "\n".join(formatter.format(record) for record in caplog.records)
    assert caplog.records, "the requests were logged"
    assert not {token for token in scan.tokens if token in log_text}, "a token was logged"
    print(
        f"\nsecrets: {scan.games} games, {scan.responses} responses, {scan.views} views, "
        f"{scan.events} events scanned; {scan.declarations} declarations, "
        f"{scan.rps_choices} rock-paper-scissors choices; {len(caplog.records)} log records"
    )


@pytest.mark.parametrize("header", ["Authorization", "authorization"])
def test_a_token_sent_in_a_refused_request_is_not_echoed(client, header):
    game = create_game(client, "exact-plays", 2)
    tokens = join_all(client, game)
    other = create_game(client, "exact-plays", 2)
    for path in (f"/v1/games/{other['id']}/view", "/v1/games/nosuchgame/view"):
        response = client.get(path, headers={header: f"Bearer {tokens[0]}"})
        assert response.status_code in (401, 404)
        assert tokens[0] not in json.dumps(response.get_json()) + str(response.headers)
