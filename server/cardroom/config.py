"""Settings, read once from the environment; every one has a default (docs/operations.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw in (None, "") else int(raw)


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return default if raw in (None, "") else float(raw)


def _env_str(name: str, default: str) -> str:
    raw = os.environ.get(name)
    return default if raw in (None, "") else raw.strip()


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be on or off, not {raw!r}")


REQUEST_LOG_MODES = ("all", "errors", "off")


def _env_request_log(name: str, default: str) -> str:
    """all, errors or off; on/off and their synonyms (the old boolean) still work."""
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    value = raw.strip().lower()
    value = {"1": "all", "true": "all", "yes": "all", "on": "all"}.get(value, value)
    value = {"0": "off", "false": "off", "no": "off", "none": "off"}.get(value, value)
    if value not in REQUEST_LOG_MODES:
        raise ValueError(f"{name} must be all, errors or off, not {raw!r}")
    return value


@dataclass(frozen=True)
class Settings:
    redis_url: str = ""
    game_ttl_seconds: int = 7 * 24 * 3600
    # A game in which no person has taken a seat yet expires sooner.
    unjoined_game_ttl_seconds: int = 3600
    idempotency_ttl_seconds: int = 3600
    max_wait_seconds: float = 30.0
    max_body_bytes: int = 64 * 1024
    redis_pool_size: int = 64
    redis_socket_timeout: float = 5.0
    # Rate limits per client IP ("<count>/<second|minute|hour|day>", several joined by ";";
    # "off" disables). Counted in Redis, so every API process shares them.
    rate_limit_create: str = "600/minute"
    rate_limit_join: str = "1200/minute"
    # Where the rate-limit counters live: "" is REDIS_URL; "memory://" keeps them per process.
    rate_limit_storage: str = ""
    # Proxies in front of the API whose X-Forwarded-For is trusted to name the client IP.
    trusted_proxies: int = 0
    log_level: str = "info"
    # The access log: a line for every request ("all"), only for those answered 4xx/5xx or
    # slower than a second ("errors"), or none ("off").
    request_log: str = "errors"
    metrics: bool = True
    # Where /metrics is served: a second listening address (host:port) that serves only
    # /metrics and /healthz; "" serves /metrics nowhere (cardroom.serve.gunicorn_conf binds it).
    metrics_bind: str = ""
    # Bot play per request: at most this many bot actions and this many seconds; the rest
    # is continued by the next request or by the progression loop (cardroom.progress).
    bot_actions_per_request: int = 200
    bot_seconds_per_request: float = 0.05
    # Run the progression loop in every gunicorn worker.
    progression: bool = True
    # Run the thinking loop (bots that search, each worker's own deciding process) in every
    # gunicorn worker (cardroom.thinking).
    thinking: bool = True
    # A request body must arrive within this many seconds of its headers (else 408).
    body_timeout_seconds: float = 10.0
    # Games each process keeps as it last read or wrote them, so that the next action on one
    # skips its load (cardroom.store.recent); 0 turns this off.
    kept_games: int = 1024

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "redis_url": os.environ.get("REDIS_URL", ""),
            "game_ttl_seconds": _env_int("CARDROOM_GAME_TTL", cls.game_ttl_seconds),
            "unjoined_game_ttl_seconds": _env_int(
                "CARDROOM_UNJOINED_GAME_TTL", cls.unjoined_game_ttl_seconds
            ),
            "idempotency_ttl_seconds": _env_int(
                "CARDROOM_IDEMPOTENCY_TTL", cls.idempotency_ttl_seconds
            ),
            "max_wait_seconds": _env_float("CARDROOM_MAX_WAIT", cls.max_wait_seconds),
            "max_body_bytes": _env_int("CARDROOM_MAX_BODY_BYTES", cls.max_body_bytes),
            "redis_pool_size": _env_int("CARDROOM_REDIS_POOL_SIZE", cls.redis_pool_size),
            "redis_socket_timeout": _env_float(
                "CARDROOM_REDIS_SOCKET_TIMEOUT", cls.redis_socket_timeout
            ),
            "rate_limit_create": _env_str("CARDROOM_RATE_LIMIT_CREATE", cls.rate_limit_create),
            "rate_limit_join": _env_str("CARDROOM_RATE_LIMIT_JOIN", cls.rate_limit_join),
            "rate_limit_storage": _env_str("CARDROOM_RATE_LIMIT_STORAGE", cls.rate_limit_storage),
            "trusted_proxies": _env_int("CARDROOM_TRUSTED_PROXIES", cls.trusted_proxies),
            "log_level": _env_str("CARDROOM_LOG_LEVEL", cls.log_level),
            "request_log": _env_request_log("CARDROOM_REQUEST_LOG", cls.request_log),
            "metrics": _env_bool("CARDROOM_METRICS", cls.metrics),
            "metrics_bind": _env_str("CARDROOM_METRICS_BIND", cls.metrics_bind),
            "bot_actions_per_request": _env_int(
                "CARDROOM_BOT_ACTIONS_PER_REQUEST", cls.bot_actions_per_request
            ),
            "bot_seconds_per_request": _env_float(
                "CARDROOM_BOT_SECONDS_PER_REQUEST", cls.bot_seconds_per_request
            ),
            "progression": _env_bool("CARDROOM_PROGRESSION", cls.progression),
            "thinking": _env_bool("CARDROOM_THINKING", cls.thinking),
            "body_timeout_seconds": _env_float("CARDROOM_BODY_TIMEOUT", cls.body_timeout_seconds),
            "kept_games": _env_int("CARDROOM_KEPT_GAMES", cls.kept_games),
        }
        known = {f.name for f in fields(cls)}
        for key, value in overrides.items():
            if key not in known:
                raise TypeError(f"unknown setting {key!r}")
            values[key] = value
        settings = cls(**values)  # type: ignore[arg-type]
        if settings.bot_actions_per_request < 1:
            raise ValueError("CARDROOM_BOT_ACTIONS_PER_REQUEST must be at least 1")
        return settings
