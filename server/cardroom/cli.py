"""The `cardroom` command: serve, openapi (and more, see --help)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

GUNICORN_CONFIG = "python:cardroom.gunicorn_conf"


def serve(args: argparse.Namespace) -> int:
    """Run gunicorn with the shared config; without REDIS_URL, an embedded Redis first."""
    from cardroom.store.embedded import EmbeddedRedis

    env = dict(os.environ)
    env["CARDROOM_BIND"] = f"{args.host}:{args.port}"
    if args.workers:
        env["CARDROOM_WORKERS"] = str(args.workers)
    embedded = None
    if not env.get("REDIS_URL"):
        embedded = EmbeddedRedis(args.data_dir).start()
        env["REDIS_URL"] = embedded.url
        print(
            f"cardroom: embedded Redis at {embedded.url}, data in {embedded.data_dir}", flush=True
        )
    print(f"cardroom: serving on http://{args.host}:{args.port} (docs at /docs)", flush=True)
    command = [sys.executable, "-m", "gunicorn", "--config", GUNICORN_CONFIG]
    server = subprocess.Popen(command, env=env)

    def forward(signum: int, _frame: object) -> None:
        server.send_signal(signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, forward)
    try:
        return server.wait()
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait()
        if embedded is not None:
            embedded.stop()


def openapi(args: argparse.Namespace) -> int:
    """Print (or write) the OpenAPI document that the app serves."""
    text = spec_text()
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def spec_text() -> str:
    from cardroom.app import create_app
    from cardroom.config import Settings

    # The spec needs no Redis: the client connects lazily and is never used here.
    app = create_app(Settings.from_env(redis_url="redis://127.0.0.1:1/0"))
    with app.test_client() as client:
        spec = client.get("/openapi.json").get_json()
    return json.dumps(spec, indent=2, sort_keys=True) + "\n"


def simulate(args: argparse.Namespace) -> int:
    """Play bot policies against each other in-process and print their win rates."""
    from cardroom.simulate import main as simulate_main

    return simulate_main(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardroom", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("serve", help="run the server (gunicorn)")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--data-dir", default="data", help="embedded Redis data (no REDIS_URL)")
    run.add_argument("--workers", type=int, default=None, help="gunicorn workers")
    run.set_defaults(func=serve)

    spec = commands.add_parser("openapi", help="print the OpenAPI document")
    spec.add_argument("--output", "-o", help="write to this file instead of stdout")
    spec.set_defaults(func=openapi)

    sim = commands.add_parser(
        "simulate", help="play bot policies against each other in-process (see docs/simulate.md)"
    )
    sim.add_argument("--game", required=True, help="game type, e.g. mr-toast or exact-plays")
    sim.add_argument(
        "--players", type=int, default=None, help="players per game (default: 4, or in range)"
    )
    sim.add_argument(
        "--policies",
        default="greedy,random",
        help="comma-separated policies, cycled over the seats and rotated between games",
    )
    sim.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    sim.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    sim.add_argument(
        "--options", default=None, help='game options as JSON, e.g. \'{"mode": "exact"}\''
    )
    sim.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    sim.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    sim.set_defaults(func=simulate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
