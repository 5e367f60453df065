"""Tables that mix SDK seats, server bot seats and ``cardroom-bot`` processes, played to the end.

A table is a game type and one word per seat:

- ``sdk:<bot>``  an SDK bot playing with ``Seat.play`` in a thread of its own, with its own
  ``Client`` (``<bot>`` is a key of :data:`SDK_BOTS`);
- ``bot:<policy>``  a seat the server plays itself (``random`` or ``greedy``), inside other
  seats' requests;
- ``cli:<policy>``  a ``cardroom-bot`` process (the installed console script).

:func:`play_table` seats everyone, waits for the end within the table's wall-time bound (a
hang fails instead of stalling the suite), and returns what happened: the spectator's
events, each seat's outcome and the time the game took.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardroom_sdk import Bot, Client, EagerBot, RandomBot, Seat, View

SHORT = {"mr-toast": "mt", "exact-plays": "ep"}


class Dawdler(EagerBot):
    """Answers its first ``times`` No Way windows only after ``delay`` seconds (past a short
    reaction deadline): its answer then arrives after the window has closed."""

    def __init__(self, seed: int | str | None = None, delay: float = 0.5, times: int = 2):
        super().__init__(seed)
        self.delay = delay
        self.times = times

    def choose(self, view: View) -> dict[str, Any]:
        if self.times > 0 and view.public.get("phase") == "reaction":
            self.times -= 1
            time.sleep(self.delay)
        return super().choose(view)


class SlowDeclarer(EagerBot):
    """Takes ``first`` seconds over its first declaration and ``later`` over the others."""

    def __init__(self, seed: int | str | None = None, first: float = 3.0, later: float = 0.2):
        super().__init__(seed)
        self.delays = [first]
        self.later = later

    def choose(self, view: View) -> dict[str, Any]:
        if view.public.get("phase") == "declare":
            time.sleep(self.delays.pop() if self.delays else self.later)
        return super().choose(view)


class Steady(EagerBot):
    """Always declares 2 plays: two Steady seats tie (rock-paper-scissors, EP-4) unless
    another seat declares more."""

    def choose(self, view: View) -> dict[str, Any]:
        if view.public.get("phase") == "declare":
            return {"type": "declare", "tokens": 2}
        return super().choose(view)


SDK_BOTS: dict[str, Callable[[int], Bot]] = {
    "eager": lambda seed: EagerBot(seed=seed),
    "random": lambda seed: RandomBot(seed=seed),
    "dawdle": lambda seed: Dawdler(seed=seed),
    "slow": lambda seed: SlowDeclarer(seed=seed),
    "steady": lambda seed: Steady(seed=seed),
}


@dataclass(frozen=True)
class Table:
    game_type: str
    seats: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = 1
    bound: float = 30.0  # seconds of wall time for the whole game

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def id(self) -> str:
        extra = "".join(
            {"reaction_deadline": "-deadline", "tiebreak": "-tb"}.get(key, "")
            for key in self.options
        )
        return f"{SHORT[self.game_type]}{self.players}-{'-'.join(self.seats)}{extra}"

    def kinds(self, kind: str) -> list[int]:
        return [index for index, word in enumerate(self.seats) if word.split(":")[0] == kind]


@dataclass
class SeatRun:
    """One SDK seat's thread: its handle, final view, the views its bot chose from, error."""

    seat: Seat
    bot: Bot
    timeout: float
    final: View | None = None
    chosen_from: list[View] = field(default_factory=list)
    error: BaseException | None = None
    thread: threading.Thread | None = None

    def start(self) -> None:
        choose = self.bot.choose

        def recording(view: View) -> dict[str, Any]:
            self.chosen_from.append(view)
            return choose(view)

        self.bot.choose = recording  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.final = self.seat.play(self.bot, timeout=self.timeout)
        except BaseException as error:  # reported by the test
            self.error = error


@dataclass
class Played:
    table: Table
    game_id: str
    summary: Any
    events: list[dict[str, Any]]
    runs: dict[int, SeatRun]
    processes: dict[int, subprocess.CompletedProcess[str]]
    elapsed: float
    hung: list[str]

    def count(self, event_type: str, **fields: Any) -> int:
        return sum(
            1
            for event in self.events
            if event["type"] == event_type
            and all(event.get(key) == value for key, value in fields.items())
        )

    @property
    def changed_declarations(self) -> Counter[int]:
        """Per seat, the ``declared`` events that changed an answer already given."""
        return Counter(
            event["seat"]
            for event in self.events
            if event["type"] == "declared" and event.get("changed")
        )


def console_script() -> Path:
    script = Path(sys.executable).parent / "cardroom-bot"
    assert script.exists(), "cardroom-bot is not installed next to this Python (pip install ./sdk)"
    return script


def all_events(client: Client, game_id: str) -> list[dict[str, Any]]:
    """Every event of the game, as a spectator sees it."""
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        batch = client.events(game_id, after=after, limit=1000)
        events += [event.raw for event in batch.events]
        if batch.last_seq <= after:
            return events
        after = batch.last_seq


def play_table(base_url: str, table: Table, *, wait: float = 15.0) -> Played:
    """Seat everyone, play to the end within ``table.bound`` seconds, and report."""
    client = Client(base_url, timeout=10)
    bots = {index: table.seats[index].split(":")[1] for index in table.kinds("bot")}
    game = client.create_game(
        table.game_type, table.players, options=table.options, seed=table.seed, bots=bots
    )
    started = time.monotonic()
    runs: dict[int, SeatRun] = {}
    for index in table.kinds("sdk"):
        seat_client = Client(base_url, timeout=10)
        seat = seat_client.join(game.id, f"sdk-{index}", seat=index)
        name = table.seats[index].split(":")[1]
        runs[index] = SeatRun(seat, SDK_BOTS[name](table.seed * 10 + index), wait)
    for run in runs.values():
        run.start()
    popens: dict[int, subprocess.Popen[str]] = {}
    for index in table.kinds("cli"):
        policy = table.seats[index].split(":")[1]
        command = [str(console_script()), "--url", base_url, f"--game={game.id}"]
        command += ["--seat", str(index), "--name", f"cli-{index}", "--policy", policy]
        popens[index] = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONWARNINGS": "default"},
        )
    ends = started + table.bound
    hung: list[str] = []
    for index, run in runs.items():
        assert run.thread is not None
        run.thread.join(max(0.0, ends - time.monotonic()))
        if run.thread.is_alive():
            hung.append(f"sdk seat {index}")
    processes: dict[int, subprocess.CompletedProcess[str]] = {}
    for index, popen in popens.items():
        try:
            out, err = popen.communicate(timeout=max(0.1, ends - time.monotonic()))
        except subprocess.TimeoutExpired:
            popen.kill()
            out, err = popen.communicate()
            hung.append(f"cli seat {index}")
        processes[index] = subprocess.CompletedProcess(popen.args, popen.returncode, out, err)
    elapsed = time.monotonic() - started
    return Played(
        table=table,
        game_id=game.id,
        summary=client.game(game.id),
        events=all_events(client, game.id),
        runs=runs,
        processes=processes,
        elapsed=elapsed,
        hung=hung,
    )
