"""The pooled Redis connections of ``cardroom.store.connection.make_client``: their ready
check asks the operating system without gevent (docs/architecture.md, "Redis connections"),
and still refuses to hand out a connection that has something to read or was closed."""

from __future__ import annotations

import time

import pytest
import redis

from cardroom.store.connection import make_client, parse_redis_url
from cardroom.store.embedded import EmbeddedRedis


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("redis://127.0.0.1:6379/0", redis.Connection),
        ("rediss://127.0.0.1:6379/0", redis.SSLConnection),
        ("unix:///tmp/cardroom-test.sock", redis.UnixDomainSocketConnection),
    ],
)
def test_the_pool_keeps_what_the_url_chose(url: str, base: type) -> None:
    made = make_client(parse_redis_url(url), pool_size=3, wait=0.5, socket_timeout=4)
    assert isinstance(made, redis.Redis)
    pool = made.connection_pool
    assert issubclass(pool.connection_class, base)
    assert (pool.max_connections, pool.timeout) == (3, 0.5)
    assert pool.connection_kwargs["socket_timeout"] == 4


def test_the_ready_check_sees_a_reply_waiting(redis_client: redis.Redis) -> None:
    """What redis-py's pool asks before handing a connection out (it drops one that has
    something to read, unless maintenance notifications are on: redis-py's choice)."""
    pool = redis_client.connection_pool
    connection = pool.get_connection()
    try:
        connection.send_command("PING")
        time.sleep(0.05)
        assert connection.can_read() is True
        assert connection.read_response() in (b"PONG", "PONG", True)
        assert connection.can_read() is False
    finally:
        pool.release(connection)


def test_a_connection_the_server_closed_is_replaced(
    redis_client: redis.Redis, single_redis: EmbeddedRedis
) -> None:
    pool = redis_client.connection_pool
    connection = pool.get_connection()
    connection.send_command("CLIENT", "ID")
    own_id = connection.read_response()
    pool.release(connection)
    other = redis.Redis.from_url(single_redis.url)
    other.execute_command("CLIENT", "KILL", "ID", own_id)
    other.close()
    time.sleep(0.05)
    assert redis_client.ping()  # on a new connection, not an error


def test_an_idle_connection_reads_as_having_nothing(redis_client: redis.Redis) -> None:
    pool = redis_client.connection_pool
    connection = pool.get_connection()
    try:
        assert connection.can_read() is False
        assert connection.can_read(timeout=0.01) is False  # a wait goes to redis-py's check
    finally:
        pool.release(connection)
