"""Search bots at the web table (issue 29, items 4 and 5): the lobby's seat menu offers every
bot a game type lists, each with what it is like; a person plays a whole game of each game by
clicking against search bots, to the result; and while the game awaits a bot that thinks, the
table says so ("Search bot is thinking…") where it says whose turn it is, until the bot moves.

The bot thinks in the server's own deciding process (cardroom/thinking.py), a moment after the
move that handed it the turn: nothing here slows or mocks it. The page records every status it
shows (a MutationObserver installed before the table's script runs), so a think shorter than
a poll is still seen.
"""

from __future__ import annotations

import time
from typing import Any

import requests

from web_kit import (
    HTTP_TIMEOUT,
    MOVE_TIMEOUT_MS,
    click_preferred,
    create_in_lobby,
    play_until_over,
    status,
)

SEARCH_LEVELS = ("search", "search-strong")
# Short but whole games. Mr Toast: the usual deck and rules, with a turn limit (MT-11) that
# ends the game after 12 turns at the latest, the most Fun points winning. Exact Plays: 3
# players, so 3 rounds at most (EP-15); its turn limit (EP-16) only a bound.
MR_TOAST_OPTIONS = {"turn_limit": 12}
EXACT_PLAYS_OPTIONS = {"turn_limit": 60}
MAX_MOVES = 120
GAME_SECONDS = 150

# Every status line the table shows, with the seats it marks as thinking and the seats whose
# badge says "thinking…", recorded as the table renders it (before the table's own script).
RECORD_STATUSES = """
window.cardroomStatuses = [];
document.addEventListener("DOMContentLoaded", () => {
  const line = document.getElementById("status");
  const main = document.getElementById("main");
  if (!line || !main) return;
  const note = () => window.cardroomStatuses.push({
    text: line.textContent,
    thinking: main.dataset.thinking || "",
    badges: [...document.querySelectorAll("#seats .badge.thinking")]
      .map((badge) => badge.closest("[data-seat]").dataset.seat).join(" "),
    state: main.dataset.status || "",
  });
  new MutationObserver(note).observe(line, { childList: true, characterData: true, subtree: true });
});
"""


def bot_menu_words(base: str, game_type: str) -> dict[str, str]:
    """What the seat menu should say of each bot the server lists: {"bot:search": "Search bot
    (looks ahead …)"}, from GET /v1/game-types."""
    types = requests.get(f"{base}/v1/game-types", timeout=HTTP_TIMEOUT).json()["game_types"]
    bots = next(entry for entry in types if entry["game_type"] == game_type)["bots"]
    assert {bot["name"] for bot in bots} >= set(SEARCH_LEVELS), bots
    assert all(bot["thinks"] for bot in bots if bot["name"] in SEARCH_LEVELS), bots
    words = {}
    for bot in bots:
        name = bot["name"].replace("_", " ")
        words[f"bot:{bot['name']}"] = f"{name[0].upper()}{name[1:]} bot ({bot['description']})"
    return words


def seat_menu(page: Any, game_type: str, seat: int) -> dict[str, str]:
    """A seat's menu in the lobby: {value: the words a person reads}."""
    select = page.locator(f"form[data-game-type={game_type}] select[name=seat-{seat}]")
    pairs = select.locator("option").evaluate_all(
        "options => options.map(o => [o.value, o.textContent])"
    )
    return dict(pairs)


def check_seat_menu(base: str, game_type: str):
    """A check, run in the lobby before the game is created: every seat's menu offers every
    bot with its description, the search levels among them, in plain words."""

    def check(page: Any) -> None:
        expected = bot_menu_words(base, game_type)
        for seat in (0, 1):
            menu = seat_menu(page, game_type, seat)
            bots = {value: text for value, text in menu.items() if value.startswith("bot:")}
            assert bots == expected, (bots, expected)
        assert expected["bot:search"].startswith("Search bot (looks ahead"), expected
        assert expected["bot:search-strong"].startswith("Search-strong bot ("), expected

    return check


def play_against_search(
    page: Any, live_server: str, game_type: str, seats: list[str], options: dict[str, Any]
) -> tuple[str, int, list[dict[str, str]]]:
    """Create the game in the lobby (checking its seat menu), play it to the result by clicking;
    the game's id, the moves clicked and every status the table showed."""
    page.add_init_script(RECORD_STATUSES)
    game_id = create_in_lobby(
        page,
        game_type,
        name="Ann",
        seats=seats,
        options=options,
        seed=7,
        before_create=check_seat_menu(live_server, game_type),
    )
    assert status(page) == "active"
    moves = play_until_over(page, click_preferred, max_moves=MAX_MOVES, seconds=GAME_SECONDS)
    assert "Game over" in page.locator("#result-heading").inner_text()
    summary = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert summary["status"] == "finished"
    assert [seat["bot"] for seat in summary["seats"]] == [
        choice.removeprefix("bot:") if choice.startswith("bot:") else None for choice in seats
    ]
    return game_id, moves, page.evaluate("() => window.cardroomStatuses")


def check_thinking_shown(shown: list[dict[str, str]], bot_seats: set[str], page: Any) -> None:
    """The table said a bot was thinking at least once, only of a bot seat, and only while the
    page marked it thinking; the words went once the bot had moved, and are gone at the end."""
    assert shown, "the page recorded no status"
    thinking = [entry for entry in shown if entry["thinking"]]
    assert thinking, f"no status said a bot is thinking: {[e['text'] for e in shown][:20]}"
    for entry in shown:
        said = "thinking…" in entry["text"]
        assert said == bool(entry["thinking"]), entry
        assert entry["badges"] == entry["thinking"], entry
        assert set(entry["thinking"].split()) <= bot_seats, entry
        if said:
            assert entry["state"] == "active", entry
            assert " is thinking…" in entry["text"] or " are thinking…" in entry["text"], entry
    first = shown.index(thinking[0])
    assert any(not e["thinking"] and e["state"] == "active" for e in shown[first:]), (
        "the thinking words stayed after the bot moved"
    )
    assert page.get_attribute("main", "data-thinking") == ""
    assert page.locator("#seats .badge.thinking").count() == 0
    assert "thinking" not in page.inner_text("#status")


def test_a_person_plays_a_whole_game_of_mr_toast_against_a_search_bot(
    open_page, live_server, screenshot
):
    started = time.monotonic()
    page, _ = open_page(1280, 900)
    _, moves, shown = play_against_search(
        page, live_server, "mr-toast", ["you", "bot:search"], MR_TOAST_OPTIONS
    )
    check_thinking_shown(shown, {"1"}, page)
    said = next(entry["text"] for entry in shown if entry["thinking"])
    assert "Search bot is thinking…" in said, said
    screenshot(page, "mr-toast-against-search-finished", full_page=False)
    thinks = sum(1 for entry in shown if entry["thinking"])
    print(
        f"\nmr-toast vs search: {moves} moves, thinking shown {thinks} times, "
        f"{time.monotonic() - started:.1f} s"
    )


def test_a_person_plays_a_whole_game_of_exact_plays_against_search_bots(
    open_page, live_server, screenshot
):
    started = time.monotonic()
    page, _ = open_page(1280, 900)
    _, moves, shown = play_against_search(
        page, live_server, "exact-plays", ["you", "bot:search", "bot:search"], EXACT_PLAYS_OPTIONS
    )
    check_thinking_shown(shown, {"1", "2"}, page)
    screenshot(page, "exact-plays-against-search-finished", full_page=False)
    thinks = sum(1 for entry in shown if entry["thinking"])
    print(
        f"\nexact-plays vs search: {moves} moves, thinking shown {thinks} times, "
        f"{time.monotonic() - started:.1f} s"
    )


def test_a_watcher_reads_that_a_search_bot_is_thinking_until_it_has_moved(open_page, live_server):
    """A spectator's table says "Search-strong bot is thinking…" where it says whose turn it
    is, and that seat's badge says "thinking…", from the moment the game awaits the bot until
    it has moved (here its declaration, while the game still waits for the person)."""
    page, _ = open_page(1280, 900)
    page.add_init_script(RECORD_STATUSES)
    body = {
        "game_type": "exact-plays",
        "players": 2,
        "bots": [{"seat": 0, "policy": "search-strong"}],
        "seed": 3,
    }
    answer = requests.post(f"{live_server}/v1/games", json=body, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 201, answer.text
    game_id = answer.json()["id"]
    page.goto(f"/watch/{game_id}")
    page.wait_for_selector("main[data-status=waiting]", timeout=MOVE_TIMEOUT_MS)
    joined = requests.post(
        f"{live_server}/v1/games/{game_id}/join", json={"name": "Bea"}, timeout=HTTP_TIMEOUT
    )
    assert joined.status_code in (200, 201), joined.text
    # Both declare at once (EP-3): the bot thinks, then the game waits for Bea alone.
    page.wait_for_function(
        "() => window.cardroomStatuses.some((e) => e.thinking === '0')", timeout=MOVE_TIMEOUT_MS
    )
    page.wait_for_function(
        """() => { const shown = window.cardroomStatuses;
          const first = shown.findIndex((e) => e.thinking === '0');
          return shown.slice(first).some((e) => e.thinking === '' && e.state === 'active'); }""",
        timeout=MOVE_TIMEOUT_MS,
    )
    shown = page.evaluate("() => window.cardroomStatuses")
    thinking = [entry for entry in shown if entry["thinking"]]
    assert all(entry["thinking"] == "0" and entry["badges"] == "0" for entry in thinking), shown
    assert all("Search-strong bot is thinking…" in entry["text"] for entry in thinking), thinking
    after = next(e for e in shown[shown.index(thinking[-1]) :] if not e["thinking"])
    assert "thinking" not in after["text"] and "Bea" in after["text"], after
    view = requests.get(f"{live_server}/v1/games/{game_id}/view", timeout=HTTP_TIMEOUT).json()
    assert view["awaiting"] == [1], view["awaiting"]


def test_a_watcher_reads_that_an_away_seat_played_by_a_search_bot_is_thinking(
    open_page, live_server
):
    """An away seat the game's `away_bot` option hands to a search level is played by a bot
    that thinks: the table says "Ann (search-strong bot) is thinking…" of it, as of a bot
    seat, and its badge says "thinking…". Here neither person moves: each times out after a
    second (MT-17) and is away at once, so the away bot plays both seats; the turn limit
    (MT-11) ends the game soon after."""
    page, _ = open_page(1280, 900)
    page.add_init_script(RECORD_STATUSES)
    options = {"turn_seconds": 1, "away_after": 1, "away_bot": "search-strong", "turn_limit": 3}
    body = {"game_type": "mr-toast", "players": 2, "options": options, "seed": 5}
    answer = requests.post(f"{live_server}/v1/games", json=body, timeout=HTTP_TIMEOUT)
    assert answer.status_code == 201, answer.text
    game_id = answer.json()["id"]
    page.goto(f"/watch/{game_id}")
    page.wait_for_selector("main[data-status=waiting]", timeout=MOVE_TIMEOUT_MS)
    for name in ("Ann", "Bea"):
        joined = requests.post(
            f"{live_server}/v1/games/{game_id}/join", json={"name": name}, timeout=HTTP_TIMEOUT
        )
        assert joined.status_code in (200, 201), joined.text
    page.wait_for_function(
        "() => window.cardroomStatuses.some((e) => e.thinking !== '')", timeout=MOVE_TIMEOUT_MS
    )
    shown = page.evaluate("() => window.cardroomStatuses")
    thinking = [entry for entry in shown if entry["thinking"]]
    names = {"0": "Ann", "1": "Bea"}
    for entry in thinking:
        assert entry["badges"] == entry["thinking"], entry
        seat = entry["thinking"]
        assert f"{names[seat]} (search-strong bot) is thinking…" in entry["text"], entry
    page.wait_for_selector("main[data-status=finished]", timeout=MOVE_TIMEOUT_MS * 4)
    summary = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert [seat["bot"] for seat in summary["seats"]] == [None, None], "people's seats"


def test_without_bot_descriptions_the_seat_menu_names_each_bot(open_page, live_server):
    """A server that does not describe its bots (no `bots` in GET /v1/game-types) still has
    every policy of `bot_policies` offered, named only."""
    page, _ = open_page(1280, 900)

    def without_bots(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        for entry in body["game_types"]:
            entry.pop("bots", None)
        route.fulfill(response=answer, json=body)

    page.route("**/v1/game-types", without_bots)
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]", timeout=MOVE_TIMEOUT_MS)
    types = requests.get(f"{live_server}/v1/game-types", timeout=HTTP_TIMEOUT).json()
    for entry in types["game_types"]:
        menu = seat_menu(page, entry["game_type"], 1)
        bots = {value: text for value, text in menu.items() if value.startswith("bot:")}
        expected = {}
        for policy in entry["bot_policies"]:
            name = policy.replace("_", " ")
            expected[f"bot:{policy}"] = f"{name[0].upper()}{name[1:]} bot"
        assert bots == expected, (bots, expected)
        # The bot chosen at first still moves at once: never a search level.
        chosen = page.locator(
            f"form[data-game-type={entry['game_type']}] select[name=seat-1]"
        ).input_value()
        assert chosen.startswith("bot:") and chosen != "bot:search", chosen
