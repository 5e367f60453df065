"""The web table (docs/web.md): the lobby at ``/`` and a game's table, served as static files;
each game's rules page at ``/rules/<game_type>`` (rendered from its ``rules.md``) and the
module that draws it at ``/web/renderers/<game_type>.js`` (its package's renderer, or the
generic one).

The table's pages are plain HTML, CSS and JavaScript modules that talk only to the public
``/v1`` API; this blueprint serves them and nothing else, with a Content-Security-Policy that
allows only the server's own scripts and styles (the pages need no inline script or style).
"""

from __future__ import annotations

from functools import cache

from flask import Blueprint, Response, render_template

from cardroom.kit.plugin import renderer_file
from cardroom.registry import installed, registry
from cardroom.web.rules_markdown import rules_page

blp = Blueprint(
    "web",
    __name__,
    static_folder="static",
    static_url_path="/web",
    template_folder="templates",
)

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


@blp.get("/rules/<game_type>")
def rules(game_type: str) -> Response | tuple[str, int]:
    """A game's rules and rulings, for people; each ruling has an anchor (``#mt-12``)."""
    html = _rules_html(game_type) if rules_page(game_type) else None
    if html is None:
        games = [game for game in registry().values() if rules_page(game.game_type)]
        return render_template("web/rules.html", game_type=game_type, games=games), 404
    return Response(html, mimetype="text/html")


@cache
def _rules_html(game_type: str) -> str:
    """Called only for the game types that have a page, so the cache stays that small."""
    return render_template("web/rules.html", page=rules_page(game_type))


@blp.get("/web/renderers/<game_type>.js")
def renderer(game_type: str) -> Response:
    """The JavaScript module that draws ``game_type`` at the table: the one its package
    ships, or the generic module (``games/generic.js``) for a game that ships none."""
    entry = installed().get(game_type)
    if entry is None:
        return Response(f"// no game type {game_type!r} here\n", 404, mimetype="text/javascript")
    if entry.plugin.renderer is None:
        return blp.send_static_file("games/generic.js")
    return Response(_renderer_text(game_type), mimetype="text/javascript")


@cache
def _renderer_text(game_type: str) -> str:
    path = renderer_file(installed()[game_type].plugin)
    assert path is not None  # the registry refuses a plug-in whose renderer is not there
    return path.read_text(encoding="utf-8")


@blp.get("/favicon.ico")
def favicon() -> Response:
    """What browsers ask for on a page that declares no icon (Swagger UI at /docs)."""
    return blp.send_static_file("icon.svg")


@blp.after_request
def secure_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    if response.mimetype == "text/html":
        response.cache_control.no_cache = True
    else:
        # send_static_file marks every file no-cache; a module or stylesheet may be kept briefly.
        response.cache_control.no_cache = None
        response.cache_control.max_age = STATIC_MAX_AGE
        response.cache_control.public = True
    return response
