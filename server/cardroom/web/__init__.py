"""The web table (docs/web.md): the lobby at ``/`` and a game's table, served as static files.

The pages are plain HTML, CSS and JavaScript modules that talk only to the public ``/v1`` API;
this blueprint serves them and nothing else, with a Content-Security-Policy that allows only
the server's own scripts and styles (the pages need no inline script).
"""

from __future__ import annotations

from flask import Blueprint, Response

blp = Blueprint("web", __name__, static_folder="static", static_url_path="/web")

# Same-origin only: the pages load their modules and styles from /web and call /v1.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
STATIC_MAX_AGE = 300  # seconds: short, so an upgraded server's pages are picked up soon


@blp.get("/")
def lobby() -> Response:
    return blp.send_static_file("lobby.html")


@blp.get("/play/<game_id>")
def table(game_id: str) -> Response:
    """A seat at the table: your own (the token kept in this browser), or one you join."""
    return blp.send_static_file("table.html")


@blp.get("/watch/<game_id>")
def watch(game_id: str) -> Response:
    """The same table for a spectator: no token is sent, no hand is shown."""
    return blp.send_static_file("table.html")


@blp.get("/replay/<game_id>")
def replay(game_id: str) -> Response:
    """A finished game, step by step, every hand face up."""
    return blp.send_static_file("replay.html")


@blp.after_request
def secure_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    if response.mimetype == "text/html":
        response.cache_control.no_cache = True
    else:
        response.cache_control.max_age = STATIC_MAX_AGE
        response.cache_control.public = True
    return response
