"""The `cardroom` command: serve, openapi (and more, see --help)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

from cardroom.serve.serve_config import (
    GUNICORN_CONFIG as GUNICORN_CONFIG,  # tests and tools name it
)


def serve(args: argparse.Namespace) -> int:
    """Run gunicorn with the shared config; without REDIS_URL, an embedded Redis first."""
    from cardroom.serve.supervise import Supervisor

    return Supervisor(args).run()


def openapi(args: argparse.Namespace) -> int:
    """Print (or write) the OpenAPI document that the app serves."""
    text = spec_text()
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def spec_text() -> str:
    from cardroom.config import Settings
    from cardroom.serve.app import create_app

    # The spec needs no Redis: the client connects lazily and is never used here.
    app = create_app(Settings.from_env(redis_url="redis://127.0.0.1:1/0"))
    with app.test_client() as client:
        spec = client.get("/openapi.json").get_json()
    return json.dumps(spec, indent=2, sort_keys=True) + "\n"


def simulate(args: argparse.Namespace) -> int:
    """Play bot policies against each other in-process and print their win rates."""
    from cardroom.simulate import main as simulate_main

    return simulate_main(args)


def ladder(args: argparse.Namespace) -> int:
    """Play a round robin of bot policies (and an SDK bot) and print their ratings."""
    from cardroom.ladder import main as ladder_main

    return ladder_main(args)


def healthcheck(args: argparse.Namespace) -> int:
    """Exit 0 if the server on this machine answers /healthz with 200, else 1 (for the
    image's HEALTHCHECK): the port comes from CARDROOM_BIND, as gunicorn's does."""
    port = args.port or bind_port(os.environ.get("CARDROOM_BIND", "127.0.0.1:8000"))
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=args.timeout):
            return 0
    except (OSError, urllib.error.URLError) as error:
        print(f"cardroom: unhealthy: {error}", file=sys.stderr)
        return 1


def bind_port(bind: str) -> int:
    """The port of a gunicorn bind address (``host:port``, ``[v6]:port``, ``:port``; the
    first of several, comma-separated)."""
    first = bind.split(",")[0]
    return int(first.rsplit(":", 1)[1]) if ":" in first else 8000


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardroom", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("serve", help="run the server (gunicorn)")
    run.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on; 0.0.0.0 for every interface (default: %(default)s)",
    )
    run.add_argument(
        "--port",
        type=int,
        default=8000,
        help="the port to listen on; 0 takes a free one and prints it (default: %(default)s)",
    )
    run.add_argument(
        "--data-dir",
        default="data",
        help="the folder of the embedded Redis's data, used when REDIS_URL is not set"
        " (default: %(default)s, in the current folder)",
    )
    run.add_argument(
        "--workers",
        type=int,
        default=None,
        help="how many gunicorn worker processes to run (default: CARDROOM_WORKERS, or 2)",
    )
    run.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        help="also serve /metrics on this port of --host"
        " (default: none, unless CARDROOM_METRICS_BIND names an address)",
    )
    run.add_argument(
        "--redis-maxmemory",
        default=os.environ.get("CARDROOM_REDIS_MAXMEMORY") or "512mb",
        help="the embedded Redis's memory ceiling"
        " (default: %(default)s; CARDROOM_REDIS_MAXMEMORY sets it too)",
    )
    run.add_argument(
        "--appendfsync",
        choices=("everysec", "always"),
        default=os.environ.get("CARDROOM_REDIS_APPENDFSYNC") or "everysec",
        help="when the embedded Redis syncs its append-only file to disk: everysec (a host"
        " crash may lose the last second) or always (nothing lost, at a cost per write)"
        " (default: %(default)s; CARDROOM_REDIS_APPENDFSYNC sets it too)",
    )
    run.set_defaults(func=serve)

    check = commands.add_parser("healthcheck", help="exit 0 if this machine's server is healthy")
    check.add_argument(
        "--port",
        type=int,
        default=None,
        help="the port of the server to ask (default: the port of CARDROOM_BIND, or 8000)",
    )
    check.add_argument(
        "--timeout",
        type=float,
        default=2.0,
        help="seconds to wait for the answer (default: %(default)s)",
    )
    check.set_defaults(func=healthcheck)

    spec = commands.add_parser("openapi", help="print the OpenAPI document")
    spec.add_argument(
        "--output",
        "-o",
        help="write the document to this file (default: print it)",
    )
    spec.set_defaults(func=openapi)

    games = commands.add_parser(
        "games",
        help="list the games this server would serve, and any game package it refuses"
        " (exit 1 if one is refused)",
    )
    games.set_defaults(func=list_games)

    sim = commands.add_parser(
        "simulate", help="play bot policies against each other in-process (see docs/simulate.md)"
    )
    sim.add_argument(
        "--game",
        required=True,
        help="the game type to play, as `cardroom games` lists them (required)",
    )
    sim.add_argument(
        "--players",
        type=int,
        default=None,
        help="players per game (default: 4, or the nearest number the game allows)",
    )
    sim.add_argument(
        "--policies",
        default=None,
        help="the bot policies, comma-separated: cycled over the seats and rotated between"
        " games (default: the game's own first policy, and random)",
    )
    sim.add_argument(
        "--games", type=int, default=1000, help="how many games to play (default: %(default)s)"
    )
    sim.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the seed of the whole run: the same seed gives the same figures"
        " (default: %(default)s)",
    )
    sim.add_argument(
        "--options",
        default=None,
        help='game options as a JSON object, e.g. \'{"mode": "irresponsible"}\''
        " (default: none, every option at its own default)",
    )
    sim.add_argument(
        "--processes",
        type=int,
        default=1,
        help="play games in this many processes at once: the figures do not change, only the"
        " time they take (default: %(default)s)",
    )
    sim.add_argument(
        "--json",
        action="store_true",
        help="print the figures as one JSON object (default: a table)",
    )
    sim.add_argument(
        "--no-progress",
        action="store_true",
        help="hide the progress line (default: shown on stderr when it is a terminal)",
    )
    sim.set_defaults(func=simulate)

    rank = commands.add_parser(
        "ladder",
        help="rate bot policies (and a bot written with the SDK) in a round robin"
        " (see docs/bots.md)",
    )
    rank.add_argument(
        "--game",
        required=True,
        help="the game type to play, as `cardroom games` lists them (required)",
    )
    rank.add_argument(
        "--players",
        type=int,
        default=None,
        help="players per game (default: 4, or the nearest number the game allows)",
    )
    rank.add_argument(
        "--policies",
        default=None,
        help="the bot policies to rate, comma-separated, each named once"
        " (default: every bot policy of the game)",
    )
    rank.add_argument(
        "--games",
        type=int,
        default=240,
        help="how many games to play in all; a whole number of the round robin's cycles"
        " keeps seats and opponents even (default: %(default)s)",
    )
    rank.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the seed of the whole run: the same seed gives the same ratings"
        " (default: %(default)s)",
    )
    rank.add_argument(
        "--options",
        default=None,
        help="game options as a JSON object (default: none, every option at its own default)",
    )
    rank.add_argument(
        "--processes",
        type=int,
        default=1,
        help="play the in-process games in this many processes at once: the ratings do not"
        " change, only the time they take (default: %(default)s)",
    )
    rank.add_argument(
        "--server",
        default=None,
        help="the cardroom server on which the entrant's games are played, e.g."
        " http://127.0.0.1:8000, given with --entrant (default: none)",
    )
    rank.add_argument(
        "--entrant",
        default=None,
        help="a bot written with the SDK to rate with the policies: package.module:Class (a"
        " cardroom_sdk.Bot subclass, importable from the current directory or PYTHONPATH), or"
        " the SDK's random or eager, given with --server (default: none)",
    )
    rank.add_argument(
        "--game-timeout",
        type=float,
        default=600.0,
        help="seconds an entrant's game may take on the server before the run fails"
        " (default: %(default)s)",
    )
    rank.add_argument(
        "--json",
        action="store_true",
        help="print the figures as one JSON object (default: a table)",
    )
    rank.add_argument(
        "--no-progress",
        action="store_true",
        help="hide the progress line (default: shown on stderr when it is a terminal)",
    )
    rank.set_defaults(func=ladder)
    return parser


def list_games(args: argparse.Namespace) -> int:
    from cardroom.registry import installed, refused

    for game_type, entry in installed().items():
        print(f"{game_type}  {entry.game.title}  (package {entry.package} {entry.version})")
    for refusal in refused():
        print(
            f"refused: {refusal.game_type} (package {refusal.package} {refusal.version}):"
            f" {refusal.reason}"
        )
    return 1 if refused() else 0


def main(argv: list[str] | None = None) -> int:
    try:
        try:
            args = build_parser().parse_args(argv)
            return int(args.func(args) or 0)
        finally:
            sys.stdout.flush()  # a reader that left shows here, where it can be caught
    except BrokenPipeError:
        # The output's reader has gone (`| head`): stop quietly, as the signal module's "Note
        # on SIGPIPE" advises. Python flushes stdout again on exit: point it at /dev/null.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
