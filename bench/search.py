"""What the search bot costs and how well it plays (cardroom/bots/search.py, issue 29).

    python -m bench.search [--quick | --full] [--only cost,strength] [--games N]
        [--levels search,search-strong] [--game-types ...] [--players 2,4]
        [--rollout greedy|random] [--actions N]
        [--processes N] [--out FILE]

In-process, no HTTP and no Redis. For each game (every game type given), player count (2 and
4) and search level, seeded games are played to the end with the default options: with 2
players the search bot against the game's greedy bot, seats alternated game by game; with 4
players one search bot and three greedy ones, the search seat rotating. Seats act as the
server's bot loop plays them (the lowest awaited seat). The search bot decides from what its
seat sees only: its view, every event so far as it saw it (``redact_event``), the public
options; its simulations are played by the game's greedy bot (``--rollout greedy``, the
default: the levels are tuned so) or at random (``decide``'s own default). Each decision's
random generator derives from the game's seed and the step, so the same command plays the
same games.

- **cost**: CPU milliseconds (``time.process_time``, this process only) per decision of the
  search bot that searched (a single legal action is returned without searching and is not
  counted): median and p99, over every such decision of the games played.
- **strength**: the search bot's wins (games it is among the winners of; a shared win counts)
  out of the games, with a 95 % Wilson interval, next to what a seat would win by chance
  (1/players).

``--quick`` (the default) plays 8 games per setting at level "search" and 2 at
"search-strong" (about a minute on two cores): it proves the bench runs. ``--full`` plays
100 and 20 (about 20 minutes of CPU, half that in wall time on two cores): 100 games give
intervals of about ±10 points. ``--games`` sets the games per setting, ``--actions``
overrides the levels' budget (engine actions per decision, for tuning). Games run in
``--processes`` worker processes (default: one per core); CPU time is measured inside
each. The figures go to ``bench/results/search.json`` (``--out``), the tables to stdout.

The latest figures and how the search was chosen (the ISMCTS tree it replaced, measured
here) are on docs/bots.md; the strength figures there come from ``cardroom simulate`` runs
of 400 games and more, this bench's from fewer.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.launch import ROOT
from bench.report import commit, log, table
from cardroom.bots.search import LEVELS, decide
from cardroom.games.exact_plays.plugin import plugin as exact_plays
from cardroom.games.mr_toast.plugin import plugin as mr_toast
from cardroom.kit import GamePlugin, redact_event

DEFAULT_OUT = ROOT / "bench" / "results" / "search.json"
PLUGINS: dict[str, GamePlugin] = {"mr-toast": mr_toast, "exact-plays": exact_plays}
PLAYER_COUNTS = (2, 4)
# z for a two-sided 95 % interval.
Z95 = 1.959963984540054
# Games per setting: (level "search", level "search-strong").
QUICK_GAMES = {"search": 8, "search-strong": 2}
FULL_GAMES = {"search": 100, "search-strong": 20}
MAX_ACTIONS = 20_000


@dataclass(frozen=True)
class Job:
    """One game: the setting, the game's index in it, how the search bot plays."""

    game_type: str
    players: int
    level: str
    index: int
    rollout: str
    actions: int | None = None  # the level's own when None


def play(job: Job) -> dict[str, Any]:
    """Play one seeded game, the search bot in seat ``index % players``; its result, the
    search seat and the CPU ms of each decision that searched."""
    plugin = PLUGINS[job.game_type]
    game = plugin.game
    greedy = plugin.policies["greedy"]
    rollout = greedy if job.rollout == "greedy" else None
    actions = job.actions or LEVELS[job.level].actions
    key = f"bench-search:{job.game_type}:{job.players}:{job.index}"
    seed = random.Random(key).randrange(2**53)
    options = game.validate_options(job.players, {})
    public = game.public_options(options)
    state = game.new_game(job.players, options, seed)
    searcher = job.index % job.players
    seen: list[dict[str, Any]] = []
    decisions_ms: list[float] = []
    for step in range(MAX_ACTIONS):
        if game.result(state) is not None:
            break
        seat = min(game.awaiting(state))
        legal = game.legal_actions(state, seat)
        view = game.view(state, seat)
        rng = random.Random(f"{key}:{step}")
        if seat == searcher:
            started = time.process_time()
            action = decide(
                game,
                view,
                legal,
                seen,
                public,
                rng,
                actions=actions,
                rollout=rollout,
            )
            if len(legal) > 1:
                decisions_ms.append((time.process_time() - started) * 1000)
        else:
            action = greedy(view, legal, rng)
        for event in game.apply(state, seat, action):
            shown = redact_event(event, searcher)
            if shown is not None:
                seen.append(shown)
    result = game.result(state)
    if result is None:
        raise RuntimeError(f"{key}: no result after {MAX_ACTIONS} actions")
    return {
        "setting": [job.game_type, job.players, job.level],
        "actions": actions,
        "searcher": searcher,
        "winners": result["winners"],
        "decisions_ms": decisions_ms,
    }


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denominator = 1 + Z95**2 / games
    centre = (p + Z95**2 / (2 * games)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / games + Z95**2 / (4 * games**2)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def summarise(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows: dict[tuple[str, int, str], dict[str, Any]] = {}
    for played in games:
        game_type, players, level = played["setting"]
        row = rows.setdefault(
            (game_type, players, level),
            {
                "game_type": game_type,
                "players": players,
                "level": level,
                "actions": played["actions"],
                "games": 0,
                "wins": 0,
                "share": 0.0,
                "decisions_ms": [],
            },
        )
        row["games"] += 1
        if played["searcher"] in played["winners"]:
            row["wins"] += 1
            row["share"] += 1 / len(played["winners"])
        row["decisions_ms"] += played["decisions_ms"]
    out = []
    for row in rows.values():
        times = row.pop("decisions_ms")
        row["decisions"] = len(times)
        row["median_ms"] = statistics.median(times) if times else None
        row["p99_ms"] = percentile(times, 0.99) if times else None
        row["cpu_s"] = sum(times) / 1000
        row["win_rate"] = row["wins"] / row["games"]
        row["wilson95"] = wilson(row["wins"], row["games"])
        row["chance"] = 1 / row["players"]
        out.append(row)
    return out


def render(rows: list[dict[str, Any]], only: set[str]) -> str:
    out = []
    if "cost" in only:
        out.append(
            table(
                ["cost: CPU per decision", "actions", "decisions", "median ms", "p99 ms"],
                [
                    [
                        f"{r['game_type']} {r['players']}p {r['level']}",
                        str(r["actions"]),
                        str(r["decisions"]),
                        f"{r['median_ms']:.1f}" if r["median_ms"] is not None else "-",
                        f"{r['p99_ms']:.1f}" if r["p99_ms"] is not None else "-",
                    ]
                    for r in rows
                ],
            )
        )
        out.append("")
    if "strength" in only:
        out.append(
            table(
                ["strength: vs greedy", "games", "wins", "win rate", "95 % Wilson", "chance"],
                [
                    [
                        f"{r['game_type']} {r['players']}p {r['level']}",
                        str(r["games"]),
                        str(r["wins"]),
                        f"{r['win_rate']:.0%}",
                        f"{r['wilson95'][0]:.0%}-{r['wilson95'][1]:.0%}",
                        f"{r['chance']:.0%}",
                    ]
                    for r in rows
                ],
            )
        )
        out.append(
            "2 players: search vs greedy, seats alternated; 4 players: one search seat"
            " (rotating) and three greedy. A win shared counts as a win."
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search", description=__doc__)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="a few games per setting (default)")
    size.add_argument("--full", action="store_true", help="about 15 minutes of CPU")
    parser.add_argument(
        "--only", default="cost,strength", help="the tables to print: cost, strength or both"
    )
    parser.add_argument("--games", type=int, help="games per setting (every level)")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels")
    parser.add_argument("--game-types", default=",".join(PLUGINS), help="comma-separated")
    parser.add_argument("--players", default=",".join(map(str, PLAYER_COUNTS)))
    parser.add_argument(
        "--rollout",
        choices=("greedy", "random"),
        default="greedy",
        help="the simulations' policy: the game's greedy bot (default, as the levels are"
        " tuned) or decide's own default, random",
    )
    parser.add_argument(
        "--actions", type=int, help="engine actions per decision instead of the level's (tuning)"
    )
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    if only - {"cost", "strength"}:
        parser.error("--only takes cost, strength or both")
    levels = args.levels.split(",")
    unknown = [level for level in levels if level not in LEVELS]
    if unknown:
        parser.error(f"unknown level(s): {', '.join(unknown)}; known: {', '.join(LEVELS)}")
    counts = FULL_GAMES if args.full else QUICK_GAMES
    jobs = [
        Job(game_type, players, level, index, args.rollout, args.actions)
        for level in levels
        for game_type in args.game_types.split(",")
        for players in map(int, args.players.split(","))
        for index in range(args.games or counts.get(level, counts["search"]))
    ]
    log(f"{len(jobs)} games over {args.processes} processes")
    started = time.time()
    games: list[dict[str, Any]] = []
    with ProcessPoolExecutor(args.processes) as pool:
        for done, played in enumerate(pool.map(play, jobs, chunksize=1), start=1):
            games.append(played)
            if done % 10 == 0 or done == len(jobs):
                log(f"{done}/{len(jobs)} games")
    rows = summarise(games)
    report = {
        "mode": "full" if args.full else "quick",
        "settings": {
            "rollout": args.rollout,
            "levels": {name: args.actions or LEVELS[name].actions for name in levels},
            "processes": args.processes,
        },
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "seconds": time.time() - started,
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "commit": commit("server", label="server files"),
        },
        "results": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(render(rows, only))
    cpu = sum(row["cpu_s"] for row in rows)
    print(
        f"\nfigures written to {args.out} ({report['seconds']:.0f} s;"
        f" {cpu:.0f} s of CPU in search decisions)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
