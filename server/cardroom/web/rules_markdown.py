"""Each game's rules page (``rules.md`` in the game's package), rendered once to HTML.

The markdown is rendered with raw HTML disabled, so the page holds only what the renderer
makes. Every heading gets an id from its words (``#rulings``) and every ruling paragraph
(one that opens with a bold ruling id, ``**MT-12 No Way windows.**``) the id in lower case
(``#mt-12``), its bold title a link to itself; a ruling id named in the text links to that
ruling. The sections written for programmers (options, actions, events, view: the API's
words) are folded (docs/web.md, "The rules pages").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

from cardroom.kit.base import Game
from cardroom.kit.plugin import rules_file
from cardroom.registry import registry

RULING_TITLE = re.compile(r"([A-Z]{1,4}-\d+)\b")
RULING_REFERENCE = re.compile(r"\b([A-Z]{1,4}-\d+)\b")
FOR_PROGRAMMERS = ("options", "actions", "events", "view")
_ALIGN = re.compile(r"text-align:\s*(left|right|center)")


@dataclass(frozen=True)
class Section:
    heading_id: str
    title: str
    body: Markup  # everything under the heading, the heading excluded
    for_programmers: bool


@dataclass(frozen=True)
class RulesPage:
    game_type: str
    title: str
    intro: Markup
    sections: tuple[Section, ...]


def rules_text(game: Game) -> str | None:
    """The markdown of ``game``'s rules page, from its package; None if it ships none."""
    path = rules_file(game)
    try:
        return None if path is None else path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None


def rules_page(game_type: str) -> RulesPage | None:
    """The rendered rules of a registered game; None for another name, or for a game that
    ships no rules page."""
    return _rendered(game_type) if game_type in registry() else None


@cache
def _rendered(game_type: str) -> RulesPage | None:
    """Rendered on first use and kept for the life of the process (registered types only)."""
    game = registry()[game_type]
    text = rules_text(game)
    return None if text is None else render(game_type, game.title, text)


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


def _table_open(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    # A wide table scrolls inside its box instead of widening the page (phones).
    return '<div class="table-scroll" tabindex="0">' + renderer.renderToken(
        tokens, idx, options, env
    )


def _table_close(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    return renderer.renderToken(tokens, idx, options, env) + "</div>"


def _words(inline: Token) -> str:
    return "".join(
        child.content for child in inline.children or () if child.type in ("text", "code_inline")
    )


def _slug(words: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-") or "section"


def _ruling_id(tokens: list[Token], index: int) -> str | None:
    """The ruling a paragraph states, if it opens with its bold id (``**MT-12 …**``)."""
    if tokens[index].type != "paragraph_open" or index + 1 >= len(tokens):
        return None
    children = [
        child
        for child in tokens[index + 1].children or ()
        if not (child.type == "text" and not child.content)
    ]
    if len(children) < 2 or children[0].type != "strong_open" or children[1].type != "text":
        return None
    found = RULING_TITLE.match(children[1].content)
    return found.group(1) if found else None


def _link_open(href: str, css_class: str | None = None) -> Token:
    token = Token("link_open", "a", 1)
    token.attrSet("href", href)
    if css_class:
        token.attrSet("class", css_class)
    return token


def _link_rulings(children: list[Token], rulings: set[str]) -> list[Token]:
    """The inline tokens with every named ruling of this page made a link to it."""
    linked: list[Token] = []
    inside_link = 0
    for child in children:
        if child.type == "link_open":
            inside_link += 1
        elif child.type == "link_close":
            inside_link -= 1
        if child.type != "text" or inside_link:
            linked.append(child)
            continue
        position = 0
        for found in RULING_REFERENCE.finditer(child.content):
            if found.group(1) not in rulings:
                continue
            if found.start() > position:
                linked.append(Token("text", "", 0, content=child.content[position : found.start()]))
            linked.append(_link_open(f"#{found.group(1).lower()}", "ruling-ref"))
            linked.append(Token("text", "", 0, content=found.group(1)))
            linked.append(Token("link_close", "a", -1))
            position = found.end()
        if position < len(child.content):
            linked.append(Token("text", "", 0, content=child.content[position:]))
    return linked


def render(game_type: str, title: str, text: str) -> RulesPage:
    md = _markdown()
    tokens = md.parse(text)
    rulings = {ruling for i in range(len(tokens)) if (ruling := _ruling_id(tokens, i))}
    taken: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            slug = base = _slug(_words(tokens[index + 1]))
            number = 2
            while slug in taken or slug in {ruling.lower() for ruling in rulings}:
                slug, number = f"{base}-{number}", number + 1
            taken.add(slug)
            token.attrSet("id", slug)
        elif ruling := _ruling_id(tokens, index):
            token.attrSet("id", ruling.lower())
            token.attrSet("class", "ruling")
            inline = tokens[index + 1]
            children = inline.children or []
            opening = next(i for i, child in enumerate(children) if child.type == "strong_open")
            closing = next(i for i, child in enumerate(children) if child.type == "strong_close")
            # The rest of the paragraph is linked when the loop reaches its inline token.
            inline.children = [
                *children[:opening],
                _link_open(f"#{ruling.lower()}", "ruling-link"),
                *children[opening : closing + 1],
                Token("link_close", "a", -1),
                *children[closing + 1 :],
            ]
        elif token.type == "inline" and token.children:
            token.children = _link_rulings(token.children, rulings)
        elif token.type in ("th_open", "td_open") and (style := token.attrGet("style")):
            # The page's Content-Security-Policy allows no style attribute: align by class.
            token.attrs.pop("style", None)
            align = _ALIGN.search(str(style))
            if align:
                token.attrSet("class", f"align-{align.group(1)}")
    return _split(md, game_type, title, tokens)


def _split(md: MarkdownIt, game_type: str, title: str, tokens: list[Token]) -> RulesPage:
    """The page as its top-level (``##``) sections; a leading ``#`` heading is the page's
    title, which the page gives itself."""
    if tokens and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        tokens = tokens[3:]
    starts = [
        i for i, token in enumerate(tokens) if token.type == "heading_open" and token.tag == "h2"
    ]
    intro = Markup(md.renderer.render(tokens[: starts[0] if starts else None], md.options, {}))
    sections = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(tokens)
        heading_id = str(tokens[start].attrGet("id"))
        sections.append(
            Section(
                heading_id=heading_id,
                title=_words(tokens[start + 1]),
                body=Markup(md.renderer.render(tokens[start + 3 : end], md.options, {})),
                for_programmers=heading_id in FOR_PROGRAMMERS,
            )
        )
    return RulesPage(game_type, title, intro, tuple(sections))
