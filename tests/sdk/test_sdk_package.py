"""The SDK stands alone: requests only (websocket-client with its "socket" extra), no server
import; models tolerate new fields."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import cardroom_sdk
from cardroom_sdk import (
    ActionResult,
    EventBatch,
    GameList,
    GameSummary,
    GameType,
    Joined,
    View,
    errors,
)

SDK = Path(__file__).resolve().parents[2] / "sdk"


def test_distribution_metadata() -> None:
    project = tomllib.loads((SDK / "pyproject.toml").read_text())
    meta = project["project"]
    assert meta["name"] == "cardroom-sdk" and meta["version"] == "0.2.0"
    assert cardroom_sdk.__version__ == meta["version"]
    # requests for HTTP; websocket-client, for the game socket (cardroom_sdk.socket), is an
    # extra: without it seats follow games over HTTP.
    assert meta["dependencies"] == ["requests>=2.31"]
    assert meta["optional-dependencies"] == {"socket": ["websocket-client>=1.6"]}
    assert meta["requires-python"] == ">=3.11"
    assert meta["scripts"] == {"cardroom-bot": "cardroom_sdk.runner:main"}
    assert project["build-system"]["build-backend"] == "setuptools.build_meta"
    assert any(req.startswith("setuptools>=") for req in project["build-system"]["requires"])
    assert (SDK / "cardroom_sdk" / "py.typed").exists()


def test_sdk_never_imports_the_server() -> None:
    for path in (SDK / "cardroom_sdk").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top in ALLOWED_TOP_LEVEL, f"{path.name} imports {name}"
    code = (
        "import sys, cardroom_sdk, cardroom_sdk.runner\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('cardroom', 'flask', 'redis', 'marshmallow'))\n"
        "print(bad)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


ALLOWED_TOP_LEVEL = set(sys.stdlib_module_names) | {
    "requests",
    "urllib3",
    "websocket",
    "cardroom_sdk",
}


def test_without_websocket_client_seats_play_over_http(live_server: str) -> None:
    """The SDK's bare install (requests only): no game socket, the game followed over HTTP."""
    code = (
        "import sys\n"
        "sys.modules['websocket'] = None  # as if websocket-client were not installed\n"
        "from cardroom_sdk import Client, EagerBot\n"
        "from cardroom_sdk import socket\n"
        f"client = Client({live_server!r})\n"
        "game = client.create_game('exact-plays', 2, bots={1: 'greedy'})\n"
        "view = client.join(game.id, 'bare').play(EagerBot(), timeout=30)\n"
        "print(socket.AVAILABLE, client.sockets, view.finished)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["False", "False", "True"], done.stderr


def test_models_tolerate_new_and_missing_fields() -> None:
    view = View.from_json(
        {
            "game_id": "g",
            "game_type": "mr-toast",
            "status": "active",
            "version": 7,
            "to_act": [1],
            "you": {"seat": 1, "hand": [{"id": "c1", "code": "G1", "sparkle": True}]},
            "legal_actions": [{"type": "end_turn"}],
            "brand_new": {"x": 1},
        },
        etag='"abc"',
    )
    assert view.my_turn and view.hand[0]["sparkle"] and view.raw["brand_new"] == {"x": 1}
    assert view.etag == "abc" and view.public == {} and view.winners == []
    spectator = View.from_json({"game_id": "g", "game_type": "t", "status": "waiting"})
    assert spectator.seat is None and spectator.hand == [] and not spectator.my_turn
    summary = GameSummary.from_json(
        {"id": "g", "game_type": "t", "status": "finished", "result": {"winners": [2]}, "x": 1}
    )
    assert summary.finished and summary.winners == [2] and summary.seats == []
    assert GameList.from_json({"games": [summary.raw]}).games[0].id == "g"
    batch = EventBatch.from_json({"events": [{"seq": 3, "type": "drew", "cards": [], "new": 1}]})
    assert batch.last_seq == 3 and batch.events[0]["new"] == 1 and dict(batch.events[0])
    assert "cards" in batch.events[0] and batch.events[0].get("nope") is None
    result = ActionResult.from_json({"version": 2, "events": [], "view": view.raw, "more": 1})
    assert result.view is not None and result.view.version == 7
    game_type = GameType.from_json(
        {"game_type": "t", "options": [{"name": "mode", "default": "exact", "new": 1}]}
    )
    assert game_type.defaults == {"mode": "exact"} and game_type.option("mode").raw["new"] == 1
    joined = Joined.from_json({"seat": 0, "token": "secret"}, "g")
    assert joined.game_id == "g" and "secret" not in repr(joined) and "token" not in joined.raw


def test_error_mapping_by_type_and_status() -> None:
    def made(status: int, slug: str | None) -> type:
        body = {"type": f"/problems/{slug}", "detail": "d"} if slug else None
        return type(errors.error_from_response(status, body, "text"))

    assert made(409, "not-your-turn") is errors.NotYourTurn
    assert made(409, "game-finished") is errors.GameFinished
    assert made(409, "something-new") is errors.Conflict
    assert made(422, "illegal-action") is errors.IllegalAction
    assert made(422, "invalid-request") is errors.InvalidRequest
    assert made(400, "malformed-json") is errors.InvalidRequest
    assert made(413, None) is errors.InvalidRequest
    assert made(412, None) is errors.StaleVersion
    assert made(401, None) is errors.Unauthorized
    assert made(404, None) is errors.NotFound
    assert made(429, None) is errors.RateLimited
    assert made(502, None) is errors.ServerUnavailable
    assert made(500, "internal-error") is errors.ServerError
    assert made(418, None) is errors.InvalidRequest
    error = errors.error_from_response(503, None, "<html>down</html>", 2.0)
    assert isinstance(error, errors.ServerUnavailable) and error.retry_after == 2.0
    assert error.detail == "<html>down</html>" and error.type is None
