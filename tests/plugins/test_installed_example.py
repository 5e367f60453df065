"""The third game as a user gets it (issue 30's acceptance): ``pip install
./examples/crazy-eights`` into the environment of a server, then ``cardroom serve``. The game
is listed with its package, version and rules page, typed in the live API document, created,
joined and played to the end over REST, over the game socket and with the SDK, with server
bots at the other seats; ``cardroom games`` and ``cardroom simulate`` know it; its replay and
rematch work; and the package's own tests, which run the author's conformance kit, pass. (The
web table's part is tests/web/test_web_plugin_game.py, on the same server.)

The package lives in the shared throwaway venv (``plugin_venv``), never in the suite's own
environment, whose committed API document covers cardroom's two games only.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from typing import Any

import requests
import websocket
from openapi_spec_validator import validate

from cardroom_sdk import Client, RandomBot

from helpers import auth
from plugin_venv import EXAMPLES, PluginVenv

GAME = "crazy-eights"
TIMEOUT = 10
PLAY_SECONDS = 90


def get(base: str, path: str, token: str | None = None) -> Any:
    answer = requests.get(f"{base}{path}", headers=auth(token) if token else {}, timeout=TIMEOUT)
    assert answer.status_code == 200, (path, answer.text)
    return answer.json()


def test_the_package_s_own_tests_pass_with_the_author_s_kit(
    plugin_venv: PluginVenv, example_game_server: str
) -> None:
    done = plugin_venv.run(
        plugin_venv.python,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        EXAMPLES / GAME / "tests",
        cwd=EXAMPLES / GAME,
    )
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout


def test_cardroom_games_and_simulate_know_it(
    plugin_venv: PluginVenv, example_game_server: str
) -> None:
    listed = plugin_venv.run("cardroom", "games").stdout
    assert "crazy-eights  Crazy Eights  (package cardroom-crazy-eights 1.0.0)" in listed
    simulated = plugin_venv.run(
        "cardroom", "simulate", "--game", GAME, "--players", "3", "--games", "20", "--json"
    ).stdout
    figures = json.loads(simulated)
    assert figures["games"] == 20 and set(figures["by_policy"]) == {"eights-last", "random"}


def test_it_is_listed_documented_and_has_its_rules_page(example_game_server: str) -> None:
    base = example_game_server
    types = {t["game_type"]: t for t in get(base, "/v1/game-types")["game_types"]}
    assert list(types) == ["exact-plays", "mr-toast", "crazy-eights"]  # ours first
    ours = types[GAME]
    assert (ours["package"], ours["version"], ours["rules_version"]) == (
        "cardroom-crazy-eights",
        "1.0.0",
        1,
    )
    assert ours["bot_policies"] == ["random", "eights-last"]
    assert ours["rules_url"] == "/rules/crazy-eights"
    page = requests.get(f"{base}/rules/crazy-eights", timeout=TIMEOUT)
    assert page.status_code == 200 and 'id="ce-1"' in page.text

    document = get(base, "/openapi.json")
    validate(document)  # every reference resolves, the plug-in's shapes included
    schemas = document["components"]["schemas"]
    for part in ("Card", "Public", "You", "Result", "View", "Action", "Event"):
        assert f"CrazyEights{part}" in schemas, part
    assert "crazy-eights" in json.dumps(document["components"]["schemas"]["CreateGameRequest"])


class Socket:
    """One seat on the game socket: it says hello with its token, then acts; the views the
    server pushes in between are read past."""

    def __init__(self, base: str, game_id: str, token: str):
        url = base.replace("http://", "ws://") + f"/v1/games/{game_id}/socket"
        self.ws = websocket.create_connection(url, timeout=TIMEOUT)
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        assert self._next(None)["type"] == "view"

    def _next(self, key: str | None) -> dict[str, Any]:
        while True:
            message = json.loads(self.ws.recv())
            if message["type"] == "problem" or message.get("id") == key:
                return message

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        key = str(uuid.uuid4())
        self.ws.send(json.dumps({"type": "act", "id": key, "action": action}))
        return self._next(key)

    def close(self) -> None:
        self.ws.close()


def awaited(view: dict[str, Any]) -> bool:
    return bool(view["legal_actions"]) and view["you"]["seat"] in view["awaiting"]


def test_it_is_played_to_the_end_over_rest_and_the_socket_with_a_server_bot(
    example_game_server: str,
) -> None:
    base, rng = example_game_server, random.Random(30)
    created = requests.post(
        f"{base}/v1/games",
        json={"game_type": GAME, "players": 3, "bots": [{"seat": 2, "policy": "eights-last"}]},
        timeout=TIMEOUT,
    ).json()
    assert created["plugin"]["package"] == "cardroom-crazy-eights"
    game_id = created["id"]
    tokens = {}
    for name in ("rest", "socket"):
        joined = requests.post(
            f"{base}/v1/games/{game_id}/join", json={"name": name}, timeout=TIMEOUT
        ).json()
        tokens[name] = joined["token"]
    socket = Socket(base, game_id, tokens["socket"])
    moves = {"rest": 0, "socket": 0}
    try:
        ends = time.monotonic() + PLAY_SECONDS
        while time.monotonic() < ends:
            rest_view = get(base, f"/v1/games/{game_id}/view", tokens["rest"])
            if rest_view["status"] == "finished":
                break
            if awaited(rest_view):
                answer = requests.post(
                    f"{base}/v1/games/{game_id}/actions",
                    json=rng.choice(rest_view["legal_actions"]),
                    headers=auth(tokens["rest"]),
                    timeout=TIMEOUT,
                )
                assert answer.status_code == 200, answer.text
                moves["rest"] += 1
                continue
            socket_view = get(base, f"/v1/games/{game_id}/view", tokens["socket"])
            if (
                socket_view["legal_actions"]
                and socket_view["you"]["seat"] in socket_view["awaiting"]
            ):
                result = socket.act(rng.choice(socket_view["legal_actions"]))
                assert result["type"] == "result" and result["status"] == 200, result
                moves["socket"] += 1
                continue
            time.sleep(0.05)  # the server's bot is moving
        else:
            raise AssertionError(f"not finished in {PLAY_SECONDS} s")
    finally:
        socket.close()
    assert moves["rest"] and moves["socket"], moves
    summary = get(base, f"/v1/games/{game_id}")
    assert summary["status"] == "finished" and summary["result"]["winners"]
    assert summary["available"] is True

    replay = get(base, f"/v1/games/{game_id}/replay")
    assert replay["game_type"] == GAME and replay["steps"]
    rematch = requests.post(
        f"{base}/v1/games/{game_id}/rematch", headers=auth(tokens["rest"]), timeout=TIMEOUT
    )
    assert rematch.status_code in (200, 201), rematch.text
    assert rematch.json()["game_type"] == GAME


def test_sdk_seats_play_it_to_the_end_against_the_game_s_own_bot(
    example_game_server: str,
) -> None:
    client = Client(example_game_server, timeout=TIMEOUT)
    assert GAME in {game_type.game_type for game_type in client.game_types()}
    game = client.create_game(GAME, 3, bots={2: "eights-last"})
    first = client.join(game.id, "sdk-one")
    second = client.join(game.id, "sdk-two")
    assert (first.seat, second.seat) == (0, 1)

    errors: list[BaseException] = []

    def play_second() -> None:
        try:
            second.play(RandomBot(seed=2), timeout=PLAY_SECONDS)
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    worker = threading.Thread(target=play_second, daemon=True)
    worker.start()
    first.play(RandomBot(seed=1), timeout=PLAY_SECONDS)
    worker.join(PLAY_SECONDS)
    assert not worker.is_alive() and not errors, errors
    summary = client.game(game.id)
    assert summary.status == "finished"


def test_its_turn_clock_times_a_seat_out_and_the_game_s_bot_plays_it_away(
    example_game_server: str,
) -> None:
    """Clocks are the kit's (every game lists CLOCK_SPECS): a seat that never acts times out,
    is marked away after one miss, and the game's own policy plays it to the end, with no
    request (the server's progression loop)."""
    base = example_game_server
    options = {"turn_seconds": 1, "away_after": 1, "away_bot": "eights-last"}
    created = requests.post(
        f"{base}/v1/games",
        json={
            "game_type": GAME,
            "players": 2,
            "options": options,
            "bots": [{"seat": 1, "policy": "random"}],
        },
        timeout=TIMEOUT,
    ).json()
    game_id = created["id"]
    requests.post(f"{base}/v1/games/{game_id}/join", json={"name": "away"}, timeout=TIMEOUT)
    ends = time.monotonic() + PLAY_SECONDS
    while get(base, f"/v1/games/{game_id}")["status"] != "finished":
        assert time.monotonic() < ends, "the clocked game did not finish by itself"
        time.sleep(0.5)
    events = get(base, f"/v1/games/{game_id}/events?after=0&limit=1000")["events"]
    timed_out = [event for event in events if event["type"] == "timed_out"]
    assert timed_out and timed_out[0]["seat"] == 0 and timed_out[0]["away"] is True
