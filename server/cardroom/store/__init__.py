"""Redis storage: connection setup and the game store."""

from __future__ import annotations

from cardroom.config import Settings
from cardroom.store.connection import RedisURLError, make_client, parse_redis_url
from cardroom.store.games import GameStore, Loaded
from cardroom.store.record import GameRecord, dump_json, hash_token, idempotency_key
from cardroom.store.writes import Answered, Conflict, Gone, OutcomeUnknown

__all__ = [
    "Answered",
    "Conflict",
    "GameRecord",
    "GameStore",
    "Gone",
    "Loaded",
    "OutcomeUnknown",
    "RedisURLError",
    "connect",
    "dump_json",
    "hash_token",
    "idempotency_key",
]


def connect(settings: Settings) -> GameStore:
    """A store over two clients sized for one worker's concurrency, on one Redis or a Redis
    Cluster (``REDIS_URL``, cardroom.store.connection).

    Ordinary commands use a short socket timeout, so an outage is noticed fast; event
    long-polls wait on a subscription (SUBSCRIBE) and use a client whose timeout outlasts the
    longest allowed wait. A REDIS_URL that cannot work raises RedisURLError.
    """
    if not settings.redis_url:
        raise RuntimeError("REDIS_URL is not set")
    target = parse_redis_url(settings.redis_url)
    client = make_client(
        target,
        pool_size=settings.redis_pool_size,
        wait=settings.redis_socket_timeout,
        socket_timeout=settings.redis_socket_timeout,
    )
    blocking = make_client(
        target,
        pool_size=settings.redis_pool_size,
        wait=settings.redis_socket_timeout,
        socket_timeout=settings.max_wait_seconds + 5,
    )
    return GameStore(
        client,
        blocking,
        ttl_seconds=settings.game_ttl_seconds,
        idempotency_ttl_seconds=settings.idempotency_ttl_seconds,
        kept_games=settings.kept_games,
        unjoined_ttl_seconds=settings.unjoined_game_ttl_seconds,
    )
