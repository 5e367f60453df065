"""Limits on what a client may send: hostile JSON bodies, and the pace of creates and joins.

- Bodies over ``max_body_bytes`` get 413 (Flask's MAX_CONTENT_LENGTH, set in create_app).
- A JSON body must be real JSON (no NaN or Infinity, no number beyond a float or of more than
  4300 digits) nested at most MAX_JSON_DEPTH levels; else 400 ``malformed-json`` before any
  handler runs. Without this, a 64 KiB body of ``[`` would end in a RecursionError (500).
- ``POST /v1/games`` and ``POST /v1/games/{id}/join`` are rate limited per client IP
  (the ``limits`` library, fixed windows counted in Redis: every API process shares them;
  on a Redis Cluster, its cluster storage). A client over the limit gets 429
  ``rate-limited`` with ``Retry-After``.
"""

from __future__ import annotations

import functools
import json
import math
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, request
from limits import parse_many
from limits.storage import Storage
from limits.strategies import FixedWindowRateLimiter
from werkzeug.middleware.proxy_fix import ProxyFix

from cardroom.api.problems import problem
from cardroom.config import Settings
from cardroom.table import Tables

MAX_JSON_DEPTH = 16
# What a hostile number needs: NaN/Infinity, hundreds of digits, or a 3-digit exponent.
_SUSPECT_NUMBER = re.compile(rb"NaN|Infinity|[0-9]{300}|[eE][+-]?[0-9]{3}")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
RATE_LIMITED_ROUTES = {"create": "/v1/games", "join": "/v1/games/<game_id>/join"}
OFF = ("", "off", "none", "0")


# --- JSON bodies -------------------------------------------------------------------------------


def _not_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is out of range")
    return value


def json_depth(value: Any, stop_after: int = MAX_JSON_DEPTH) -> int:
    """How deep arrays and objects nest in ``value`` (a scalar: 0); stops past ``stop_after``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > stop_after:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def check_json_body() -> Response | None:
    """Refuse hostile JSON that the schema layer would choke on (see the module doc).

    An ordinary body costs a few µs: reading it and its content type (webargs needs both
    next, and finds them cached), two byte counts and one regex search; only a body with
    more than MAX_JSON_DEPTH brackets or a suspect number is parsed here.
    """
    current = request._get_current_object()  # type: ignore[attr-defined]
    if current.method not in _BODY_METHODS or not current.is_json:
        return None
    raw = current.get_data(cache=True)  # over MAX_CONTENT_LENGTH: 413
    if raw.count(b"[") + raw.count(b"{") <= MAX_JSON_DEPTH and not _SUSPECT_NUMBER.search(raw):
        return None  # cannot nest too deep nor hold a hostile number (nor can a blank body)
    try:
        value = json.loads(raw, parse_constant=_not_json_constant, parse_float=_finite_float)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None  # plain malformed JSON: the schema layer answers 400 as it always has
    except RecursionError:
        return _too_deep()
    except ValueError as error:
        return problem(400, "malformed-json", f"the body is not valid JSON: {error}")
    if json_depth(value) > MAX_JSON_DEPTH:
        return _too_deep()
    return None


def _too_deep() -> Response:
    return problem(
        400, "malformed-json", f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels"
    )


# --- rate limits -------------------------------------------------------------------------------


def limit_enabled(value: str) -> bool:
    return value.strip().lower() not in OFF


def storage_uri(settings: Settings) -> str:
    uri = settings.rate_limit_storage or settings.redis_url
    if uri.startswith("unix://"):
        return "redis+" + uri
    return uri


class RateLimiter:
    """Fixed-window limits per client address, counted in Redis by the ``limits`` library.

    Only the limited routes pay for it: the check runs inside their view functions, not as
    a hook on every request (flask-limiter's hooks cost ~75 µs on each view and action).
    The storage is made on the first check: a cluster's connects as it is made, and the
    server must start (and answer 503) while its Redis is down (``Tables.counter_storage``).
    """

    def __init__(self, storage: Callable[[], Storage], wanted: dict[str, str]):
        self._storage = storage
        self._strategy: FixedWindowRateLimiter | None = None
        self._lock = threading.Lock()
        self.limits = {route: parse_many(limit) for route, limit in wanted.items()}

    @property
    def strategy(self) -> FixedWindowRateLimiter:
        if self._strategy is None:
            with self._lock:
                if self._strategy is None:
                    self._strategy = FixedWindowRateLimiter(self._storage())
        return self._strategy

    def check(self, route: str) -> Response | None:
        client = request.remote_addr or "unknown"
        for item in self.limits[route]:
            if not self.strategy.hit(item, "cardroom", route, client):
                reset = self.strategy.get_window_stats(item, "cardroom", route, client).reset_time
                retry_after = min(item.get_expiry(), max(1, math.ceil(reset - time.time())))
                return problem(
                    429,
                    "rate-limited",
                    f"too many requests from your address: at most {item}; "
                    "retry after Retry-After seconds",
                    headers={"Retry-After": str(retry_after)},
                )
        return None


def init_app(app: Flask, settings: Settings) -> RateLimiter | None:
    """Install the body guard and the rate limits; call after the blueprints are registered."""
    if settings.trusted_proxies > 0:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=settings.trusted_proxies
        )
    app.before_request(check_json_body)

    wanted = {
        route: limit
        for name, route in RATE_LIMITED_ROUTES.items()
        if limit_enabled(limit := getattr(settings, f"rate_limit_{name}"))
    }
    if not wanted:
        return None
    for limit in wanted.values():
        parse_many(limit)  # a typo in a setting fails at start, not on the first request
    tables: Tables = app.extensions["cardroom.tables"]
    # Counted in the game store's Redis, on its connection pool, unless RATE_LIMIT_STORAGE
    # names another Redis.
    storage = tables.counter_storage(
        storage_uri(settings),
        pool_size=settings.redis_pool_size,
        socket_timeout=settings.redis_socket_timeout,
        shared=not settings.rate_limit_storage,
    )
    limiter = RateLimiter(storage, wanted)
    endpoints = {
        rule.rule: rule.endpoint
        for rule in app.url_map.iter_rules()
        if rule.rule in wanted and "POST" in (rule.methods or ())
    }
    for route in wanted:
        endpoint = endpoints[route]
        app.view_functions[endpoint] = _limited(limiter, route, app.view_functions[endpoint])
    app.extensions["cardroom.limiter"] = limiter
    return limiter


def _limited(limiter: RateLimiter, route: str, view: Any) -> Any:
    @functools.wraps(view)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if request.method == "POST":
            refused = limiter.check(route)
            if refused is not None:
                return refused
        return view(*args, **kwargs)

    return checked
