"""The game socket (GET /v1/games/{id}/socket, a WebSocket) against gunicorn and Redis: views
pushed on every change, actions answered exactly as POST …/actions answers them, refusals as
problems; and the held view (GET …/view?wait with If-None-Match)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import pytest
import requests
import websocket

from helpers import auth

TIMEOUT = 10


def two_player_game(base: str, game_type: str = "mr-toast", **options: Any) -> tuple[str, dict]:
    body = {"game_type": game_type, "players": 2, "options": {"first_seat": 0, **options}}
    if game_type != "mr-toast":
        body["options"] = options
    game = requests.post(f"{base}/v1/games", json=body, timeout=TIMEOUT).json()
    tokens = {}
    for name in ("ann", "bob"):
        joined = requests.post(
            f"{base}/v1/games/{game['id']}/join", json={"name": name}, timeout=TIMEOUT
        ).json()
        tokens[joined["seat"]] = joined["token"]
    return game["id"], tokens


class Socket:
    """A raw client of the game socket: JSON messages in and out."""

    def __init__(self, base: str, game_id: str, hello: dict[str, Any] | None, **options: Any):
        url = base.replace("http://", "ws://") + f"/v1/games/{game_id}/socket"
        self.ws = websocket.create_connection(url, timeout=TIMEOUT, **options)
        self.pushed: list[dict[str, Any]] = []
        if hello is not None:
            self.send(hello)

    def send(self, message: Any) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def receive(self) -> dict[str, Any]:
        message = json.loads(self.ws.recv())
        if message["type"] == "view" and "id" not in message:
            self.pushed.append(message["view"])
        return message

    def newer_than(self, view: dict[str, Any]) -> dict[str, Any]:
        """A pushed view newer than ``view`` (read before, or waited for)."""
        while True:
            for pushed in self.pushed:
                if (pushed["version"], pushed["last_seq"]) > (view["version"], view["last_seq"]):
                    return pushed
            self.receive()

    def until(self, kind: str, **match: Any) -> dict[str, Any]:
        """The next message of this type (and these fields); others are skipped."""
        ends = time.monotonic() + TIMEOUT
        while time.monotonic() < ends:
            message = self.receive()
            if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
                return message
        raise AssertionError(f"no {kind} message {match}")

    def act(self, action: dict[str, Any], key: str | None = None, **extra: Any) -> dict:
        key = key or str(uuid.uuid4())
        self.send({"type": "act", "id": key, "action": action, **extra})
        while True:
            message = self.receive()
            if message.get("id") == key:
                return message

    def close(self) -> None:
        self.ws.close()


def post_view(base: str, game_id: str, token: str | None) -> dict[str, Any]:
    headers = auth(token) if token else {}
    return requests.get(f"{base}/v1/games/{game_id}/view", headers=headers, timeout=10).json()


def test_a_seat_gets_its_view_and_a_new_one_after_every_change(live_server):
    game_id, tokens = two_player_game(live_server)
    sock = Socket(live_server, game_id, {"type": "hello", "token": tokens[1]})
    try:
        first = sock.until("view")["view"]
        assert (
            first["you"]["seat"] == 1
            and first["etag"] == post_view(live_server, game_id, tokens[1])["etag"]
        )
        assert first["legal_actions"] == []  # seat 0 plays first
        acted = requests.post(
            f"{live_server}/v1/games/{game_id}/actions",
            json={"type": "end_turn"},
            headers=auth(tokens[0]),
            timeout=10,
        )
        assert acted.status_code == 200
        started = time.monotonic()
        pushed = sock.until("view")["view"]
        assert time.monotonic() - started < 2
        assert pushed["version"] == first["version"] + 1 and pushed["to_act"] == [1]
        # Exactly the view GET …/view answers now, hand included.
        assert pushed == post_view(live_server, game_id, tokens[1])
    finally:
        sock.close()


def test_an_action_on_the_socket_is_answered_as_post_actions_answers_it(live_server):
    game_id, tokens = two_player_game(live_server)
    sock = Socket(live_server, game_id, None, header=[f"Authorization: Bearer {tokens[0]}"])
    try:
        sock.send({"type": "hello"})  # the token came with the upgrade request
        view = sock.until("view")["view"]
        key = str(uuid.uuid4())
        answer = sock.act({"type": "end_turn"}, key, if_match=view["etag"])
        assert answer["type"] == "result" and answer["status"] == 200
        assert answer["replayed"] is False
        result = answer["result"]
        assert result["version"] == view["version"] + 1
        assert result["view"]["to_act"] == [1] and result["view"]["you"]["seat"] == 0
        # Its view is not sent again as a view of its own.
        # The same key again: the first answer, applied once.
        again = sock.act({"type": "end_turn"}, key)
        assert again["type"] == "result" and again["replayed"] is True
        assert again["result"] == result
        assert post_view(live_server, game_id, tokens[0])["version"] == result["version"]
        # The same key with another action: refused, as over HTTP.
        other = sock.act({"type": "play_green", "card": "x"}, key)
        assert other["type"] == "problem"
        assert other["problem"]["type"] == "/problems/idempotency-key-reused"
        # Over HTTP, the same key gives the same stored answer: one key, one answer.
        replayed = requests.post(
            f"{live_server}/v1/games/{game_id}/actions",
            json={"type": "end_turn"},
            headers={**auth(tokens[0]), "Idempotency-Key": key},
            timeout=10,
        )
        assert replayed.headers["Idempotent-Replayed"] == "true"
        assert replayed.json() == result
        # Not its turn now: the engine's refusal, with the rule that says so.
        refused = sock.act({"type": "end_turn"})
        assert refused["type"] == "problem" and refused["problem"]["status"] == 409
        assert refused["problem"]["type"] == "/problems/not-your-turn"
        assert refused["problem"]["rule"]
        # A stale If-Match.
        stale = sock.act({"type": "end_turn"}, if_match=view["etag"])
        assert stale["problem"]["status"] == 412
    finally:
        sock.close()


def test_a_bad_message_is_a_problem_and_the_socket_stays_open(live_server):
    game_id, tokens = two_player_game(live_server)
    sock = Socket(live_server, game_id, {"type": "hello", "token": tokens[0]})
    try:
        sock.until("view")
        # The problem's `id` is the message's own string id; null when it had none.
        for bad, field, key in [
            ("not json", "message", None),
            ({"type": "shout"}, "type", None),
            ({"type": "act", "action": {"type": "end_turn"}}, "id", None),
            ({"type": "act", "id": 7, "action": {"type": "end_turn"}}, "id", None),
            ({"type": "act", "id": "", "action": {"type": "end_turn"}}, "id", ""),
            ({"type": "act", "id": "k1", "action": "end_turn"}, "action", "k1"),
            (
                {"type": "act", "id": "k2", "action": {"type": "end_turn"}, "if_match": 3},
                "if_match",
                "k2",
            ),
        ]:
            sock.send(bad)
            message = sock.until("problem")
            problem = message["problem"]
            assert problem["status"] == 422 and problem["field"] == field, problem
            assert "id" in message and message["id"] == key, message
        assert sock.act({"type": "end_turn"})["type"] == "result"  # still open and working
    finally:
        sock.close()


@pytest.mark.parametrize(
    ("hello", "game", "code", "status"),
    [
        ({"type": "hello", "token": "not-a-token"}, "real", 4401, 401),
        ({"type": "hello"}, "missing", 4404, 404),
        ({"type": "act"}, "real", 4422, 422),
        ({"type": "hello", "events_after": -1}, "real", 4422, 422),
    ],
    ids=["wrong-token", "no-such-game", "no-hello", "bad-events-after"],
)
def test_a_refused_hello_is_a_problem_then_a_close(live_server, hello, game, code, status):
    game_id, _ = two_player_game(live_server)
    sock = Socket(live_server, game_id if game == "real" else "nosuchgame12", hello)
    message = sock.until("problem")
    assert message["problem"]["status"] == status
    assert "id" in message and message["id"] is None  # it answers no action
    opcode, frame = sock.ws.recv_data_frame(True)
    assert opcode == websocket.ABNF.OPCODE_CLOSE
    assert int.from_bytes(frame.data[:2], "big") == code
    sock.close()


@pytest.mark.parametrize("transport", ["socket", "http"])
@pytest.mark.parametrize("quoted", [False, True], ids=["unquoted", "quoted"])
def test_an_etag_is_taken_quoted_or_not_as_if_match(live_server, transport, quoted):
    """The view's `etag` is bare, the ETag header quoted: either form is an If-Match, on the
    socket (`if_match`) and over HTTP (`If-Match`), and is compared, not ignored."""
    game_id, tokens = two_player_game(live_server)
    before = post_view(live_server, game_id, tokens[1])["etag"]
    requests.post(
        f"{live_server}/v1/games/{game_id}/actions",
        json={"type": "end_turn"},
        headers=auth(tokens[0]),
        timeout=10,
    )
    now = post_view(live_server, game_id, tokens[1])["etag"]
    assert now != before

    def form(etag: str) -> str:
        return f'"{etag}"' if quoted else etag

    if transport == "socket":
        sock = Socket(live_server, game_id, {"type": "hello", "token": tokens[1]})
        try:
            sock.until("view")
            stale = sock.act({"type": "end_turn"}, if_match=form(before))
            current = sock.act({"type": "end_turn"}, if_match=form(now))
        finally:
            sock.close()
        assert stale["type"] == "problem" and stale["problem"]["status"] == 412, stale
        assert current["type"] == "result" and current["status"] == 200, current
    else:
        answers = [
            requests.post(
                f"{live_server}/v1/games/{game_id}/actions",
                json={"type": "end_turn"},
                headers={**auth(tokens[1]), "If-Match": form(etag)},
                timeout=10,
            )
            for etag in (before, now)
        ]
        assert [answer.status_code for answer in answers] == [412, 200]


def test_a_spectator_sees_public_views_and_cannot_act(live_server):
    game_id, tokens = two_player_game(live_server)
    sock = Socket(live_server, game_id, {"type": "hello", "events_after": 0})
    try:
        message = sock.until("view")
        assert message["view"]["you"] is None and message["view"]["legal_actions"] == []
        assert [event["seq"] for event in message["events"]] == list(
            range(1, message["view"]["last_seq"] + 1)
        )
        refused = sock.act({"type": "end_turn"})
        assert refused["problem"]["status"] == 401
        requests.post(
            f"{live_server}/v1/games/{game_id}/actions",
            json={"type": "end_turn"},
            headers=auth(tokens[0]),
            timeout=10,
        )
        later = sock.until("view")
        # Only the events since the last view, public ones only.
        assert later["events"] and later["events"][0]["seq"] == message["view"]["last_seq"] + 1
        assert all("private" not in event for event in later["events"])
    finally:
        sock.close()


def test_a_look_answers_the_view_now(live_server):
    game_id, tokens = two_player_game(live_server)
    sock = Socket(live_server, game_id, {"type": "hello", "token": tokens[1]})
    try:
        first = sock.until("view")["view"]
        sock.send({"type": "look", "id": "L1"})
        assert sock.until("view", id="L1")["view"] == first  # sent again, though unchanged
    finally:
        sock.close()


def test_a_plain_get_of_the_socket_is_426_upgrade_required(live_server):
    game_id, _ = two_player_game(live_server)
    answer = requests.get(f"{live_server}/v1/games/{game_id}/socket", timeout=10)
    assert answer.status_code == 426  # RFC 9110 §15.5.22, with the protocol it needs
    assert answer.headers["Upgrade"] == "websocket"
    assert answer.headers["Connection"].lower() == "upgrade"
    assert answer.headers["Content-Type"] == "application/problem+json"
    problem = answer.json()
    assert problem["type"] == "/problems/upgrade-required" and problem["status"] == 426
    assert "WebSocket" in problem["detail"] and "The game socket" in problem["detail"]
    assert "upgrade" in requests.get(f"{live_server}{problem['type']}", timeout=10).text
    # An upgrade asked of an address that is not a WebSocket: a 400 that names the socket.
    wrong = requests.get(
        f"{live_server}/v1/games/{game_id}",
        headers={"Connection": "Upgrade", "Upgrade": "websocket"},
        timeout=10,
    )
    assert wrong.status_code == 400 and "/socket" in wrong.json()["detail"]


def test_a_whole_game_played_on_sockets_applies_every_action_once(live_server):
    """Four seats of Exact Plays, each on its socket, as the SDK plays: every accepted action
    is in the game once, and each seat saw every version it was awaited in."""
    game = requests.post(
        f"{live_server}/v1/games",
        json={"game_type": "exact-plays", "players": 4, "seed": 5},
        timeout=10,
    ).json()
    tokens = [
        requests.post(
            f"{live_server}/v1/games/{game['id']}/join", json={"name": f"p{i}"}, timeout=10
        ).json()
        for i in range(4)
    ]
    accepted: list[int] = []
    errors: list[str] = []
    lock = threading.Lock()

    def play(joined: dict[str, Any]) -> None:
        sock = Socket(live_server, game["id"], {"type": "hello", "token": joined["token"]})
        try:
            view = sock.until("view")["view"]
            while view["status"] != "finished":
                mine = joined["seat"] in view["awaiting"] and view["legal_actions"]
                if not mine:
                    view = sock.newer_than(view)
                    continue
                action = view["legal_actions"][0]
                answer = sock.act(action, if_match=view["etag"])
                if answer["type"] == "result":
                    with lock:
                        accepted.append(answer["result"]["version"])
                    view = answer["result"]["view"]
                else:  # stale: another seat declared first; its view is on its way
                    assert answer["problem"]["status"] in (409, 412), answer
                    view = sock.newer_than(view)
        except Exception as error:  # reported by the main thread
            errors.append(repr(error))
        finally:
            sock.close()

    threads = [threading.Thread(target=play, args=(joined,), daemon=True) for joined in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and not any(thread.is_alive() for thread in threads), errors
    summary = requests.get(f"{live_server}/v1/games/{game['id']}", timeout=10).json()
    assert summary["status"] == "finished"
    assert sorted(accepted) == list(range(1, summary["version"] + 1))  # each once, none lost


# --- the held view -------------------------------------------------------------------------


def test_a_held_view_answers_when_the_game_changes(live_server):
    game_id, tokens = two_player_game(live_server)
    held = post_view(live_server, game_id, tokens[1])
    out: dict[str, Any] = {}

    def hold() -> None:
        out["answer"] = requests.get(
            f"{live_server}/v1/games/{game_id}/view?wait=10",
            headers={**auth(tokens[1]), "If-None-Match": f'"{held["etag"]}"'},
            timeout=20,
        )
        out["at"] = time.monotonic()

    waiter = threading.Thread(target=hold, daemon=True)
    waiter.start()
    time.sleep(0.3)
    assert waiter.is_alive(), "the request was not held"
    requests.post(
        f"{live_server}/v1/games/{game_id}/actions",
        json={"type": "end_turn"},
        headers=auth(tokens[0]),
        timeout=10,
    )
    acted = time.monotonic()
    waiter.join(10)
    answer = out["answer"]
    assert answer.status_code == 200 and out["at"] - acted < 1
    assert answer.json()["version"] == held["version"] + 1
    assert answer.headers["ETag"] == f'"{answer.json()["etag"]}"'


def test_a_held_view_answers_304_when_nothing_changes(live_server):
    game_id, tokens = two_player_game(live_server)
    held = post_view(live_server, game_id, tokens[1])
    started = time.monotonic()
    answer = requests.get(
        f"{live_server}/v1/games/{game_id}/view?wait=0.5",
        headers={**auth(tokens[1]), "If-None-Match": f'"{held["etag"]}"'},
        timeout=10,
    )
    assert answer.status_code == 304 and 0.45 <= time.monotonic() - started < 3
    # An older ETag, or none: answered at once.
    for headers in ({"If-None-Match": '"0123"'}, {}):
        started = time.monotonic()
        answer = requests.get(
            f"{live_server}/v1/games/{game_id}/view?wait=5",
            headers={**auth(tokens[1]), **headers},
            timeout=10,
        )
        assert answer.status_code == 200 and time.monotonic() - started < 1


def test_a_held_view_longer_than_30_seconds_is_refused(live_server):
    game_id, tokens = two_player_game(live_server)
    answer = requests.get(
        f"{live_server}/v1/games/{game_id}/view?wait=31", headers=auth(tokens[1]), timeout=10
    )
    assert answer.status_code == 422
    assert "wait" in json.dumps(answer.json())
