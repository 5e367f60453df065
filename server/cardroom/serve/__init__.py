"""Serving cardroom: the app factory (app.py), the command line (cli.py), gunicorn's config
(gunicorn_conf.py, named by serve_config.py), the supervision of `cardroom serve`
(supervise.py) and the gevent worker's guard on arriving connections (arrival.py).

docs/architecture.md, Layers.
"""
