"""Games written by the previous release play on: a rolling deploy, old and new instances on
one Redis, loses nothing (docs/operations.md, "Several API containers against one Redis").

fixtures/previous_release.json is what the release named in it left in Redis (every key, by
type, with its time to live), the seat tokens its players were given, the answers it gave to
actions sent with an Idempotency-Key, and what it answered to every read of every game:
games waiting (one with a seat kept for a rematch), active (a No Way window open, Exact Plays
declarations under way, bots only with their play left in the due set) and finished (with a
rematch named, and without). tests/deploy/make_previous_release_fixture.py writes it. Each
test restores it into an empty Redis and asks the current code, through the HTTP API only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store.embedded import EmbeddedRedis, free_port

from gunicorns import start_gunicorn, stop_gunicorn
from helpers import auth, play_random_game

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "previous_release.json"
PREVIOUS: dict[str, Any] = json.loads(FIXTURE.read_text())
GAMES: dict[str, dict[str, Any]] = PREVIOUS["games"]
# Headers a client reads, compared as the previous release sent them.
COMPARED_HEADERS = ("Content-Type", "ETag", "Idempotent-Replayed", "Cache-Control")
# Fields a game's summary gained since that release (documented additions; a client that
# does not know them reads the rest as before): whether this server can play the game, and
# the package that plays it (issue 30). Everything else is compared byte for byte.
ADDED_TO_SUMMARIES = ("available", "plugin")
DUE_GAME = "mr-toast-bots-due"


@pytest.fixture(scope="module")
def empty_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path_factory.mktemp("previous-release")) as server:
        yield server


@pytest.fixture()
def restored(empty_redis: EmbeddedRedis) -> str:
    """The previous release's Redis, restored afresh for each test: its URL."""
    connection = redis.Redis.from_url(empty_redis.url)
    connection.flushall()
    restore(connection, PREVIOUS["redis"])
    connection.close()
    return empty_redis.url


@pytest.fixture()
def current(restored: str) -> Any:
    """A client of the current code's app on the restored Redis."""
    return create_app(Settings.from_env(redis_url=restored)).test_client()


def restore(connection: redis.Redis, keys: list[dict[str, Any]]) -> None:
    for entry in keys:
        key, kind, value = entry["key"], entry["type"], entry["value"]
        if kind == "string":
            connection.set(key, raw(value))
        elif kind == "hash":
            connection.hset(key, mapping={field: raw(item) for field, item in value.items()})
        elif kind == "list":
            connection.rpush(key, *(raw(item) for item in value))
        elif kind == "set":
            connection.sadd(key, *(raw(item) for item in value))
        elif kind == "zset":
            connection.zadd(key, {raw(member): score for member, score in value})
        elif kind == "stream":
            for entry_id, fields in value:
                connection.xadd(key, {f: raw(item) for f, item in fields.items()}, id=entry_id)
        else:
            raise ValueError(f"{key}: unknown type {kind}")
        if entry["pttl"] > 0:
            connection.pexpire(key, entry["pttl"])


def raw(value: str | dict[str, str]) -> bytes:
    return base64.b64decode(value["base64"]) if isinstance(value, dict) else value.encode()


def token(game: str, seat: str) -> str:
    return GAMES[game]["tokens"][seat]


def without_additions(body: bytes) -> bytes:
    """The body with the fields added to game summaries since that release taken out,
    written again as the server writes JSON (compact, a newline at the end)."""
    try:
        value = json.loads(body)
    except ValueError:
        return body
    summaries = value.get("games") if isinstance(value, dict) else None
    if isinstance(value, dict) and "seats" in value and "game_type" in value:
        summaries = [value]
    if not summaries or not all(added in summaries[0] for added in ADDED_TO_SUMMARIES):
        return body
    for summary in summaries:
        for added in ADDED_TO_SUMMARIES:
            del summary[added]
    return (json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def assert_answered_as_before(answer: Any, before: dict[str, Any], what: str) -> None:
    """Status, headers and body (or its digest) as the previous release answered."""
    body = without_additions(answer.get_data())
    shown = body[:3000].decode(errors="replace")
    assert answer.status_code == before["status"], (what, shown)
    headers = {name: answer.headers[name] for name in COMPARED_HEADERS if name in answer.headers}
    assert headers == before["headers"], what
    if "body" in before:
        assert body.decode() == before["body"], what
    else:
        assert (hashlib.sha256(body).hexdigest(), len(body)) == (
            before["body_sha256"],
            before["body_length"],
        ), (what, shown)


def test_the_listing_lists_every_game_as_the_previous_release_did(current: Any) -> None:
    # The all-bot game too, as it was left: a read of the game itself would play its bots,
    # a listing plays nothing.
    (listing,) = [read for read in PREVIOUS["reads"] if read["path"].startswith("/v1/games?")]
    answer = current.get(listing["path"])
    assert_answered_as_before(answer, listing["answered"], listing["path"])
    listed = {summary["id"] for summary in answer.get_json()["games"]}
    assert listed == {game["id"] for game in GAMES.values()}


def test_kept_idempotency_answers_replay_byte_for_byte(current: Any) -> None:
    """Accepted actions (their views made again from the log, however far the game went on)
    and kept refusals: the same status, headers and bytes as the previous release's replay,
    and the same body as its first answer."""
    assert {kept["answered"]["status"] for kept in PREVIOUS["kept_answers"]} >= {200, 409, 422}
    replay_kept_answers(current)


def replay_kept_answers(current: Any) -> None:
    for kept in PREVIOUS["kept_answers"]:
        headers = auth(token(kept["game"], str(kept["seat"])))
        # The previous release's requests sent this id: a problem's body names it.
        headers["X-Request-ID"] = f"deploy-{kept['idempotency_key']}"
        headers["Idempotency-Key"] = kept["idempotency_key"]
        if kept["if_match"] is not None:
            headers["If-Match"] = f'"{kept["if_match"]}"'
        answer = current.post(
            f"/v1/games/{GAMES[kept['game']]['id']}/actions", json=kept["action"], headers=headers
        )
        what = f"{kept['game']}: {kept['idempotency_key']}"
        replayed = {**kept["replayed_by_release"], **_body_of(kept["answered"])}
        assert_answered_as_before(answer, replayed, what)


def _body_of(answered: dict[str, Any]) -> dict[str, Any]:
    return {
        name: answered[name] for name in ("body", "body_sha256", "body_length") if name in answered
    }


def test_views_events_and_replays_read_as_the_previous_release_answered(current: Any) -> None:
    """Each seat's view and a spectator's, each game's summary and events for every reader,
    the finished games' replays and event streams: as the previous release answered them."""
    reads = [read for read in PREVIOUS["reads"] if not read["path"].startswith("/v1/games?")]
    assert any(read["path"].endswith("/replay") for read in reads)
    for read in reads:
        who = read["token_of"]
        answer = current.get(read["path"], headers=auth(token(*who)) if who else {})
        assert_answered_as_before(answer, read["answered"], f"{read['path']} as {who}")


def test_unfinished_games_play_to_their_end(current: Any) -> None:
    """Every unfinished game is played out by its seats with random legal moves (bounded in
    steps), and a finished one's rematch too; then the kept answers still replay, from logs
    that both releases wrote."""
    rng = random.Random(27)

    # Free seats are taken; the rematch's seat 0 by the finished game's player, with the
    # token the previous release gave them.
    tokens = {
        name: {int(seat): t for seat, t in game["tokens"].items()} for name, game in GAMES.items()
    }
    waiting = GAMES["mr-toast-waiting"]
    for seat in (1, 2):
        joined = current.post(f"/v1/games/{waiting['id']}/join", json={"name": f"p{seat}"})
        assert joined.status_code == 201, joined.get_json()
        tokens["mr-toast-waiting"][joined.get_json()["seat"]] = joined.get_json()["token"]
    rematch = GAMES["mr-toast-rematch"]
    again = current.post(
        f"/v1/games/{GAMES['mr-toast-finished']['id']}/rematch",
        headers=auth(token("mr-toast-finished", "0")),
    )
    assert again.status_code == 200 and again.get_json()["id"] == rematch["id"]
    joined = current.post(
        f"/v1/games/{rematch['id']}/join",
        json={"name": "again"},
        headers=auth(token("mr-toast-finished", "0")),
    )
    assert joined.status_code == 201 and joined.get_json()["seat"] == 0, joined.get_json()
    tokens["mr-toast-rematch"][0] = joined.get_json()["token"]

    for name, game in GAMES.items():
        if game["status"] == "finished" or name == DUE_GAME:
            continue
        play_random_game(current, game["id"], tokens[name], rng, max_steps=2000)

    # The bots-only game goes on a budget at a time with each read.
    due = GAMES[DUE_GAME]["id"]
    for _ in range(2000):
        if current.get(f"/v1/games/{due}/view").get_json()["status"] == "finished":
            break
    assert current.get(f"/v1/games/{due}").get_json()["status"] == "finished"

    # A game the previous release finished without a rematch gets one, its seats taken back
    # with their old tokens, and it is played out too.
    finished = GAMES["exact-plays-finished"]
    again = current.post(
        f"/v1/games/{finished['id']}/rematch", headers=auth(token("exact-plays-finished", "1"))
    )
    assert again.status_code == 200, again.get_json()
    new_tokens = {}
    for seat, old in finished["tokens"].items():
        joined = current.post(
            f"/v1/games/{again.get_json()['id']}/join", json={"name": "again"}, headers=auth(old)
        )
        assert joined.status_code == 201 and joined.get_json()["seat"] == int(seat)
        new_tokens[int(seat)] = joined.get_json()["token"]
    play_random_game(current, again.get_json()["id"], new_tokens, rng, max_steps=2000)

    replay_kept_answers(current)


def test_due_work_left_by_the_previous_release_is_done_with_no_request(restored: str) -> None:
    """The all-bot game that the previous release left in the due set is played to its end
    by the progression loop of a current server (gunicorn): nothing asks for the game
    itself, only the listing (which plays nothing) is read."""
    port = free_port()
    server = start_gunicorn(restored, port)
    base = f"http://127.0.0.1:{port}"
    due = GAMES[DUE_GAME]["id"]
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            page = requests.get(f"{base}/v1/games?status=finished&limit=100", timeout=5).json()
            if due in {summary["id"] for summary in page["games"]}:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the progression loop did not finish the game the due set held")
    finally:
        stop_gunicorn(server)
