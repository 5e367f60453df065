"""``REDIS_URL``: one Redis or a Redis Cluster, and the redis-py clients cardroom uses on it.

- ``redis://[user:password@]host:port/db``, ``rediss://…`` (TLS), ``unix:///path.sock``: one
  Redis, through ``redis.Redis`` over a ``BlockingConnectionPool``.
- ``redis+cluster://[user:password@]host:port[,host:port…]`` and ``rediss+cluster://…``: a
  Redis Cluster, through ``redis.cluster.RedisCluster``. Any one reachable node is enough
  to find the others; listing several lets the server start while one is down. Query
  options (``?ssl_cert_reqs=none``, ``&socket_keepalive=true``…) apply to every node.

A URL that cannot work (unknown scheme, a port that is not a number, an option no
connection takes, a database other than 0 on a cluster) raises ``RedisURLError`` at start,
with one line that says what is wrong, never the password.

A cluster client is built lazily (``DeferredCluster``): redis-py's ``RedisCluster`` asks a
node for the slot map as it is built, so a worker that started while the cluster was down
would fail to boot. Deferred, the worker starts, answers 503 while no node answers (like a
single Redis that is down), and connects on the first request that finds one.
"""

from __future__ import annotations

import inspect
import os
import re
import select
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.commands.core import Script
from redis.retry import Retry

if TYPE_CHECKING:
    from limits.storage import Storage

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
SINGLE_SCHEMES = ("redis", "rediss", "unix")
SCHEMES_TEXT = "redis://, rediss://, unix://, redis+cluster:// or rediss+cluster://"
CONNECT_TIMEOUT = 2.0
HEALTH_CHECK_INTERVAL = 30
# Errors of a cluster client that are not redis.exceptions.RedisError (no reachable node,
# slots not covered): the API answers them with 503 as well.
CLUSTER_ERRORS = (redis.exceptions.RedisClusterException,)


class RedisURLError(ValueError):
    """REDIS_URL cannot work; the message is one line and never shows the password."""


@dataclass(frozen=True)
class RedisTarget:
    """What REDIS_URL names: one Redis (``url``) or a cluster (``nodes`` and the options
    every node connection takes: credentials, TLS, query options)."""

    url: str
    cluster: bool = False
    nodes: tuple[tuple[str, int], ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    tls: bool = False


def parse_redis_url(url: str) -> RedisTarget:
    url = url.strip()
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise RedisURLError(f"REDIS_URL must start with one of {SCHEMES_TEXT}")
    if scheme in SINGLE_SCHEMES:
        _check_single(url)
        return RedisTarget(url=url)
    if scheme not in CLUSTER_SCHEMES:
        raise RedisURLError(f"REDIS_URL has the unknown scheme {scheme!r}; use {SCHEMES_TEXT}")
    location, _, query = rest.partition("?")
    netloc, _, path = location.partition("/")
    if path.strip("/") not in ("", "0"):
        raise RedisURLError("REDIS_URL: a Redis Cluster has only database 0; drop the /db part")
    userinfo, _, hosts = netloc.rpartition("@")
    nodes = tuple(_host_port(item) for item in hosts.split(","))
    base = CLUSTER_SCHEMES[scheme]
    node_url = f"{base}://{userinfo + '@' if userinfo else ''}{_netloc(*nodes[0])}/"
    if query:
        node_url += f"?{query}"
    options = redis.connection.parse_url(node_url)
    for name in ("host", "port", "db"):
        options.pop(name, None)
    _check_options(options.get("connection_class", redis.Connection), options)
    return RedisTarget(url=url, cluster=True, nodes=nodes, options=options, tls=base == "rediss")


def _host_port(item: str) -> tuple[str, int]:
    item = item.strip()
    if item.startswith("["):  # [IPv6]:port
        host, _, port = item[1:].partition("]")
        port = port.removeprefix(":")
    else:
        host, _, port = item.rpartition(":") if ":" in item else (item, "", "")
    if not host:
        raise RedisURLError("REDIS_URL names a cluster node without a host")
    if port == "":
        return host, 6379
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise RedisURLError(f"REDIS_URL: the port of {host} is not a port number")
    return host, int(port)


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _check_single(url: str) -> None:
    try:
        pool = redis.BlockingConnectionPool.from_url(url)
    except ValueError as error:  # a bad port, a bad option value
        raise RedisURLError(f"REDIS_URL: {_without_secrets(str(error), url)}") from None
    _check_options(pool.connection_class, pool.connection_kwargs, single=True)


def _check_options(connection_class: type, options: dict[str, Any], single: bool = False) -> None:
    """Build a connection object (it connects only when used): an option it does not take
    fails here rather than on every request."""
    try:
        connection_class(**{k: v for k, v in options.items() if k != "connection_class"})
    except TypeError as error:
        found = re.search(r"keyword argument '(\w+)'", str(error))
        name = found.group(1) if found else "?"
        hint = ""
        if single and name == "cluster":
            hint = "; for a Redis Cluster use redis+cluster://host:port[,host:port…]"
        message = f"REDIS_URL has an option no connection takes: {name!r}{hint}"
        raise RedisURLError(message) from None


def _without_secrets(text: str, url: str) -> str:
    return text.replace(url, "REDIS_URL")


# --- the clients --------------------------------------------------------------------------


def no_retries() -> Retry:
    """Commands are not re-sent after an error (as for one Redis): a commit whose answer was
    lost may have been applied, and only its caller can tell (with its Idempotency-Key).
    MOVED, ASK and TRYAGAIN are still followed: those commands were not run."""
    return Retry(NoBackoff(), 0)


def make_client(
    target: RedisTarget, *, pool_size: int, wait: float, socket_timeout: float
) -> redis.Redis | DeferredCluster:
    """A client whose every pool (one per node for a cluster) holds at most ``pool_size``
    connections, waits up to ``wait`` s for a free one, and gives up a command after
    ``socket_timeout`` s."""
    if not target.cluster:
        parsed = redis.BlockingConnectionPool.from_url(
            target.url,
            socket_timeout=socket_timeout,
            socket_connect_timeout=CONNECT_TIMEOUT,
            health_check_interval=HEALTH_CHECK_INTERVAL,
        )
        return redis.Redis(
            connection_pool=redis.BlockingConnectionPool(
                connection_class=cheap_ready_check(
                    parsed.connection_class, parsed.connection_kwargs
                ),
                max_connections=pool_size,
                timeout=wait,
                **parsed.connection_kwargs,
            )
        )
    return DeferredCluster(
        lambda: cluster_client(
            target,
            connection_pool_class=redis.BlockingConnectionPool,
            max_connections=pool_size,
            timeout=wait,
            socket_timeout=socket_timeout,
        )
    )


def _os_poll() -> Callable[[], Any]:
    """``select.poll`` as the operating system gives it, also where gevent patched it."""
    from gevent import monkey

    return monkey.get_original("select", "poll")  # type: ignore[no-any-return]


OS_POLL = _os_poll()


class _CheapReadyCheck:
    """A pooled connection whose check on leaving the pool (is there anything to read on
    it?) asks the operating system directly (docs/architecture.md, "Redis connections").

    redis-py asks it before every command, through ``select.poll``; under gevent that is
    gevent's poll, which sets up watchers and runs the event loop once even when it may not
    wait: about 18 µs a command. Only a check that may not wait and finds nothing waiting
    on the socket is answered here; anything else (data, a closed socket) goes to
    redis-py's own check. What redis-py's parser has read and not yet returned is not
    looked at: a reply it has not returned is left only by a read that raised, and then
    redis-py drops the connection. (The turn of the event loop that gevent's poll gave
    each command is given once per HTTP request instead: ``cardroom.serve.arrival``.)

    ``_sock`` is redis-py's, not its public API ("Borrowed internals" on the same page):
    ``cheap_ready_check`` refuses a connection class without it, and
    tests/test_borrowed_internals.py fails if it stops being the connection's socket.
    """

    _sock: Any

    def can_read(self, timeout: float = 0) -> bool:
        if timeout != 0:
            return super().can_read(timeout)  # type: ignore[misc]
        sock = self._sock
        if sock is not None:
            pending = getattr(sock, "pending", None)  # TLS: bytes decrypted, not yet read
            if not (pending is not None and pending()):
                poller = OS_POLL()
                poller.register(sock, select.POLLIN)
                if not poller.poll(0):
                    return False
        return super().can_read(timeout)  # type: ignore[misc]


_CHEAP: dict[type, type] = {}


def cheap_ready_check(connection_class: type, connection_kwargs: dict[str, Any]) -> type:
    """``connection_class`` with the ready check of ``_CheapReadyCheck``; RuntimeError at
    start if redis-py's connection no longer has what that check relies on."""
    if connection_class not in _CHEAP:
        timeout = inspect.signature(connection_class.can_read).parameters.get("timeout")
        if timeout is None or timeout.default != 0:
            raise RuntimeError(
                f"redis-py's {connection_class.__name__}.can_read takes no timeout=0:"
                " this redis-py is not supported (docs/architecture.md, 'Borrowed internals')"
            )
        if not hasattr(connection_class(**connection_kwargs), "_sock"):
            raise RuntimeError(
                f"redis-py's {connection_class.__name__} has no _sock: this redis-py is not"
                " supported (docs/architecture.md, 'Borrowed internals')"
            )
        _CHEAP[connection_class] = type(
            connection_class.__name__, (_CheapReadyCheck, connection_class), {}
        )
    return _CHEAP[connection_class]


def cluster_client(target: RedisTarget, **options: Any) -> RedisCluster:
    """A ``RedisCluster`` over the target's nodes; connects to one at once."""
    first, *others = target.nodes
    scheme = "rediss" if target.tls else "redis"
    merged = {**target.options, **options}
    merged.pop("connection_class", None)  # the URL's scheme chooses it (TLS or not)
    merged.setdefault("socket_connect_timeout", CONNECT_TIMEOUT)
    return RedisCluster(
        # A URL makes redis-py build each node's pool from connection_pool_class (blocking).
        url=f"{scheme}://{_netloc(*first)}/0",
        startup_nodes=[ClusterNode(host, port) for host, port in others],
        require_full_coverage=False,  # serve the slots that are served
        retry=no_retries(),
        **merged,
    )


def plain_client(url: str, **options: Any) -> redis.Redis | RedisCluster:
    """A client for tools, tests and the benchmark: ``redis.Redis`` or ``RedisCluster``."""
    target = parse_redis_url(url)
    if target.cluster:
        return cluster_client(target, **options)
    return redis.Redis.from_url(target.url, **options)


class DeferredCluster:
    """A ``RedisCluster`` built on first use (see the module doc), then used directly.

    Until a node answers, every use raises ``redis.exceptions.ConnectionError``.
    """

    def __init__(self, build: Callable[[], RedisCluster]):
        self._build = build
        self._client: RedisCluster | None = None
        self._lock = threading.Lock()

    @property
    def client(self) -> RedisCluster:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    try:
                        self._client = self._build()
                    except CLUSTER_ERRORS as error:
                        raise redis.exceptions.ConnectionError(str(error)) from None
        return self._client

    def register_script(self, script: str) -> DeferredScript:
        return DeferredScript(self, script)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


class DeferredScript:
    """A Lua script of a ``DeferredCluster``, registered with its client (redis-py's
    ``register_script``) when first run, so that registering does not build the client."""

    def __init__(self, cluster: DeferredCluster, script: str):
        self.cluster = cluster
        self.script = script
        self._registered: Script | None = None

    def __call__(
        self, keys: Sequence[Any] = (), args: Sequence[Any] = (), client: Any = None
    ) -> Any:
        if self._registered is None:
            self._registered = self.cluster.client.register_script(self.script)
        return self._registered(keys=keys, args=args, client=client)


def is_cluster(client: Any) -> bool:
    return isinstance(client, DeferredCluster | RedisCluster)


def cluster_health(client: DeferredCluster | RedisCluster) -> dict[str, Any]:
    """``cluster_state`` (CLUSTER INFO) as every primary reports it, and how many answer.

    ``state`` is ``ok`` when every primary answers and says ``ok``; ``fail`` when one says
    ``fail``; ``degraded`` when one does not answer and the others say ``ok``. A primary that does
    not answer makes the client read the slot map again (a replica may have taken over), so
    the next check sees the cluster as it is now.
    """
    real = client.client if isinstance(client, DeferredCluster) else client
    primaries = real.get_primaries()
    states: list[str] = []
    for node in primaries:
        try:
            info = real.get_redis_connection(node).execute_command("CLUSTER INFO")
        except redis.exceptions.RedisError:
            continue
        states.append(str(info.get("cluster_state", "unknown")))
    if len(states) < len(primaries):
        real.nodes_manager.initialize()
    if "fail" in states:
        state = "fail"
    elif len(states) < len(primaries):
        state = "degraded"  # a primary does not answer; the others still say ok
    elif set(states) == {"ok"}:
        state = "ok"
    else:
        state = "unknown"
    return {"state": state, "primaries": len(primaries), "reachable": len(states)}


def limits_storage(
    target: RedisTarget, *, pool_size: int, socket_timeout: float
) -> tuple[str, dict[str, Any]]:
    """(URI, options) for the ``limits`` library's cluster storage on the same cluster, with
    the same credentials, TLS and timeouts (it builds a ``RedisCluster`` of its own)."""
    hosts = ",".join(_netloc(host, port) for host, port in target.nodes)
    options = dict(target.options)
    options.pop("connection_class", None)
    if target.tls:
        options["ssl"] = True
    options.update(
        max_connections=pool_size,
        socket_timeout=socket_timeout,
        socket_connect_timeout=CONNECT_TIMEOUT,
        require_full_coverage=False,
        retry=no_retries(),
    )
    return f"redis+cluster://{quote(hosts, safe=':,[]')}", options


def counter_storage(
    uri: str, *, pool_size: int, socket_timeout: float, sharing: Any = None
) -> Callable[[], Storage]:
    """The ``limits`` library's storage on ``uri`` (the rate limits' counters), as a function
    that gives it. On a Redis Cluster it is made on the first call, with the same credentials,
    TLS and timeouts (``limits_storage``): its client connects as it is made, and the server
    must start (and answer 503) while its Redis is down; a cluster's error then reads as a
    ConnectionError. On one Redis it is made now (a bad URI fails at start), on the
    connection pool of ``sharing`` if given (a client of the same Redis: the same timeouts
    and connection budget)."""
    from limits.storage import storage_from_string

    if uri.split("://")[0] in CLUSTER_SCHEMES:
        cluster_uri, options = limits_storage(
            parse_redis_url(uri), pool_size=pool_size, socket_timeout=socket_timeout
        )

        def connect() -> Storage:
            try:
                return storage_from_string(cluster_uri, **options)
            except CLUSTER_ERRORS as error:
                raise redis.exceptions.ConnectionError(str(error)) from None

        return connect
    shared = {} if sharing is None else {"connection_pool": sharing.connection_pool}
    storage = storage_from_string(uri, **shared)
    return lambda: storage


def main() -> None:
    """Check REDIS_URL (read from the environment, so a password never shows in a process
    list): one line on stderr and exit status 1 if it cannot work."""
    try:
        parse_redis_url(os.environ.get("REDIS_URL", ""))
    except RedisURLError as error:
        sys.exit(f"cardroom: {error}")
