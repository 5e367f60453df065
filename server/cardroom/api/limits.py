"""Limits on what a client may send: hostile JSON bodies, and the pace of creates and joins.

- Bodies over ``max_body_bytes`` get 413 (Flask's MAX_CONTENT_LENGTH, set in create_app).
- A JSON body must be real JSON (no NaN or Infinity, no number beyond a float or of more than
  4300 digits) nested at most MAX_JSON_DEPTH levels; else 400 ``malformed-json`` before any
  handler runs. Without this, a 64 KiB body of ``[`` would end in a RecursionError (500).
- ``POST /v1/games`` and ``POST /v1/games/{id}/join`` are rate limited per client IP
  (flask-limiter, fixed windows counted in Redis: every API process shares the counters).
  A client over the limit gets 429 ``rate-limited`` with ``Retry-After``.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

from flask import Flask, Response, request
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import parse_many
from werkzeug.middleware.proxy_fix import ProxyFix

from cardroom.api.problems import problem
from cardroom.config import Settings

MAX_JSON_DEPTH = 16
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
    """Refuse hostile JSON that the schema layer would choke on (see the module doc)."""
    if request.method not in ("POST", "PUT", "PATCH") or not request.is_json:
        return None
    raw = request.get_data(cache=True)  # over MAX_CONTENT_LENGTH: 413
    if not raw.strip():
        return None
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


def init_app(app: Flask, settings: Settings) -> Limiter | None:
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
    uri = storage_uri(settings)
    options: dict[str, Any] = {}
    store = app.extensions.get("cardroom.tables")
    if not settings.rate_limit_storage and store is not None:
        # The game store's pool: the same Redis, timeouts and connection budget.
        options["connection_pool"] = store.store.client.connection_pool
    limiter = Limiter(
        key_func=get_remote_address,
        app=app,
        storage_uri=uri,
        storage_options=options,
        strategy="fixed-window",
        key_prefix="cardroom",
        headers_enabled=False,
    )
    endpoints = {
        rule.rule: rule.endpoint
        for rule in app.url_map.iter_rules()
        if rule.rule in wanted and "POST" in (rule.methods or ())
    }
    for route, limit in wanted.items():
        endpoint = endpoints[route]
        app.view_functions[endpoint] = limiter.limit(limit, methods=["POST"])(
            app.view_functions[endpoint]
        )

    @app.errorhandler(RateLimitExceeded)
    def rate_limited(error: RateLimitExceeded) -> Response:
        window = error.limit.limit.get_expiry()
        retry_after = window
        current = limiter.current_limit
        if current is not None:
            retry_after = min(window, max(1, math.ceil(current.reset_at - time.time())))
        return problem(
            429,
            "rate-limited",
            f"too many requests from your address: at most {error.limit.limit}; "
            "retry after Retry-After seconds",
            headers={"Retry-After": str(retry_after)},
        )

    app.extensions["cardroom.limiter"] = limiter
    return limiter
