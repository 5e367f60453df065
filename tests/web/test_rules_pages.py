"""Each game's rules page (`/rules/<game_type>`, docs/web.md "The rules pages") and the site's
icon: served by the app, rendered safely and once, shipped as package data. Plain HTTP through
the test client, and one look in Chromium at phone width."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

from cardroom import web
from cardroom.kit.plugin import renderer_file, rules_file
from cardroom.registry import installed, registry
from cardroom.web import rules_markdown

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "server" / "cardroom"
TEMPLATES = PACKAGE / "web" / "templates"
RULING = re.compile(r"^\*\*([A-Z]{1,4}-\d+)\b", re.M)


def game_types(client) -> list[dict]:
    response = client.get("/v1/game-types")
    assert response.status_code == 200
    return response.get_json()["game_types"]


def rulings_of(game_type: str) -> list[str]:
    text = rules_markdown.rules_text(registry()[game_type])
    assert text, f"{game_type} ships no rules.md"
    return RULING.findall(text)


def assert_strict_policy(response) -> None:
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "style-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_every_game_types_rules_url_is_its_rules_page_with_an_anchor_per_ruling(client):
    listed = game_types(client)
    assert {entry["game_type"] for entry in listed} == set(registry())
    for entry in listed:
        assert entry["rules_url"] == f"/rules/{entry['game_type']}"
        response = client.get(entry["rules_url"])
        assert response.status_code == 200, entry["rules_url"]
        assert response.mimetype == "text/html"
        assert_strict_policy(response)
        assert response.headers["Cache-Control"] == "no-cache"
        html = response.get_data(as_text=True)
        assert f"<title>{entry['title']}: the rules · cardroom</title>" in html
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
        assert '<link rel="icon" href="/web/icon.svg" type="image/svg+xml">' in html
        assert '<link rel="stylesheet" href="/web/rules.css">' in html
        assert '<a href="/">« Back to the lobby</a>' in html
        assert 'id="rulings"' in html
        rulings = rulings_of(entry["game_type"])
        assert len(rulings) >= 15
        for ruling in rulings:
            anchor = ruling.lower()
            assert f'<p id="{anchor}" class="ruling"><a href="#{anchor}" class="ruling-link">' in (
                html
            ), ruling
        assert '<div class="table-scroll" tabindex="0"><table>' in html
        assert " style=" not in html and "<script>" not in html


def test_a_ruling_can_be_linked_and_is_linked_where_it_is_named(client):
    mr_toast = client.get("/rules/mr-toast").get_data(as_text=True)
    assert '<p id="mt-12" class="ruling"><a href="#mt-12" class="ruling-link"><strong>MT-12' in (
        mr_toast
    )
    assert '<a href="#mt-13" class="ruling-ref">MT-13</a>' in mr_toast
    exact_plays = client.get("/rules/exact-plays").get_data(as_text=True)
    assert '<p id="ep-3" class="ruling"><a href="#ep-3" class="ruling-link"><strong>EP-3' in (
        exact_plays
    )
    # The sections in the API's words are folded for programmers, their anchors kept.
    for section in ("options", "actions", "events", "view"):
        assert re.search(
            rf'<details class="card-panel for-programmers">\s*<summary><h2 id="{section}">',
            exact_plays,
        ), section


def test_an_unknown_game_type_is_a_page_in_words_that_lists_the_rules_pages(client):
    response = client.get("/rules/%3Cb%3Eno-such-game")
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert_strict_policy(response)
    html = response.get_data(as_text=True)
    assert "<h1>No such game</h1>" in html
    assert "no rules page for “&lt;b&gt;no-such-game”" in html and "<b>" not in html
    for game in registry().values():
        assert f'<a href="/rules/{game.game_type}">{game.title}: the rules</a>' in html
    assert '<a href="/">Go to the lobby</a>' in html


def test_the_markdown_is_rendered_without_its_raw_html():
    page = rules_markdown.render(
        "test-game",
        "Test",
        "Intro <script>alert(1)</script>\n\n## Rulings\n\n"
        '**TG-1 First.** <img src=x onerror="alert(1)"> see TG-1 and [x](javascript:alert(1)).\n\n'
        "| a | b |\n|---:|:-:|\n| 1 | 2 |\n",
    )
    html = page.intro + page.sections[0].body
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html and "&lt;img" in html
    assert 'href="javascript:' not in html
    assert '<p id="tg-1" class="ruling">' in html
    assert '<a href="#tg-1" class="ruling-ref">TG-1</a>' in html
    # The Content-Security-Policy allows no style attribute: a column's alignment is a class.
    assert "style=" not in html and 'class="align-right"' in html


def test_the_rules_are_rendered_once_per_process(client, monkeypatch):
    renders: list[str] = []
    original = rules_markdown.render

    def counting(game_type: str, title: str, text: str):
        renders.append(game_type)
        return original(game_type, title, text)

    monkeypatch.setattr(rules_markdown, "render", counting)
    rules_markdown._rendered.cache_clear()
    web._rules_html.cache_clear()
    try:
        for _ in range(3):
            for game_type in registry():
                assert client.get(f"/rules/{game_type}").status_code == 200
            assert client.get("/rules/not-a-game").status_code == 404
    finally:
        rules_markdown._rendered.cache_clear()
        web._rules_html.cache_clear()
    assert sorted(renders) == sorted(registry())


def test_the_favicon_is_the_sites_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert response.get_data() == (PACKAGE / "web" / "static" / "icon.svg").read_bytes()


def test_every_page_declares_its_icon():
    pages = [*sorted((PACKAGE / "web" / "static").glob("*.html")), *TEMPLATES.rglob("*.html")]
    assert any(page.name == "rules.html" for page in pages)
    for page in pages:
        assert '<link rel="icon" href="/web/icon.svg"' in page.read_text(), page


def test_the_rules_pages_and_their_template_are_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["cardroom"]
    shipped = list(TEMPLATES.rglob("*"))
    for entry in installed().values():
        if entry.package == "cardroom":
            shipped.append(Path(str(rules_file(entry.game))))
            if entry.plugin.renderer:
                shipped.append(Path(str(renderer_file(entry.plugin))))
    for path in shipped:
        if path.is_dir():
            continue
        assert path.is_file(), path
        relative = path.relative_to(PACKAGE).as_posix()
        assert any(
            fnmatch.fnmatch(relative, pattern) and relative.count("/") == pattern.count("/")
            for pattern in patterns
        ), f"{relative} is not shipped by pip install ."
    dependencies = config["project"]["dependencies"]
    assert any(re.match(r"markdown-it-py>=", dependency) for dependency in dependencies)


def test_a_rules_page_fits_a_phone_and_opens_a_linked_fold(open_page):
    page, _guard = open_page(390, 844)  # the guard fails on any console error (CSP included)
    page.goto("/rules/mr-toast#mt-12")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("document.querySelector(':target').id") == "mt-12"
    fold = "document.getElementById('actions').closest('details').open"
    assert page.evaluate(fold) is False
    page.click("nav.contents >> text=Actions")
    page.wait_for_function(fold)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
