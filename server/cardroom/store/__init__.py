"""Redis storage: connection setup and the game store."""

from __future__ import annotations

import redis

from cardroom.config import Settings
from cardroom.store.games import (
    Answered,
    Conflict,
    GameRecord,
    GameStore,
    Gone,
    OutcomeUnknown,
)

__all__ = ["Answered", "Conflict", "GameRecord", "GameStore", "Gone", "OutcomeUnknown", "connect"]


def connect(settings: Settings) -> GameStore:
    """A store over two connection pools sized for one worker's concurrency.

    Ordinary commands use a short socket timeout, so an outage is noticed fast; event
    long-polls wait on a subscription (SUBSCRIBE) and use a pool whose timeout outlasts the
    longest allowed wait.
    """
    if not settings.redis_url:
        raise RuntimeError("REDIS_URL is not set")
    common = {"socket_connect_timeout": 2.0, "health_check_interval": 30}
    client = redis.Redis(
        connection_pool=redis.BlockingConnectionPool.from_url(
            settings.redis_url,
            max_connections=settings.redis_pool_size,
            timeout=settings.redis_socket_timeout,
            socket_timeout=settings.redis_socket_timeout,
            **common,
        )
    )
    blocking = redis.Redis(
        connection_pool=redis.BlockingConnectionPool.from_url(
            settings.redis_url,
            max_connections=settings.redis_pool_size,
            timeout=settings.redis_socket_timeout,
            socket_timeout=settings.max_wait_seconds + 5,
            **common,
        )
    )
    return GameStore(
        client,
        blocking,
        ttl_seconds=settings.game_ttl_seconds,
        idempotency_ttl_seconds=settings.idempotency_ttl_seconds,
        kept_games=settings.kept_games,
        unjoined_ttl_seconds=settings.unjoined_game_ttl_seconds,
    )
