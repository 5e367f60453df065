"""Write tests/deploy/fixtures/previous_release.json: what a previous release left in Redis.

Run by hand (not by the suite), from the repository, when the release the rolling-deploy test
holds to changes (docs/operations.md, "Several API containers against one Redis"):

    .venv/bin/python tests/deploy/make_previous_release_fixture.py [--release bfdae87]

It checks the release out in a temporary `git worktree`, and runs this same file again in a
subprocess with that worktree's `server/` first on PYTHONPATH (this environment's packages,
the old code). The subprocess starts an embedded Redis, drives games of both kinds through
the old release's HTTP API (Flask's test client) with fixed seeds into every status the test
needs, sends actions with Idempotency-Keys and keeps their answers, records what the old
release answered to reads of every game, and dumps every key of the Redis, type by type,
with its time to live. Seat tokens are stored hashed: the fixture keeps the ones the seats
were given. tests/deploy/test_previous_release_data.py restores it and plays on.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "previous_release.json"
DEFAULT_RELEASE = "bfdae87"
# A recorded body longer than this is kept as its digest and length (finished games'
# replays and logs are tens of KB each): the fixture stays small, the comparison exact.
VERBATIM_BYTES = 3000
MAX_STEPS = 5000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", default=DEFAULT_RELEASE, help="the commit to record")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--output", type=Path, default=FIXTURE)
    arguments = parser.parse_args()
    if arguments.inside:
        record(arguments.release, arguments.output)
        return
    commit = git("rev-parse", "--short", f"{arguments.release}^{{commit}}")
    worktree = Path(tempfile.mkdtemp(prefix=f"cardroom-{commit}-")) / "release"
    git("worktree", "add", "--detach", str(worktree), commit)
    try:
        env = dict(os.environ, PYTHONPATH=str(worktree / "server"), CARDROOM_LOG_LEVEL="warning")
        inside = ["--inside", "--release", commit, "--output", str(arguments.output.resolve())]
        subprocess.run(
            [sys.executable, __file__, *inside],
            env=env,
            cwd=worktree,
            check=True,
        )
    finally:
        git("worktree", "remove", "--force", str(worktree))
        worktree.parent.rmdir()
    print(f"wrote {arguments.output} ({arguments.output.stat().st_size:,} bytes)")


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True)
    return done.stdout.strip()


# --- inside: the old release's code ---------------------------------------------------------


def record(release: str, output: Path) -> None:
    import cardroom
    from cardroom.app import create_app
    from cardroom.config import Settings
    from cardroom.store.embedded import EmbeddedRedis

    where = Path(cardroom.__file__).resolve()
    assert Path.cwd().resolve() in where.parents, f"not the release's code: {where}"
    with tempfile.TemporaryDirectory() as data, EmbeddedRedis(Path(data)) as redis_server:
        app = create_app(Settings.from_env(redis_url=redis_server.url))
        # A server whose requests play one bot move each: an all-bot game it creates is left
        # in the due set for the progression loop.
        slow_bots = create_app(
            Settings.from_env(redis_url=redis_server.url, bot_actions_per_request=1)
        )
        table = Recorder(app.test_client())
        table.play_every_status(slow_bots.test_client())
        reads = table.read_everything()
        for kept in table.kept:
            kept["replayed_by_release"] = table.replay(kept)
        fixture = {
            "release": release,
            "written_by": "tests/deploy/make_previous_release_fixture.py",
            "games": table.games,
            "kept_answers": table.kept,
            "reads": reads,
            "redis": dump_redis(redis_server.url),
        }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")


class Recorder:
    """Plays games through the HTTP API and keeps what a test needs to play them on."""

    def __init__(self, client: Any):
        self.client = client
        self.rng = random.Random(27)
        self.games: dict[str, dict[str, Any]] = {}
        self.kept: list[dict[str, Any]] = []

    # The games, one per state the rolling-deploy test must read and play on.
    def play_every_status(self, slow_bots: Any) -> None:
        # Waiting: one of three seats taken; its action is refused (game not started).
        self.create("mr-toast-waiting", "mr-toast", 3, seed=101)
        self.join("mr-toast-waiting", 0)
        self.act("mr-toast-waiting", 0, {"type": "end_turn"}, key="waiting-end-turn")

        # Active: a No Way window open mid-round, a bot at the table, and kept answers of an
        # accepted action, a refusal of the wrong seat and an illegal action, all made before
        # later moves (a retry makes its view again from the log).
        self.create(
            "mr-toast-reaction", "mr-toast", 3, seed=102, bots=[{"seat": 2, "policy": "random"}]
        )
        self.join("mr-toast-reaction", 0)
        self.join("mr-toast-reaction", 1)
        mover = self.to_act("mr-toast-reaction")[0]
        self.act_legal("mr-toast-reaction", mover, key="reaction-first-move")
        view = self.view("mr-toast-reaction", mover)
        idle = next(seat for seat in (0, 1) if seat not in view["to_act"])
        self.act("mr-toast-reaction", idle, {"type": "end_turn"}, key="reaction-not-your-turn")
        mover = self.to_act("mr-toast-reaction")[0]
        bad = {"type": "score", "green": "c999"}
        self.act("mr-toast-reaction", mover, bad, key="reaction-illegal")
        self.play_until("mr-toast-reaction", reaction_window, at_least=6)

        # Exact Plays, declarations under way: seat 0 declared and changed its mind (both
        # with keys), seat 1 declared, seat 2 has not.
        self.create("exact-plays-declaring", "exact-plays", 3, seed=103)
        for seat in range(3):
            self.join("exact-plays-declaring", seat)
        self.act("exact-plays-declaring", 0, {"type": "declare", "tokens": 3}, key="declare-3")
        self.act("exact-plays-declaring", 1, {"type": "declare", "tokens": 2})
        self.act("exact-plays-declaring", 0, {"type": "declare", "tokens": 4}, key="declare-4")

        # Finished, no rematch: every move sent with a key and If-Match, the answers of the
        # first and the last kept in the fixture; then a refusal, the game being over.
        self.create("exact-plays-finished", "exact-plays", 2, seed=104)
        self.join("exact-plays-finished", 0)
        self.join("exact-plays-finished", 1)
        self.play_until("exact-plays-finished", finished, at_least=1, keys="finished-move")
        moves = [kept for kept in self.kept if kept["game"] == "exact-plays-finished"]
        for kept in moves[1:-1]:
            kept["answered"] = digest(kept["answered"])
        self.act("exact-plays-finished", 1, {"type": "pass"}, key="finished-game-over")

        # Finished with its rematch named (a waiting game keeping seat 0 for its player).
        self.create(
            "mr-toast-finished", "mr-toast", 2, seed=105, bots=[{"seat": 1, "policy": "greedy"}]
        )
        self.join("mr-toast-finished", 0)
        self.act_legal("mr-toast-finished", 0, key="rematched-first-move")
        self.play_until("mr-toast-finished", finished, at_least=1)
        rematch = self.client.post(
            f"/v1/games/{self.games['mr-toast-finished']['id']}/rematch",
            headers=auth(self.games["mr-toast-finished"]["tokens"]["0"]),
        )
        assert rematch.status_code == 200, rematch.get_json()
        self.games["mr-toast-rematch"] = {
            "id": rematch.get_json()["id"],
            "tokens": {},
            "reserved_for": {"0": ["mr-toast-finished", "0"]},
        }

        # Bots only, left by their budget in the due set.
        created = slow_bots.post(
            "/v1/games",
            json={
                "game_type": "mr-toast",
                "players": 3,
                "seed": 106,
                "bots": [{"seat": seat, "policy": "greedy"} for seat in range(3)],
            },
        )
        assert created.status_code == 201 and created.get_json()["status"] == "active"
        for game in self.games.values():
            game["status"] = self.client.get(f"/v1/games/{game['id']}").get_json()["status"]
        # Not read from here on: a read would play its bots.
        self.games["mr-toast-bots-due"] = {
            "id": created.get_json()["id"],
            "tokens": {},
            "status": "active",
        }

    def create(self, name: str, game_type: str, players: int, **body: Any) -> None:
        answer = self.client.post(
            "/v1/games", json={"game_type": game_type, "players": players, **body}
        )
        assert answer.status_code == 201, answer.get_json()
        self.games[name] = {"id": answer.get_json()["id"], "tokens": {}}

    def join(self, name: str, seat: int) -> None:
        game = self.games[name]
        answer = self.client.post(
            f"/v1/games/{game['id']}/join", json={"name": f"{name}-{seat}", "seat": seat}
        )
        assert answer.status_code == 201, answer.get_json()
        game["tokens"][str(seat)] = answer.get_json()["token"]

    def view(self, name: str, seat: int) -> dict[str, Any]:
        game = self.games[name]
        answer = self.client.get(
            f"/v1/games/{game['id']}/view", headers=auth(game["tokens"][str(seat)])
        )
        assert answer.status_code == 200, answer.get_json()
        return answer.get_json()

    def summary(self, name: str) -> dict[str, Any]:
        return self.client.get(f"/v1/games/{self.games[name]['id']}").get_json()

    def to_act(self, name: str) -> list[int]:
        seats = [int(seat) for seat in self.games[name]["tokens"]]
        return [seat for seat in self.summary(name)["to_act"] if seat in seats]

    def act(
        self,
        name: str,
        seat: int,
        action: dict[str, Any],
        key: str | None = None,
        if_match: str | None = None,
    ) -> Any:
        game = self.games[name]
        headers = auth(game["tokens"][str(seat)])
        if key is not None:
            headers["Idempotency-Key"] = key
            # A refusal's problem details name the request: its retry sends the same id.
            headers["X-Request-ID"] = f"deploy-{key}"
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        answer = self.client.post(f"/v1/games/{game['id']}/actions", json=action, headers=headers)
        if key is not None:
            self.kept.append(
                {
                    "game": name,
                    "seat": seat,
                    "action": action,
                    "idempotency_key": key,
                    "if_match": if_match,
                    "answered": answered(answer, verbatim=True),
                }
            )
        return answer

    def act_legal(self, name: str, seat: int, key: str | None = None, if_match: bool = False):
        view = self.view(name, seat)
        action = self.rng.choice(view["legal_actions"])
        answer = self.act(name, seat, action, key, view["etag"] if if_match else None)
        assert answer.status_code == 200, answer.get_json()
        return answer

    def play_until(self, name: str, reached: Any, at_least: int, keys: str = "") -> None:
        """Random legal moves of the game's people, at least ``at_least``, until
        ``reached(recorder, name, movers)``; with ``keys``, each sent with an Idempotency-Key
        (``keys`` and the move's number) and If-Match."""
        for step in range(MAX_STEPS):
            movers = self.to_act(name)
            if step >= at_least and reached(self, name, movers):
                return
            assert movers, f"{name}: nobody to move, and not reached"
            key = f"{keys}-{step}" if keys else None
            self.act_legal(name, self.rng.choice(movers), key, if_match=bool(keys))
        raise AssertionError(f"{name} did not get there in {MAX_STEPS} moves")

    def replay(self, kept: dict[str, Any]) -> dict[str, Any]:
        """The same request again, as the retry of a client that lost the answer."""
        game = self.games[kept["game"]]
        headers = auth(game["tokens"][str(kept["seat"])])
        headers["Idempotency-Key"] = kept["idempotency_key"]
        headers["X-Request-ID"] = f"deploy-{kept['idempotency_key']}"
        if kept["if_match"] is not None:
            headers["If-Match"] = f'"{kept["if_match"]}"'
        answer = self.client.post(
            f"/v1/games/{game['id']}/actions", json=kept["action"], headers=headers
        )
        assert answer.headers.get("Idempotent-Replayed") == "true", answer.get_json()
        again = answered(answer, verbatim=True)
        if "body" not in kept["answered"]:
            again = digest(again)
        assert again["body" if "body" in again else "body_sha256"] == kept["answered"].get(
            "body", kept["answered"].get("body_sha256")
        ), (kept["answered"], again)
        # The body is the first answer's (checked above): only the status and headers differ.
        return {"status": again["status"], "headers": again["headers"]}

    def read_everything(self) -> list[dict[str, Any]]:
        """What the release answers to every read of every game, but the due one (a read
        plays its bots), as the path, whose token ([game, seat] or null) and the answer."""
        reads = []
        wanted: list[tuple[str, tuple[str, str] | None]] = []
        for name, game in self.games.items():
            if name == "mr-toast-bots-due":
                continue
            base = f"/v1/games/{game['id']}"
            wanted.append((base, None))
            everyone = [None, *((name, seat) for seat in game["tokens"])]
            for who in everyone:
                wanted.append((f"{base}/view", who))
                wanted.append((f"{base}/events?after=0&limit=1000", who))
            if game["status"] == "finished":
                wanted.append((f"{base}/replay", None))
                wanted.append((f"{base}/events/stream?after=0", None))
                wanted.append((f"{base}/events/stream?after=0", (name, "0")))
        wanted.append(("/v1/games?limit=100", None))
        for path, who in wanted:
            headers = auth(self.games[who[0]]["tokens"][who[1]]) if who else {}
            answer = self.client.get(path, headers=headers)
            assert answer.status_code == 200, (path, answer.get_data(as_text=True))
            reads.append({"path": path, "token_of": who, "answered": answered(answer)})
        return reads


def reaction_window(recorder: Recorder, name: str, movers: list[int]) -> bool:
    """A No Way window waits for one of the game's people, who holds cards."""
    if not movers:
        return False
    view = recorder.view(name, movers[0])
    return view["public"]["phase"] == "reaction" and bool(view["you"]["hand"])


def finished(recorder: Recorder, name: str, movers: list[int]) -> bool:
    return recorder.summary(name)["status"] == "finished"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def answered(answer: Any, verbatim: bool = False) -> dict[str, Any]:
    """An answer as the fixture keeps it: status, the headers a client reads, the body (or,
    if long and not ``verbatim``, its SHA-256 and length)."""
    body = answer.get_data()
    kept: dict[str, Any] = {
        "status": answer.status_code,
        "headers": {
            name: answer.headers[name]
            for name in ("Content-Type", "ETag", "Idempotent-Replayed", "Cache-Control")
            if name in answer.headers
        },
    }
    if verbatim or len(body) <= VERBATIM_BYTES:
        kept["body"] = body.decode()
    else:
        kept["body_sha256"] = hashlib.sha256(body).hexdigest()
        kept["body_length"] = len(body)
    return kept


def digest(kept: dict[str, Any]) -> dict[str, Any]:
    """A kept answer with its body as its SHA-256 and length."""
    body = kept["body"].encode()
    shorter = {name: value for name, value in kept.items() if name != "body"}
    return {**shorter, "body_sha256": hashlib.sha256(body).hexdigest(), "body_length": len(body)}


def dump_redis(url: str) -> list[dict[str, Any]]:
    """Every key, type by type: strings, hashes, lists, sets, sorted sets and streams, each
    with its time to live in ms (-1: none). Bytes that are not UTF-8 are kept in base64."""
    import redis

    client = redis.Redis.from_url(url)
    dumped = []
    for key in sorted(client.scan_iter(count=1000)):
        kind = client.type(key).decode()
        value: Any
        if kind == "string":
            value = text(client.get(key))
        elif kind == "hash":
            value = {field.decode(): text(item) for field, item in client.hgetall(key).items()}
        elif kind == "list":
            value = [text(item) for item in client.lrange(key, 0, -1)]
        elif kind == "set":
            value = sorted(text(item) for item in client.smembers(key))
        elif kind == "zset":
            scored = client.zrange(key, 0, -1, withscores=True)
            value = [[text(item), score] for item, score in scored]
        elif kind == "stream":
            value = [
                [entry_id.decode(), {field.decode(): text(item) for field, item in fields.items()}]
                for entry_id, fields in client.xrange(key)
            ]
        else:
            raise ValueError(f"{key!r}: a {kind} cannot be dumped")
        dumped.append({"key": key.decode(), "type": kind, "pttl": client.pttl(key), "value": value})
    return dumped


def text(value: bytes) -> str | dict[str, str]:
    try:
        return value.decode()
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(value).decode()}


if __name__ == "__main__":
    main()
