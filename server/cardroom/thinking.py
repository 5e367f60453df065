"""The thinking loop: bots that search move here, never inside a request
(docs/architecture.md, "Bots that think").

A commit that leaves a bot that thinks to play enters the game in the thinking set
(``GameStore.thinking``, a due set of its own). Every gunicorn worker runs this loop beside
the progression loop (``CARDROOM_THINKING``): it leases one waiting game at a time, asks the
table what the bot may read (``Tables.pending_thought``), has its **own deciding process**
(a ``Mind``: ``python -m cardroom.thinking``, started with the loop, at a lower CPU
priority) make the decision, and plays it through the table (``Tables.play_thought``), only
if the game did not move on meanwhile. So a search costs a worker nothing but a pipe's wait
(cooperative under gevent), the request that handed the bot its turn has already answered,
and many tables of search bots make each bot slower, never the server: a worker thinks for
one table at a time, and the others wait their turn in Redis.

The deciding process reads one JSON request per line on its standard input and writes one
answer per line; it ends when its input closes (its worker is gone). If it dies, the loop
starts another; a decision that fails is logged and the seat plays a legal action drawn
from the decision's seed instead, so no game stalls on a broken bot.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import subprocess
import sys
import threading
import time
from typing import IO, Any

import redis

from cardroom.bots import choose_thought
from cardroom.registry import UnavailableGameType, get_game, get_policy
from cardroom.store import Conflict, OutcomeUnknown
from cardroom.store.connection import CLUSTER_ERRORS
from cardroom.store.due import RETRY_SECONDS
from cardroom.table import NotFound, Nothing, Tables, Thought

log = logging.getLogger("cardroom.thinking")

# A leased game is left to its thinker this long; a thinker that dies loses it after that.
LEASE_SECONDS = 30.0
# How much lower than the worker's the deciding process's CPU priority is (nice).
NICENESS = 10
# A game with no decision awaited that was written this recently is looked at again this
# much later: a request enters a game in the thinking set just *before* its commit, so a
# loop may load it in between (docs/architecture.md, "Bots that think").
SETTLING_SECONDS = 10.0
LOOK_AGAIN_SECONDS = 0.5


class Mind:
    """A deciding process, one request at a time."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def decide(self, thought: Thought) -> dict[str, Any]:
        """The bot's action for ``thought``; RuntimeError if the process failed."""
        line = json.dumps(thought.request(), separators=(",", ":")).encode() + b"\n"
        with self._lock:
            process = self._running()
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(line)
                process.stdin.flush()
                answer = process.stdout.readline()
            except OSError as error:
                self.close()
                raise RuntimeError(f"the deciding process failed: {error}") from error
        if not answer:
            self.close()
            raise RuntimeError("the deciding process ended")
        decided = json.loads(answer)
        if "error" in decided:
            raise RuntimeError(decided["error"])
        return decided["action"]

    def _running(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "cardroom.thinking"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        return self._process

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


class Thinking:
    """The thinking loop of one process."""

    def __init__(
        self,
        tables: Tables,
        mind: Mind | None = None,
        *,
        idle_seconds: float = 0.2,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        self.tables = tables
        self.waiting = tables.store.thinking
        self.mind = mind or Mind()
        self.idle_seconds = idle_seconds
        self.lease_seconds = lease_seconds
        self._stop = threading.Event()

    def run_once(self) -> int:
        """Lease a waiting game and play its thinking bot's move; how many moves were played
        (0 or 1)."""
        now = self.tables.clock()
        buckets = self.waiting.due_buckets(now)
        random.shuffle(buckets)  # thinkers in other workers start elsewhere
        for bucket in buckets:
            for game_id, lease_end in self.waiting.claim(bucket, now, self.lease_seconds, 1):
                try:
                    return self.think(game_id, lease_end)
                except (redis.exceptions.RedisError, OutcomeUnknown, *CLUSTER_ERRORS):
                    with contextlib.suppress(redis.exceptions.RedisError, *CLUSTER_ERRORS):
                        self._look_again_soon(game_id, lease_end)
                    raise
        return 0

    def think(self, game_id: str, lease_end: float) -> int:
        """Decide and play one move in a leased game, then end the lease."""
        try:
            thought = self.tables.pending_thought(game_id)
        except (NotFound, UnavailableGameType):
            self.waiting.release(game_id, lease_end, None)
            return 0
        except Conflict:  # too busy now
            self._look_again_soon(game_id, lease_end)
            return 0
        if isinstance(thought, Nothing):
            now = self.tables.clock()
            recent = now - thought.written_at < SETTLING_SECONDS
            self.waiting.release(game_id, lease_end, now + LOOK_AGAIN_SECONDS if recent else None)
            return 0
        action = self.decide(thought)
        try:
            played = self.tables.play_thought(thought, action)
        except NotFound:
            self.waiting.release(game_id, lease_end, None)
            return 0
        # Played: the commit entered the game again if another thought is due (lowering the
        # lease's time, so this release leaves it). Not played (the game moved on
        # meanwhile): look again at once.
        self.waiting.release(game_id, lease_end, None if played else self.tables.clock())
        return int(played)

    def _look_again_soon(self, game_id: str, lease_end: float) -> None:
        self.waiting.release(game_id, lease_end, self.tables.clock() + RETRY_SECONDS)

    def decide(self, thought: Thought) -> dict[str, Any]:
        """The mind's decision; if it fails, a legal action drawn from the thought's seed."""
        try:
            action = self.mind.decide(thought)
        except (RuntimeError, ValueError) as error:
            log.error("thinking: %s bot %r failed: %s", thought.game_type, thought.bot, error)
            return random.Random(thought.seed).choice(thought.legal)
        if action not in thought.legal:
            log.error("thinking: %s bot %r chose an illegal action", thought.game_type, thought.bot)
            return random.Random(thought.seed).choice(thought.legal)
        return action

    def run_forever(self) -> None:
        """Until ``stop``: think for waiting games; when none waits, wait ``idle_seconds``."""
        while not self._stop.is_set():
            try:
                done = self.run_once()
            except (redis.exceptions.RedisError, OutcomeUnknown, *CLUSTER_ERRORS) as error:
                log.warning("thinking: redis error %s", error.__class__.__name__)
                done = 0
            except Exception:
                log.exception("thinking: unexpected error")
                done = 0
            if not done:
                self._stop.wait(self.idle_seconds)

    def start(self) -> threading.Thread:
        """Run the loop in a daemon thread (a greenlet under gunicorn's gevent worker)."""
        thread = threading.Thread(target=self.run_forever, name="cardroom-thinking", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
        self.mind.close()


def start_for_app(app: Any) -> Thinking | None:
    """Start the loop for a Flask app built by ``create_app``, as its settings say."""
    settings = getattr(app, "config", {}).get("CARDROOM_SETTINGS")
    if settings is None or not settings.thinking:
        return None
    thinking = Thinking(app.extensions["cardroom.tables"])
    thinking.start()
    app.extensions["cardroom.thinking"] = thinking
    return thinking


# --- the deciding process ---------------------------------------------------------------------


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """One decision of the deciding process: ``{"action": ...}`` or ``{"error": ...}``."""
    try:
        game = get_game(request["game_type"], request["rules_version"])
        bot = get_policy(request["bot"], request["game_type"])
        action = choose_thought(
            game,
            bot,
            request["view"],
            request["legal"],
            request["seen"],
            request["options"],
            random.Random(request["seed"]),
        )
    except Exception as error:  # a plug-in's bot may fail any way: the loop falls back
        return {"error": f"{type(error).__name__}: {error}"}
    return {"action": action}


def serve_minds(requests: IO[bytes], answers: IO[bytes]) -> None:
    """Answer each request line until the input closes."""
    for line in requests:
        started = time.process_time()
        decided = answer(json.loads(line))
        decided["cpu_ms"] = round((time.process_time() - started) * 1000, 3)
        try:
            answers.write(json.dumps(decided, separators=(",", ":")).encode() + b"\n")
            answers.flush()
        except BrokenPipeError:
            return  # the worker is gone (stopped while this decision was made)


if __name__ == "__main__":
    os.nice(NICENESS)
    serve_minds(sys.stdin.buffer, sys.stdout.buffer)
    os._exit(0)  # nothing to clean up; an answer a gone worker did not take stays unflushed
