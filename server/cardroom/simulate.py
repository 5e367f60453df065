"""``cardroom simulate``: bot policies play each other in-process, many games, and compare.

No HTTP and no Redis: the engines are driven the way the server drives bot seats
(``table/bot_play.py``, ``play_bots``): take the lowest seat the game awaits, let its policy
choose among that seat's legal actions from that seat's view, apply, until the game has a
result.

Policies cycle over the seats and rotate by one seat each game (game ``g``: seat ``s`` plays
``policies[(s + g) % len(policies)]``), so no policy keeps the first or last seat. Every
game's seed derives from ``--seed`` and the game's index, and every bot decision's random
generator from that seed, the game index and the action count: the same command prints
the same figures (timings aside).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TextIO

from cardroom.bots import Bot, choose, next_bot_seat, thinks
from cardroom.kit import Event, redact_event
from cardroom.kit.base import Game, InvalidOptions, RuleError
from cardroom.registry import get_game, get_policy, policy_names, registry
from cardroom.registry import policies as game_policies

# z for a two-sided 95% interval.
Z95 = 1.959963984540054
# Actions in one game before it counts as a runaway (an engine or policy that never ends).
MAX_ACTIONS = 1_000_000
# Game seeds stay below 2**53, as the server's do (exact in JSON everywhere).
SEED_BOUND = 2**53


class UsageError(ValueError):
    """The arguments are not acceptable (exit code 2)."""


class SimulationError(RuntimeError):
    """A game could not be played to its end (exit code 1)."""


@dataclass(frozen=True)
class Config:
    """A validated simulation request."""

    game_type: str
    players: int
    policies: tuple[str, ...]
    games: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)  # as given (the engine fills in)


@dataclass
class _Tally:
    seats: int = 0
    wins: int = 0
    share: float = 0.0
    score: int = 0


# --- configuration ---------------------------------------------------------------------------


def default_policies(game_type: str) -> list[str]:
    """The game's own first policy against ``random`` (``random`` against itself for a game
    that declares none)."""
    own = [name for name in game_policies(game_type) if name != "random"]
    return [own[0] if own else "random", "random"]


def make_config(
    game_type: str,
    players: int | None = None,
    policies: str | Sequence[str] | None = None,
    games: int = 1000,
    seed: int = 0,
    options: str | dict[str, Any] | None = None,
) -> Config:
    """Check every argument; raise UsageError with a message a person can act on."""
    known = sorted(registry())
    if game_type not in known:
        raise UsageError(f"unknown game {game_type!r}; known games: {', '.join(known)}")
    game = get_game(game_type)
    if players is None:
        players = min(max(4, game.min_players), game.max_players)
    if not game.min_players <= players <= game.max_players:
        raise UsageError(
            f"{game_type} is played by {game.min_players} to {game.max_players} players "
            f"(got --players {players})"
        )
    if policies is None:
        policies = default_policies(game_type)
    names = policies.split(",") if isinstance(policies, str) else list(policies)
    names = [name.strip() for name in names]
    if not names or any(not name for name in names):
        raise UsageError("--policies needs a comma-separated list of policy names")
    for name in names:
        if name not in policy_names():
            known = ", ".join(policy_names())
            raise UsageError(f"unknown policy {name!r}; known policies: {known}")
        try:
            get_policy(name, game_type)
        except KeyError:
            raise UsageError(f"policy {name!r} is not available for {game_type}") from None
    if games < 1:
        raise UsageError(f"--games must be at least 1 (got {games})")
    given = _parse_options(options)
    try:
        game.validate_options(players, given)
    except InvalidOptions as error:
        raise UsageError(f"--options: {error.message} ({error.field})") from None
    return Config(game_type, players, tuple(names), games, seed, given)


def _parse_options(options: str | dict[str, Any] | None) -> dict[str, Any]:
    if options is None:
        return {}
    if isinstance(options, str):
        try:
            options = json.loads(options)
        except json.JSONDecodeError as error:
            raise UsageError(f"--options is not valid JSON: {error}") from None
    if not isinstance(options, dict):
        raise UsageError('--options must be a JSON object, e.g. \'{"mode": "irresponsible"}\'')
    return options


# --- playing ---------------------------------------------------------------------------------


def seat_policies(policies: Sequence[str], players: int, game_index: int) -> list[str]:
    """The policy of each seat in game ``game_index``: cycled over seats, rotated per game."""
    return [policies[(seat + game_index) % len(policies)] for seat in range(players)]


def game_seed(seed: int, game_index: int) -> int:
    """The engine seed of game ``game_index`` (stable across runs and Python versions)."""
    return random.Random(f"cardroom-simulate:{seed}:{game_index}").randrange(SEED_BOUND)


def play_game(
    game: Game,
    players: int,
    options: dict[str, Any],
    seed: int,
    policies: Sequence[Bot],
    rng_key: str,
    max_actions: int = MAX_ACTIONS,
) -> tuple[dict[str, Any], int]:
    """Play one game to its end; return its result and the number of actions taken.

    ``policies[seat]`` plays ``seat``; the random generator of decision ``step`` is
    ``random.Random(f"{rng_key}:{step}")``. A search level also reads the events its seat
    saw (kept per seat as the game goes) and the public options, as at the server's tables.
    """
    state = game.new_game(players, options, seed)
    public = game.public_options(options)
    seen: dict[int, list[Event]] = {seat: [] for seat in range(players) if thinks(policies[seat])}
    for step in range(max_actions):
        result = game.result(state)
        if result is not None:
            return result, step
        seat = next_bot_seat(game, state, range(players))
        if seat is None:
            raise SimulationError(f"game {rng_key}: nobody is awaited, but the game is not over")
        if not game.legal_actions(state, seat):
            raise SimulationError(f"game {rng_key}: seat {seat} is awaited but has no action")
        rng = random.Random(f"{rng_key}:{step}")
        action = choose(game, state, seat, policies[seat], rng, seen.get(seat), public)
        try:
            events = game.apply(state, seat, action)
        except RuleError as error:
            raise SimulationError(
                f"game {rng_key}: seat {seat} chose {action!r}, refused: {error.message}"
            ) from error
        for watcher, watched in seen.items():
            watched += [
                shown for event in events if (shown := redact_event(event, watcher)) is not None
            ]
    result = game.result(state)
    if result is not None:
        return result, max_actions
    raise SimulationError(f"game {rng_key}: no result after {max_actions} actions (runaway)")


def game_length(result: dict[str, Any]) -> tuple[str, int] | None:
    """How long a finished game was, in what its result counts: `turn` (turns) or `rounds`."""
    turn = result.get("turn")
    if isinstance(turn, int) and not isinstance(turn, bool):
        return "turns", turn
    rounds = result.get("rounds")
    if isinstance(rounds, list):
        return "rounds", len(rounds)
    return None


def play_indexed(config: Config, index: int, max_actions: int = MAX_ACTIONS) -> tuple[dict, int]:
    """Game ``index`` of ``config``, played to its end: its result and its action count."""
    game = get_game(config.game_type)
    options = game.validate_options(config.players, config.options)
    names = seat_policies(config.policies, config.players, index)
    return play_game(
        game,
        config.players,
        options,
        game_seed(config.seed, index),
        [get_policy(name, config.game_type) for name in names],
        f"{config.seed}:{index}",
        max_actions,
    )


def played_games(
    config: Config, processes: int, max_actions: int
) -> Iterator[tuple[dict[str, Any], int]]:
    """Every game's (result, actions) in index order, in ``processes`` worker processes
    (1: in this one). Each game depends on its index alone, so the figures do not depend on
    how many processes played them."""
    if processes <= 1 or config.games <= 1:
        for index in range(config.games):
            yield play_indexed(config, index, max_actions)
        return
    with ProcessPoolExecutor(max_workers=processes) as pool:
        yield from pool.map(
            play_indexed,
            [config] * config.games,
            range(config.games),
            [max_actions] * config.games,
        )


def run(
    config: Config,
    progress: Callable[[int, int], None] | None = None,
    max_actions: int = MAX_ACTIONS,
    processes: int = 1,
) -> dict[str, Any]:
    """Play ``config.games`` games and return the figures (see ``docs/simulate.md``)."""
    tallies = {name: _Tally() for name in dict.fromkeys(config.policies)}
    endings: Counter[str] = Counter()
    actions_total = 0
    length_unit: str | None = None
    length_total = 0
    shared = 0
    started = time.perf_counter()
    for index, (result, actions) in enumerate(played_games(config, processes, max_actions)):
        names = seat_policies(config.policies, config.players, index)
        winners = list(result.get("winners") or [])
        scores = result.get("scores") or [0] * len(names)
        for seat, name in enumerate(names):
            tally = tallies[name]
            tally.seats += 1
            tally.score += scores[seat]
            if seat in winners:
                tally.wins += 1
                tally.share += 1 / len(winners)
        shared += len(winners) > 1
        endings[str(result.get("reason", "unknown"))] += 1
        actions_total += actions
        length = game_length(result)
        if length is not None:
            length_unit = length[0]
            length_total += length[1]
        if progress is not None:
            progress(index + 1, config.games)
    seconds = time.perf_counter() - started

    fair = 1 / config.players
    by_policy: dict[str, Any] = {}
    for name, tally in tallies.items():
        rate = tally.wins / tally.seats if tally.seats else None
        low, high = wilson(tally.wins, tally.seats) if tally.seats else (None, None)
        by_policy[name] = {
            "seats": tally.seats,
            "wins": tally.wins,
            "win_share": rounded(tally.share),
            "win_rate": rounded(rate),
            "ci95": [rounded(low), rounded(high)],
            "share_rate": rounded(tally.share / tally.seats) if tally.seats else None,
            "fair_share": rounded(fair),
            "mean_score": rounded(tally.score / tally.seats) if tally.seats else None,
        }
    return {
        "game": config.game_type,
        "players": config.players,
        "games": config.games,
        "seed": config.seed,
        "policies": list(config.policies),
        "options": config.options,
        "by_policy": by_policy,
        "overall": {
            "length_unit": length_unit,
            "mean_length": rounded(length_total / config.games) if length_unit else None,
            "mean_actions": rounded(actions_total / config.games),
            "shared_wins": shared,
            "endings": dict(sorted(endings.items())),
        },
        "timing": {
            "seconds": round(seconds, 3),
            "games_per_second": round(config.games / seconds, 1) if seconds > 0 else None,
        },
    }


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (no continuity correction)."""
    if trials <= 0:
        raise ValueError("trials must be positive")
    if not 0 <= successes <= trials:
        raise ValueError("successes must be between 0 and trials")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


# --- output ----------------------------------------------------------------------------------


def format_table(figures: dict[str, Any]) -> str:
    """The figures as a plain-text table."""
    title = get_game(figures["game"]).title
    lines = [
        f"{title} ({figures['game']}): {figures['players']} players, {figures['games']} games, "
        f"seed {figures['seed']}, policies {','.join(figures['policies'])} (rotating seats)"
    ]
    if figures["options"]:
        lines.append(f"options: {json.dumps(figures['options'], sort_keys=True)}")
    lines.append("")
    width = max(10, *(len(name) for name in figures["by_policy"]))
    header = (
        f"{'policy':<{width}} {'seats':>7} {'wins':>7} {'win rate':>9} {'95% CI':>17} "
        f"{'win share':>10} {'share %':>8} {'fair':>6} {'mean score':>11}"
    )
    lines += [header, "-" * len(header)]
    for name, row in figures["by_policy"].items():
        if row["seats"]:
            low, high = row["ci95"]
            ci = f"[{percent(low)}, {percent(high)}]"
            rate, share_rate = percent(row["win_rate"]), percent(row["share_rate"])
            mean_score = f"{row['mean_score']:.2f}"
        else:
            ci = rate = share_rate = mean_score = "-"
        lines.append(
            f"{name:<{width}} {row['seats']:>7} {row['wins']:>7} {rate:>9} {ci:>17} "
            f"{row['win_share']:>10.1f} {share_rate:>8} {percent(row['fair_share']):>6} "
            f"{mean_score:>11}"
        )
    overall = figures["overall"]
    timing = figures["timing"]
    endings = ", ".join(f"{reason} {count}" for reason, count in overall["endings"].items())
    per_game = f"{overall['mean_actions']:.1f} actions"
    if overall["length_unit"]:
        per_game = f"{overall['mean_length']:.2f} {overall['length_unit']}, " + per_game
    speed = timing["games_per_second"]
    lines += [
        "",
        f"per game:    {per_game}",
        f"endings:     {endings}; shared wins: {overall['shared_wins']}",
        f"time:        {timing['seconds']:.2f} s, "
        f"{'-' if speed is None else f'{speed:.1f}'} games/s",
        "",
        "win rate: games won per seat played (a shared win counts for each winner); "
        "win share: 1/winners per win; fair: 1/players.",
    ]
    return "\n".join(lines)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


class Progress:
    """``\\r  312/1000 games`` on a terminal, at most ten updates a second."""

    def __init__(self, stream: TextIO, interval: float = 0.1):
        self.stream = stream
        self.interval = interval
        self.last = 0.0
        self.width = 0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < self.interval:
            return
        self.last = now
        text = f"\r  {done:>{len(str(total))}}/{total} games"
        self.width = max(self.width, len(text))
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


# --- the command -----------------------------------------------------------------------------


def main(args: argparse.Namespace) -> int:
    """``cardroom simulate`` (arguments from ``cardroom.serve.cli``): 0, 1 on failure, 2 on
    misuse."""
    try:
        config = make_config(
            args.game, args.players, args.policies, args.games, args.seed, args.options
        )
    except UsageError as error:
        print(f"cardroom simulate: error: {error}", file=sys.stderr)
        return 2
    if args.processes < 1:
        print("cardroom simulate: error: --processes must be at least 1", file=sys.stderr)
        return 2
    progress = None
    if not args.no_progress and sys.stderr.isatty():
        progress = Progress(sys.stderr)
    try:
        figures = run(config, progress, processes=args.processes)
    except SimulationError as error:
        print(f"cardroom simulate: error: {error}", file=sys.stderr)
        return 1
    finally:
        if progress is not None:
            progress.close()
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        print(format_table(figures))
    return 0
