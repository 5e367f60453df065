"""A whole game of each game, played by clicking against server bots, on a phone (390 by 844) and
on a desktop (1280 by 800) (docs/web.md): the table links to the game's rules, a page that the
server renders, and when the game ends its result is in the window, wherever the last move
was made."""

from __future__ import annotations

import time
from typing import Any

import pytest
import requests

from web_kit import (
    HTTP_TIMEOUT,
    MOVE_TIMEOUT_MS,
    click_preferred,
    create_with_bots,
    game_id_of,
    in_viewport,
    play_until_over,
    sit_down,
    status,
)

SIZES = {"phone": (390, 844), "desktop": (1280, 800)}
# Short but whole games: Mr Toast in `irresponsible` mode (15 or more wins, MT-10) with a
# small deck rich in greens; Exact Plays with 3 players (3 rounds, EP-15). Both have a turn
# limit as a bound only (MT-11, EP-16).
MR_TOAST_OPTIONS = {
    "mode": "irresponsible",
    "turn_limit": 40,
    "composition": [
        {"code": "G5", "count": 4},
        {"code": "G4", "count": 6},
        {"code": "G3", "count": 6},
        {"code": "P3", "count": 4},
        {"code": "P2", "count": 3},
        {"code": "R3", "count": 3},
        {"code": "TB", "count": 2},
        {"code": "FP", "count": 2},
        {"code": "IT", "count": 2},
        {"code": "NW", "count": 4},
    ],
}
EXACT_PLAYS_OPTIONS = {"turn_limit": 60}
GAMES = {
    "mr-toast": {"players": 2, "bots": {1: "greedy"}, "options": MR_TOAST_OPTIONS, "seed": 14},
    "exact-plays": {
        "players": 3,
        "bots": {1: "greedy", 2: "random"},
        "options": EXACT_PLAYS_OPTIONS,
        "seed": 5,
    },
}
TITLES = {"mr-toast": "Mr Toast", "exact-plays": "Exact Plays"}
MAX_MOVES = 90
GAME_SECONDS = 40


def check_rules_link(page: Any, base: str, game_type: str) -> None:
    """The table links to the game's rules; the link answers with a rendered page."""
    link = page.locator("#rules-link")
    link.wait_for(state="visible", timeout=MOVE_TIMEOUT_MS)
    assert "How to play" in link.inner_text()
    href = link.get_attribute("href") or ""
    assert href.startswith("/") or href.startswith("http"), href
    answer = requests.get(requests.compat.urljoin(base + "/", href), timeout=HTTP_TIMEOUT)
    assert answer.status_code == 200, f"GET {href}: {answer.status_code}"
    assert answer.headers["Content-Type"].startswith("text/html"), answer.headers["Content-Type"]
    assert TITLES[game_type] in answer.text
    assert "**" not in answer.text, "the rules page shows its Markdown unrendered"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("game_type", GAMES)
def test_a_whole_game_by_clicking_ends_with_the_result_in_view(
    open_page, live_server, screenshot, game_type: str, size: str
):
    started = time.monotonic()
    width, height = SIZES[size]
    page, _ = open_page(width, height)
    setup = GAMES[game_type]
    game_id = create_with_bots(
        live_server,
        game_type,
        setup["players"],
        setup["bots"],
        options=setup["options"],
        seed=setup["seed"],
    )
    sit_down(page, game_id, "Ann")
    assert game_id_of(page) == game_id and status(page) == "active"
    check_rules_link(page, live_server, game_type)

    moves = play_until_over(page, click_preferred, max_moves=MAX_MOVES, seconds=GAME_SECONDS)
    heading = page.locator("#result-heading")
    assert "Game over" in heading.inner_text()
    where = in_viewport(page, "#result-heading")
    assert where["inside"], f"the result is off-screen at {size}: {where}"
    # The result has the focus too: a screen reader reads it out.
    assert page.evaluate("() => document.activeElement.id") == "result-heading"
    winners = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert winners["status"] == "finished"
    screenshot(page, f"{game_type}-{size}-finished", full_page=False)
    seconds = time.monotonic() - started
    print(f"\n{game_type} at {size}: {moves} moves by clicking, {seconds:.1f} s")


def test_a_four_player_exact_plays_end_does_not_scroll_sideways_on_a_phone(
    open_page, live_server, screenshot
):
    """Four players' "Penalties by round" (long bot names) stays inside its box at 390 px: the
    table scrolls in its own box, never the page."""
    page, _ = open_page(390, 844)
    game_id = create_with_bots(
        live_server,
        "exact-plays",
        4,
        {1: "greedy", 2: "greedy", 3: "random"},
        options={"turn_limit": 8},
        seed=5,
    )
    sit_down(page, game_id, "Ann")
    play_until_over(page, click_preferred, max_moves=30, seconds=30)
    assert page.locator("#centre table.penalties th[scope=col]").count() == 5
    widths = page.evaluate(
        "() => ({page: document.documentElement.scrollWidth, window: window.innerWidth,"
        " body: document.body.scrollWidth})"
    )
    assert widths["page"] <= widths["window"] and widths["body"] <= widths["window"], widths
    box = page.eval_on_selector(
        "#centre", "e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; }"
    )
    table = page.eval_on_selector(
        "#centre .table-scroll",
        "e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; }",
    )
    assert box[0] <= table[0] and table[1] <= box[1], (box, table)
    page.locator("#centre table.penalties").scroll_into_view_if_needed()
    screenshot(page, "exact-plays-4-players-phone-penalties", full_page=False)
