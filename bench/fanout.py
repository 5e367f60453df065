"""python -m bench.fanout [--masters 3] [--publishes 20000] [--bytes 1500]

What a PUBLISH costs a Redis Cluster's bus. Every write of a game publishes on the game's
channel (to wake long-polls), and a classic PUBLISH in a cluster goes to every other node
over the cluster bus, whichever node holds a subscriber. This starts a cluster of the
embedded redis-server, sends PUBLISHes to one node in a pipeline, and reads how many bytes
that node wrote (``wchar`` of /proc/<pid>/io, less its idle gossip and the replies to the
client) and how many bus messages it sent (CLUSTER INFO). ``--bytes``: the size of each
message (a change carries its write: about 1,000 to 1,500 bytes for a 4-player game). Linux
only.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import redis

from bench import launch
from cardroom.store.record import changes_channel


def written(pid: int) -> int:
    with open(f"/proc/{pid}/io") as handle:
        for line in handle:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    raise RuntimeError("no wchar in /proc/<pid>/io")


def published(client: redis.Redis) -> int:
    """Bus messages of PUBLISH the node has sent so far."""
    return int(client.execute_command("CLUSTER INFO").get("cluster_stats_messages_publish_sent", 0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fanout", description=__doc__)
    parser.add_argument("--masters", type=int, default=3)
    parser.add_argument("--publishes", type=int, default=20_000)
    parser.add_argument("--bytes", type=int, default=1500, help="size of each message")
    args = parser.parse_args(argv)
    with (
        tempfile.TemporaryDirectory(prefix="cardroom-fanout-") as scratch,
        launch.embedded_cluster(scratch, args.masters, appendonly=False) as cluster,
    ):
        node = cluster.nodes[0]
        client = node.client()
        time.sleep(1)
        before = written(node.process.pid)
        time.sleep(2)
        idle_per_s = (written(node.process.pid) - before) / 2
        sent_before = published(client)
        before, started = written(node.process.pid), time.monotonic()
        pipe = client.pipeline(transaction=False)
        for number in range(args.publishes):
            pipe.publish(changes_channel("abcdefghijkl"), str(number).ljust(args.bytes, "x"))
        pipe.execute()
        took = time.monotonic() - started
        replies = len(b":0\r\n") * args.publishes
        bus = written(node.process.pid) - before - idle_per_s * took - replies
        sent = published(client)
        client.close()
    others = args.masters - 1
    per_publish = bus / args.publishes
    print(
        f"{args.masters} nodes: each PUBLISH of {args.bytes:,} bytes sent"
        f" {(sent - sent_before) / args.publishes:.2f}"
        f" bus messages and {per_publish:,.0f} bytes ({per_publish / others:,.0f} bytes to each"
        f" of the {others} other nodes); idle gossip {idle_per_s:,.0f} bytes/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
