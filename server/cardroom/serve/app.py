"""create_app(): the Flask application (served by gunicorn, see gunicorn.conf.py)."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_smorest import Api

from cardroom import __version__, web
from cardroom.api import games, history, limits, observability, problems, system
from cardroom.api.apidoc import OperationDocs
from cardroom.api.jsonio import JSONProvider
from cardroom.api.schemas import (
    ActionBodySchema,
    BotSeatBodySchema,
    CreateGameSchema,
    ProblemSchema,
)
from cardroom.config import Settings
from cardroom.registry import registry
from cardroom.serve.arrival import ArrivalGuard
from cardroom.store import GameStore, connect
from cardroom.table import BotBudget, Tables

API_DESCRIPTION = """\
cardroom hosts turn-based card games with hidden hands: {games}.

1. `POST /v1/games` creates a game (`GET /v1/game-types` lists the games and their options).
2. Each player `POST /v1/games/{id}/join`s and keeps the seat token it returns.
3. `GET /v1/games/{id}/view` with `Authorization: Bearer <token>` shows your hand, who is to
   act, whom the game awaits, and your `legal_actions`.
4. `POST /v1/games/{id}/actions` one of them.
5. `GET /v1/games/{id}/events?after=N&wait=S` follows the game.

Errors are RFC 9457 problem details (`application/problem+json`); `type` names the problem,
`field` the request field at fault, `rule` the game rule that refused an action.
"""


def describe_api() -> str:
    """The spec's introduction, naming the games of the registry."""
    games = " and ".join(
        f"**{game.title}** (`{name}`)" for name, game in sorted(registry().items())
    )
    return API_DESCRIPTION.replace("{games}", games)


class CardroomFlask(Flask):
    """Flask, with ``app.json`` encoding through orjson (cardroom.api.jsonio)."""

    json_provider_class = JSONProvider


class CardroomApi(Api):
    """flask-smorest's Api, answering errors as problem details and documenting them so
    (api/apidoc/operations.py writes each operation's problems and a problem+json ``default``)."""

    DEFAULT_ERROR_RESPONSE_NAME = None
    ERROR_SCHEMA = ProblemSchema

    def handle_http_exception(self, error: Any) -> Any:
        return problems.handle_http_exception(error)


def create_app(settings: Settings | None = None, store: GameStore | None = None) -> Flask:
    settings = settings or Settings.from_env()
    app = CardroomFlask("cardroom")
    app.config.update(
        API_TITLE="cardroom",
        API_VERSION=__version__,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        API_SPEC_OPTIONS={
            "info": {"description": describe_api()},
            "components": {
                "securitySchemes": {
                    "seatToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "The seat token that join returned.",
                    }
                }
            },
        },
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        CARDROOM_SETTINGS=settings,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    budget = BotBudget(settings.bot_actions_per_request, settings.bot_seconds_per_request)
    app.extensions["cardroom.tables"] = Tables(store or connect(settings), bot_budget=budget)
    observability.init_app(app, settings)
    api = CardroomApi(app, spec_kwargs={"extra_plugins": [OperationDocs(app)]})
    api.register_blueprint(games.blp)
    api.register_blueprint(history.blp)
    api.register_blueprint(system.blp)
    # The action and create bodies are read loosely (the engine judges them) and documented
    # per game, as `Action` and `CreateGameRequest` (api/apidoc/).
    for loose in (ActionBodySchema, CreateGameSchema, BotSeatBodySchema):
        api.spec.components.schemas.pop(api.ma_plugin.converter.schema_name_resolver(loose))
    app.register_blueprint(system.assets)
    app.register_blueprint(web.blp)  # the web table at / (docs/web.md)
    problems.register(app)
    limits.init_app(app, settings)
    app.wsgi_app = ArrivalGuard(  # type: ignore[method-assign]
        app.wsgi_app, settings.body_timeout_seconds, settings.max_body_bytes
    )
    return app
