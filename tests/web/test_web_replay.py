"""The replay page (/replay/{game}): a finished game stepped through with buttons and keys,
every hand face up; before the end it says there is nothing to show."""

from __future__ import annotations

import time

import requests

HTTP_TIMEOUT = 10


def finished_bot_game(live_server: str) -> str:
    """A short all-bot game; the server plays it to the end by itself (bounded wait)."""
    body = {
        "game_type": "exact-plays",
        "players": 2,
        "seed": 3,
        "options": {"turn_limit": 40},
        "bots": [{"seat": 0, "policy": "greedy"}, {"seat": 1, "policy": "random"}],
    }
    game = requests.post(f"{live_server}/v1/games", json=body, timeout=HTTP_TIMEOUT).json()
    ends = time.monotonic() + 30
    while time.monotonic() < ends:
        summary = requests.get(f"{live_server}/v1/games/{game['id']}", timeout=HTTP_TIMEOUT)
        if summary.json()["status"] == "finished":
            return game["id"]
        time.sleep(0.05)
    raise AssertionError("the bot game did not finish in 30 s")


def position(page) -> int:
    return int(page.get_attribute("#main", "data-position"))


def test_a_replay_is_stepped_through_with_buttons_and_keys(open_page, live_server, screenshot):
    game_id = finished_bot_game(live_server)
    replay = requests.get(f"{live_server}/v1/games/{game_id}/replay", timeout=HTTP_TIMEOUT).json()
    steps = len(replay["steps"])
    page, _ = open_page()
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("body[data-ready=replay]")
    assert page.inner_text("#replay-heading").startswith("Replay of")
    assert position(page) == 0 and page.is_disabled("#replay-back")
    deal = [card for hand in replay["deal"]["hands"] for card in hand]
    shown = page.eval_on_selector_all(
        "#replay-hands [data-card-id]", "els => els.map(e => e.dataset.cardId)"
    )
    assert sorted(shown) == sorted(deal), "every hand of the deal, face up"

    page.click("#replay-forward")
    assert position(page) == 1
    page.keyboard.press("ArrowRight")
    assert position(page) == 2
    page.keyboard.press("ArrowLeft")
    assert position(page) == 1
    page.focus("#replay-forward")
    page.keyboard.press("Enter")  # the buttons are buttons: Enter and Space work
    assert position(page) == 2
    page.keyboard.press("End")
    assert position(page) == steps and page.is_disabled("#replay-forward")
    final = [card for hand in replay["final"]["hands"] for card in hand]
    shown = page.eval_on_selector_all(
        "#replay-hands [data-card-id]", "els => els.map(e => e.dataset.cardId)"
    )
    assert sorted(shown) == sorted(final)
    scores = page.eval_on_selector_all(
        "#replay-score-rows td", "els => els.map(e => e.textContent)"
    )
    assert scores == [str(score) for score in replay["result"]["scores"]]
    assert f"Step {steps} of {steps}" in page.inner_text("#replay-position")
    screenshot(page, "replay-end")
    page.keyboard.press("Home")
    assert position(page) == 0


def test_the_replay_of_an_unfinished_game_shows_nothing(open_page, live_server):
    body = {"game_type": "mr-toast", "players": 2}
    game = requests.post(f"{live_server}/v1/games", json=body, timeout=HTTP_TIMEOUT).json()
    page, guard = open_page()
    guard.expect(409, f"/v1/games/{game['id']}/replay")
    page.goto(f"/replay/{game['id']}")
    page.wait_for_selector("body[data-ready=replay]")
    assert page.inner_text("#replay-heading") == "No replay to show"
    assert "finished" in page.inner_text("#problem")
    assert page.locator("[data-card-id]").count() == 0


def bot_game(live_server: str, body: dict) -> str:
    game = requests.post(f"{live_server}/v1/games", json=body, timeout=HTTP_TIMEOUT).json()
    ends = time.monotonic() + 30
    while time.monotonic() < ends:
        summary = requests.get(f"{live_server}/v1/games/{game['id']}", timeout=HTTP_TIMEOUT)
        if summary.json()["status"] == "finished":
            return game["id"]
        time.sleep(0.05)
    raise AssertionError("the bot game did not finish in 30 s")


CARD_INSIDE = """() => [...document.querySelectorAll('#main .card')]
  .flatMap(card => [...card.querySelectorAll('.card-name')].map(name => {
    const c = card.getBoundingClientRect(), n = name.getBoundingClientRect();
    return n.left >= c.left - 0.5 && n.right <= c.right + 0.5 ? null : name.textContent;
  })).filter(Boolean)"""


def test_an_exact_plays_replay_shows_the_round_field_tokens_and_declarations(
    open_page, live_server, screenshot
):
    body = {
        "game_type": "exact-plays",
        "players": 4,
        "seed": 7,
        "options": {"turn_limit": 60},
        "bots": [{"seat": seat, "policy": "greedy"} for seat in range(4)],
    }
    game_id = bot_game(live_server, body)
    replay = requests.get(f"{live_server}/v1/games/{game_id}/replay", timeout=HTTP_TIMEOUT).json()
    page, _ = open_page(390, 844)
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("body[data-ready=replay]")
    assert page.inner_text("#replay-round") == "Round 1"
    assert "The field is empty" in page.inner_text("#replay-table")
    assert page.inner_text("#deal-words").startswith("The cards are dealt:")
    assert not page.is_visible(".key-hint"), "no key hint on a phone"
    assert not page.evaluate(CARD_INSIDE), "card labels spill out of cards"

    # The first play: its cards on the field, the player's tokens as the event says.
    first = next(
        index
        for index, step in enumerate(replay["steps"], start=1)
        if any(event["type"] == "played" for event in step["events"])
    )
    played = next(e for e in replay["steps"][first - 1]["events"] if e["type"] == "played")
    page.fill("#replay-slider", str(first))
    page.dispatch_event("#replay-slider", "input")
    assert position(page) == first
    field = page.eval_on_selector_all(
        "#replay-table .field [data-card-id]", "els => els.map(e => e.dataset.cardId)"
    )
    assert field == [card["id"] for card in played["cards"]]
    name = replay["seats"][played["seat"]]["name"]
    row = page.locator("#replay-seat-rows tr", has_text=name).inner_text()
    assert f"{played['play_tokens']} Play, {played['wild_tokens']} Wild" in row, row
    declared = next(
        e for s in replay["steps"] for e in s["events"] if e["type"] == "declarations_revealed"
    )["declarations"][played["seat"]]
    assert f"{declared} play" in row, row
    assert "into the game" not in page.inner_text("#main")
    assert not page.evaluate(CARD_INSIDE)
    screenshot(page, "replay-exact-plays-phone-play")

    page.keyboard.press("End")
    rounds = max(e["round"] for s in replay["steps"] for e in s["events"] if "round" in e)
    assert page.inner_text("#replay-round") == f"Round {rounds}"


def test_a_mr_toast_replay_says_why_the_first_player_holds_one_more_card(
    open_page, live_server, screenshot
):
    body = {
        "game_type": "mr-toast",
        "players": 2,
        "seed": 7,
        "options": {"turn_limit": 30},
        "bots": [{"seat": 0, "policy": "greedy"}, {"seat": 1, "policy": "greedy"}],
    }
    game_id = bot_game(live_server, body)
    replay = requests.get(f"{live_server}/v1/games/{game_id}/replay", timeout=HTTP_TIMEOUT).json()
    sizes = [len(hand) for hand in replay["deal"]["hands"]]
    first = sizes.index(max(sizes))
    page, _ = open_page(1280, 800)
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("body[data-ready=replay]")
    words = page.inner_text("#deal-words")
    assert f"{replay['seats'][first]['name']} plays first and holds one more" in words, words
    assert page.is_visible(".key-hint"), "the key hint shows where there is a keyboard"
    assert page.locator("#replay-table").is_hidden()
    ended = next(
        index
        for index, step in enumerate(replay["steps"], start=1)
        if any(event["type"] == "turn_ended" for event in step["events"])
    )
    page.fill("#replay-slider", str(ended))
    page.dispatch_event("#replay-slider", "input")
    lines = page.eval_on_selector_all("#step-events li", "els => els.map(e => e.textContent)")
    assert "Turn ended" not in lines and any(line.startswith("End of ") for line in lines), lines
    assert "into the game" not in page.inner_text("#main")
    screenshot(page, "replay-mr-toast-turn-ended")


def played_by_a_person(live_server: str, name: str) -> str:
    """A 2-player Exact Plays game in which ``name`` takes seat 1 and plays the first legal
    move each time, against a greedy bot, to its end (a short turn limit; bounded wait)."""
    body = {
        "game_type": "exact-plays",
        "players": 2,
        "seed": 3,
        "options": {"turn_limit": 6},
        "bots": [{"seat": 1, "policy": "greedy"}],
    }
    game = requests.post(f"{live_server}/v1/games", json=body, timeout=HTTP_TIMEOUT).json()
    joined = requests.post(
        f"{live_server}/v1/games/{game['id']}/join", json={"name": name}, timeout=HTTP_TIMEOUT
    ).json()
    headers = {"Authorization": f"Bearer {joined['token']}"}
    url = f"{live_server}/v1/games/{game['id']}"
    ends = time.monotonic() + 30
    while time.monotonic() < ends:
        view = requests.get(f"{url}/view", headers=headers, timeout=HTTP_TIMEOUT).json()
        if view["status"] == "finished":
            return game["id"]
        if view["legal_actions"]:
            action = view["legal_actions"][0]
            requests.post(f"{url}/actions", json=action, headers=headers, timeout=HTTP_TIMEOUT)
        else:
            time.sleep(0.05)
    raise AssertionError("the game did not finish in 30 s")


def test_a_replay_header_speaks_to_a_player_and_a_seat_is_taken_once(
    open_page, live_server, screenshot
):
    game_id = played_by_a_person(live_server, "Tess")
    page, _ = open_page(390, 844)
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("body[data-ready=replay]")
    # Second review, item 15: no bare game id, the site's own word for the API docs.
    header = page.inner_text("header.top")
    assert game_id not in header and "API docs" not in header, header
    assert "Exact Plays" in header and "For developers" in header, header
    # Item 18: the step's title says who sat down; its lines do not say it again.
    page.keyboard.press("ArrowRight")
    assert position(page) == 1
    assert page.inner_text("#step-heading") == "Tess took seat 1"
    lines = page.eval_on_selector_all("#step-events li", "els => els.map(e => e.textContent)")
    assert not [line for line in lines if "sat down" in line], lines
    screenshot(page, "replay-seat-taken-phone")


def contrast(ink: list[float], paper: list[float]) -> float:
    """The WCAG contrast ratio of two sRGB colours (0-255 channels)."""

    def luminance(rgb: list[float]) -> float:
        linear = [c / 255 for c in rgb]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in linear]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(ink), luminance(paper)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


# A button's text and background as seen: its colours and opacity composited over the panel.
SEEN_COLOURS = """button => {
  const rgba = (text) => text.match(/[\\d.]+/g).map(Number).concat([1]).slice(0, 4);
  const style = getComputedStyle(button);
  const panel = rgba(getComputedStyle(button.closest('.card-panel')).backgroundColor);
  const over = (top, under, alpha) =>
    top.slice(0, 3).map((c, i) => c * alpha + under[i] * (1 - alpha));
  const opacity = Number(style.opacity);
  const background = rgba(style.backgroundColor);
  const face = over(background, panel, background[3]);
  const ink = rgba(style.color);
  return { ink: over(over(ink, face, ink[3]), panel, opacity), paper: over(face, panel, opacity) };
}"""


def test_a_replays_greyed_buttons_stay_legible(open_page, live_server, screenshot):
    game_id = finished_bot_game(live_server)
    page, _ = open_page(390, 844)
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("body[data-ready=replay]")
    # Item 16: at the end Forward and End do nothing; greyed, they must still be read (≥ 4.5:1).
    page.keyboard.press("End")
    for button in ("#replay-forward", "#replay-end", "#replay-back"):
        seen = page.eval_on_selector(button, SEEN_COLOURS)
        ratio = contrast(seen["ink"], seen["paper"])
        assert ratio >= 4.5, f"{button} reads at {ratio:.2f}:1"
    assert page.is_disabled("#replay-forward") and page.is_disabled("#replay-end")
    screenshot(page, "replay-end-phone")
