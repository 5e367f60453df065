"""A game installed as a plug-in, at the web table: Crazy Eights (examples/crazy-eights), which
ships no renderer, drawn by the generic one from its declared shapes (docs/web.md, "The
generic renderer").

The package is installed into the shared throwaway venv (``plugin_venv``), and ``cardroom
serve`` runs from there; Chromium then plays it as a person does: the lobby lists it with its
rules link, a 3-player game with a random bot and the game's own bot is created there and
played to the end by clicking only (a card of the hand, then the move that plays it). Outside
the "Advanced" folds the page shows no raw JSON and no name of the API, an event by a bot
reads as a sentence with the card's name, and the result names the winners and the scores.
The same table drawn without the API document (it cannot be read) still names the cards and
the moves from the views alone. Every page fails on a console error or a failed request, and
every wait is bounded, so a hang fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from web_kit import (
    HTTP_TIMEOUT,
    MOVE_TIMEOUT_MS,
    PageGuard,
    assert_labelled,
    click_action,
    create_in_lobby,
    create_with_bots,
    offered,
    play_until_over,
    sit_down,
    wait_for_move,
)

GAME = "crazy-eights"
DISTRIBUTION = "cardroom-crazy-eights"
OWN_POLICY = "eights-last"
CARD_NAME = r"(ace|king|queen|jack|10|[2-9]) of (clubs|diamonds|hearts|spades)"
# A bot's move as the log says it: "Random bot played 8 of hearts (suit: spades; …).",
# "Eights-last bot drew a card (…).", "Random bot passed (…)."
BOT_SENTENCE = re.compile(
    rf"^(Random|Eights-last) bot (played {CARD_NAME}|drew a card|passed)\b[^{{}}\[\]]*\.$"
)
# A move's button: "Play 8 of hearts, suit: spades", "Draw", "Pass".
MOVE_LABEL = re.compile(rf"Play {CARD_NAME}(, suit: \w+)?|Draw|Pass")
MAX_MOVES = 300
PLAY_SECONDS = 150

# What raw JSON, or the API's own names, look like in a page's words.
RAW = [
    (re.compile(r"[{}\[\]]"), "a brace or a bracket"),
    (re.compile(r'"\w+"\s*:'), "a JSON key"),
    (re.compile(r"\b(null|undefined|true|false|NaN)\b"), "a JSON or JavaScript value"),
    (re.compile(r"\[object"), "an object printed as text"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "a name of the API (snake_case)"),
    (re.compile(r"\bc\d{1,2}\b"), "a card id"),
    (re.compile(r"\b1 cards\b|\b([02-9]|\d\d+) card\b"), "a wrong plural"),
]

# The words a player reads: the visible text of <main> outside the "Advanced" folds (the
# raw state, the reveal "Details for developers").
READ_WORDS = """() => {
  const parts = [];
  const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("details.advanced") || !parent.checkVisibility()) continue;
    if (node.textContent.trim()) parts.push(node.textContent.trim());
  }
  return parts.join("\\n");
}"""


@pytest.fixture(scope="module")
def served(example_game_server: str) -> str:
    """`cardroom serve` from the plug-in venv, Crazy Eights installed there: its base URL."""
    return example_game_server


@pytest.fixture()
def open_plugin_page(browser: Any, served: str) -> Iterator[Any]:
    """open_plugin_page(width, height) → (page, guard) on the plug-in server, as open_page."""
    contexts: list[Any] = []
    guards: list[PageGuard] = []

    def make(width: int = 1280, height: int = 900) -> tuple[Any, PageGuard]:
        context = browser.new_context(base_url=served, viewport={"width": width, "height": height})
        context.set_default_timeout(MOVE_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        guards.append(PageGuard(page))
        return page, guards[-1]

    yield make
    for context in contexts:
        context.close()
    for guard in guards:
        guard.check()


def read_words(page: Any) -> str:
    return page.evaluate(READ_WORDS)


def assert_no_raw_json(page: Any, where: str) -> None:
    text = read_words(page)
    for pattern, what in RAW:
        found = pattern.search(text)
        assert not found, f"{where}: {what} outside the Advanced fold: {found.group(0)!r}\n{text}"


def log_lines(page: Any) -> list[str]:
    return page.locator("#log-list li").all_inner_texts()


def bot_sentence(page: Any) -> str | None:
    """The first line of the log that says a bot's move in a sentence, if any."""
    return next((line for line in log_lines(page) if BOT_SENTENCE.match(line)), None)


def move_labels(page: Any) -> list[str]:
    labels = page.locator("#actions button[data-action]").all_inner_texts()
    assert labels and all(MOVE_LABEL.fullmatch(label) for label in labels), labels
    return labels


def pick_then_play(page: Any, actions: list[dict[str, Any]]) -> None:
    """A card is played by clicking it in the hand (which narrows the moves to the ones that
    use it), then the button of one of them; without a card to play, draw or pass."""
    plays = [action for action in actions if action["type"] == "play"]
    if not plays:
        click_action(page, actions[0])
        return
    card = plays[0]["card"]
    page.click(f'#hand button[data-pick="{card}"]')
    page.wait_for_selector(f'#hand button[data-pick="{card}"][aria-pressed=true]')
    narrowed = [action for action in offered(page) if action["type"] == "play"]
    assert narrowed and all(action["card"] == card for action in narrowed), narrowed
    click_action(page, narrowed[0])


def test_the_lobby_lists_the_installed_game_with_its_rules(open_plugin_page, served, screenshot):
    page, _ = open_plugin_page()
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]", timeout=MOVE_TIMEOUT_MS)
    form = page.locator(f"form[data-game-type={GAME}]")
    assert form.locator("h3").inner_text() == "Crazy Eights"
    rules = form.locator(".rules-link a")
    assert rules.inner_text() == "How to play Crazy Eights"
    assert rules.get_attribute("href") == f"/rules/{GAME}"
    answer = requests.get(f"{served}/rules/{GAME}", timeout=HTTP_TIMEOUT)
    assert answer.status_code == 200 and "CE-1" in answer.text
    choices = form.locator("select[name=seat-1] option").all_inner_texts()
    assert "Random bot (plays any legal move: easy to beat)" in choices
    # The plug-in's own bot, with the words its GamePlugin gives it (`descriptions`).
    assert "Eights-last bot (keeps its eights for last)" in choices
    # Its options in its own words (GET /v1/game-types), a seat chosen among the seats.
    form.locator("details.options > summary").click()
    assert form.locator(f"label[for=opt-{GAME}-first_seat]").inner_text() == "First seat"
    seat_choices = form.locator("[data-option=first_seat] option").all_inner_texts()
    assert seat_choices == ["Not set", "Seat 1", "Seat 2"], seat_choices
    chosen = form.locator("[data-option=first_seat]").evaluate("e => e.selectedOptions[0].text")
    assert chosen == "Seat 1", "the default, seat 0, is chosen"
    assert "CE-14" in form.locator(f"#opt-{GAME}-target-hint").inner_text()
    assert_labelled(page)
    screenshot(page, "plugin-crazy-eights-lobby")


def test_a_game_is_created_in_the_lobby_and_played_to_the_end_by_clicking(
    open_plugin_page, screenshot
):
    page, _ = open_plugin_page()
    create_in_lobby(page, GAME, name="Ann", seats=["you", "bot:random", f"bot:{OWN_POLICY}"])
    assert page.locator("#table-heading").inner_text() == "Crazy Eights: Ann, seat 1"
    assert page.locator("#rules-link").inner_text() == "How to play Crazy Eights"
    wait_for_move(page)
    # The table as the shapes declare it: the top of the discard pile with the pile's size,
    # each seat's hand size and score, the moves named by the cards' names.
    centre = page.locator("#centre dl.facts").inner_text()
    assert re.search(rf"Discard\s+\S+\s+{CARD_NAME}\s+\(\d+ cards?\)", centre), centre
    assert re.search(r"Stock\s+\d+ cards?", centre), centre
    seats = page.locator("#seats").inner_text()
    assert len(re.findall(r"Hand\s+\d+ cards?", seats)) == 3, seats
    assert len(re.findall(r"Score\s+\d+", seats)) == 3, seats
    move_labels(page)
    assert_labelled(page)
    assert_no_raw_json(page, "the first move")
    screenshot(page, "plugin-crazy-eights-table")

    seen: dict[str, Any] = {}

    def check_now_and_then(moves: int) -> None:
        if moves % 5 == 0 and page.get_attribute("main", "data-status") == "active":
            assert_no_raw_json(page, f"after {moves} moves")
        seen["bot"] = seen.get("bot") or bot_sentence(page)

    moves = play_until_over(
        page, pick_then_play, max_moves=MAX_MOVES, seconds=PLAY_SECONDS, between=check_now_and_then
    )
    assert moves >= 1
    seen["bot"] = seen.get("bot") or bot_sentence(page)
    assert seen["bot"], f"no bot move reads as a sentence: {log_lines(page)[:20]}"

    heading = page.locator("#result-heading").inner_text()
    assert re.fullmatch(r"Game over: (you win|.+ wins?|.+ share the win)!", heading), heading
    scores = page.locator("#result table.scores tbody tr").all_inner_texts()
    assert len(scores) == 3 and all(re.fullmatch(r".+\t-?\d+", row) for row in scores), scores
    assert page.locator("#result tr.winner").count() >= 1
    assert re.fullmatch(r"Why: [a-z][a-z ]*\.", page.locator("#result p").first.inner_text())
    assert_no_raw_json(page, "the end")
    screenshot(page, "plugin-crazy-eights-finished")

    # Its replay, every hand face up, in the same words.
    page.click("#watch-replay")
    page.wait_for_selector("body[data-ready=replay]", timeout=MOVE_TIMEOUT_MS)
    assert page.locator("#replay-heading").inner_text() == "Replay of this Crazy Eights game"
    deal = page.locator("#deal-words").inner_text()
    assert re.fullmatch(r"The cards are dealt: .+ 5 cards\.", deal), deal
    page.click("#replay-end")
    page.wait_for_selector(f"main[data-position='{page.get_attribute('main', 'data-steps')}']")
    assert page.locator("#step-events li").count() >= 1
    assert_no_raw_json(page, "the replay's last step")
    screenshot(page, "plugin-crazy-eights-replay-end")


def test_without_the_api_document_the_table_reads_from_the_views(
    open_plugin_page, served, screenshot
):
    """The document cannot be read (here: it is not JSON): the cards, the moves and the log are
    still named from the views alone."""
    page, _ = open_plugin_page(width=390, height=844)
    page.route(
        "**/openapi.json",
        lambda route: route.fulfill(status=200, content_type="application/json", body="not JSON"),
    )
    game_id = create_with_bots(served, GAME, 3, {1: "random", 2: OWN_POLICY})
    sit_down(page, game_id, "Bea")
    wait_for_move(page)
    move_labels(page)
    hand = page.locator("#hand [data-card-id]").evaluate_all(
        "cards => cards.map(card => card.getAttribute('aria-label'))"
    )
    assert hand and all(re.fullmatch(CARD_NAME, name) for name in hand), hand
    assert re.search(r"Hand\s+\d+ cards?", page.locator("#seats").inner_text())
    assert_no_raw_json(page, "without the document")
    screenshot(page, "plugin-crazy-eights-without-document-phone")


def test_the_generic_renderer_is_what_the_server_serves_for_it(served):
    """No renderer in the package: /web/renderers/crazy-eights.js is the generic module."""
    answer = requests.get(f"{served}/web/renderers/{GAME}.js", timeout=HTTP_TIMEOUT)
    assert answer.status_code == 200
    generic = Path(__file__).resolve().parents[2] / "server/cardroom/web/static/games/generic.js"
    assert answer.text == generic.read_text(encoding="utf-8")


def test_no_game_is_named_in_the_web_core():
    """The lobby, the table, the replay and the generic renderer name no game: each game's
    words are in its own renderer module (comments may cite one as an example)."""
    static = Path(__file__).resolve().parents[2] / "server/cardroom/web/static"
    named = re.compile(r"mr-toast|exact-plays|Mr Toast|Exact Plays|No Way|\b(MT|EP)-\d+")
    for path in [*static.glob("*.js"), *static.glob("games/*.js"), *static.glob("*.html")]:
        code = re.sub(r"/\*.*?\*/|<!--.*?-->", "", path.read_text(encoding="utf-8"), flags=re.S)
        code = re.sub(r"(?m)(^|\s)//(\s.*)?$", "", code)
        found = named.search(code)
        assert not found, f"{path.name} names a game: {found.group(0)!r}"
