"""The /v1 endpoints: game types, games, seats, views, actions, events."""

from __future__ import annotations

import re
from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask.views import MethodView
from flask_smorest import Blueprint

from cardroom.api.actions import ActionRequest
from cardroom.api.apidoc import action_examples, create_examples, operation
from cardroom.api.jsonio import dumps_bytes
from cardroom.api.schemas import (
    ActionBodySchema,
    CreateGameSchema,
    EventsQuerySchema,
    EventStreamQuerySchema,
    GameListQuerySchema,
    GameListSchema,
    GameSummarySchema,
    GameTypeListSchema,
    JoinResultSchema,
    JoinSchema,
)
from cardroom.api.socket import open_socket
from cardroom.table import InvalidRequest, Tables, etag_for
from cardroom.table.envelopes import EVENT_LIST

blp = Blueprint(
    "games",
    __name__,
    url_prefix="/v1",
    description="Create and join games, see your view, act, follow events.",
)

BEARER = [{"seatToken": []}]
OPTIONAL_BEARER = [{}, {"seatToken": []}]


def tables() -> Tables:
    return current_app.extensions["cardroom.tables"]


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON answer from a dict that already has its documented shape."""
    return Response(dumps_bytes(body), status=status, headers=headers, mimetype="application/json")


def bearer_token() -> str | None:
    """The bearer token, None if no Authorization header; '' if the header is not Bearer."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


@blp.route("/game-types")
class GameTypes(MethodView):
    @blp.response(200, GameTypeListSchema)
    @operation(operation_id="listGameTypes", problems=(503,))
    def get(self) -> dict[str, Any]:
        """The games this server hosts: player counts, options with defaults, bot policies."""
        return {"game_types": tables().game_types()}


# Schemas are given to `blp.arguments` as instances: given a class, webargs would build one
# on every request (marshmallow deep-copies its fields: 10 to 35 µs, more in a busy process).


@blp.route("/games")
class Games(MethodView):
    @blp.arguments(CreateGameSchema())
    @blp.response(201, GameSummarySchema)
    @operation(
        operation_id="createGame",
        problems=(400, 413, 422, 429, 503),
        response=(201, None, ["Location"], "The game, `waiting` until every seat is taken."),
        request="CreateGameRequest",
        examples=create_examples(),
    )
    def post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Create a game.

        Only `game_type` and `players` are required. `bots` seats are played by the server.
        The game is `waiting` until every seat is taken, then `active`.
        """
        record = tables().create(
            body["game_type"],
            body["players"],
            body.get("options") or {},
            body.get("seed"),
            body.get("bots") or [],
        )
        return tables().summarise(record), 201, {"Location": f"/v1/games/{record.id}"}

    @blp.arguments(GameListQuerySchema(), location="query")
    @blp.response(200, GameListSchema)
    @operation(operation_id="listGames", problems=(422, 503))
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """List games, newest first, filtered by `game_type` and `status`.

        Pages are cursor-based: pass `next_cursor` as `cursor`. A page may hold fewer than
        `limit` games while `next_cursor` is not null (the filter skipped some). Games created
        while you page do not shift the pages.
        """
        found, after = tables().list_games(
            query.get("game_type"),
            query.get("status"),
            int(query["cursor"]) if query.get("cursor") else None,
            query["limit"],
        )
        return {"games": found, "next_cursor": None if after is None else str(after)}


@blp.route("/games/<game_id>")
class Game(MethodView):
    @blp.response(200, GameSummarySchema)
    @operation(operation_id="getGame", problems=(404, 503))
    def get(self, game_id: str) -> dict[str, Any]:
        """A game's public summary: status, seats, scores, version, result."""
        return tables().summary(game_id)


@blp.route("/games/<game_id>/join")
class Join(MethodView):
    @blp.arguments(JoinSchema())
    @blp.response(201, JoinResultSchema)
    @operation(
        operation_id="joinGame",
        security=OPTIONAL_BEARER,
        problems=(400, 404, 409, 413, 422, 429, 503),
        examples={
            "any-seat": {"summary": "The lowest free seat", "value": {"name": "Ann"}},
            "seat-0": {"summary": "Seat 0", "value": {"name": "Ann", "seat": 0}},
        },
    )
    def post(self, body: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int]:
        """Take a free seat. The token in the answer is shown once: keep it.

        In a rematch, a seat is kept for its player of the finished game: send that game's
        token (`Authorization: Bearer …`) to take it (without `seat`, you get yours).
        """
        record, seat, token = tables().join(game_id, body["name"], body.get("seat"), bearer_token())
        return {"game_id": game_id, "seat": seat, "token": token, "status": record.status}, 201


MAX_VIEW_WAIT = 30.0


def view_wait(text: str | None) -> float:
    """The view's `wait` (read by hand: a view is the most frequent request, and a schema
    would cost it more than the rest of its arguments' handling; docs/benchmark-history.md,
    "Request-path shortcuts")."""
    if text is None:
        return 0.0
    try:
        wait = float(text)
    except ValueError:
        raise InvalidRequest("wait must be a number of seconds", "wait") from None
    if not 0 <= wait <= MAX_VIEW_WAIT:  # also refuses nan
        raise InvalidRequest(f"wait must be between 0 and {MAX_VIEW_WAIT:g} seconds", "wait")
    return min(wait, current_app.config["CARDROOM_SETTINGS"].max_wait_seconds)


@blp.route("/games/<game_id>/view")
class GameView(MethodView):
    @operation(
        operation_id="getView",
        security=OPTIONAL_BEARER,
        parameters=["wait", "If-None-Match"],
        response=(200, "View", ["ETag"], "Your view."),
        not_modified=True,
        problems=(401, 404, 422, 503),
    )
    def get(self, game_id: str) -> Any:
        """Your view: the public state, your hand, who is to act, your legal actions.

        Without a token you are a spectator and see only what is public. With `wait` and
        the ETag of the view you hold as If-None-Match, the request is held until the game
        changes and answers with the new view (304 if `wait` passes first): one request
        per change to follow a game (docs/api.md, "Following a game").
        """
        table = tables()
        held = request.if_none_match
        # request.args parses the query string: only when there is one.
        wait = view_wait(request.args.get("wait")) if request.query_string else 0.0
        record, seat = table.view_after(game_id, bearer_token(), held.contains, wait)
        etag = etag_for(record, seat)
        if held.contains(etag):
            response = Response(status=304)
        else:
            view = table.shape_view(record, seat)
            view["etag"] = etag
            # shape_view builds the wire shape itself; the View component documents it (a
            # marshmallow dump would cost a third of the request).
            response = json_response(view)
        response.set_etag(etag)
        response.headers["Vary"] = "Authorization"
        response.headers["Cache-Control"] = "private, no-cache"
        return response


@blp.route("/games/<game_id>/socket", websocket=True)
class GameSocket(MethodView):
    @operation(
        operation_id="openGameSocket",
        security=OPTIONAL_BEARER,
        response=(
            101,
            None,
            [],
            'Switching Protocols: a WebSocket. Send `{"type": "hello", "token": …}` '
            'first; the server sends `{"type": "view", "view": View}` now and after '
            'every change of the game, and answers `{"type": "act", "id": key, '
            '"action": Action}` with `{"type": "result", "id", "result": '
            'ActionResult}` or `{"type": "problem", "id", "problem"}` '
            '(docs/api.md, "The game socket").',
        ),
        problems=(422, 426),
        problem_docs={
            422: "The upgrade cannot be served here (`field`: `Upgrade`).",
            426: "A plain request, not a WebSocket upgrade (problem `upgrade-required`).",
        },
    )
    def get(self, game_id: str) -> Any:
        """A WebSocket on which your seat acts and is sent its view whenever the game changes.

        The cheapest way to play: no request per move. The seat token comes in the first
        message (browsers cannot set headers on a WebSocket) or as `Authorization: Bearer`
        on the upgrade. Everything else about an action is as `POST …/actions`.
        """
        return open_socket(tables(), game_id, bearer_token())


@blp.route("/games/<game_id>/actions")
class Actions(MethodView):
    @blp.arguments(ActionBodySchema())
    @operation(
        operation_id="submitAction",
        security=BEARER,
        parameters=["If-Match", "Idempotency-Key"],
        request="Action",
        examples=action_examples(),
        response=(200, "ActionResult", ["ETag", "Idempotent-Replayed"], "Accepted."),
        problems=(400, 401, 404, 409, 412, 413, 422, 503),
    )
    def post(self, action: dict[str, Any], game_id: str) -> Any:
        """Submit one action as your seat: one of your view's `legal_actions`.

        Answers with the new version, your new events and your view. Bot seats that get the
        turn play before the answer.
        """
        return ActionRequest.from_http(game_id, bearer_token(), action).submit(tables()).to_http()


@blp.route("/games/<game_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema(), location="query")
    @operation(
        operation_id="listEvents",
        security=OPTIONAL_BEARER,
        response=(200, "EventList", [], "Your events after `after`."),
        problems=(401, 404, 422, 503),
    )
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Events after `after`, as your seat may see them (a spectator: public ones only).

        With `wait`, the request is held until an event arrives or `wait` seconds pass.
        """
        wait = min(query["wait"], current_app.config["CARDROOM_SETTINGS"].max_wait_seconds)
        _, events, last = tables().events(
            game_id, bearer_token(), query["after"], wait, query["limit"]
        )
        page = {"game_id": game_id, "events": events, "last_seq": last}
        return json_response(EVENT_LIST.checked(page))


SSE_HEARTBEAT_SECONDS = 15.0
LAST_EVENT_ID = re.compile(r"[0-9]{1,12}")
SSE_LIFETIME_SECONDS = 300.0


@blp.route("/games/<game_id>/events/stream")
class EventStream(MethodView):
    @blp.arguments(EventStreamQuerySchema(), location="query")
    @operation(
        operation_id="streamEvents",
        security=OPTIONAL_BEARER,
        parameters=["Last-Event-ID"],
        stream="StreamedEvent",
        stream_description="A Server-Sent Events stream: each event's `id` is its `seq` and "
        "its `data` the event as JSON (an `Event`); `: ping` comments keep the connection "
        "alive. The stream ends when the game is finished, or after 5 minutes: reconnect "
        "with Last-Event-ID.",
        problems=(401, 404, 422, 503),
    )
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Events as a Server-Sent Events stream, redacted for the caller, resumable."""
        after = query["after"]
        last_event_id = request.headers.get("Last-Event-ID")
        if last_event_id is not None:
            if not LAST_EVENT_ID.fullmatch(last_event_id):
                raise InvalidRequest("Last-Event-ID must be an event's seq", "Last-Event-ID")
            after = int(last_event_id)
        _, events = tables().stream(
            game_id, bearer_token(), after, SSE_HEARTBEAT_SECONDS, SSE_LIFETIME_SECONDS
        )

        def render() -> Any:
            yield "retry: 2000\n\n"
            for item in events:
                if item is None:
                    yield ": ping\n\n"
                else:
                    seq, event = item
                    yield f"id: {seq}\ndata: {dumps_bytes(event).decode()}\n\n"

        response = Response(stream_with_context(render()), mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"
        return response
