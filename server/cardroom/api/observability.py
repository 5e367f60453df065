"""Request ids, structured (JSON lines) logs and Prometheus metrics.

- Every request gets an id: the caller's ``X-Request-ID`` when it is sane (1-128 characters of
  ``A-Z a-z 0-9 . _ : -``), else a fresh one. It is returned in the ``X-Request-ID`` header, in
  problem details (``request_id``) and in every log line written while the request runs.
- A JSON line per request on the ``cardroom.access`` logger (``CARDROOM_REQUEST_LOG``: every
  request, or by default only those answered 4xx/5xx or slower than ``SLOW``): method, route
  template (never the raw path or query), status, duration, request id, game id. Headers are
  never logged, so neither is a seat token.
- ``GET /metrics`` in the Prometheus text format, on its own listening address only
  (``CARDROOM_METRICS_BIND``, which gunicorn also binds): never on the API's port. That
  listener serves ``/metrics`` and ``/healthz``, nothing else. Under gunicorn the workers
  share their counters through ``PROMETHEUS_MULTIPROC_DIR`` (set up by
  ``cardroom.serve.gunicorn_conf``), so any worker answers for all of them.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from datetime import UTC, datetime
from typing import Any

from flask import Flask, Response, g, has_request_context, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

from cardroom.config import Settings
from cardroom.jsonbytes import orjson_if_stdlib

REQUEST_ID_HEADER = "X-Request-ID"
# A request this slow is logged under CARDROOM_REQUEST_LOG=errors too.
SLOW = 1.0
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
UNMATCHED_ROUTE = "<unmatched>"
_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

access_log = logging.getLogger("cardroom.access")

# --- metrics (module level: one set per process, whatever the number of apps) ---------------

REQUESTS = Counter(
    "cardroom_http_requests",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
)
LATENCY = Histogram(
    "cardroom_http_request_duration_seconds",
    "Time to produce the response (headers, for a stream), by method, route and status.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
ACTIONS = Counter(
    "cardroom_actions_accepted",
    "Actions accepted from clients (first answers, not idempotent replays), by game type.",
    ["game_type"],
)
REDIS_ERRORS = Counter(
    "cardroom_redis_errors",
    "Requests answered 503 because Redis failed, by error class.",
    ["error"],
)


def count_redis_error(error: BaseException) -> None:
    REDIS_ERRORS.labels(error=error.__class__.__name__).inc()


def metrics_text() -> bytes:
    """Every worker's metrics when PROMETHEUS_MULTIPROC_DIR is set, else this process's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)


# --- logs ----------------------------------------------------------------------------------

_RECORD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}
_LEVEL_NAMES = {name: name.lower() for name in logging.getLevelNamesMapping()}
_JSON_SAFE = frozenset({str, int, bool, type(None)})


class _Clock:
    """``datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")``, keeping the
    text up to the second from the previous call (a second holds many log lines)."""

    def __init__(self) -> None:
        self.last: tuple[int, str] = (-1, "")  # one tuple: replaced whole, safe across threads

    def iso(self, created: float) -> str:
        if created < 0:
            return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
        second = int(created)
        micros = round((created - second) * 1e6)  # as datetime rounds: half to even
        if micros >= 1_000_000:
            second += 1
            micros -= 1_000_000
        last_second, prefix = self.last
        if second != last_second:
            prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self.last = (second, prefix)
        return f"{prefix}.{micros // 1000:03d}+00:00"


def _json_line(line: dict[str, Any]) -> str:
    """``json.dumps(line, default=str, separators=(",", ":"))``; orjson when every value is
    a plain scalar, whose bytes are then the same (see cardroom.api.jsonio)."""
    for value in line.values():
        kind = type(value)
        if kind is float:
            if not (value == 0.0 or 1e-4 <= abs(value) < 1e16):  # NaN too
                break
        elif kind not in _JSON_SAFE:
            break
    else:
        out = orjson_if_stdlib(line)
        if out is not None:
            return out.decode()
    return json.dumps(line, default=str, separators=(",", ":"))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and every `extra` field."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clock = _Clock()

    def format(self, record: logging.LogRecord) -> str:
        level = record.levelname
        line: dict[str, Any] = {
            "ts": self._clock.iso(record.created),
            "level": _LEVEL_NAMES.get(level) or level.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _RECORD_FIELDS and key[:1] != "_":
                line[key] = value
        if "request_id" not in line and has_request_context():
            request_id = g.get("request_id")
            if request_id:
                line["request_id"] = request_id
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return _json_line(line)


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is at the time (test runners swap it).

    stderr, like gunicorn's own log: stdout stays clean for commands that print data
    (`cardroom openapi` builds the app to export the spec).
    """

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def configure_logging(level: str) -> None:
    """JSON lines on stderr for every `cardroom.*` logger (once per process)."""
    logger = logging.getLogger("cardroom")
    if not any(isinstance(handler, StderrHandler) for handler in logger.handlers):
        handler = StderrHandler()
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
    logger.setLevel(level.upper())


# --- the request hooks -----------------------------------------------------------------------

# Labelled metric children by (method, route, status): ``.labels(...)`` takes keyword
# arguments, a lock and a dict lookup on every call. As many entries as the metrics have series.
_request_metrics: dict[tuple[str, str, int], tuple[Any, Any]] = {}
_action_metrics: dict[str, Any] = {}


def _count_request(method: str, route: str, status: int, seconds: float) -> None:
    key = (method, route, status)
    children = _request_metrics.get(key)
    if children is None:
        labels = {"method": method, "route": route, "status": str(status)}
        children = _request_metrics[key] = (
            REQUESTS.labels(**labels),
            LATENCY.labels(**labels),
        )
    children[0].inc()
    children[1].observe(seconds)


def count_action(game_type: str) -> None:
    """An accepted action (api/actions.py counts it, for both transports)."""
    _count_action(game_type)


def _count_action(game_type: str) -> None:
    child = _action_metrics.get(game_type)
    if child is None:
        child = _action_metrics[game_type] = ACTIONS.labels(game_type=game_type)
    child.inc()


def _fresh_request_id() -> str:
    return os.urandom(16).hex()  # 32 hex digits, as uuid4().hex, for a quarter of its cost


def _start_request() -> None:
    state = g._get_current_object()  # one context lookup, not one per attribute
    state.request_started = time.perf_counter()
    incoming = request.environ.get("HTTP_X_REQUEST_ID")  # request.headers.get(REQUEST_ID_HEADER)
    if incoming is not None and _SANE_REQUEST_ID.fullmatch(incoming):
        state.request_id = incoming
    else:
        state.request_id = _fresh_request_id()


def _finish_request(response: Response, settings: Settings) -> Response:
    state = g._get_current_object()
    request_id = getattr(state, "request_id", None)
    if request_id:
        response.headers[REQUEST_ID_HEADER] = request_id
    started = getattr(state, "request_started", None)
    seconds = time.perf_counter() - started if started is not None else 0.0
    log_all = settings.request_log == "all"
    if not settings.metrics and settings.request_log == "off":
        return response
    current = request._get_current_object()  # type: ignore[attr-defined]
    rule = current.url_rule
    route = rule.rule if rule is not None else UNMATCHED_ROUTE
    method = current.method
    if method not in _METHODS:
        method = "OTHER"
    status = response.status_code
    if settings.metrics:
        _count_request(method, route, status, seconds)
    if (
        log_all or (settings.request_log == "errors" and (status >= 400 or seconds >= SLOW))
    ) and access_log.isEnabledFor(logging.INFO):
        view_args = current.view_args or {}
        access_log.info(
            "%s %s %s",
            method,
            route,
            status,
            extra={
                "method": method,
                "path": route,
                "status": status,
                "duration_ms": round(seconds * 1000, 2),
                "request_id": request_id,
                "game_id": view_args.get("game_id"),
                "client": current.remote_addr,
            },
        )
    return response


def init_app(app: Flask, settings: Settings) -> None:
    configure_logging(settings.log_level)

    app.before_request(_start_request)

    @app.after_request
    def finish(response: Response) -> Response:
        return _finish_request(response, settings)

    if settings.metrics and settings.metrics_bind:
        app.wsgi_app = MetricsListener(  # type: ignore[method-assign]
            app.wsgi_app, metrics_port(settings.metrics_bind)
        )


def metrics_port(bind: str) -> str:
    """The port of a ``host:port`` (``[v6]:port``) listening address."""
    host, _, port = bind.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"CARDROOM_METRICS_BIND must be host:port, not {bind!r}")
    return port


class MetricsListener:
    """WSGI: requests that came in on the metrics port get ``/metrics`` (and ``/healthz``,
    from the app); every other port gets the app, which has no ``/metrics``."""

    def __init__(self, app: Any, port: str):
        self.app = app
        self.port = port

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("SERVER_PORT") != self.port:
            return self.app(environ, start_response)
        path = environ.get("PATH_INFO")
        if path == "/healthz":
            return self.app(environ, start_response)
        if path == "/metrics" and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            body = metrics_text()
            headers = [("Content-Type", CONTENT_TYPE_LATEST), ("Content-Length", str(len(body)))]
            start_response("200 OK", headers)
            return [body]
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"only /metrics and /healthz here\n"]
