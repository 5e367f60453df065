"""The tables' words (docs/web.md, "What the table says"): walked through both games, waiting,
during play (Mr Toast's No Way window, Exact Plays' declarations) and finished. What a player
reads outside a closed "advanced" fold has no HTTP path, JSON, `null` or bare rule id (a rule
id only as a small reference beside words), no "1 cards"-style plural, and the help a
newcomer needs is where they stall."""

from __future__ import annotations

import re
from typing import Any

import requests

from web_kit import (
    HTTP_TIMEOUT,
    click_action,
    create_with_bots,
    in_viewport,
    offered,
    play_until_over,
    sit_down,
    status,
    wait_for_move,
    wait_for_table,
)

# The visible text nodes (outside closed <details>, their summaries excepted), the small rule
# references apart, and the accessible names given by aria-label.
VISIBLE_WORDS = """() => {
  const text = [], refs = [], labels = [];
  const shown = (element) => element.checkVisibility({ visibilityProperty: true });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element || !node.textContent.trim() || element.closest("script, style")) continue;
    const folded = element.closest("details:not([open])");
    if (folded && !element.closest("summary")) continue;
    if (!shown(element) || element.closest(".rule-ref")) continue;
    text.push(node.textContent.trim());
  }
  for (const element of document.querySelectorAll(".rule-ref")) {
    if (shown(element)) refs.push(element.textContent.trim());
  }
  for (const element of document.querySelectorAll("[aria-label]")) {
    if (shown(element)) labels.push(element.getAttribute("aria-label"));
  }
  return { text: text.join("\\n"), refs, labels };
}"""
NOUNS = "cards|plays|points|tokens|turns|rounds|players|seats|moves|seconds|Ways|throws|numbers"
PLURAL_AFTER_ONE = re.compile(rf"(?<![\d.-])\b1 (?:{NOUNS})\b")
SPEAKS_API = {
    "an HTTP path": re.compile(r"/v1/|\b(?:GET|POST|PUT|PATCH|DELETE) /"),
    "JSON": re.compile(r"[{\[]\s*\"|\"\w+\"\s*:"),
    "null": re.compile(r"\bnull\b|\bundefined\b|\bNaN\b|\[object Object\]"),
    "a bare rule id": re.compile(r"\b(?:MT|EP)-\d+\b"),
}
RULE_REFERENCE = re.compile(r"^\(rules? (?:MT|EP)-\d+(?:(?:, | and )(?:MT|EP)-\d+)*\)$")


def read_words(page: Any, where: str) -> str:
    """The page's visible words, checked; returned for the scene's own checks."""
    words = page.evaluate(VISIBLE_WORDS)
    text, labels = words["text"], words["labels"]
    for what, pattern in SPEAKS_API.items():
        found = pattern.findall(text)
        assert not found, f"{where}: the page shows {what}: {found}\n{text}"
        found = [label for label in labels if pattern.search(label)]
        assert not found, f"{where}: an accessible name holds {what}: {found}"
    for reference in words["refs"]:
        assert RULE_REFERENCE.match(reference), f"{where}: a rule reference reads {reference!r}"
    for said in [text, *labels]:
        assert not PLURAL_AFTER_ONE.search(said), f"{where}: a plural after 1: {said!r}"
    return text


# --- Mr Toast: a stacked deck (MT-1 `composition`, option `deck`) -------------------------
# Seat 1 (you) holds Take a Break, three Buddies and In the Trash, and draws a chore; the
# greedy bot holds two No Ways and says No Way to a Take a Break on itself.
COMPOSITION = {"TB": 1, "IT": 1, "FP": 1, "P1": 1, "P2": 1, "P3": 1, "R3": 2, "NW": 2}
COMPOSITION |= {"G2": 3, "G3": 3, "G4": 3, "G5": 3}
YOURS = ["TB", "P1", "P2", "P3", "IT"]
THEIRS = ["NW", "NW", "G4", "G5", "G3"]
DRAWS = ["R3", "G5", "FP", "G2", "G2", "G2", "G3", "G3", "G4", "G4", "G5", "R3"]
MR_TOAST = {
    "mode": "irresponsible",
    "first_seat": 0,
    "turn_limit": 4,
    "composition": [{"code": code, "count": count} for code, count in COMPOSITION.items()],
    "deck": YOURS + THEIRS + DRAWS,
}


def test_mr_toast_table_speaks_plainly_and_says_why_cards_wait(open_page, live_server, screenshot):
    page, _ = open_page(390, 844)
    # Waiting for a friend: the invitation form, then the table with its links.
    waiting = create_with_bots(live_server, "mr-toast", 2, {})
    page.goto(f"/play/{waiting}")
    page.wait_for_selector("body[data-ready=join]")
    assert "How to play Mr Toast" in read_words(page, "the seat form")
    page.fill("#join-name", "Ann")
    page.click("#join button[type=submit]")
    wait_for_table(page)
    assert status(page) == "waiting"
    text = read_words(page, "waiting")
    assert "Invite your friends" in text and "How to play Mr Toast" in text

    game_id = create_with_bots(live_server, "mr-toast", 2, {1: "greedy"}, options=MR_TOAST)
    sit_down(page, game_id, "Ann")
    assert wait_for_move(page) == "active"
    # Step 2 with no card to score, give or trash: each says why, with its ruling.
    text = read_words(page, "step 2")
    hand = page.inner_text("#hand")
    assert "Why you cannot use" in hand or "Why some cards cannot be used now" in hand, hand
    assert re.search(
        r"Buddy 1, Buddy 2 and Buddy 3: A Buddy is scored only on top of a green", hand
    )
    assert "In the Trash: It throws away a chore in front of you" in hand
    assert "Responsibility 3: A chore goes only to a player who has scored" in hand
    assert page.locator("#hand .rule-ref", has_text="MT-7").count() >= 1
    # A rule reference links to its ruling on the game's rules page.
    ruling = page.locator("#hand .rule-ref a", has_text="MT-9").get_attribute("href") or ""
    assert ruling.endswith("/rules/mr-toast#mt-9"), ruling
    rules_page = requests.get(f"{live_server}{ruling.split('#')[0]}", timeout=HTTP_TIMEOUT)
    assert rules_page.status_code == 200 and 'id="mt-9"' in rules_page.text
    # The cards that wait are described by their reason, for a screen reader too.
    described = page.locator("#hand [data-card-id][aria-describedby]").count()
    assert described == 5, described
    screenshot(page, "mr-toast-words-step-2-phone")

    take_a_break = next(a for a in offered(page) if a["type"] == "play_blue")
    click_action(page, take_a_break)
    # The bot says No Way; the page says so, and what the one button does.
    assert wait_for_move(page) == "active"
    assert offered(page) == [{"type": "allow"}]
    text = read_words(page, "No Way window")
    said = (
        "Greedy bot said No Way to your Take a Break, "
        "so as it stands your Take a Break is cancelled."
    )
    assert said in page.inner_text("#actions"), page.inner_text("#actions")
    assert "You have no No Way card to answer it: accept." in page.inner_text("#actions")
    button = page.inner_text("#actions button[data-action]")
    assert button == "Accept: your Take a Break is cancelled", button
    assert said in page.inner_text("#status")
    assert "your turn: a No Way window is open" not in text
    assert "Allow it" not in text
    screenshot(page, "mr-toast-words-no-way-phone")

    play_until_over(page, lambda p, shown: click_action(p, shown[-1]), max_moves=10, seconds=20)
    text = read_words(page, "finished")
    assert "Game over" in text
    assert in_viewport(page, "#result-heading")["inside"]
    assert "The stacked deck" in page.inner_text("[data-secret=deck]")


# --- Exact Plays: three players, a short game (EP-16 turn limit) --------------------------


def test_exact_plays_table_explains_plays_and_penalties(open_page, live_server, screenshot):
    page, _ = open_page(1280, 800)
    game_id = create_with_bots(
        live_server,
        "exact-plays",
        3,
        {1: "greedy", 2: "greedy"},
        options={"turn_limit": 9},
        seed=5,
    )
    sit_down(page, game_id, "Ann")
    assert wait_for_move(page) == "active"
    text = read_words(page, "declarations")
    actions = page.inner_text("#actions")
    # What a play is and how a round's penalty counts, next to the declaration (EP-3, EP-14).
    assert "A play is one of your turns in which you put down cards" in actions, actions
    assert "a set (two or more cards of one number)" in actions
    assert "the distinct numbers left in your hand" in actions
    assert page.locator("#actions .rule-ref", has_text="EP-3").count() == 1
    assert page.locator("#actions .rule-ref", has_text="EP-14").count() == 1
    labels = page.locator("#actions button[data-action]").evaluate_all(
        "bs => bs.map(b => b.getAttribute('aria-label'))"
    )
    assert "Declare 1 play" in labels and "Declare 0 plays" in labels, labels
    assert "How to play Exact Plays" in text
    screenshot(page, "exact-plays-words-declarations")

    declare = {"type": "declare", "tokens": 1}
    click_action(page, declare)

    def choose(page: Any, shown: list[dict[str, Any]]) -> None:
        read_words(page, "a move")
        plays = [action for action in shown if action["type"] == "play"]
        click_action(page, plays[0] if plays else shown[-1])

    play_until_over(page, choose, max_moves=30, seconds=30)
    text = read_words(page, "finished")
    assert in_viewport(page, "#result-heading")["inside"]
    centre = page.inner_text("#centre")
    assert "Penalties by round" in centre
    assert "A round's penalty, in minus points: the distinct numbers left in your hand" in centre
    log = page.inner_text("#log-list")
    breakdown = r"Penalties: .*-\d+ \((\d+ for the numbers left in hand|10 for Play)"
    assert re.search(breakdown, log), log
    assert "Declarations: you 1 play" in log, log
    summary = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert summary["status"] == "finished"
    screenshot(page, "exact-plays-words-finished")


# --- one of everything: the words for counts of 1, straight from the game modules ---------

SINGULARS = """async () => {
  const ep = await import("/web/games/exact-plays.js");
  const mt = await import("/web/games/mr-toast.js");
  const name = (seat) => (seat === 0 ? "you" : `Bot ${seat}`);
  const ctx = { me: 0, view: null, name, Name: (seat) => (seat === 0 ? "You" : name(seat)) };
  const card = { id: "4M", code: "4M", number: 4, suit: "mushroom" };
  const epSeat = {
    seat: 0, hand_size: 1, play_tokens: 1, wild_tokens: 0, declared: true, declaration: 1,
    total: -1,
  };
  const epView = {
    public: {
      round: 1, rounds: 3, phase: "play", turn: 0, field: [card], field_wild: null,
      field_kind: "single", field_by: 1, cleared: [card], seats: [epSeat, { ...epSeat, seat: 1 }],
      token_pile: 1, draw_pile: 1, rps: null, penalties: [[-1, -1]], totals: [-1, -1],
      start_player: 0,
    },
    you: null,
    legal_actions: [],
  };
  const green = { id: "c1", code: "G1", colour: "green", value: 1, name: "Recreation 1" };
  const mtSeat = {
    seat: 0, hand_size: 1, score: 1, fun: [{ green, purple: null, points: 1 }], red: null,
    take_a_break: null,
  };
  const mtView = {
    public: {
      mode: "exact", turn_limit: 1, turn: 1, current_seat: 0, phase: "play", seats: [mtSeat],
      draw_pile: 1, discard_pile: [green], pending: null,
    },
  };
  const box = document.createElement("div");
  const parts = [ep.centre(epView, ctx), ep.seatDetails(epView, 0, ctx)];
  parts.push(mt.centre(mtView, ctx), mt.seatDetails(mtView, 0, ctx));
  box.append(...parts.flat(9));
  const lines = [
    ep.describe({ type: "declared", seat: 0, tokens: 1 }, ctx),
    ep.describe({ type: "declarations_revealed", declarations: [1, 1] }, ctx),
    mt.describe({ type: "drew", seat: 1, count: 1 }, ctx),
    mt.describe({ type: "reshuffled", count: 1 }, ctx),
  ];
  return box.textContent + "\\n" + lines.join("\\n");
}"""


def test_counts_of_one_read_in_the_singular(open_page, live_server):
    page, _ = open_page()
    page.goto("/")
    text = page.evaluate(SINGULARS)
    assert not PLURAL_AFTER_ONE.search(text), text
    for said in ("1 card this round", "Draw pile1 card", "1 point", "You declared 1 play."):
        assert said in text, (said, text)
