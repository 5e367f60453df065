"""Instructions per move of one cardroom worker, counted by callgrind (bench/peer/README.md).

    .venv/bin/python -m bench.peer.instructions [--games 8] [--seconds 40] [--workers 1]
        [--server-env NAME=VALUE …] [--load-dir DIR]

runs one gunicorn worker (cardroom's production config) under ``valgrind --tool=callgrind``,
plays ``--games`` concurrent 4-player games on it with the peer bench's cardroom load
(``load-cardroom.js``: every seat as the SDK's ``Seat.play``), and prints the worker's
instructions per move over a window of ``--seconds`` (callgrind counts only inside the
window: ``callgrind_control`` switches it on and off). Instruction counts do not depend on
the machine's load, so two variants compare on a shared, noisy machine; the worker runs
about fifty times slower under valgrind, which only makes the window hold fewer moves. Only
user-space instructions of the worker are counted: not the kernel's work for its system
calls, and not Redis (another process). ``--workers N`` runs N workers and counts them
together (what a move costs when a game's sockets land on different workers, without the
scheduling noise that CPU time has when the processes outnumber the cores). ``--server-env``
sets the server's environment (``CARDROOM_KEPT_GAMES=0``, or
``PYTHONPATH=/path/to/other/server`` to measure other code); ``--load-dir`` runs another
``load-cardroom.js`` (with its ``load-common.js`` and a ``node_modules``), e.g. an older one
that follows games as an older SDK did.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import launch

BOOT_SECONDS = 600.0  # a worker under valgrind imports everything about fifty times slower
CALLGRIND = (
    "valgrind",
    "--tool=callgrind",
    "--trace-children=yes",
    "--instr-atstart=no",
    "--callgrind-out-file=/dev/null",
)


def _workers_of(master: int, count: int) -> list[int]:
    deadline = time.monotonic() + BOOT_SECONDS
    while time.monotonic() < deadline:
        children = subprocess.run(
            ["pgrep", "-P", str(master)], capture_output=True, text=True, check=False
        ).stdout.split()
        if len(children) >= count:
            return [int(child) for child in children[:count]]
        time.sleep(0.2)
    raise RuntimeError(f"gunicorn started fewer than {count} workers")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.peer.instructions", description=__doc__)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--load-dir", type=Path, default=launch.PEER_DIR)
    args = parser.parse_args(argv)
    for tool in ("valgrind", "callgrind_control", "node"):
        if shutil.which(tool) is None:
            print(f"bench.peer.instructions: skipped: {tool} is not installed")
            return 0
    launch.ensure_packages(lambda message: print(message, file=sys.stderr))
    server_env = {
        "CARDROOM_WORKERS": str(args.workers),
        "CARDROOM_WORKER_TIMEOUT": "900",
        "CARDROOM_RATE_LIMIT_CREATE": "off",
        "CARDROOM_RATE_LIMIT_JOIN": "off",
        **dict(item.split("=", 1) for item in args.server_env),
    }
    with tempfile.TemporaryDirectory(prefix="cardroom-instructions-") as scratch:
        store = launch.start_redis(Path(scratch) / "redis")
        server = load = None
        try:
            server = launch.start_gunicorn(
                store.url,
                log_path=Path(scratch) / "gunicorn.log",
                wrapper=CALLGRIND,
                boot_timeout=BOOT_SECONDS,
                **server_env,
            )
            workers = _workers_of(server.pid, args.workers)
            load = subprocess.Popen(
                ["node", "load-cardroom.js", "--url", server.url, "--games", str(args.games)],
                cwd=args.load_dir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert load.stdin is not None and load.stdout is not None
            while '"ready"' not in load.stdout.readline():
                if load.poll() is not None:
                    raise RuntimeError("the load client exited before its games were seated")
            time.sleep(5)  # warm: imports done, pools filled
            for worker in workers:
                launch.callgrind_counting(worker, on=True)
            before = sum(launch.callgrind_instructions(worker) for worker in workers)
            load.stdin.write("start\n")
            load.stdin.flush()
            time.sleep(args.seconds)
            load.stdin.write("stop\n")
            load.stdin.flush()
            after = sum(launch.callgrind_instructions(worker) for worker in workers)
            for worker in workers:
                launch.callgrind_counting(worker, on=False)
            result = next(json.loads(line) for line in load.stdout if '"event":"result"' in line)
        finally:
            if load is not None:
                if load.stdin is not None:
                    load.stdin.close()
                try:
                    load.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    load.kill()
            if server is not None:
                server.stop(timeout=60)
            store.stop()
    moves = max(1, result["moves"])
    print(
        f"{result['moves']} moves in {args.seconds:g} s under callgrind:"
        f" {(after - before) / moves:,.0f} instructions per move"
        f" ({args.workers} worker{'s' if args.workers != 1 else ''}, user space);"
        f" to server {result['to_server']}, from server {result['from_server']},"
        f" refused {result['refused']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
