"""gunicorn settings (`--config python:cardroom.serve.gunicorn_conf`): used by `cardroom serve`,
the Dockerfile and the tests alike.

Every value can be changed through the environment (see docs/operations.md).
"""

import gc
import os
import shutil
import subprocess
import sys
import tempfile

# The API, and /metrics on an address of its own if CARDROOM_METRICS_BIND names one.
# CARDROOM_BIND may list several addresses, comma-separated (`cardroom serve` passes the
# sockets it bound itself: fd://N, with which gunicorn binds nothing else).
bind = os.environ.get("CARDROOM_BIND", "127.0.0.1:8000").split(",")
if os.environ.get("CARDROOM_METRICS_BIND"):
    bind.append(os.environ["CARDROOM_METRICS_BIND"])
# gevent: each worker holds up to worker_connections requests at once in greenlets, so
# thousands of clients can wait in event long-polls and streams without starving the others.
# cardroom's gevent worker also closes the longest-arriving connection past
# CARDROOM_MAX_ARRIVING (cardroom.serve.arrival: slow clients).
# CARDROOM_WORKER_CLASS=gthread runs threads instead (CARDROOM_THREADS per worker).
_WORKER_CLASSES = {"gevent": "cardroom.serve.arrival.GeventWorker"}
worker_class = os.environ.get("CARDROOM_WORKER_CLASS", "gevent")
_is_gevent = worker_class == "gevent"
worker_class = _WORKER_CLASSES.get(worker_class, worker_class)
workers = int(os.environ.get("CARDROOM_WORKERS", "2"))
worker_connections = int(os.environ.get("CARDROOM_WORKER_CONNECTIONS", "1000"))
threads = int(os.environ.get("CARDROOM_THREADS", "32"))
_concurrency = worker_connections if _is_gevent else threads
# Longer than the longest long-poll (CARDROOM_MAX_WAIT, 30 s by default).
timeout = int(os.environ.get("CARDROOM_WORKER_TIMEOUT", "60"))
graceful_timeout = 30
# Also the time a request's headers have to arrive in (the gevent worker reads them under it).
keepalive = 5
max_requests = int(os.environ.get("CARDROOM_MAX_REQUESTS", "0"))
max_requests_jitter = 100
accesslog = os.environ.get("CARDROOM_ACCESS_LOG", None)
errorlog = "-"
loglevel = os.environ.get("CARDROOM_LOG_LEVEL", "info")
wsgi_app = "cardroom.serve.app:create_app()"
# gunicorn 24+ opens a control socket at one path per user (~/.gunicorn/gunicorn.ctl), shared
# by every server that user runs; cardroom does not use it.
control_socket_disable = True
# Size each worker's Redis pools to its concurrency, unless the operator chose a size
# (connections open lazily: only as many as requests use at once).
_pool = os.environ.get("CARDROOM_REDIS_POOL_SIZE", str(_concurrency + 4))
raw_env = [f"CARDROOM_REDIS_POOL_SIZE={_pool}"]

# Prometheus metrics shared by the workers: each writes its counters to files in the folder
# PROMETHEUS_MULTIPROC_DIR names, and /metrics on any worker adds them all up. Unset: a private
# temporary folder named after the master's pid, removed on exit (and, should the master be
# killed, by the next server to start). Set here, in the master, before any worker is forked.
_METRICS_PREFIX = "cardroom-metrics-"
_own_metrics_dir: list[str] = []


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_orphaned_metrics_dirs():
    """Private folders of masters that are gone (killed before they could clean up)."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        pid = name[len(_METRICS_PREFIX) :].split("-", 1)[0]
        if name.startswith(_METRICS_PREFIX) and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def on_starting(server):
    _check_redis_url()
    metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
    if not metrics_dir:
        _remove_orphaned_metrics_dirs()
        metrics_dir = tempfile.mkdtemp(prefix=f"{_METRICS_PREFIX}{os.getpid()}-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
        _own_metrics_dir.append(metrics_dir)
    os.makedirs(metrics_dir, exist_ok=True)
    for name in os.listdir(metrics_dir):  # a fresh count per start: drop an earlier run's
        if name.endswith(".db"):
            os.remove(os.path.join(metrics_dir, name))


# Container objects allocated (net) between two collections of the youngest generation.
GC_YOUNG_THRESHOLD = 10_000


def post_worker_init(worker):
    """Each worker runs the progression loop (due bot play), unless CARDROOM_PROGRESSION=off,
    and the thinking loop (bots that search, in a process of its own), unless
    CARDROOM_THINKING=off.

    Then the garbage collector is told what a worker's objects are like (docs/operations.md,
    "Garbage collection"): what the worker has made so far (modules, the app, the API
    document) lives as long as it does, so it is frozen out of the collector's sight; and
    almost everything a request makes is freed by its reference count as the request ends,
    so the collector looks for cycles after GC_YOUNG_THRESHOLD new objects rather than
    Python's 700, when most of a request's objects are still in use and would be walked,
    and promoted, for nothing.
    """
    from cardroom import progress, thinking

    progress.start_for_app(worker.wsgi)
    thinking.start_for_app(worker.wsgi)
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])


# How long a leaving worker waits for its progression loop to hand back its claim.
LOOP_STOP_SECONDS = 2.0


def worker_exit(server, worker):
    """A leaving worker (a restart, a deploy) stops its progression loop, which hands the
    due games it claimed and did not start to the other workers at once rather than when
    their 30 s lease ends (cardroom.progress)."""
    progression = getattr(worker.wsgi, "extensions", {}).get("cardroom.progression")
    if progression is not None:
        progression.stop(wait=LOOP_STOP_SECONDS)


def _check_redis_url():
    """A REDIS_URL that cannot work stops the server at start, with one line, rather than
    failing every worker's boot (or, before, every request). Checked in a child process:
    the master must not import redis-py (and ssl) before gevent patches the workers."""
    if os.environ.get("REDIS_URL"):
        checked = subprocess.run(
            [sys.executable, "-c", "from cardroom.store.connection import main; main()"],
            check=False,
            timeout=60,
        )
        if checked.returncode != 0:
            sys.exit(checked.returncode)


def child_exit(server, worker):
    """A dead worker's counters stay in the totals (only its live gauges would go)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    for metrics_dir in _own_metrics_dir:
        shutil.rmtree(metrics_dir, ignore_errors=True)
