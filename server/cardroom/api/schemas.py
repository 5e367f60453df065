"""Marshmallow schemas of every request and response body (they are also the spec's docs)."""

from __future__ import annotations

from typing import Any

from marshmallow import INCLUDE, Schema, ValidationError, fields, post_dump, validate

from cardroom.api import apidoc

MAX_PLAYERS = 16
MAX_SEED = 2**53 - 1
MAX_NAME = 40
MAX_OPTIONS = 32
# Event numbers (`after`) stay within JSON's exact integers; beyond 2^64 Redis refuses the id.
MAX_SEQ = 2**53 - 1
# A name is shown to every player: printable, and not only spaces.
NAME_PATTERN = r"^[^\u0000-\u001f\u007f]*[^\s\u0000-\u001f\u007f][^\u0000-\u001f\u007f]*$"


class OpenSchema(Schema):
    """A JSON object whose documented fields are listed, and which may carry more.

    Undeclared keys pass through both ways: an action keeps every field its game gives it.
    """

    class Meta:
        unknown = INCLUDE

    @post_dump(pass_original=True)
    def keep_undeclared(self, data: dict, original: Any, **_: Any) -> dict:
        if isinstance(original, dict):
            for key, value in original.items():
                data.setdefault(key, value)
        return data


def _doc(text: str, **more: object) -> dict[str, object]:
    return {"description": text, **more}


def _at_most_properties(count: int) -> Any:
    def check(value: dict) -> None:
        if len(value) > count:
            raise ValidationError(f"At most {count} entries.")

    return check


# --- problems -------------------------------------------------------------------------------


class FieldErrorSchema(Schema):
    field = fields.String(metadata=_doc("The field, dotted for nested ones: `options.mode`."))
    location = fields.String(metadata=_doc("`json`, `query` or `headers`."))
    messages = fields.List(fields.String())


class ProblemSchema(Schema):
    """RFC 9457 problem details (media type application/problem+json)."""

    type = fields.String(metadata=_doc("A URI naming the problem: `/problems/not-your-turn`."))
    title = fields.String(metadata=_doc("A short summary of the problem type."))
    status = fields.Integer(metadata=_doc("The HTTP status code."))
    detail = fields.String(metadata=_doc("What went wrong this time, for a person to read."))
    instance = fields.String(metadata=_doc("The request path."))
    rule = fields.String(metadata=_doc("The rule or ruling that refused an action: `MT-7`."))
    field = fields.String(metadata=_doc("The request field at fault, if one is."))
    errors = fields.List(fields.Nested(FieldErrorSchema), metadata=_doc("Every field error."))
    request_id = fields.String(metadata=_doc("The request's id, as in X-Request-ID."))


# --- game types -----------------------------------------------------------------------------


class OptionDescriptionSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, metadata=_doc("The option's JSON type."))
    default = fields.Raw(allow_none=True, metadata=_doc("The value when the option is absent."))
    description = fields.String()
    nullable = fields.Boolean()
    secret = fields.Boolean(metadata=_doc("Shown as `stacked` to players until the game ends."))
    choices = fields.List(fields.Raw())
    minimum = fields.Float()
    maximum = fields.Float()


class BotDescriptionSchema(Schema):
    name = fields.String(required=True, metadata=_doc("The bot's policy, as `bots` names it."))
    description = fields.String(metadata=_doc("A few words for a person choosing a bot."))
    thinks = fields.Boolean(
        metadata=_doc(
            "It searches before it moves (a search level): the request that hands it the "
            "turn answers at once, and it moves a moment later, off the request path."
        )
    )


class GameTypeSchema(Schema):
    game_type = fields.String(required=True, metadata=_doc("The id used in `game_type`."))
    title = fields.String()
    description = fields.String()
    min_players = fields.Integer()
    max_players = fields.Integer()
    options = fields.List(fields.Nested(OptionDescriptionSchema))
    bot_policies = fields.List(
        fields.String(), metadata=_doc("The bots a seat may be played by (as in `bots`).")
    )
    bots = fields.List(fields.Nested(BotDescriptionSchema))
    rules_url = fields.String(
        metadata=_doc(
            "The path of the game's rules page on this server, for people (HTML, each "
            "ruling an anchor: `#mt-12`), or empty if the game has none."
        )
    )
    package = fields.String(
        metadata=_doc("The Python package (distribution) that plays this game type here.")
    )
    version = fields.String(metadata=_doc("That package's version on this server."))
    rules_version = fields.Integer(
        metadata=_doc(
            "The version of the game's rules that package plays; a game recorded under "
            "another one is not served here (problem `game-rules-changed`)."
        )
    )


class GameTypeListSchema(Schema):
    game_types = fields.List(fields.Nested(GameTypeSchema), required=True)


# --- games ----------------------------------------------------------------------------------


# A create request is read for its form here (fields present, of their JSON types, within
# the general limits); what only the game can judge (the game type, its number of players,
# the seats and policies of its bots, its options) is the table's to refuse, each as
# problem `invalid` naming the field (table.seating.create). The document describes the
# body per game, as `CreateGameRequest` and `BotSeat` (api/apidoc/).


class BotSeatBodySchema(Schema):
    """Named so that its component name (dropped in app.py) is not the document's `BotSeat`."""

    seat = fields.Integer(required=True)
    policy = fields.String(required=True, validate=validate.Length(max=64))


class CreateGameSchema(Schema):
    game_type = fields.String(
        required=True,
        validate=validate.Length(max=64),
        metadata=_doc("A game type id, as `GET /v1/game-types` lists them."),
    )
    players = fields.Integer(
        required=True,
        strict=True,
        metadata=_doc("The number of seats; each game type has its own range."),
    )
    options = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=64)),
        load_default=dict,
        validate=_at_most_properties(MAX_OPTIONS),
        metadata=_doc(
            "Game options: see `GET /v1/game-types`. Absent ones take defaults.",
            maxProperties=MAX_OPTIONS,
            **apidoc.request_options(),
        ),
    )
    seed = fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata=_doc("Seeds every shuffle: the same seed and actions replay the same game."),
    )
    bots = fields.List(
        fields.Nested(BotSeatBodySchema),
        load_default=list,
        validate=validate.Length(max=MAX_PLAYERS),
        metadata=_doc("Seats played by the server itself."),
    )


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True, metadata=_doc("The policy of a bot seat, else null."))
    taken = fields.Boolean()
    away = fields.Boolean(
        metadata=_doc(
            "The turn clock marked the seat away (`away_after` timeouts in a row): the game "
            "no longer waits for it until its owner comes back (`POST …/back`)."
        )
    )
    reserved = fields.Boolean(
        metadata=_doc("A rematch keeps this free seat for its player of the previous game.")
    )


DEAL_DOC = (
    "How the cards were dealt, shown from the start: `random` (the server's secret seed), "
    "`seeded` (the creator chose `seed` and may know every hand) or `stacked` (the creator "
    "set the deck); `unknown` for a game this server cannot play (`available` false)."
)


class PlayedBySchema(Schema):
    package = fields.String(
        allow_none=True,
        metadata=_doc("The package that played the game when it was created (null: not kept)."),
    )
    version = fields.String(allow_none=True, metadata=_doc("That package's version then."))
    rules_version = fields.Integer(metadata=_doc("The version of the rules it is played by."))


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    game_type = fields.String(required=True)
    available = fields.Boolean(
        metadata=_doc(
            "Whether this server can play the game. False when its type is not installed "
            "here or plays other rules than it was recorded under: its scores, turn and "
            "result are then left empty and every request to it answers problem "
            "`game-type-unavailable` or `game-rules-changed`."
        )
    )
    plugin = fields.Nested(
        PlayedBySchema, metadata=_doc("The package that plays it, as recorded at its creation.")
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(["waiting", "active", "finished"]),
        metadata=_doc("`waiting` for players, then `active`, then `finished`."),
    )
    players = fields.Integer()
    seats = fields.List(fields.Nested(SeatSchema))
    options = fields.Dict(
        metadata=_doc(
            "Every option with its value (a stacked deck: `stacked` until the end).",
            **apidoc.summary_options(),
        )
    )
    version = fields.Integer(metadata=_doc("The number of accepted actions."))
    scores = fields.List(fields.Integer())
    to_act = fields.List(fields.Integer(), metadata=_doc("The seats that may act now."))
    result = fields.Dict(
        allow_none=True,
        metadata=_doc("Null until the end: `{winners: […]}`.", **apidoc.summary_result()),
    )
    deal = fields.String(metadata=_doc(DEAL_DOC))
    seed = fields.Integer(allow_none=True, metadata=_doc("Revealed once the game is finished."))
    rematch = fields.String(
        allow_none=True,
        metadata=_doc(
            "The id of this game's rematch, once a seat asked for one (`POST …/rematch`)."
        ),
    )
    created_at = fields.Float(metadata=_doc("Unix time, seconds."))
    updated_at = fields.Float(metadata=_doc("Unix time, seconds."))


class GameListQuerySchema(Schema):
    game_type = fields.String(validate=validate.Length(min=1, max=64))
    status = fields.String(validate=validate.OneOf(["waiting", "active", "finished"]))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9]{1,15}$"),
        metadata=_doc("`next_cursor` of the previous page."),
    )


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema), required=True)
    next_cursor = fields.String(
        allow_none=True, metadata=_doc("Pass as `cursor` for the next page; null at the end.")
    )


class JoinSchema(Schema):
    name = fields.String(
        required=True,
        validate=[
            validate.Length(min=1, max=MAX_NAME),
            validate.Regexp(NAME_PATTERN, error="A name is printable and not blank."),
        ],
        metadata=_doc("The player's display name: 1 to 40 printable characters, not blank."),
    )
    seat = fields.Integer(
        strict=True,
        allow_none=True,
        # A seat the game has not is the table's to refuse (problem `invalid`).
        metadata=_doc(
            "A free seat; absent: the lowest free one.", minimum=0, maximum=MAX_PLAYERS - 1
        ),
    )


class JoinResultSchema(Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(
        required=True,
        metadata=_doc("The seat's secret: send as `Authorization: Bearer …`. Shown only once."),
    )
    status = fields.String()


class ActionBodySchema(OpenSchema):
    """An action as the server first reads it: an object with a `type`; the engine checks
    the rest. The document describes it as `Action` (api/apidoc/)."""

    type = fields.String(required=True, validate=validate.Length(min=1, max=32))


class EventsQuerySchema(Schema):
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_SEQ),
        metadata=_doc("Return events with `seq` greater than this."),
    )
    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=30),
        metadata=_doc("Seconds to hold the request until an event arrives (long-poll, ≤ 30)."),
    )
    limit = fields.Integer(load_default=200, validate=validate.Range(min=1, max=1000))


class EventStreamQuerySchema(Schema):
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_SEQ),
        metadata=_doc("Start after this `seq` (Last-Event-ID, when sent, wins)."),
    )


class ClusterHealthSchema(Schema):
    state = fields.String(
        required=True,
        metadata=_doc(
            "`ok` when every primary answers and reports `cluster_state:ok`; `degraded` when"
            " one does not answer; `fail` when one reports the cluster down."
        ),
    )
    primaries = fields.Integer(required=True, metadata=_doc("Primaries the server knows."))
    reachable = fields.Integer(required=True, metadata=_doc("Primaries that answered."))


class HealthSchema(Schema):
    status = fields.String(
        required=True,
        metadata=_doc("`ok`, `unavailable`, or `degraded`: a cluster serves only some games."),
    )
    redis = fields.String(metadata=_doc("`ok` or the error."))
    cluster = fields.Nested(
        ClusterHealthSchema, metadata=_doc("On a Redis Cluster only: what its primaries say.")
    )
