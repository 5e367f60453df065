"""``cardroom-bot``: play one seat of a game with a bot, from the command line.

::

    cardroom-bot --url http://127.0.0.1:8000 --game=GAME_ID --policy eager --verbose
    cardroom-bot --game=GAME_ID --token TOKEN --policy mypackage.mybots:CleverBot
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from cardroom_sdk.bot import load_bot, run_bot
from cardroom_sdk.client import Client
from cardroom_sdk.errors import CardroomError

__all__ = ["build_parser", "main"]

DEFAULT_URL = "http://127.0.0.1:8000"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardroom-bot",
        description="Join a cardroom game (or take over a seat you hold) and play it to the end "
        "with a bot.",
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("CARDROOM_URL", DEFAULT_URL),
        help="the server (default: $CARDROOM_URL or %(default)s)",
    )
    parser.add_argument(
        "--game", required=True, help="the game id (write --game=ID if it begins with '-')"
    )
    parser.add_argument("--seat", type=int, help="the seat to take (default: the lowest free)")
    parser.add_argument(
        "--token", help="play a seat already joined, with its token (instead of joining)"
    )
    parser.add_argument("--name", default="bot", help="the player name to join as")
    parser.add_argument(
        "--policy",
        default="eager",
        help="the SDK's random or eager bot, or package.module:Class (a cardroom_sdk.Bot "
        "subclass, importable from the current directory or PYTHONPATH); default: "
        "%(default)s. (The server's own policies, random and greedy, play the bot seats "
        "chosen when the game is created.)",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="HTTP timeout in seconds")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every move")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    if args.verbose:
        logging.getLogger("cardroom_sdk").setLevel(logging.INFO)
    if os.getcwd() not in sys.path:  # --policy mybots:MyBot finds ./mybots.py
        sys.path.insert(0, os.getcwd())
    try:
        bot = load_bot(args.policy)
    except (ImportError, AttributeError, TypeError, ValueError) as error:
        print(f"cardroom-bot: cannot load policy {args.policy!r}: {error}", file=sys.stderr)
        return 2
    try:
        with Client(args.url, timeout=args.timeout) as client:
            summary = run_bot(
                client, args.game, bot, name=args.name, seat=args.seat, token=args.token
            )
    except CardroomError as error:
        print(f"cardroom-bot: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    scores = ", ".join(map(str, summary.scores))
    print(
        f"game {summary.id} {summary.status}: winners {summary.winners}, scores [{scores}], "
        f"result {summary.result}"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
