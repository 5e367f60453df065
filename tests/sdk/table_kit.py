"""Tables that mix SDK seats, server bot seats and ``cardroom-bot`` processes, played to the end.

A table is a game type and one word per seat, ``kind:policy``:

- ``sdk:<bot>``  ``Seat.play`` with an SDK bot, in a thread of its own with its own
  ``Client`` (``<bot>`` is a key of :data:`SDK_BOTS`);
- ``run:<bot>``  ``run_bot()`` with an SDK bot, in a thread (it joins the seat itself);
- ``cli:<policy>``  a ``cardroom-bot`` process (the installed console script); ``<policy>``
  is its ``--policy``: ``random``, ``eager`` or ``module:Class`` (this directory is on the
  process's ``PYTHONPATH``, so ``table_kit:Steady`` works);
- ``bot:<policy>``  a seat the server plays itself (``random`` or ``greedy``), inside other
  seats' requests.

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

from cardroom_sdk import Bot, Client, EagerBot, RandomBot, View, run_bot

HERE = Path(__file__).resolve().parent
SHORT = {"mr-toast": "mt", "exact-plays": "ep"}
REMOTE = ("sdk", "run", "cli")  # seats played through the HTTP API, not by the server


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
    """Always declares 2 plays: Steady seats tie (rock-paper-scissors, EP-4) unless another
    seat declares more."""

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
    bound: float = 45.0  # seconds of wall time for the whole game
    note: str = ""  # what the table is for, in the test id

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def id(self) -> str:
        seats = ",".join(word.replace("table_kit:", "") for word in self.seats)
        return f"{SHORT[self.game_type]}{self.players}[{seats}]{self.note}"

    def kind(self, index: int) -> str:
        return self.seats[index].split(":", 1)[0]

    def policy(self, index: int) -> str:
        return self.seats[index].split(":", 1)[1]

    def seats_of(self, *kinds: str) -> list[int]:
        return [index for index in range(self.players) if self.kind(index) in kinds]


@dataclass
class SeatRun:
    """One SDK seat played in a thread (``Seat.play`` or ``run_bot``): what its bot chose
    from, how it ended."""

    base_url: str
    game_id: str
    index: int
    bot: Bot
    wait: float  # bounds each wait for a turn (Seat.play's and run_bot's timeout)
    how: str  # "sdk": join, then Seat.play; "run": run_bot joins and plays
    chosen_from: list[View] = field(default_factory=list)
    finished: bool = False
    error: BaseException | None = None
    thread: threading.Thread | None = None

    def __post_init__(self) -> None:
        choose = self.bot.choose

        def recording(view: View) -> dict[str, Any]:
            self.chosen_from.append(view)
            return choose(view)

        self.bot.choose = recording  # type: ignore[method-assign]
        self.client = Client(self.base_url, timeout=10)
        self.seat = None
        if self.how == "sdk":  # joined now, in seat order; run_bot joins in its thread
            self.seat = self.client.join(self.game_id, f"sdk-{self.index}", seat=self.index)

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            if self.seat is not None:
                self.finished = self.seat.play(self.bot, timeout=self.wait).finished
            else:
                name = f"run-{self.index}"
                summary = run_bot(
                    self.client, self.game_id, self.bot, name, seat=self.index, timeout=self.wait
                )
                self.finished = summary.finished
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

    def of(self, event_type: str) -> list[dict[str, Any]]:
        return [event for event in self.events if event["type"] == event_type]

    def count(self, event_type: str) -> int:
        return len(self.of(event_type))

    @property
    def changed_declarations(self) -> Counter[int]:
        """Per seat, the ``declared`` events that changed an answer already given."""
        return Counter(event["seat"] for event in self.of("declared") if event.get("changed"))

    def problems(self) -> list[str]:
        """Why this table did not end well, if it did not."""
        found = [f"{what} still playing after {self.table.bound}s" for what in self.hung]
        for index, run in self.runs.items():
            if run.error is not None:
                found.append(f"seat {index} ({run.how}) failed: {run.error!r}")
            elif not run.finished and not self.hung:
                found.append(f"seat {index} ({run.how}) stopped before the end")
        for index, done in self.processes.items():
            if done.returncode != 0 or f"game {self.game_id} finished" not in done.stdout:
                found.append(f"cli seat {index} exited {done.returncode}: {done.stderr[-800:]}")
        if not (self.summary.finished and self.summary.winners):
            found.append(
                f"game {self.game_id} is {self.summary.status}, to_act {self.summary.to_act}"
            )
        return found


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


def start_cli(base_url: str, game_id: str, index: int, policy: str) -> subprocess.Popen[str]:
    command = [str(console_script()), "--url", base_url, f"--game={game_id}"]
    command += ["--seat", str(index), "--name", f"cli-{index}", "--policy", policy]
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
    )


def play_table(base_url: str, table: Table, *, wait: float = 15.0) -> Played:
    """Seat everyone, play to the end within ``table.bound`` seconds, and report.

    SDK seats join first, in seat order; ``run_bot`` seats and ``cardroom-bot`` processes
    join when they start, so the game starts inside one of their joins.
    """
    client = Client(base_url, timeout=10)
    bots = {index: table.policy(index) for index in table.seats_of("bot")}
    game = client.create_game(
        table.game_type, table.players, options=table.options, seed=table.seed, bots=bots
    )
    started = time.monotonic()
    runs = {
        index: SeatRun(
            base_url,
            game.id,
            index,
            SDK_BOTS[table.policy(index)](table.seed * 10 + index),
            wait,
            table.kind(index),
        )
        for index in table.seats_of("sdk", "run")
    }
    for run in runs.values():
        run.start()
    popens = {
        index: start_cli(base_url, game.id, index, table.policy(index))
        for index in table.seats_of("cli")
    }
    ends = started + table.bound
    hung: list[str] = []
    for index, run in runs.items():
        assert run.thread is not None
        run.thread.join(max(0.0, ends - time.monotonic()))
        if run.thread.is_alive():
            hung.append(f"seat {index} ({run.how})")
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
