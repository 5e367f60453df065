"""A gevent worker stays fair: each HTTP request lets the worker's other greenlets run
before the app does (cardroom/serve/arrival.py; docs/architecture.md, "Redis connections")."""

from __future__ import annotations

import subprocess
import sys

_SCRIPT = """
from gevent import monkey

monkey.patch_all()
import gevent

from cardroom.serve.arrival import ArrivalGuard

ran, seen_by_app = [], []


def app(environ, start_response):
    seen_by_app.append(list(ran))
    start_response("200 OK", [])
    return [b""]


guard = ArrivalGuard(app, timeout=1.0, max_body=1024)
gevent.spawn(ran.append, "other greenlet")
list(guard({"REQUEST_METHOD": "GET", "gunicorn.socket": object()}, lambda *args: None))
print(seen_by_app)
"""


def test_under_gevent_a_request_gives_the_other_greenlets_a_turn_before_the_app_runs():
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[['other greenlet']]"
