"""A client generated from the committed API document plays both games, alone.

openapi-python-client (a dev dependency) generates a client from openapi/openapi.json into a
temporary folder; the tests play a Mr Toast game (with a server bot, a `BotSeat`) and an
Exact Plays game to the end with it against a live server (gunicorn), submitting its typed
action models (built by hand with no `type_`: it defaults to its one value), and check that a
status an operation does not list (405, 500) or does (429) still reaches the caller as a
problem with `type`, `title` and `detail`.
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.table import Tables

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
PACKAGE = "cardroom_client"
MAX_ACTIONS = 3_000
TIMEOUT = 30.0


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The generated client package, imported (``gen.api``, ``gen.models``, ``gen.Client``)."""
    try:
        import openapi_python_client  # noqa: F401
    except ImportError:
        pytest.skip("openapi-python-client is missing: .venv/bin/pip install -e '.[dev]'")
    where = tmp_path_factory.mktemp("generated")
    config = where / "config.yaml"
    config.write_text(f"package_name_override: {PACKAGE}\npost_hooks: []\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(SPEC_FILE),
            "--output-path",
            str(where / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    sys.path.insert(0, str(where))
    try:
        package = importlib.import_module(PACKAGE)
        for module in ("api.games.create_game", "api.games.get_game", "api.games.join_game"):
            importlib.import_module(f"{PACKAGE}.{module}")
        for module in ("api.games.get_view", "api.games.submit_action", "models"):
            importlib.import_module(f"{PACKAGE}.{module}")
        yield package
    finally:
        sys.path.remove(str(where))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def action_models(gen: ModuleType, prefix: str) -> tuple[type, ...]:
    """The generated classes of a game's actions (``MrToastGiveRed``, ...)."""
    models = gen.models
    return tuple(
        getattr(models, name)
        for name in dir(models)
        if name.startswith(prefix)
        and hasattr(getattr(models, name), "__attrs_attrs__")
        and "type_" in {a.name for a in getattr(models, name).__attrs_attrs__}
        and not name.endswith("Event")
    )


def play(gen: ModuleType, base_url: str, create_body: Any, prefix: str, first: Any) -> Any:
    """Create, join every seat but the bots', then play random legal actions to the end;
    ``first(view)`` builds an action model by hand for the first move it can."""
    api = gen.api.games
    client = gen.Client(base_url=base_url, timeout=httpx.Timeout(TIMEOUT))
    created = api.create_game.sync_detailed(client=client, body=create_body)
    assert created.status_code == 201, created.content
    game = created.parsed
    assert created.headers["Location"] == f"/v1/games/{game.id}"
    seats = {}
    for seat in game.seats:
        if isinstance(seat.bot, str):
            continue
        joined = api.join_game.sync(
            game_id=game.id, client=client, body=gen.models.Join(name=f"p{seat.seat}")
        )
        assert isinstance(joined, gen.models.JoinResult), joined
        seats[joined.seat] = gen.AuthenticatedClient(
            base_url=base_url, token=joined.token, timeout=httpx.Timeout(TIMEOUT)
        )
    kinds = action_models(gen, prefix)
    rng = random.Random(7)
    built_by_hand = 0
    for _ in range(MAX_ACTIONS):
        view = api.get_view.sync(game_id=game.id, client=seats[0])
        assert type(view).__name__ == f"{prefix}View", view
        if view.status.value == "finished":
            break
        ours = [seat for seat in view.to_act if seat in seats]
        if not ours:  # a bot's turn, still being played
            time.sleep(0.05)
            continue
        seat = rng.choice(ours)
        mine = api.get_view.sync(game_id=game.id, client=seats[seat])
        assert mine.legal_actions and all(isinstance(a, kinds) for a in mine.legal_actions)
        action = first(mine) if not built_by_hand else None
        if action is not None:
            built_by_hand += 1
        else:
            action = rng.choice(mine.legal_actions)
        answer = api.submit_action.sync_detailed(
            game_id=game.id, client=seats[seat], body=action, idempotency_key=f"k{rng.random()}"
        )
        assert answer.status_code == 200, answer.content
        assert answer.parsed.version > mine.version
        assert answer.headers["ETag"]
    else:
        raise AssertionError(f"the game did not end in {MAX_ACTIONS} actions")
    assert built_by_hand, "no action was built by hand from the typed models"
    summary = api.get_game.sync(game_id=game.id, client=client)
    assert summary.status.value == "finished"
    return view


def test_the_generated_client_plays_mr_toast(gen: ModuleType, live_server: str) -> None:
    models = gen.models
    # No `game_type` nor `type_`: a constant defaults to its one value.
    body = models.NewMrToastGame(
        players=3,
        options=models.MrToastOptionsRequest(turn_limit=40, auto_allow=True),
        seed=11,
        bots=[models.BotSeat(seat=2, policy=models.BotSeatPolicy.GREEDY)],
    )
    assert body.to_dict()["game_type"] == "mr-toast"
    assert models.MrToastEndTurn().to_dict() == {"type": "end_turn"}

    def end_turn(view: Any) -> Any:
        if any(isinstance(a, models.MrToastEndTurn) for a in view.legal_actions):
            return models.MrToastEndTurn()
        return None

    view = play(gen, live_server, body, "MrToast", end_turn)
    assert isinstance(view.result, models.MrToastResult) and view.result.winners
    assert isinstance(view.public, models.MrToastPublic)
    assert [seat.bot for seat in view.seats] == [None, None, "greedy"]


def test_the_generated_client_plays_exact_plays(gen: ModuleType, live_server: str) -> None:
    models = gen.models
    body = models.NewExactPlaysGame(
        game_type="exact-plays",
        players=3,
        options=models.ExactPlaysOptionsRequest(turn_limit=60),
        seed=5,
    )

    def declare(view: Any) -> Any:
        if view.public.phase.value == "declare":
            return models.ExactPlaysDeclare(tokens=2)
        return None

    view = play(gen, live_server, body, "ExactPlays", declare)
    assert isinstance(view.result, models.ExactPlaysResult) and view.result.winners


def assert_problem(parsed: Any, gen: ModuleType, status: int, slug: str) -> None:
    assert isinstance(parsed, gen.models.Problem), parsed
    assert parsed.status == status and parsed.type_ == f"/problems/{slug}"
    assert parsed.title and parsed.detail


class MethodSwap(httpx.BaseTransport):
    """Sends every request with another method: a request the operation never makes."""

    def __init__(self, method: str, inner: httpx.BaseTransport):
        self.method = method
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.method = self.method
        return self.inner.handle_request(request)


def test_unlisted_statuses_reach_the_caller_as_problems(
    gen: ModuleType, live_server: str, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = gen.api.games
    # 405: getGame lists no 405; the live server answers DELETE so.
    client = gen.Client(base_url=live_server)
    client.set_httpx_client(
        httpx.Client(base_url=live_server, transport=MethodSwap("DELETE", httpx.HTTPTransport()))
    )
    answer = api.get_game.sync_detailed(game_id="anything", client=client)
    assert answer.status_code == 405
    assert_problem(answer.parsed, gen, 405, "method-not-allowed")

    # 429: creates beyond the rate limit (an app of its own, one create an hour).
    limited = create_app(Settings(**{**vars(settings), "rate_limit_create": "1/hour"}))
    client = gen.Client(base_url="http://cardroom")
    transport = httpx.WSGITransport(app=limited, remote_addr=f"192.0.2.{random.randint(1, 250)}")
    client.set_httpx_client(httpx.Client(base_url="http://cardroom", transport=transport))
    body = gen.models.NewMrToastGame(game_type="mr-toast", players=2)
    assert api.create_game.sync_detailed(client=client, body=body).status_code == 201
    answer = api.create_game.sync_detailed(client=client, body=body)
    assert answer.status_code == 429 and int(answer.headers["Retry-After"]) >= 1
    assert_problem(answer.parsed, gen, 429, "rate-limited")

    # 500: getGame lists no 500; a fault in the table gives one (never in a real request).
    def broken(self: Tables, game_id: str) -> Any:
        raise RuntimeError("injected fault")

    monkeypatch.setattr(Tables, "summary", broken)
    faulty = create_app(settings)
    client = gen.Client(base_url="http://cardroom")
    client.set_httpx_client(
        httpx.Client(base_url="http://cardroom", transport=httpx.WSGITransport(app=faulty))
    )
    answer = api.get_game.sync_detailed(game_id="anything", client=client)
    assert answer.status_code == 500
    assert_problem(answer.parsed, gen, 500, "internal-error")
