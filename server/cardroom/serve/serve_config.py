"""The gunicorn config every way of serving names: `cardroom serve` (cli.py, supervise.py),
the Dockerfile and the tests. Its own module so that cli and supervise import it one way."""

GUNICORN_CONFIG = "python:cardroom.serve.gunicorn_conf"
