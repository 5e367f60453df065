"""The lobby speaks a player's words (docs/web.md): outside the "Advanced" fold no HTTP path,
no JSON, no "null", and a rule id only as a small reference beside the words that explain
it; each game links its rules page; bots have names a person can tell apart."""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests

from helpers import create_game
from web_kit import HTTP_TIMEOUT, MOVE_TIMEOUT_MS, assert_labelled, create_with_bots

VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}

# Every piece of text a person sees: text outside closed folds and hidden parts (a select's
# choices included), and the placeholders of the fields shown; of the open games, only the
# test's own (the others come from other tests, with names of their choosing). `ruleRef`:
# inside a rule reference (`small.rule-ref`).
SHOWN_TEXT = """(gameId) => {
  const others = `#open-list li:not([data-game-id="${gameId}"])`;
  const shown = (element) =>
    !element.closest(`details:not([open]) > :not(summary), [hidden], script, style, ${others}`) &&
    !element.matches("details:not([open])");
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (text && shown(node.parentElement)) {
      texts.push({ text, ruleRef: Boolean(node.parentElement.closest("small.rule-ref")) });
    }
  }
  for (const field of document.querySelectorAll("[placeholder]")) {
    if (shown(field)) texts.push({ text: field.placeholder, ruleRef: false });
  }
  return texts;
}"""

# Each rule reference shown: its text, its link, and the words of the paragraph around it.
RULE_REFERENCES = """() => [...document.querySelectorAll("small.rule-ref")]
  .filter((small) => !small.closest("details:not([open]) > :not(summary)"))
  .map((small) => ({
    text: small.textContent.trim(),
    href: small.querySelector("a")?.getAttribute("href") ?? null,
    beside: small.parentElement.textContent.replace(small.textContent, "").trim(),
  }))"""

API_WORDS = [
    (re.compile(r"/v1/"), "an HTTP path"),
    (re.compile(r"\b(POST|GET|PUT|DELETE) /"), "an HTTP request"),
    (re.compile(r"[{}]|\[\s*[{\"]"), "JSON"),
    (re.compile(r"\"\w+\"\s*:"), "a JSON key"),
    (re.compile(r"\bnull\b", re.I), '"null"'),
    (re.compile(r"\bJSON\b"), "the word JSON"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "an option's API name"),
    (re.compile(r"\b1 (players|seats|free seats|turns|timeouts)\b"), "a wrong plural"),
]
RULE_ID = re.compile(r"\b[A-Z]{2}-\d+\b")


def _three_greedy_bots(base: str) -> dict[str, Any]:
    """An Exact Plays game waiting for one player, its other three seats greedy bots."""
    body = {
        "game_type": "exact-plays",
        "players": 4,
        "bots": [{"seat": seat, "policy": "greedy"} for seat in (1, 2, 3)],
    }
    response = requests.post(f"{base}/v1/games", json=body, timeout=HTTP_TIMEOUT)
    assert response.status_code == 201, response.text
    return response.json()


def _open_lobby(open_page: Any, size: tuple[int, int]) -> Any:
    page, _ = open_page(*size)
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]", timeout=MOVE_TIMEOUT_MS)
    return page


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_lobby_speaks_a_players_words(open_page, live_server, screenshot, viewport):
    game = _three_greedy_bots(live_server)
    page = _open_lobby(open_page, VIEWPORTS[viewport])
    # The options a player chooses are read with their fold open; "Advanced" stays closed.
    for summary in page.locator("details.options > summary").all():
        summary.click()
    folds = page.locator("details.advanced")
    assert folds.count() == 2 and folds.evaluate_all("fs => fs.every(f => !f.open)")
    for form in page.locator("form[data-game-type]").all():
        advanced = form.locator("details.advanced")
        assert advanced.locator("input[name=seed]").count() == 1, "the seed is advanced"
        assert advanced.locator("textarea").count() >= 1, "stacked decks are advanced"
    assert_labelled(page)
    screenshot(page, f"lobby-words-{viewport}")

    texts = page.evaluate(SHOWN_TEXT, game["id"])
    shown = "\n".join(entry["text"] for entry in texts)
    assert "Turn limit" in shown and "Take seat 1" in shown, shown
    for pattern, what in API_WORDS:
        found = pattern.findall(shown)
        assert not found, f"the lobby shows {what}: {found}"
    bare = [e["text"] for e in texts if not e["ruleRef"] and RULE_ID.search(e["text"])]
    assert not bare, f"rule ids outside a small reference: {bare}"
    references = page.evaluate(RULE_REFERENCES)
    assert references, "the options cite their rulings"
    for reference in references:
        assert re.fullmatch(r"\(rule [A-Z]{2}-\d+\)", reference["text"]), reference
        assert len(reference["beside"].split()) >= 5, f"no words beside {reference}"

    # The open game's three bots are told apart, with the right plurals.
    listed = page.locator(f"#open-list li[data-game-id='{game['id']}']").inner_text()
    names = [seat["name"] for seat in game["seats"] if seat["bot"]]
    assert all(name in listed for name in names), (names, listed)
    assert "4 players" in listed and "1 free seat ·" in listed, listed

    # Nothing overflows the screen sideways (the phone above all).
    width = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert width <= 0, f"the lobby is {width}px wider than the screen"


def test_each_game_links_its_rules(open_page, live_server):
    game_types = requests.get(f"{live_server}/v1/game-types", timeout=HTTP_TIMEOUT).json()
    page = _open_lobby(open_page, VIEWPORTS["desktop"])
    for game_type in game_types["game_types"]:
        rules_url = game_type["rules_url"]
        form = page.locator(f"form[data-game-type={game_type['game_type']}]")
        link = form.locator(".rules-link a")
        assert link.inner_text() == f"How to play {game_type['title']}"
        assert link.get_attribute("href") == rules_url
        answer = requests.get(f"{live_server}{rules_url}", timeout=HTTP_TIMEOUT)
        assert answer.status_code == 200, f"{rules_url}: HTTP {answer.status_code}"
        # Each rule reference links to its ruling on that page, which has it as an anchor.
        form.locator("details.options > summary").click()
        cited = form.locator("small.rule-ref a").evaluate_all(
            "links => links.map(a => [a.textContent, a.getAttribute('href')])"
        )
        assert cited, f"{game_type['game_type']}: no rule reference"
        for text, href in cited:
            rule = text.removeprefix("rule ")
            assert href == f"{rules_url}#{rule.lower()}", (text, href)
            assert f'id="{rule.lower()}"' in answer.text, f"{rules_url} has no ruling {rule}"


def test_bots_of_one_game_have_distinct_names(client):
    game = create_game(
        client,
        "exact-plays",
        4,
        bots=[{"seat": seat, "policy": "greedy"} for seat in (1, 2, 3)],
    )
    seats = game["seats"]
    assert [seat["bot"] for seat in seats] == [None, "greedy", "greedy", "greedy"]
    names = [seat["name"] for seat in seats[1:]]
    assert names == ["Greedy bot 1", "Greedy bot 2", "Greedy bot 3"]

    mixed = create_game(
        client,
        "mr-toast",
        3,
        bots=[{"seat": 0, "policy": "random"}, {"seat": 2, "policy": "greedy"}],
    )
    assert [seat["name"] for seat in mixed["seats"]] == ["Random bot", None, "Greedy bot"]


def test_your_games_say_where_each_game_stands(open_page, live_server):
    """Review items 16 and 22: "Your games" says whether each game waits for players, is
    under way or is over; the turn limit's help says who wins in a sentence."""
    waiting = create_with_bots(live_server, "mr-toast", 3, {2: "greedy"})
    active = create_with_bots(live_server, "mr-toast", 2, {1: "greedy"})
    joined = requests.post(
        f"{live_server}/v1/games/{active}/join", json={"name": "Ann"}, timeout=HTTP_TIMEOUT
    )
    assert joined.status_code in (200, 201), joined.text
    finished = create_with_bots(
        live_server, "mr-toast", 2, {0: "greedy", 1: "greedy"}, options={"turn_limit": 2}
    )
    summary = requests.get(f"{live_server}/v1/games/{finished}", timeout=HTTP_TIMEOUT).json()
    assert summary["status"] == "finished", summary["status"]
    page = _open_lobby(open_page, VIEWPORTS["phone"])
    page.evaluate(
        """(ids) => ids.forEach((id, index) => localStorage.setItem(`cardroom.seat.${id}`,
          JSON.stringify({ seat: 0, token: "t", name: "Ann", gameType: "mr-toast",
            savedAt: index })))""",
        [waiting, active, finished],
    )
    page.reload()
    page.wait_for_selector("body[data-ready=true]", timeout=MOVE_TIMEOUT_MS)
    said = {
        game_id: page.inner_text(f"#your-list li[data-game-id='{game_id}']")
        for game_id in (waiting, active, finished)
    }
    assert said[waiting].endswith("· waiting for players"), said
    assert said[active].endswith("· under way"), said
    assert said[finished].endswith("· finished"), said
    assert all(game_id not in text for game_id, text in said.items()), "a game id is shown"
    page.locator("form[data-game-type=mr-toast] details.options > summary").click()
    help_text = page.inner_text("form[data-game-type=mr-toast]")
    assert "whoever has the most Fun points wins" in help_text


def test_each_game_counts_its_players_in_one_style(open_page, live_server):
    """Second review, item 19: "2 to 6 players" for one game, "2-4 players" for the other."""
    page = _open_lobby(open_page, VIEWPORTS["phone"])
    for form in page.locator("form[data-game-type]").all():
        description = form.locator(".description").inner_text()
        assert not re.search(r"\d\s*[-\u2013]\s*\d+ players", description), description
        assert re.search(r"\b\d to \d+ players\b", description), description
