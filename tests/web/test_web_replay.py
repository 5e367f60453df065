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
