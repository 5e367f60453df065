"""The floor: the least a cardroom action could cost on this stack.

A bench-only Flask app, served by cardroom's own gunicorn config file (only the WSGI app is
overridden), against the same Redis with the same connection-pool settings. Each
``POST /floor/<key>`` does one GET and one SET of a blob the size of a real 4-player game
record (the bench measures one and passes it in ``BENCH_BLOB_FILE``) and answers a tiny JSON
object: the two Redis round trips of an action (load, compare-and-set), with no engine, no
schema and no JSON of the state. No real endpoint can be faster than this.

    python -m gunicorn --config python:cardroom.serve.gunicorn_conf 'bench.floor_app:create_app()'
"""

from __future__ import annotations

import os
from typing import Any

import redis
from flask import Flask

KEY_PREFIX = "bench:floor:"


def create_app() -> Flask:
    url = os.environ["REDIS_URL"]
    blob_file = os.environ.get("BENCH_BLOB_FILE")
    if blob_file:
        with open(blob_file, "rb") as handle:
            blob = handle.read()
    else:
        blob = b"x" * int(os.environ.get("BENCH_BLOB_BYTES", "1500"))
    pool_size = int(os.environ.get("CARDROOM_REDIS_POOL_SIZE", "64"))
    client = redis.Redis(
        connection_pool=redis.BlockingConnectionPool.from_url(
            url,
            max_connections=pool_size,
            timeout=5.0,
            socket_timeout=5.0,
            socket_connect_timeout=2.0,
            health_check_interval=30,
        )
    )
    app = Flask("floor")

    @app.post("/floor/<key>")
    def floor(key: str) -> Any:
        name = KEY_PREFIX + key
        old = client.get(name)
        client.set(name, blob)
        return {"ok": True, "had": len(old or b"")}

    @app.get("/healthz")
    def healthz() -> Any:
        client.ping()
        return {"status": "ok"}

    return app
