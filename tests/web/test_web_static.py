"""The web table's files and how the app serves them (no browser needed): pages with a strict
Content-Security-Policy, no inline script, nothing loaded from outside the server, every module
import resolvable, and every file shipped as package data."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

from cardroom import registry
from cardroom.kit.plugin import renderer_file

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "server" / "cardroom" / "web"
STATIC = WEB / "static"
FILES = sorted(path for path in STATIC.rglob("*") if path.is_file())


@pytest.mark.parametrize("path", ["/", "/play/SomeGame1", "/watch/SomeGame1", "/replay/SomeGame1"])
def test_pages_are_served_with_a_strict_content_security_policy(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Cache-Control"] == "no-cache"


def test_modules_are_served_as_javascript(client):
    for path in STATIC.glob("*.js"):
        response = client.get(f"/web/{path.name}")
        assert response.status_code == 200, path
        assert response.mimetype in ("text/javascript", "application/javascript"), path
    assert client.get("/web/games/generic.js").status_code == 200
    assert client.get("/web/cardroom.css").mimetype == "text/css"


def test_each_game_is_drawn_by_the_renderer_its_package_ships(client):
    """/web/renderers/<type>.js is the module its GamePlugin names, from its package; a game
    type not served here has none (the table then draws with the generic module)."""
    for game_type, entry in registry.installed().items():
        response = client.get(f"/web/renderers/{game_type}.js")
        assert response.status_code == 200
        assert response.mimetype == "text/javascript"
        assert response.get_data(as_text=True) == renderer_file(entry.plugin).read_text()
        assert response.headers["Cache-Control"] == "max-age=300, public"
    missing = client.get("/web/renderers/no-such-game.js")
    assert missing.status_code == 404 and missing.mimetype == "text/javascript"


def test_static_files_are_kept_briefly_and_pages_always_checked(client):
    """Modules, styles and the icon may be kept for a while (not a contradictory no-cache and
    max-age together); a page is always checked, so an upgraded server's pages are seen."""
    for path in ("/web/table.js", "/web/cardroom.css", "/favicon.ico"):
        assert client.get(path).headers["Cache-Control"] == "max-age=300, public", path
    assert client.get("/").headers["Cache-Control"] == "no-cache"


def test_the_api_and_docs_stay_where_they_were(client):
    assert client.get("/v1/game-types").status_code == 200
    assert client.get("/docs").status_code == 200
    assert client.get("/web/no-such-file.js").status_code == 404


def test_pages_need_no_inline_script_or_style():
    for page in STATIC.glob("*.html"):
        text = page.read_text()
        scripts = re.findall(r"<script\b[^>]*>", text)
        assert scripts and all("src=" in tag and 'type="module"' in tag for tag in scripts), page
        bodies = re.findall(r"<script\b[^>]*>(.*?)</script>", text, re.S)
        assert not any(body.strip() for body in bodies), f"{page} has an inline script"
        assert not re.search(r"\son[a-z]+=", text), f"{page} has an inline event handler"
        assert not re.search(r"\sstyle=", text) and "<style" not in text, f"{page} inline style"


def test_nothing_is_loaded_from_outside_the_server():
    for path in FILES:
        if path.suffix in (".png", ".ico"):
            continue
        text = path.read_text()
        # The SVG icon names its XML namespace, which is not a request.
        text = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert not re.search(r"https?://|\burl\(\s*['\"]?//", text), f"{path} names a remote URL"


def test_every_module_import_resolves_to_a_shipped_file():
    imports = re.compile(r"""^\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']""", re.M)
    for path in STATIC.rglob("*.js"):
        for target in imports.findall(path.read_text()):
            assert target.startswith("./") or target.startswith("../"), (path, target)
            assert (path.parent / target).resolve().is_file(), (path, target)
    for page in STATIC.glob("*.html"):
        for source in re.findall(r'(?:src|href)="(/web/[^"]+)"', page.read_text()):
            assert (STATIC / source.removeprefix("/web/")).is_file(), (page, source)


def test_every_file_of_the_web_table_is_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["cardroom"]
    package = ROOT / "server" / "cardroom"
    for path in FILES:
        relative = path.relative_to(package).as_posix()
        matched = [
            p
            for p in patterns
            if fnmatch.fnmatch(relative, p) and relative.count("/") == p.count("/")
        ]
        assert matched, f"{relative} is not shipped by pip install ."
