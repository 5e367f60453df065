"""gunicorn settings (`--config python:cardroom.gunicorn_conf`): used by `cardroom serve`,
the Dockerfile and the tests alike.

Every value can be changed through the environment (see docs/operations.md).
"""

import os

bind = os.environ.get("CARDROOM_BIND", "127.0.0.1:8000")
# gthread: each worker holds many requests at once, so event long-polls don't starve others.
worker_class = "gthread"
workers = int(os.environ.get("CARDROOM_WORKERS", "2"))
threads = int(os.environ.get("CARDROOM_THREADS", "32"))
# Longer than the longest long-poll (CARDROOM_MAX_WAIT, 30 s by default).
timeout = int(os.environ.get("CARDROOM_WORKER_TIMEOUT", "60"))
graceful_timeout = 30
keepalive = 5
max_requests = int(os.environ.get("CARDROOM_MAX_REQUESTS", "0"))
max_requests_jitter = 100
accesslog = os.environ.get("CARDROOM_ACCESS_LOG", None)
errorlog = "-"
loglevel = os.environ.get("CARDROOM_LOG_LEVEL", "info")
wsgi_app = "cardroom.app:create_app()"
# Size each worker's Redis pools to its threads, unless the operator chose a size.
raw_env = [f"CARDROOM_REDIS_POOL_SIZE={os.environ.get('CARDROOM_REDIS_POOL_SIZE', threads + 4)}"]
