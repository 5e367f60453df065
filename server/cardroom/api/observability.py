"""Request ids, structured (JSON lines) logs and Prometheus metrics.

- Every request gets an id: the caller's ``X-Request-ID`` when it is sane (1-128 characters of
  ``A-Z a-z 0-9 . _ : -``), else a fresh one. It is returned in the ``X-Request-ID`` header, in
  problem details (``request_id``) and in every log line written while the request runs.
- One JSON line per request on the ``cardroom.access`` logger: method, route template (never
  the raw path or query), status, duration, request id, game id. Headers are never logged, so
  neither is a seat token.
- ``GET /metrics`` in the Prometheus text format. Under gunicorn the workers share their
  counters through ``PROMETHEUS_MULTIPROC_DIR`` (set up by ``cardroom.gunicorn_conf``), so any
  worker answers for all of them.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
import uuid
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

REQUEST_ID_HEADER = "X-Request-ID"
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

_RECORD_FIELDS = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and every `extra` field."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and not key.startswith("_"):
                line[key] = value
        if "request_id" not in line and has_request_context():
            request_id = g.get("request_id")
            if request_id:
                line["request_id"] = request_id
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, separators=(",", ":"))


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


def _start_request() -> None:
    g.request_started = time.perf_counter()
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    g.request_id = incoming if _SANE_REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex


def _route() -> str:
    rule = request.url_rule
    return rule.rule if rule is not None else UNMATCHED_ROUTE


def _finish_request(response: Response) -> Response:
    request_id = g.get("request_id")
    if request_id:
        response.headers[REQUEST_ID_HEADER] = request_id
    started = g.get("request_started")
    seconds = time.perf_counter() - started if started is not None else 0.0
    route = _route()
    method = request.method if request.method in _METHODS else "OTHER"
    status = response.status_code
    settings: Settings = g.get("cardroom_settings") or Settings()
    if settings.metrics:
        REQUESTS.labels(method=method, route=route, status=str(status)).inc()
        LATENCY.labels(method=method, route=route, status=str(status)).observe(seconds)
        accepted = g.get("accepted_game_type")  # set by the actions endpoint, replays aside
        if accepted is not None and status == 200:
            ACTIONS.labels(game_type=accepted).inc()
    if settings.request_log:
        view_args = request.view_args or {}
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
                "client": request.remote_addr,
            },
        )
    return response


def init_app(app: Flask, settings: Settings) -> None:
    configure_logging(settings.log_level)

    @app.before_request
    def start() -> None:
        g.cardroom_settings = settings
        _start_request()

    app.after_request(_finish_request)

    if settings.metrics:

        def metrics() -> Response:
            return Response(metrics_text(), headers={"Content-Type": CONTENT_TYPE_LATEST})

        app.add_url_rule("/metrics", "metrics", metrics, methods=["GET"])
