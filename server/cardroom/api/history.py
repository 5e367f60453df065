"""Time and history endpoints: an away seat comes back, a finished game's replay and rematch
(docs/api.md, "Turn clocks and away seats", "Replays", "Rematch")."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from cardroom.api.apidoc import operation
from cardroom.api.games import BEARER, bearer_token, json_response, tables
from cardroom.api.schemas import GameSummarySchema
from cardroom.table import etag_for

blp = Blueprint(
    "history",
    __name__,
    url_prefix="/v1",
    description="Away seats coming back, replays and rematches of finished games.",
)


@blp.route("/games/<game_id>/back")
class ComeBack(MethodView):
    @operation(
        operation_id="comeBack",
        security=BEARER,
        response=(200, "View", ["ETag"], "Your view: the game waits for you again."),
        problems=(401, 404, 503),
    )
    def post(self, game_id: str) -> Response:
        """Come back to a seat the turn clock marked away (after `away_after` timeouts in a
        row): the game waits for you again, with a fresh clock. Nothing changes for a seat
        that is not away."""
        table = tables()
        record, seat = table.come_back(game_id, bearer_token())
        view = table.shape_view(record, seat)
        view["etag"] = etag_for(record, seat)
        response = json_response(view)
        response.set_etag(view["etag"])
        return response


@blp.route("/games/<game_id>/replay")
class GameReplay(MethodView):
    @operation(
        operation_id="getReplay",
        response=(200, "Replay", [], "The whole game, every hand face up."),
        problems=(404, 409, 503),
    )
    def get(self, game_id: str) -> Response:
        """A finished game, step by step: options, seed, seats, every step of the log with its
        events unredacted and the hands after it. Before the game ends: 409
        `game-not-finished`, revealing nothing."""
        response = json_response(tables().replay(game_id))
        # A finished game never changes (until it expires): caches may keep its replay.
        response.headers["Cache-Control"] = "public, max-age=3600"
        return response


@blp.route("/games/<game_id>/rematch")
class Rematch(MethodView):
    @blp.response(200, GameSummarySchema)
    @operation(
        operation_id="rematch",
        security=BEARER,
        response=(200, None, ["Location"], "The rematch, the same for every seat that asks."),
        problems=(401, 404, 409, 503),
    )
    def post(self, game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Play again: a new game with the same settings and seats (boardgame.io's
        `playAgain`), asked for by a seat of the finished game. Every seat that asks gets the
        same game; each takes its seat there with `join` and its token of this game
        (`Authorization`), and bot seats stay bots. The finished game's summary and view
        name it as `rematch`."""
        record = tables().rematch(game_id, bearer_token())
        return tables().summarise(record), 200, {"Location": f"/v1/games/{record.id}"}
