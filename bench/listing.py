"""python -m bench.listing [--games 10000,100000] [--stores single,cluster] [--pages 30]

What a page of ``GET /v1/games`` costs as the store grows, on one Redis and on a
three-master Redis Cluster: the store is filled with copies (DUMP/RESTORE) of real 4-player
games, half of them halfway through and half finished, each with its index entry in its
bucket (as the create script writes it), then pages are read in-process (the WSGI app, as
gunicorn calls it) and Redis's own counters are read around them. Three kinds of page:

- ``newest``: the first page, 20 games, no filter;
- ``deep``: 20 games after a cursor half way down the index;
- ``filter miss``: ``status=waiting``, which no stored game has: the page reads the most a
  page may (1,000 index entries and their games) and finds nothing, the worst case.

For each: the median wall time, Redis commands, Redis CPU (µs, summed over every node) and
bytes of replies per page. The index's memory per game is printed too. See
docs/operations.md, "What a listing costs", for the figures and their extrapolation.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from bench import launch, plans
from bench.report import log
from cardroom.config import Settings
from cardroom.serve.app import create_app
from cardroom.store import buckets
from cardroom.store.connection import plain_client
from cardroom.store.listing import index_key

PAGES = {
    "newest": "/v1/games?limit=20",
    "deep": "/v1/games?limit=20&cursor={middle}",
    "filter miss": "/v1/games?limit=20&status=waiting",
}


def nodes_of(client: Any) -> list[redis.Redis]:
    if isinstance(client, redis.RedisCluster):
        return [client.get_redis_connection(node) for node in client.get_primaries()]
    return [client]


def counters(client: Any) -> tuple[int, float, int]:
    """(commands, CPU µs, reply bytes) so far, summed over every node."""
    calls = usec = out = 0
    for node in nodes_of(client):
        for row in node.info("commandstats").values():
            calls += row["calls"]
            usec += row["usec"]
        out += node.info("stats")["total_net_output_bytes"]
    return calls, usec, out


def measure(url: str, client: Any, pages: int) -> dict[str, Any]:
    app = create_app(Settings.from_env(redis_url=url, kept_games=0))
    http = app.test_client()
    http.get("/v1/games?limit=20")  # warm the app up
    first = http.get("/v1/games?limit=100").get_json()
    cursor = first["next_cursor"]
    for _ in range(plans.index_count(client) // 200):  # half way down, 100 games a page
        cursor = http.get(f"/v1/games?limit=100&cursor={cursor}").get_json()["next_cursor"]
    out: dict[str, Any] = {}
    for name, template in PAGES.items():
        path = template.format(middle=cursor)
        walls: list[float] = []
        before = counters(client)
        for _ in range(pages):
            started = time.perf_counter()
            response = http.get(path)
            walls.append(time.perf_counter() - started)
            assert response.status_code == 200, response.get_data(as_text=True)
        after = counters(client)
        # INFO itself is a command: the two INFO calls per node between the snapshots.
        info_calls = 2 * len(nodes_of(client))
        out[name] = {
            "wall_ms": statistics.median(walls) * 1000,
            "commands": (after[0] - before[0] - info_calls) / pages,
            "redis_us": (after[1] - before[1]) / pages,
            "reply_bytes": (after[2] - before[2]) / pages,
            "games": len(response.get_json()["games"]),
        }
    memory = sum(
        client.memory_usage(index_key(bucket), samples=0) or 0 for bucket in range(buckets.BUCKETS)
    )
    out["index_bytes_per_game"] = memory / max(1, plans.index_count(client))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.listing", description=__doc__)
    parser.add_argument("--games", default="10000,100000", help="store sizes, ascending")
    parser.add_argument("--stores", default="single,cluster", help="single, cluster or both")
    parser.add_argument("--pages", type=int, default=30, help="pages measured per kind")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.games.split(",")]
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="cardroom-listing-") as scratch:
        for store in args.stores.split(","):
            started: Any = (
                launch.start_redis(Path(scratch) / "single")
                if store == "single"
                else launch.start_cluster(Path(scratch) / "cluster")
            )
            try:
                client = plain_client(started.url, socket_timeout=600)
                dumps = plans.stored_templates(started.url, client, ("mr-toast",), 8, 90_000)
                for size in sizes:
                    # older than the games of the templates; kept a week
                    first_ms = int(time.time() * 1000) - 10_000_000
                    week_ms = 7 * 24 * 3600 * 1000
                    took = plans.fill_store(client, dumps, size, week_ms, first_ms, batch=1000)
                    stored = plans.index_count(client)
                    log(f"{store}: {stored:,} games stored ({took:.0f} s to fill)")
                    figures = measure(started.url, client, args.pages)
                    for name in PAGES:
                        page = figures[name]
                        rows.append(
                            [
                                store,
                                f"{size:,}",
                                name,
                                str(page["games"]),
                                f"{page['wall_ms']:.1f}",
                                f"{page['commands']:.0f}",
                                f"{page['redis_us']:,.0f}",
                                f"{page['reply_bytes'] / 1024:,.0f}",
                                f"{figures['index_bytes_per_game']:.0f}",
                            ]
                        )
                client.close()
            finally:
                started.stop()
    headers = [
        "store",
        "games",
        "page",
        "listed",
        "wall ms",
        "redis cmds",
        "redis µs",
        "reply KiB",
        "index B/game",
    ]
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]
    for index, row in enumerate([headers, *rows]):
        print("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths, strict=True)))
        if index == 0:
            print("  ".join("-" * width for width in widths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
