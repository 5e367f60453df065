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
    seat_of,
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
        r"Buddy 1, Buddy 2 and Buddy 3: a Buddy is scored only on top of a green", hand
    )
    assert "In the Trash: it throws away a chore in front of you" in hand
    assert "Responsibility 3: a chore goes only to a player who has scored" in hand
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
    assert "The stacked deck" in page.text_content("[data-secret=deck]")
    # Review item 12: the seed and the stacked deck are for developers, folded away.
    assert "Seed" not in text and "Details for developers" in text, text
    assert page.locator("#result details.reveal:not([open])").count() == 1
    # Item 21: on a phone the log is not a small box of its own that cuts off a line.
    log_box = page.eval_on_selector("#log-list", "e => e.scrollHeight - e.clientHeight")
    assert log_box <= 1, f"the log scrolls inside its box ({log_box}px hidden)"
    # Item 20: a spectator is told when the players play again.
    token = seat_of(page, game_id)["token"]
    rematch = requests.post(
        f"{live_server}/v1/games/{game_id}/rematch",
        headers={"Authorization": f"Bearer {token}"},
        timeout=HTTP_TIMEOUT,
    )
    assert rematch.status_code == 200, rematch.text
    page.goto(f"/watch/{game_id}")
    wait_for_table(page)
    link = page.locator("#watch-rematch")
    assert link.inner_text() == "They play again: watch the new game"
    assert link.get_attribute("href") == f"/watch/{rematch.json()['id']}"


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
    assert "Declarations: you: 1 play;" in log, log
    summary = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert summary["status"] == "finished"
    screenshot(page, "exact-plays-words-finished")


# --- one of everything: the words for counts of 1, straight from the game modules ---------

SINGULARS = """async () => {
  const ep = await import("/web/renderers/exact-plays.js");
  const mt = await import("/web/renderers/mr-toast.js");
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


# --- Exact Plays: the reasons and log lines a newcomer reads, from the module itself -------

EXACT_PLAYS_WORDS = """async () => {
  const ep = await import("/web/renderers/exact-plays.js");
  const name = (seat) => (seat === 0 ? "you" : `Bot ${seat}`);
  const ctx = { me: 0, view: null, name, Name: (seat) => (seat === 0 ? "You" : name(seat)) };
  const card = (number, suit) => ({ id: `${number}${suit[0]}`, code: "", number, suit });
  const seat = (index) => ({
    seat: index, hand_size: 3, play_tokens: 1, wild_tokens: 1, declared: true, declaration: 2,
    total: 0,
  });
  const view = (field) => ({
    public: {
      round: 1, rounds: 3, phase: "play", turn: 0, field, field_wild: null,
      field_kind: field.length === 1 ? "single" : "set", field_by: 1, cleared: [],
      seats: [seat(0), seat(1)], token_pile: 1, draw_pile: null, rps: null, penalties: [],
      totals: [0, 0], start_player: 1,
    },
    you: { seat: 0, hand: [card(5, "bolt")], play_tokens: 1, wild_tokens: 1 },
    legal_actions: [{ type: "pass" }, { type: "pass", switch: "to_wild" }],
  });
  const text = (parts) => {
    const box = document.createElement("div");
    box.append(...[parts].flat(9));
    return box.textContent;
  };
  const nine = view([card(9, "bolt")]);
  const out = { type: "round_ended", round: 1, reason: "out_of_cards", penalties: [0, -5, -9],
    totals: [0, -5, -9], hand_sizes: [0, 2, 3], play_tokens: [0, 0, 0], wild_tokens: [0, 0, 0] };
  const auto = { type: "played", seat: 1, cards: [card(3, "splat")], wild: null, kind: "single",
    auto: true };
  return {
    nine: text(ep.centre(nine, ctx)),
    two: text(ep.centre(view([card(2, "bolt")]), ctx)),
    why: ep.whyUnusable(nine, card(5, "bolt"), ctx).text,
    cardName: ep.cardName(card(5, "bolt")),
    label: ep.renderCard(card(5, "bolt")).getAttribute("aria-label"),
    turnHelp: text(ep.actionGroups(nine).find((group) => group.key === "turn").hint),
    declared: ep.describe({ type: "declarations_revealed", declarations: [1, 6, 6] }, ctx),
    autoPlay: ep.describe(auto, ctx),
    autoPass: ep.describe({ type: "passed", seat: 2, switch: null, auto: true }, ctx),
    returned: ep.describe({ type: "field_cleared", by: 2, reason: "returned", cards: [] }, ctx),
    starts: ep.describe({ type: "start_player", seat: 2, reason: "field_cleared" }, ctx),
    roundOut: ep.describe(out, ctx),
    minus50: ep.resultReason(
      { reason: "minus_50", winners: [1], scores: [-52, -10, -30], rounds: [[], []] }, ctx),
    rounds: ep.resultReason(
      { reason: "rounds", winners: [0], scores: [-3, -10, -30], rounds: [[], [], []] }, ctx),
  };
}"""


def test_exact_plays_reasons_name_players_and_leave_out_impossible_advice(open_page):
    page, _ = open_page()
    page.goto("/")
    said = page.evaluate(EXACT_PLAYS_WORDS)
    # Review item 8: no card is higher than 9 nor lower than 2; only a Wild token is.
    assert "one card higher than 9 (only with a Wild token as 10)" in said["nine"], said["nine"]
    assert "2 cards, one of them lower than 9." in said["nine"], said["nine"]
    assert "2 cards, one of them lower than 2 (only with a Wild token as 1)" in said["two"]
    # Item 4: the reason reads after one card's name or several ("5 bolt: …", "All your cards: …").
    assert said["why"].startswith("Not part of any play that beats the single"), said["why"]
    assert "with it" not in said["why"], said["why"]
    # Item 14: one name form, as the buttons and the log say.
    assert said["cardName"] == "5 bolt" and said["label"] == "5 bolt"
    # Item 19: what a Wild token is for, next to the pass that makes one.
    assert "A Wild token is a joker" in said["turnHelp"], said["turnHelp"]
    # Item 11: each player's declaration on its own.
    assert said["declared"] == "Declarations: you: 1 play; Bot 1: 6 plays; Bot 2: 6 plays."
    # Item 13: why a move was automatic.
    assert "automatically: with one card left and an empty field" in said["autoPlay"]
    assert "automatically: with no tokens left, passing was the only move" in said["autoPass"]
    # Item 9: who, and why.
    assert said["returned"] == (
        "Nobody beat Bot 2's play: the field is cleared and Bot 2 starts again."
    )
    assert said["starts"] is None, "the line before already says who starts"
    assert "the field was cleared while you were out of cards" in said["roundOut"]
    assert said["minus50"] == (
        "you reached -52 (-50 or lower ends the game early); Bot 1 is closest to 0"
    )
    assert said["rounds"] == "all 3 rounds have been played; you are closest to 0"


# --- Mr Toast: the words a newcomer stumbled on (review items 4 to 7, 10, 13) -------------

MR_TOAST_WORDS = """async () => {
  const mt = await import("/web/renderers/mr-toast.js");
  const name = (seat) => (seat === 0 ? "you" : `Bot ${seat}`);
  const ctx = { me: 0, view: null, name, Name: (seat) => (seat === 0 ? "You" : name(seat)) };
  const card = (id, code, colour, value, cardName) => ({ id, code, colour, value, name: cardName });
  const tb = card("b1", "TB", "blue", null, "Take a Break");
  const noWay = card("n1", "NW", "no-way", null, "No Way");
  const seat = (index, score = 0) => ({ seat: index, hand_size: 5, score, fun: [], red: null,
    take_a_break: null });
  const view = (extra, legal = [], me = 0) => ({
    public: { mode: "exact", turn_limit: 40, turn: 3, current_seat: 0, phase: "play",
      seats: [seat(0, 14), seat(1)], draw_pile: 9, discard_pile: [], pending: null, ...extra },
    you: { seat: me, hand: [] },
    legal_actions: legal,
  });
  const pending = (noWays) => ({ seat: 1, card: tb, target: 0, no_ways: noWays,
    waiting_for: [0], deadline: null });
  const reaction = view({ phase: "reaction", current_seat: 1, pending: pending([]) },
    [{ type: "allow" }, { type: "no_way", card: "n1" }]);
  const labels = mt.actionGroups(reaction, ctx)
    .flatMap((group) => group.items.map((item) => item.label));
  const green = card("g5", "G5", "green", 5, "Recreation 5");
  const blue = view({ phase: "blue" }, [{ type: "end_turn" }]);
  const blueToPlay = view({ phase: "blue" }, [{ type: "play_blue", card: "b1", target: 1 }]);
  const blues = mt.actionGroups(blue, ctx);
  mt.describe({ type: "blue_played", seat: 1, card: tb, target: 0 }, ctx);
  return {
    myTurn: mt.phaseText(view({}, [{ type: "end_turn" }]), ctx),
    theirTurn: mt.phaseText(view({ current_seat: 1 }), ctx),
    blueStep: mt.phaseText(blueToPlay, ctx),
    window: mt.phaseText(reaction, ctx),
    answer: mt.yourMove(reaction),
    labels,
    blueGroups: blues.map((group) => [group.title, group.aloneTitle || null]),
    past: mt.whyUnusable(view({}, [{ type: "end_turn" }]), green, ctx),
    afterScore: mt.whyUnusable(blue, green, ctx).text,
    answering: mt.whyUnusable(reaction, green, ctx).text,
    noWays: mt.whyUnusable(view({}, [{ type: "end_turn" }]), noWay, ctx),
    together: mt.whyNotTogether(view({ mode: "irresponsible" }), [green, { ...green, id: "g4" }]),
    noWayAgain: mt.describe(
      { type: "no_way", seat: 1, card: noWay, chain: 2, outcome: "happens" }, ctx),
    noWayFirst: mt.describe(
      { type: "no_way", seat: 0, card: noWay, chain: 1, outcome: "cancelled" }, ctx),
    penny: mt.describe({ type: "blue_resolved", seat: 1, card: tb, effect: "find_a_penny" }, ctx),
    starts: mt.whoStarts(view({ turn: 4, current_seat: 1 })),
    awaited: [0, 1].map((seat) => mt.awaitedWord(view({}), seat, ctx))
      .concat([mt.awaitedWord(reaction, 0, ctx)]),
    turnLimit: mt.resultReason({ reason: "turn_limit" }),
  };
}"""


def test_mr_toast_words_a_newcomer_reads(open_page):
    page, _ = open_page()
    page.goto("/")
    said = page.evaluate(MR_TOAST_WORDS)
    # Item 5: no "step 2", no "go on", no "It's your move" said twice.
    assert said["myTurn"] == "Turn 3, your turn: score, give or clear a chore, or end your turn."
    assert said["theirTurn"] == "Turn 3, Bot 1's turn."
    assert said["blueStep"] == "Turn 3, your turn: play a blue card or end your turn."
    assert said["answer"] == "Answer now: say No Way or let it happen."
    # Item 6: "you" is not capitalised mid-sentence.
    assert "unless someone says No Way, you skip your next turn." in said["window"]
    assert "Let it happen: you skip your next turn" in said["labels"], said["labels"]
    assert not re.search(r", You\b|: You\b", said["window"] + "\n".join(said["labels"]))
    # Item 3: "Or" only below another group; alone, the end of the turn has its own title.
    assert said["blueGroups"] == [["Or", "Nothing else to do"]], said["blueGroups"]
    assert said["together"].startswith("you can score only one green"), said["together"]
    # Item 4: plain reasons, said of one card and of several.
    assert said["past"]["text"].startswith("Scoring it would take you past 15 Fun points")
    assert said["past"]["many"].startswith("Scoring any of these would take you past 15")
    assert "you must reach exactly 15" in said["past"]["text"]
    assert said["afterScore"] == (
        "You have already scored or dealt with a chore this turn: "
        "now play a blue card or end your turn."
    )
    assert said["answering"].startswith("Bot 1 played a blue card: for now you can only answer")
    assert "keep them" in said["noWays"]["many"] and "keep it" in said["noWays"]["text"]
    # Item 7: which No Way, and what goes ahead.
    assert said["noWayAgain"] == (
        "Bot 1 said No Way to the No Way, so as it stands the Take a Break goes ahead again."
    )
    assert said["noWayFirst"] == (
        "You said No Way to the Take a Break, so as it stands the Take a Break is cancelled."
    )
    # Item 13: the draw that follows Find a Penny has its own line; who took turn 1.
    assert said["penny"] is None, "the draw that follows says it (second review, item 11)"
    assert said["starts"] == 0
    # Item 10: no "awaited" badge.
    assert said["awaited"] == ["your turn", "their turn", "to answer"]
    # Item 16.
    assert said["turnLimit"].endswith("whoever has the most Fun points wins")


# Seat 1 (you) holds three greens and two No Ways; the greedy bot's cards do not matter.
PICKS_DECK = ["G2", "G3", "G4", "NW", "NW"] + ["G5", "G5", "G3", "R3", "TB"] + ["G2"] * 6
PICKS = {
    "mode": "irresponsible",
    "first_seat": 0,
    "turn_limit": 4,
    "composition": [
        {"code": code, "count": count}
        for code, count in {"G2": 7, "G3": 2, "G4": 1, "G5": 2, "NW": 2, "R3": 1, "TB": 1}.items()
    ],
    "deck": PICKS_DECK,
}


def test_mr_toast_table_says_why_picked_cards_have_no_move(open_page, live_server, screenshot):
    page, _ = open_page(390, 844)
    game_id = create_with_bots(live_server, "mr-toast", 2, {1: "greedy"}, options=PICKS)
    sit_down(page, game_id, "Ann")
    assert wait_for_move(page) == "active"
    # Item 18: the header speaks to a player.
    header = page.inner_text("header.top")
    assert "API docs" not in header and game_id not in header and "For developers" in header
    # Item 5 and 10 on the table itself.
    said = page.inner_text("#status")
    assert said.startswith("Turn 1, your turn: score, give or clear a chore"), said
    assert "step 2" not in said and "It's your move" not in said, said
    assert page.locator("#seats .badge", has_text="awaited").count() == 0
    assert page.locator("#seats .badge", has_text="your turn").count() == 1
    # Item 13: the log says who starts.
    assert "the game begins. You start." in page.inner_text("#log-list")
    # Item 4: two No Ways share one reason, said of both.
    hand = page.inner_text("#hand")
    assert "No Way (2 cards): No Way cards are never played on your turn: keep them" in hand
    # Item 3: two greens picked: why no move uses them, and no lone "Or".
    page.click("#hand button[aria-label^='Recreation 2']")
    page.click("#hand button[aria-label^='Recreation 3']")
    message = page.inner_text("#no-move-uses")
    assert message.startswith("No move uses all the cards you picked (Recreation "), message
    assert "you can score only one green" in message and "Clear the picked cards" in message
    read_words(page, "picks no move uses")
    screenshot(page, "mr-toast-words-picks-phone")
    page.click("#hand button[data-focus-key=clear-picks]")
    score = next(a for a in offered(page) if a["type"] == "score" and not a.get("purple"))
    click_action(page, score)
    assert wait_for_move(page) == "active"
    # After the score, only the end of the turn: a title of its own, not "Or".
    titles = page.locator("#actions h3").all_inner_texts()
    assert titles == ["Nothing else to do"], titles
    said = page.inner_text("#status")
    assert said == "Turn 1, your turn: no blue card to play, so end your turn.", said
    read_words(page, "after the score")
    screenshot(page, "mr-toast-words-after-score-phone")


# --- the second review: Mr Toast's reasons and log lines, from the modules themselves ------

SECOND_REVIEW_WORDS = """async () => {
  const mt = await import("/web/renderers/mr-toast.js");
  const ep = await import("/web/renderers/exact-plays.js");
  const dom = await import("/web/dom.js");
  const name = (seat) => (seat === 0 ? "you" : `Bot ${seat}`);
  const ctx = { me: 0, view: null, name, Name: (seat) => (seat === 0 ? "You" : name(seat)) };
  const card = (id, code, colour, value, cardName) => ({ id, code, colour, value, name: cardName });
  const tb = card("b1", "TB", "blue", null, "Take a Break");
  const fp = card("b2", "FP", "blue", null, "Find a Penny");
  const noWays = [card("n1", "NW", "no-way", null, "No Way"), card("n2", "NW", "no-way", null,
    "No Way")];
  const chore = card("r1", "R3", "red", 3, "Responsibility 3");
  const green = (id, value) => card(id, `G${value}`, "green", value, `Recreation ${value}`);
  const scored = [{ green: green("s4", 4), purple: null, points: 4 }];
  const seat = (index, fun = [], red = null) => ({ seat: index, hand_size: 5,
    score: fun.length ? 4 : 0, fun, red, take_a_break: null });
  const view = (seats, hand, extra = {}) => ({
    public: { mode: "exact", turn_limit: 40, turn: 3, current_seat: 0, phase: "play", seats,
      draw_pile: 9, discard_pile: [], pending: null, ...extra },
    you: { seat: 0, hand },
    legal_actions: [{ type: "end_turn" }],
  });
  // Item 1: answering a Take a Break with both No Ways picked, in exact mode.
  const answering = view([seat(0, scored), seat(1, scored)], noWays, { phase: "reaction",
    current_seat: 1, pending: { seat: 1, card: tb, target: 0, no_ways: [], waiting_for: [0],
    deadline: null } });
  // Item 2: a chore nobody can take (one has one, one has not scored; or everyone has one).
  const mixed = view([seat(0), seat(1, scored, chore), seat(2)], [chore]);
  const allHaveOne = view([seat(0), seat(1, scored, chore), seat(2, scored, chore)], [chore]);
  const twoPlayers = view([seat(0), seat(1, scored, chore)], [chore]);
  // Item 6: a chore that fewer cards clear.
  const withChore = view([seat(0, [], chore), seat(1)], [green("g3", 3), green("g4", 4)]);
  // Item 9: each No Way of a chain, while others may still answer.
  const noWay = (chain) => mt.describe({ type: "no_way", seat: chain % 2, card: noWays[0], chain,
    outcome: chain % 2 ? "cancelled" : "happens" }, ctx);
  mt.describe({ type: "blue_played", seat: 1, card: tb, target: 0 }, ctx);
  const chain = [1, 2, 3].map(noWay);
  // Item 11: Find a Penny said by its draw, once; a later draw is a draw.
  const penny = (seat, drew) => [
    mt.describe({ type: "blue_resolved", seat, card: fp, target: null, effect: "find_a_penny",
      no_ways: 0 }, ctx),
    mt.describe({ type: "reshuffled", count: 7 }, ctx),
    mt.describe(drew, ctx),
    mt.describe({ type: "turn_started", seat: 1, turn: 4 }, ctx),
    mt.describe({ type: "drew", seat: 1, count: 1 }, ctx),
  ];
  const theirs = penny(1, { type: "drew", seat: 1, count: 2 });
  const mine = penny(0, { type: "drew", seat: 0, count: 2, private: { cards: [green("d2", 2),
    green("d4", 4)] } });
  // Item 17: the points of each scored card, labelled.
  const box = document.createElement("div");
  box.append(...mt.seatDetails(view([seat(0, scored)], []), 0, ctx).flat(9));
  // Item 13: the Exact Plays play group leaves the picking hint to the hand.
  const epView = {
    public: { round: 1, rounds: 3, phase: "play", turn: 0, field: [], field_wild: null,
      field_kind: null, field_by: null, cleared: [], seats: [], token_pile: 1, draw_pile: null,
      rps: null, penalties: [], totals: [0, 0], start_player: 0 },
    you: { seat: 0, hand: [{ id: "5B", code: "5B", number: 5, suit: "bolt" }], play_tokens: 1,
      wild_tokens: 0 },
    legal_actions: [{ type: "play", cards: ["5B"] }],
  };
  const playHint = ep.actionGroups(epView).find((group) => group.key === "play")?.hint;
  return {
    twoNoWays: mt.whyNotTogether(answering, noWays),
    mixed: mt.whyUnusable(mixed, chore, ctx).text,
    allHaveOne: mt.whyUnusable(allHaveOne, chore, ctx).text,
    twoPlayers: mt.whyUnusable(twoPlayers, chore, ctx).text,
    fewer: mt.whyUnusable(withChore, green("g4", 4), ctx),
    fewerTogether: mt.whyNotTogether(withChore, [green("g3", 3), green("g4", 4)]),
    chain,
    theirs,
    mine,
    seatText: box.textContent,
    playHint: typeof playHint === "string" ? playHint : String(playHint),
    midSentence: [
      dom.midSentence("A Buddy is scored only on top of a green", ["Bot 1"]),
      dom.midSentence("It throws away a chore"),
      dom.midSentence("No Way cards are never played", ["No Way"]),
      dom.midSentence("Greedy bot played a blue card", ["Greedy bot", null]),
      dom.midSentence("You have a chore"),
    ],
  };
}"""


def test_mr_toast_second_review_words(open_page):
    page, _ = open_page()
    page.goto("/")
    said = page.evaluate(SECOND_REVIEW_WORDS)
    # Item 1: No Way cards are never scored: the reason is that only one is played at a time.
    assert said["twoNoWays"] == "you can play only one No Way card at a time", said["twoNoWays"]
    # Item 2: no contradiction; who can take a chore, said truthfully.
    assert said["mixed"] == (
        "Nobody can take a chore now: each other player has one already or hasn't scored yet."
    )
    assert said["allHaveOne"] == (
        "Nobody can take a chore now: every other player has one already, "
        "and a player holds only one at a time."
    )
    assert said["twoPlayers"].startswith("Nobody can take a chore now: Bot 1 has one already")
    # Item 6: why the extra cards are not allowed.
    assert said["fewer"]["text"].endswith(
        "you can clear it without this card, and extra cards aren't allowed."
    )
    assert said["fewer"]["many"].endswith("without these cards, and extra cards aren't allowed.")
    assert said["fewerTogether"].endswith("and extra cards aren't allowed"), said["fewerTogether"]
    # Item 9: every No Way of a chain is "as it stands"; the window's close says what happened.
    assert said["chain"] == [
        "Bot 1 said No Way to the Take a Break, so as it stands the Take a Break is cancelled.",
        "You said No Way to the No Way, so as it stands the Take a Break goes ahead again.",
        "Bot 1 said No Way to the No Way, so as it stands the Take a Break is cancelled again.",
    ]
    # Item 11: Find a Penny is said once, by the draw it makes; the next draw is plain.
    reshuffled = "The discard pile was shuffled into a new draw pile of 7 cards."
    assert said["theirs"] == [
        None,
        reshuffled,
        "Find a Penny: Bot 1 drew 2 cards.",
        "Turn 4: Bot 1's turn.",
        "Bot 1 drew 1 card.",
    ]
    assert said["mine"][2] == "Find a Penny: you drew Recreation 2 and Recreation 4."
    assert said["mine"][0] is None and said["mine"][4] == "Bot 1 drew 1 card."
    # Item 17: a scored card's points are labelled.
    assert "= 4 points" in said["seatText"], said["seatText"]
    # Item 13: the hint to pick cards is said once, under the hand (table.js), not here too.
    assert "Pick cards" not in said["playHint"], said["playHint"]
    # Item 12: a reason after a card list reads mid-sentence; names keep their capitals.
    assert said["midSentence"] == [
        "a Buddy is scored only on top of a green",
        "it throws away a chore",
        "No Way cards are never played",
        "Greedy bot played a blue card",
        "you have a chore",
    ]


def test_mr_toast_table_second_review(open_page, live_server, screenshot):
    """Items 1, 3, 10, 12, 13 and 17 on a running table (the PICKS deck: the greedy bot
    scores, then plays its Take a Break on you, who hold two No Ways)."""
    page, _ = open_page(390, 844)
    game_id = create_with_bots(live_server, "mr-toast", 2, {1: "greedy"}, options=PICKS)
    sit_down(page, game_id, "Ann")
    assert wait_for_move(page) == "active"
    skip = page.locator("#skip-link")
    assert skip.inner_text() == "Skip to your move" and skip.get_attribute("href") == "#actions"
    # Item 10: two greens picked, nothing uses them: no lone "Or" above "End your turn".
    page.click("#hand button[aria-label^='Recreation 2']")
    page.click("#hand button[aria-label^='Recreation 3']")
    titles = page.locator("#actions h3").all_inner_texts()
    assert titles == ["Without the picked cards"], titles
    # Item 13: the hint to pick cards, once.
    assert read_words(page, "two greens picked").count("Pick cards") == 1
    page.click("#hand button[data-focus-key=clear-picks]")
    score = next(a for a in offered(page) if a["type"] == "score" and not a.get("purple"))
    click_action(page, score)
    assert wait_for_move(page) == "active"
    click_action(page, {"type": "end_turn"})
    # The bot scores and plays its Take a Break on you: answer it.
    assert wait_for_move(page) == "active"
    assert {"type": "allow"} in offered(page), offered(page)
    hand = page.inner_text("#hand")
    # Item 12: a reason after a card list starts in lower case, a player's name keeps its capital.
    assert re.search(r"Recreation \d[^\n]*: Greedy bot played a blue card: for now", hand), hand
    # Item 1: both No Ways picked: the reason is theirs, not a score's.
    page.locator("#hand button[aria-label^='No Way']").nth(0).click()
    page.locator("#hand button[aria-label^='No Way']").nth(1).click()
    message = page.inner_text("#no-move-uses")
    assert message.startswith(
        "No move uses all the cards you picked (No Way twice): "
        "you can play only one No Way card at a time."
    ), message
    assert "Fun points" not in message, message
    # Item 17: a scored card's points are labelled.
    assert re.search(r"= \d+ points", page.inner_text("#seats")), page.inner_text("#seats")
    read_words(page, "two No Ways picked")
    screenshot(page, "mr-toast-second-review-no-ways-phone")
    # Item 3: a spectator has no move to skip to.
    page.goto(f"/watch/{game_id}")
    wait_for_table(page)
    skip = page.locator("#skip-link")
    assert skip.inner_text() == "Skip to the table" and skip.get_attribute("href") == "#centre"


# --- Exact Plays: second review, items 4, 5 and 7, from the module itself -----------------

EXACT_PLAYS_SECOND_LOOK = """async () => {
  const ep = await import("/web/renderers/exact-plays.js");
  const name = (seat) => (seat === 0 ? "you" : `Greedy bot ${seat}`);
  const ctx = { me: 0, view: null, name, Name: (seat) => (seat === 0 ? "You" : name(seat)) };
  const card = (number, suit) => ({ id: `${number}${suit[0]}`, code: "", number, suit });
  const seat = (index) => ({
    seat: index, hand_size: 3, play_tokens: 1, wild_tokens: 0, declared: true, declaration: 2,
    total: 0,
  });
  const view = (field, { wild = 0, legal = [], hand = [card(5, "bolt")], tokens = 1,
    startPlayer = 1, rps = null } = {}) => ({
    public: {
      round: 1, rounds: 4, phase: "play", turn: 0, field, field_wild: null,
      field_kind: field.length === 1 ? "single" : "set", field_by: 1, cleared: [],
      seats: [seat(0), seat(1), seat(2)], token_pile: 1, draw_pile: null, rps, penalties: [],
      totals: [0, 0, 0], start_player: startPlayer,
    },
    you: { seat: 0, hand, play_tokens: tokens, wild_tokens: wild },
    legal_actions: legal,
  });
  const text = (parts) => {
    const box = document.createElement("div");
    box.append(...[parts].flat(9));
    return box.textContent;
  };
  const empty = view([]);
  const sevens = view([card(7, "acorn"), card(7, "bolt")]);
  const pass = [{ type: "pass" }, { type: "pass", switch: "to_wild" }];
  const play = { type: "play", cards: ["5b"] };
  const tie = { shapes: ["paper", "paper", null], replay: true, remaining: [0, 1] };
  const won = { shapes: [null, "scissors", "paper"], replay: false, remaining: [1] };
  const out = { shapes: ["rock", "scissors", "scissors"], replay: false, remaining: [0] };
  const rps = { players: [1], throw: 3, chosen: [], throws: [tie, won] };
  return {
    neither: ep.whyNotTogether(empty, [card(6, "mushroom"), card(3, "bolt")]),
    gap: ep.whyNotTogether(empty, [card(4, "mushroom"), card(6, "mushroom")]),
    gaps: ep.whyNotTogether(view([], { wild: 1 }), [card(2, "acorn"), card(5, "acorn")]),
    filled: ep.whyNotTogether(view([], { wild: 1 }), [card(4, "acorn"), card(6, "acorn")]),
    many: ep.whyNotTogether(view([card(9, "acorn")]), [card(3, "bolt"), card(3, "acorn"),
      card(3, "mushroom")]),
    few: ep.whyNotTogether(view([card(8, "acorn"), card(8, "bolt"), card(8, "mushroom")]),
      [card(3, "bolt"), card(3, "acorn")]),
    low: ep.whyNotTogether(sevens, [card(4, "bolt"), card(4, "acorn")]),
    passOnly: ep.yourMove(view([card(9, "acorn")], { legal: pass })),
    noToken: ep.yourMove(view([card(9, "acorn")], { legal: [{ type: "pass" }], tokens: 0 })),
    noCards: ep.yourMove(view([card(9, "acorn")], { legal: [{ type: "pass" }], hand: [] })),
    emptyField: ep.yourMove(view([], { legal: [play] })),
    emptyOrDraw: ep.yourMove(view([], { legal: [{ type: "draw" }, play] })),
    beat: ep.yourMove(view([card(4, "acorn")], { legal: [...pass, play] })),
    centre: text(ep.centre(view([], { rps }), ctx)),
    log: [tie, won, out].map((thrown, index) =>
      ep.describe({ type: "rps_revealed", throw: index + 1, ...thrown }, ctx)),
    seatFacts: text(ep.seatDetails(view([]), 1, ctx)),
  };
}"""


def test_exact_plays_says_why_picks_fail_what_a_throw_decided_and_why_you_pass(open_page):
    page, _ = open_page(390, 844)
    page.goto("/")
    said = page.evaluate(EXACT_PLAYS_SECOND_LOOK)
    # Item 4: a true reason why the picked cards go together in no play (EP-7, EP-8).
    assert said["neither"] == (
        "they are neither a set (cards of one number) nor a run (numbers in a row, all of one suit)"
    )
    assert said["gap"] == (
        "they are not a run: 5 is missing between them, and you have no Wild token to stand for it"
    )
    assert said["gaps"].startswith("they are not a run: 3 and 4 are missing between them")
    assert said["filled"] is None, "a Wild token fills one gap: 4, Wild as 5, 6 is a run"
    assert said["many"] == "on a field of 1 card a play has 1 or 2 cards, and these make 3"
    assert said["few"] == "on a field of 3 cards a play has 3 or 4 cards, and these make only 2"
    assert said["low"].startswith("together they do not beat the set on the field: it takes 2 ")
    assert "3 cards, one of them lower than 7" in said["low"], said["low"]
    # Item 7: the status line says why you may only pass, and what goes on an empty field.
    assert said["passOnly"] == "You cannot beat the field: pass (you may turn a token over)."
    assert said["noToken"] == "You have no Play token left: pass."
    assert said["noCards"] == "You have no cards left: pass."
    assert said["emptyField"] == "The field is empty: play any single, set or run."
    assert said["emptyOrDraw"] == (
        "The field is empty: play any single, set or run, or draw a card."
    )
    assert said["beat"] == "Beat the field or pass (you may turn a token over)."
    # Item 5: each throw says what it decided; the field is "Leads now", not "Start player".
    centre = said["centre"]
    assert "You paper and Greedy bot 1 paper: a tie, throw again." in centre, centre
    assert "Greedy bot 1 scissors and Greedy bot 2 paper: Greedy bot 1 wins and starts." in centre
    assert "(again)" not in centre and "Start player" not in centre, centre
    assert "Leads nowGreedy bot 1" in centre, centre
    assert said["log"] == [
        "Throw 1: you paper and Greedy bot 1 paper: a tie, throw again.",
        "Throw 2: Greedy bot 1 scissors and Greedy bot 2 paper: Greedy bot 1 wins and starts.",
        "Throw 3: you rock, Greedy bot 1 scissors and Greedy bot 2 scissors: you win and start.",
    ]
    assert "Leads nowyes" in said["seatFacts"] and "Start" not in said["seatFacts"]


# Two players (splat removed): you hold 6 mushroom and 3 bolt, which go in no play together.
STACKED_HANDS = ["6M", "3B", "2M", "4A", "5A", "8B", "9M", "7A"]
STACKED_HANDS += ["2A", "3A", "6A", "8A", "9A", "2B", "4B", "5B"]
STACKED_HANDS += ["6B", "7B", "9B", "3M", "4M", "5M", "7M", "8M"]
PICKED_LIFT = """() => {
  const facts = document.querySelector('#hand dl.ep-you').getBoundingClientRect();
  const card = document.querySelector('#hand button[aria-pressed=true] .card');
  const ring = parseFloat(getComputedStyle(card).boxShadow.split(' ').pop()) || 0;
  return card.getBoundingClientRect().top - ring - facts.bottom;
}"""


def test_exact_plays_table_on_a_phone_says_why_picks_fail_and_lifts_clear(
    open_page, live_server, screenshot
):
    page, _ = open_page(390, 844)
    options = {"decks": [STACKED_HANDS]}
    game_id = create_with_bots(live_server, "exact-plays", 2, {1: "greedy"}, options=options)
    sit_down(page, game_id, "Ann")
    assert wait_for_move(page) == "active"
    # Ten plays: the most tokens, so you start on the empty field (EP-4).
    click_action(page, {"type": "declare", "tokens": 10})
    assert wait_for_move(page) == "active"
    said = page.inner_text("#status")
    assert said.endswith("The field is empty: play any single, set or run, or draw a card."), said
    # Item 14: a picked card, lifted, keeps clear of your tokens above it (its ring included).
    page.click("#hand button[data-pick='6M']")
    gap = page.evaluate(PICKED_LIFT)
    assert gap >= 4, f"the picked card comes within {gap:.1f}px of your tokens"
    # Item 4: why 6 mushroom and 3 bolt go in no play together.
    page.click("#hand button[data-pick='3B']")
    message = page.inner_text("#no-move-uses")
    assert message.startswith(
        "No move uses all the cards you picked (6 mushroom and 3 bolt): they are neither a set"
    ), message
    read_words(page, "picks no play uses")
    screenshot(page, "exact-plays-words-picks-phone")
