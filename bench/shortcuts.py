"""What each request-path shortcut into a library's private API is worth, in instructions.

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/dev/null \\
        .venv/bin/python -m bench.shortcuts VARIANT [REQUESTS]

runs REQUESTS (default 300) in-process requests through ``app.test_client()`` against an
embedded Redis and prints the instructions per request (Ir, counted by callgrind only
around the requests: ``callgrind_control`` switches counting on and off). Instruction counts
do not depend on the machine's load, so two variants compare on a shared, noisy machine.
Redis runs in its own process and is not counted. Variants (``python -m bench.shortcuts
--list``): ``view`` and ``summary`` and ``logged`` as the server is, and each with one
shortcut taken out (or, for the doc wrappers the operation marks replaced, put back).
Without valgrind it prints wall µs per request instead (noisy).
docs/benchmark-history.md, "Request-path shortcuts", has the figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from bench import launch
from cardroom.config import Settings
from cardroom.serve.app import CardroomFlask, create_app


def _without_json_provider() -> None:
    from flask.json.provider import DefaultJSONProvider

    CardroomFlask.json_provider_class = DefaultJSONProvider


def _with_doc_wrappers() -> None:
    """As before the operation marks: flask-smorest's doc-only decorators each wrap the view
    in a function that calls it through ``current_app.ensure_sync`` (6 layers on the view)."""
    from flask_smorest import Blueprint

    from cardroom.api import games

    view = games.GameView.get
    for _ in range(6):
        view = Blueprint.doc(summary="x")(view)
    games.GameView.get = view  # type: ignore[method-assign]


VARIANTS = {
    "view": ("view", None),
    "view-doc-wrappers": ("view", _with_doc_wrappers),
    "summary": ("summary", None),
    "summary-no-json-provider": ("summary", _without_json_provider),
    "problem": ("problem", None),
    "problem-no-json-provider": ("problem", _without_json_provider),
    "logged": ("logged", None),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.shortcuts", description=__doc__)
    parser.add_argument("variant", nargs="?", choices=sorted(VARIANTS))
    parser.add_argument("requests", nargs="?", type=int, default=300)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    if args.list or not args.variant:
        print("\n".join(sorted(VARIANTS)))
        return 0
    load, change = VARIANTS[args.variant]
    if change is not None:
        change()
    under_valgrind = _running_callgrind()
    with launch.embedded_redis(tempfile.mkdtemp(prefix="cardroom-shortcuts-")) as redis_server:
        log = "all" if load == "logged" else "errors"
        settings = Settings.from_env(redis_url=redis_server.url, request_log=log)
        app = create_app(settings)
        client = app.test_client()
        game = client.post("/v1/games", json={"game_type": "mr-toast", "players": 4}).get_json()
        token = ""
        for seat in range(4):
            joined = client.post(f"/v1/games/{game['id']}/join", json={"name": f"p{seat}"})
            token = token or joined.get_json()["token"]
        request = {
            "view": lambda: client.get(
                f"/v1/games/{game['id']}/view", headers={"Authorization": f"Bearer {token}"}
            ),
            "summary": lambda: client.get(f"/v1/games/{game['id']}"),
            "problem": lambda: client.get("/v1/games/nosuchgame"),
            "logged": lambda: client.get(
                f"/v1/games/{game['id']}/view", headers={"Authorization": f"Bearer {token}"}
            ),
        }[load]
        for _ in range(50):  # warm up: caches, kept games, first-call costs
            request()
        if under_valgrind:
            launch.callgrind_counting(os.getpid(), on=True)
            started = launch.callgrind_instructions(os.getpid())
            for _ in range(args.requests):
                request()
            ended = launch.callgrind_instructions(os.getpid())
            launch.callgrind_counting(os.getpid(), on=False)
            print(f"{args.variant}: {(ended - started) / args.requests:,.0f} Ir per request")
        else:
            started_s = time.perf_counter()
            for _ in range(args.requests):
                request()
            took = (time.perf_counter() - started_s) / args.requests * 1e6
            print(f"{args.variant}: {took:,.1f} µs per request (wall; noisy)")
    return 0


def _running_callgrind() -> bool:
    try:
        with open(f"/proc/{os.getpid()}/maps") as maps:
            return "vgpreload" in maps.read()
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
