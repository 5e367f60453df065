"""``cardroom ladder``: a round robin of bot policies, rated with OpenSkill, so that each
policy's strength is one number with its uncertainty (docs/bots.md).

**The round robin.** A *table* is one seating (the policy of each seat). A cycle's tables are
every seating that holds as many different policies as it can (``min(policies, players)``):
at 2 players every ordered pair of two policies; at 4 players with 4 policies the 24 orders
of all four; at 4 players with 2 policies the 14 seatings that use both. That set is closed
under any exchange of seats and any renaming of the policies, so over a cycle every policy
holds every seat equally often and meets every other in every pair of seats equally often.
A cycle is listed as rotations (a seating, then it turned by one seat, ...), so a few games
are already balanced; game ``g`` plays table ``g % len(cycle)``, and a run whose ``--games``
is not a whole number of cycles says so.

**Duplicate deals.** The rotations of one seating share one deal (the engine seed
``simulate.game_seed(seed, deal)``): every policy of that table plays every seat's cards,
so the luck of the deal cancels out of the comparison, as in duplicate bridge. Every bot
decision's random generator derives from the seed and the game's index: the same command
gives the same figures (timings aside), however many ``--processes`` play them.

**The ratings.** Each game's result is rated, in game-index order, with OpenSkill's
Plackett-Luce model (Weng & Lin, "A Bayesian Approximation Method for Online Ranking",
JMLR 2011) at its usual prior (mu 25, sigma 25/3): the winners rank first (a shared win a
tie), the others tie behind them. A game is won or lost: the bots (the search levels most
of all) play to win, not to score well in defeat, and ranking the losers by score rated a
bot that takes risks to win below one that never wins. A bot's
strength does not drift, so there is no dynamics term (tau 0): sigma only says how much
the games so far leave unknown. A policy that holds several seats of one table (fewer
policies than seats) is rated on each seat from the same prior and the seats' updates are
combined as independent evidence (their Gaussian natural parameters add). The table is
sorted by the ordinal, mu - 3 sigma, a rating the policy is very likely above.

**An entrant.** ``--server URL --entrant module:Class`` enters a bot written with the SDK
(``cardroom_sdk.load_bot`` reads the name) as one more participant, in at most one seat of
a table. Its tables are played on that server: each game is created with the other seats as
server bots (``POST /v1/games`` with ``bots``), and the entrant plays its seat through the
SDK in a thread, the game bounded by ``--game-timeout`` seconds (one that does not end in
time fails the run). The tables without it are played in-process. The server package
imports ``cardroom_sdk`` only inside this path's functions (no import contract forbids it:
the SDK is a client that never imports the server), so a ladder without one needs no SDK.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from importlib.metadata import version
from typing import Any

from openskill.models import PlackettLuce

from cardroom.registry import get_game, get_policy, registry
from cardroom.registry import policies as game_policies
from cardroom.simulate import (
    MAX_ACTIONS,
    Config,
    Progress,
    SimulationError,
    UsageError,
    game_seed,
    make_config,
    percent,  # simulate's way to print a rate, and to round a figure for JSON
    play_game,
    rounded,
    wilson,
)

# Seconds one entrant game may take on the server, from its creation to its result.
GAME_TIMEOUT = 600.0
# The Plackett-Luce model's prior, as OpenSkill's defaults; tau 0: no drift (see above).
MU = 25.0
SIGMA = MU / 3
BETA = MU / 6
TAU = 0.0
MODEL = {"model": "PlackettLuce", "mu": MU, "sigma": SIGMA, "beta": BETA, "tau": TAU}


@dataclass(frozen=True)
class Ladder(Config):
    """A validated ladder: simulate's ``Config``, whose ``policies`` are the participants
    (the policies, then the entrant if any)."""

    entrant: str | None = None  # its name among the participants (its spec, or sdk:spec)
    entrant_spec: str | None = None
    server: str | None = None

    @cached_property
    def tables(self) -> list[tuple[str, ...]]:
        """One cycle of the round robin."""
        return round_robin(self.policies, self.players, self.entrant)


@dataclass(frozen=True)
class Table:
    """Game ``index``: its seating, its deal and its decisions' random key."""

    index: int
    seating: tuple[str, ...]
    deal_seed: int
    rng_key: str  # decision ``step`` draws from ``random.Random(f"{rng_key}:{step}")``


# --- configuration ---------------------------------------------------------------------------


def make_ladder(
    game_type: str,
    players: int | None = None,
    policies: str | Sequence[str] | None = None,
    games: int = 240,
    seed: int = 0,
    options: str | dict[str, Any] | None = None,
    entrant: str | None = None,
    server: str | None = None,
) -> Ladder:
    """Check every argument (simulate's checks, and the ladder's own); raise UsageError."""
    if policies is None and game_type in registry():
        policies = list(game_policies(game_type))  # every bot of the game
    config = make_config(game_type, players, policies, games, seed, options)
    names = config.policies
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UsageError(f"--policies names {', '.join(map(repr, repeated))} more than once")
    if (entrant is None) != (server is None):
        raise UsageError("--entrant and --server go together: the entrant plays on that server")
    if server is not None and not server.startswith(("http://", "https://")):
        raise UsageError(f"--server must be a URL, http://HOST:PORT (got {server!r})")
    entrant_name = None
    if entrant is not None:
        entrant_name = f"sdk:{entrant}" if entrant in names else entrant
        names = (*names, entrant_name)
    if len(names) < 2:
        raise UsageError(
            f"a ladder needs at least 2 participants (got 1: {names[0]}); "
            "add a policy to --policies or an --entrant"
        )
    given = {**vars(config), "policies": names}
    return Ladder(**given, entrant=entrant_name, entrant_spec=entrant, server=server)


def round_robin(
    participants: Sequence[str], players: int, entrant: str | None = None
) -> list[tuple[str, ...]]:
    """One cycle of tables: every seating that holds ``min(len(participants), players)``
    different participants (the entrant in at most one seat), listed as rotations."""
    different = min(len(participants), players)
    tables: list[tuple[str, ...]] = []
    listed: set[tuple[str, ...]] = set()
    for seating in itertools.product(participants, repeat=players):
        if seating in listed or len(set(seating)) != different or seating.count(entrant) > 1:
            continue
        for turn in range(players):
            rotated = seating[turn:] + seating[:turn]
            if rotated not in listed:
                listed.add(rotated)
                tables.append(rotated)
    return tables


def deals(tables: Sequence[tuple[str, ...]]) -> list[int]:
    """The deal of each table of a cycle: the rotations of one seating share one."""
    numbers: dict[tuple[str, ...], int] = {}
    found = []
    for seating in tables:
        first = min(seating[turn:] + seating[:turn] for turn in range(len(seating)))
        found.append(numbers.setdefault(first, len(numbers)))
    return found


def schedule(ladder: Ladder) -> list[Table]:
    """Every game of the ladder, in index order."""
    tables = ladder.tables
    numbers = deals(tables)
    per_cycle = max(numbers) + 1
    planned = []
    for index in range(ladder.games):
        cycle, at = divmod(index, len(tables))
        deal = cycle * per_cycle + numbers[at]
        seed = game_seed(ladder.seed, deal)
        planned.append(Table(index, tables[at], seed, f"ladder:{ladder.seed}:{index}"))
    return planned


# --- playing ---------------------------------------------------------------------------------


def play_table(ladder: Ladder, table: Table) -> dict[str, Any]:
    """Play one table in-process (simulate's driver) and return its result."""
    game = get_game(ladder.game_type)
    options = game.validate_options(ladder.players, ladder.options)
    bots = [get_policy(name, ladder.game_type) for name in table.seating]
    result, _ = play_game(
        game, ladder.players, options, table.deal_seed, bots, table.rng_key, MAX_ACTIONS
    )
    return result


def played_results(
    ladder: Ladder,
    processes: int = 1,
    game_timeout: float = GAME_TIMEOUT,
    progress: Callable[[int, int], None] | None = None,
    entrant: Any = None,
) -> list[dict[str, Any]]:
    """Every game's result, in index order: the entrant's tables on the server, one at a time
    (``entrant``: its bot; None: loaded from the ladder's spec), the others in ``processes``
    worker processes."""
    planned = schedule(ladder)
    on_server = [table for table in planned if ladder.entrant in table.seating]
    here = [table for table in planned if ladder.entrant not in table.seating]
    played = itertools.chain(
        zip(on_server, entrant_results(ladder, on_server, game_timeout, entrant), strict=True),
        zip(here, _in_process(ladder, here, processes), strict=True),
    )
    results: dict[int, dict[str, Any]] = {}
    for table, result in played:
        results[table.index] = result
        if progress is not None:
            progress(len(results), len(planned))
    return [results[index] for index in range(len(planned))]


def _in_process(ladder: Ladder, tables: list[Table], processes: int) -> Iterator[dict]:
    if processes <= 1 or len(tables) <= 1:
        yield from (play_table(ladder, table) for table in tables)
        return
    with ProcessPoolExecutor(max_workers=processes) as pool:
        yield from pool.map(play_table, [ladder] * len(tables), tables)


class LadderError(RuntimeError):
    """A game could not be played to its end, here or on the server (exit code 1)."""


def entrant_results(
    ladder: Ladder, tables: list[Table], game_timeout: float, bot: Any = None
) -> Iterator[dict]:
    """Play the entrant's tables on ``ladder.server`` and yield each game's result: each in a
    thread of its own, given ``game_timeout`` seconds from creation to result."""
    if not tables:
        return
    from cardroom_sdk import Client

    if bot is None:
        bot = load_entrant(ladder.entrant_spec or "")
    with Client(ladder.server or "", timeout=min(30.0, game_timeout)) as client:
        check_server(client, ladder)
        for table in tables:
            outcome: dict[str, Any] = {}
            worker = threading.Thread(
                target=entrant_game,
                args=(client, ladder, table, bot, game_timeout, outcome),
                name=f"ladder-game-{table.index}",
                daemon=True,  # one that never ends must not keep the command alive
            )
            worker.start()
            worker.join(game_timeout)
            where = f"game {table.index} (server game {outcome.get('id', 'not created')})"
            if worker.is_alive():
                raise LadderError(f"{where}: no result within {game_timeout:g} s")
            if "error" in outcome:
                error = outcome["error"]
                raise LadderError(f"{where}: {type(error).__name__}: {error}")
            if not isinstance(outcome.get("result"), dict):
                raise LadderError(f"{where}: the game ended with no result")
            yield outcome["result"]


def entrant_game(
    client: Any, ladder: Ladder, table: Table, bot: Any, timeout: float, outcome: dict
) -> None:
    """One entrant table on the server: create the game with the other seats as server
    bots, play the entrant's seat with ``bot``; ``outcome`` gets the game's ``id`` and its
    ``result``, or the ``error`` that stopped it (the bot's own included)."""
    seat = table.seating.index(ladder.entrant)
    bots = {at: name for at, name in enumerate(table.seating) if at != seat}
    try:
        created = client.create_game(
            ladder.game_type, ladder.players, ladder.options, table.deal_seed, bots
        )
        outcome["id"] = created.id
        client.join(created.id, "ladder entrant", seat).play(bot, timeout=timeout)
        outcome["result"] = client.game(created.id).result
    except Exception as error:  # reported by the caller, which fails the run with it
        outcome["error"] = error


def load_entrant(spec: str) -> Any:
    """The entrant's bot (``cardroom_sdk.load_bot``), ``module:Class`` found from the current
    folder as ``cardroom-bot`` finds it."""
    try:
        from cardroom_sdk import load_bot
    except ImportError:
        raise UsageError("--entrant needs the SDK installed: pip install ./sdk") from None
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return load_bot(spec)
    except (ImportError, AttributeError, TypeError, ValueError) as error:
        raise UsageError(f"cannot load the entrant {spec!r}: {error}") from None


def check_server(client: Any, ladder: Ladder) -> None:
    """The server answers, hosts the game at this player count and plays its policies."""
    from cardroom_sdk import CardroomError

    try:
        hosted = {each.game_type: each.bot_policies for each in client.game_types()}
    except CardroomError as error:
        raise LadderError(f"cannot reach the server at {ladder.server}: {error}") from None
    if ladder.game_type not in hosted:
        raise UsageError(f"the server at {ladder.server} does not host {ladder.game_type}")
    missing = sorted(set(ladder.policies) - {ladder.entrant} - set(hosted[ladder.game_type]))
    if missing:
        raise UsageError(
            f"the server at {ladder.server} does not play {', '.join(missing)} "
            f"for {ladder.game_type}"
        )


# --- rating ----------------------------------------------------------------------------------


def ranks(result: dict[str, Any], players: int) -> list[int]:
    """Each seat's place (1 first; equal places tie): the winners first, the others tied
    behind them (a game without winners: every seat tied)."""
    winners = set(result.get("winners") or [])
    return [1 if seat in winners or not winners else 2 for seat in range(players)]


def rate(ladder: Ladder, results: Sequence[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Every participant's (mu, sigma) after rating the games in index order."""
    model = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)
    ratings = {name: (MU, SIGMA) for name in ladder.policies}
    tables = ladder.tables
    for index, result in enumerate(results):
        seating = tables[index % len(tables)]
        teams = [[model.rating(mu=ratings[name][0], sigma=ratings[name][1])] for name in seating]
        rated = model.rate(teams, ranks=ranks(result, ladder.players))
        for name in set(seating):
            seats = [seat for seat, held in enumerate(seating) if held == name]
            ratings[name] = combined(ratings[name], [rated[seat][0] for seat in seats])
    return ratings


def combined(prior: tuple[float, float], posteriors: Sequence[Any]) -> tuple[float, float]:
    """Posteriors from one prior, each with its own seat's evidence, as one: in natural
    parameters (precision, precision x mean) each adds its evidence to the prior's."""
    if len(posteriors) == 1:
        return posteriors[0].mu, posteriors[0].sigma
    mu, sigma = prior
    precision = 1 / sigma**2
    total_precision = precision + sum(1 / each.sigma**2 - precision for each in posteriors)
    total_weighted = mu * precision + sum(
        each.mu / each.sigma**2 - mu * precision for each in posteriors
    )
    return total_weighted / total_precision, total_precision**-0.5


def figures(ladder: Ladder, results: Sequence[dict[str, Any]], seconds: float) -> dict:
    """The ladder's figures (``--json``): the ratings sorted by ordinal, best first."""
    ratings = rate(ladder, results)
    tables = ladder.tables
    counts: dict[str, Counter[str]] = {name: Counter() for name in ladder.policies}
    for index, result in enumerate(results):
        seating = tables[index % len(tables)]
        for seat, name in enumerate(seating):
            won = seat in (result.get("winners") or [])
            counts[name].update(games=seating.index(name) == seat, seats=1, wins=won)
    rows = []
    for name, (mu, sigma) in ratings.items():
        games, seats, wins = (counts[name][key] for key in ("games", "seats", "wins"))
        low, high = wilson(wins, seats) if seats else (None, None)
        rows.append(
            {
                "policy": name,
                "mu": rounded(mu),
                "sigma": rounded(sigma),
                "ordinal": rounded(mu - 3 * sigma),
                "games": games,
                "seats": seats,
                "wins": wins,
                "win_rate": rounded(wins / seats) if seats else None,
                "ci95": [rounded(low), rounded(high)],
            }
        )
    rows.sort(key=lambda row: (-row["ordinal"], row["policy"]))
    return {
        "game": ladder.game_type,
        "players": ladder.players,
        "games": ladder.games,
        "seed": ladder.seed,
        "policies": list(ladder.policies),
        "options": ladder.options,
        "entrant": ladder.entrant,
        "server": ladder.server,
        "cycle": {"tables": len(tables), "whole": ladder.games % len(tables) == 0},
        "model": {**MODEL, "library": f"openskill {version('openskill')}"},
        "ratings": rows,
        "timing": {"seconds": round(seconds, 3)},
    }


# --- output and the command ------------------------------------------------------------------


def format_table(found: dict[str, Any]) -> str:
    """The figures as a plain-text table, best rating first."""
    title = get_game(found["game"]).title
    cycle = found["cycle"]
    model = found["model"]
    lines = [
        f"{title} ({found['game']}): {found['players']} players, {found['games']} games, "
        f"seed {found['seed']}; round robin of {', '.join(found['policies'])} "
        f"({cycle['tables']} tables a cycle, duplicate deals)",
    ]
    if found["options"]:
        lines.append(f"options: {json.dumps(found['options'], sort_keys=True)}")
    if found["entrant"]:
        lines.append(f"entrant: {found['entrant']}, its games played on {found['server']}")
    if not cycle["whole"]:
        lines.append("note: not a whole number of cycles: seats and opponents not quite even")
    width = max(10, *(len(row["policy"]) for row in found["ratings"]))
    header = (
        f"{'rank':>4}  {'policy':<{width}} {'mu':>7} {'sigma':>6} {'ordinal':>8} "
        f"{'games':>6} {'wins':>6} {'win rate':>9} {'95% CI':>17}"
    )
    lines += ["", header, "-" * len(header)]
    for rank, row in enumerate(found["ratings"], start=1):
        if row["seats"]:
            low, high = row["ci95"]
            rate_text, ci = percent(row["win_rate"]), f"[{percent(low)}, {percent(high)}]"
        else:
            rate_text = ci = "-"
        lines.append(
            f"{rank:>4}  {row['policy']:<{width}} {row['mu']:>7.2f} {row['sigma']:>6.2f} "
            f"{row['ordinal']:>8.2f} {row['games']:>6} {row['wins']:>6} {rate_text:>9} "
            f"{ci:>17}"
        )
    lines += [
        "",
        f"ratings: {model['library']}, Plackett-Luce (mu {model['mu']:g}, sigma "
        f"{model['sigma']:.2f}, beta {model['beta']:.2f}, tau {model['tau']:g}), the games "
        "rated in order; ordinal = mu - 3 sigma.",
        "win rate: games won per seat played (a shared win counts for each winner).",
        f"time: {found['timing']['seconds']:.2f} s",
    ]
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    """``cardroom ladder`` (arguments from ``cardroom.serve.cli``): 0, 1 on failure, 2 on
    misuse."""

    def fail(message: str, code: int) -> int:
        print(f"cardroom ladder: error: {message}", file=sys.stderr)
        return code

    if args.processes < 1:
        return fail("--processes must be at least 1", 2)
    if args.game_timeout <= 0:
        return fail("--game-timeout must be more than 0 seconds", 2)
    progress = None
    try:
        given = (args.players, args.policies, args.games, args.seed, args.options)
        ladder = make_ladder(args.game, *given, entrant=args.entrant, server=args.server)
        # A misnamed entrant is misuse, told before any game.
        bot = None if ladder.entrant_spec is None else load_entrant(ladder.entrant_spec)
        if not args.no_progress and sys.stderr.isatty():
            progress = Progress(sys.stderr)
        started = time.perf_counter()
        results = played_results(ladder, args.processes, args.game_timeout, progress, bot)
        found = figures(ladder, results, time.perf_counter() - started)
    except UsageError as error:
        return fail(str(error), 2)
    except (SimulationError, LadderError) as error:
        return fail(str(error), 1)
    finally:
        if progress is not None:
            progress.close()
    print(json.dumps(found, sort_keys=True) if args.json else format_table(found))
    return 0
