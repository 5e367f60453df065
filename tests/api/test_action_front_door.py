"""One front door for an action (api/actions.py): ``POST …/actions`` and the game socket's
``act`` read an action by the same rules, so they refuse the same bad inputs with the same
problem and accept the same good ones. The socket is served in process over a socket pair,
as gunicorn hands one over (as in test_socket_pings.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from cardroom.api.actions import MAX_IDEMPOTENCY_KEY, checked_key, if_match_tags
from cardroom.table import InvalidRequest

from helpers import auth, new_table, view
from inprocess_socket import InProcessSocket

# --- the rules, alone --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "tags"),
    [
        (None, None),
        ("", None),
        ("*", None),
        ("abc", {"abc"}),
        ('"abc"', {"abc"}),
        ('W/"abc"', set()),  # weak tags never match (RFC 9110 §13.1.1): nothing can
        ('W/"abc", "def"', {"def"}),
        ('"abc", "def"', {"abc", "def"}),
    ],
)
def test_if_match_is_read_as_strong_tags(sent: str | None, tags: set[str] | None):
    assert if_match_tags(sent) == tags


@pytest.mark.parametrize("field_name", ["Idempotency-Key", "id"])
def test_an_idempotency_key_is_1_to_255_characters(field_name: str):
    assert checked_key("k" * MAX_IDEMPOTENCY_KEY, field_name) == "k" * MAX_IDEMPOTENCY_KEY
    for bad in ("", "k" * (MAX_IDEMPOTENCY_KEY + 1), 7, None):
        with pytest.raises(InvalidRequest) as refused:
            checked_key(bad, field_name)
        assert refused.value.field == field_name


# --- both transports, one table of cases ---------------------------------------------------


@dataclass
class Sent:
    """One action as either transport sends it; None: not sent."""

    action: dict[str, Any]
    key: str | None = None
    if_match: str | None = None
    seat: str = "mover"  # "mover", "waiter" (a seat whose turn it is not) or "spectator"


@dataclass
class Table:
    game_id: str
    tokens: dict[int, str]
    mover: int
    view: dict[str, Any]  # the mover's

    def token(self, who: str) -> str | None:
        if who == "spectator":
            return None
        return self.tokens[self.mover if who == "mover" else 1 - self.mover]


def current(table: Table) -> str:
    return table.view["etag"]


def legal(table: Table) -> dict[str, Any]:
    return table.view["legal_actions"][0]


KEY_FIELDS = {"http": "Idempotency-Key", "socket": "id"}

# (case, what is sent, the answer both give: its status, its problem type (None: accepted),
# and the field it names by transport where the two name it apart)
CASES: list[tuple[str, Callable[[Table], Sent], tuple[int, str | None, dict[str, str] | None]]] = [
    (
        "key-too-long",
        lambda t: Sent(legal(t), key="k" * (MAX_IDEMPOTENCY_KEY + 1)),
        (422, "invalid", KEY_FIELDS),
    ),
    ("key-empty", lambda t: Sent(legal(t), key=""), (422, "invalid", KEY_FIELDS)),
    ("key-longest", lambda t: Sent(legal(t), key="k" * MAX_IDEMPOTENCY_KEY), (200, None, None)),
    ("stale-if-match", lambda t: Sent(legal(t), if_match='"abc"'), (412, "stale-version", None)),
    (
        "weak-if-match",
        lambda t: Sent(legal(t), if_match=f'W/"{current(t)}"'),
        (412, "stale-version", None),
    ),
    ("bare-if-match", lambda t: Sent(legal(t), if_match=current(t)), (200, None, None)),
    ("quoted-if-match", lambda t: Sent(legal(t), if_match=f'"{current(t)}"'), (200, None, None)),
    ("star-if-match", lambda t: Sent(legal(t), if_match="*"), (200, None, None)),
    (
        "if-match-list-naming-the-current",
        lambda t: Sent(legal(t), if_match=f'"abc", "{current(t)}"'),
        (200, None, None),
    ),
    (
        "if-match-list-of-stale",
        lambda t: Sent(legal(t), if_match=f'"abc", W/"{current(t)}"'),
        (412, "stale-version", None),
    ),
    ("unknown-action-type", lambda t: Sent({"type": "fly"}), (422, "illegal-action", None)),
    ("not-your-turn", lambda t: Sent(legal(t), seat="waiter"), (409, "not-your-turn", None)),
    ("spectator", lambda t: Sent(legal(t), seat="spectator"), (401, "unauthorized", None)),
]


def send_http(client: Any, table: Table, sent: Sent) -> tuple[int, dict[str, Any]]:
    headers = {}
    token = table.token(sent.seat)
    if token is not None:
        headers.update(auth(token))
    if sent.key is not None:
        headers["Idempotency-Key"] = sent.key
    if sent.if_match is not None:
        headers["If-Match"] = sent.if_match
    response = client.post(f"/v1/games/{table.game_id}/actions", json=sent.action, headers=headers)
    return response.status_code, response.get_json()


def send_socket(app: Any, table: Table, sent: Sent) -> tuple[int, dict[str, Any]]:
    sock = InProcessSocket(app, table.game_id, table.token(sent.seat))
    try:
        message = {"type": "act", "id": sent.key, "action": sent.action}
        if sent.key is None:
            message["id"] = str(uuid.uuid4())
        if sent.if_match is not None:
            message["if_match"] = sent.if_match
        answer = sock.answer(message)
    finally:
        sock.close()
    if answer["type"] == "problem":
        return answer["problem"]["status"], answer["problem"]
    return answer["status"], answer["result"]


@pytest.fixture()
def tables(client: Any) -> Callable[[], Table]:
    def new() -> Table:
        game_id, tokens = new_table(client, "mr-toast", 2, seed=3)
        mover = view(client, game_id, tokens[0])["to_act"][0]
        return Table(game_id, tokens, mover, view(client, game_id, tokens[mover]))

    return new


@pytest.mark.parametrize(("name", "make", "expected"), CASES, ids=[case[0] for case in CASES])
def test_both_transports_answer_an_action_alike(app, client, tables, name, make, expected):
    status, slug, fields = expected
    answers = {}
    for transport in ("http", "socket"):
        table = tables()  # a game each: an accepted action changes it
        sent = make(table)
        if transport == "http":
            answers[transport] = send_http(client, table, sent)
        else:
            answers[transport] = send_socket(app, table, sent)
        got_status, body = answers[transport]
        assert got_status == status, (transport, body)
        if slug is None:
            assert body["version"] == table.view["version"] + 1, (transport, body)
            assert view(client, table.game_id)["version"] == body["version"]
        else:
            assert body["type"] == f"/problems/{slug}", (transport, body)
            if fields is not None:
                assert body.get("field") == fields[transport], (transport, body)
            assert view(client, table.game_id)["version"] == table.view["version"]
    if slug is not None:  # the same rule, field and words, but where a field is named apart
        http, sock = answers["http"][1], answers["socket"][1]
        assert http.get("rule") == sock.get("rule")
        if fields is None:
            assert (http.get("field"), http["detail"]) == (sock.get("field"), sock["detail"])
