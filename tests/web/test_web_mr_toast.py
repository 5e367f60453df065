"""A whole 2-player Mr Toast game against the server's greedy bot, played by clicking in the
web table (docs/web.md): the lobby, picking cards, a reload mid-game, a refusal shown with its
rule, the No Way countdown, the result with the post-game reveal, and "play again"."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import requests

from web_kit import (
    HTTP_TIMEOUT,
    MOVE_TIMEOUT_MS,
    api_view,
    assert_labelled,
    check_offered_against_view,
    click_action,
    create_in_lobby,
    offered,
    play_until_over,
    seat_of,
    wait_for_move,
    wait_for_table,
)

# A short but real game (MT-10 `irresponsible`: 15 Fun points or more wins): a smaller deck
# rich in greens and purples, with chores, every blue card and No Ways still in it.
COMPOSITION = [
    {"code": "G5", "count": 3},
    {"code": "G4", "count": 5},
    {"code": "G3", "count": 6},
    {"code": "G2", "count": 6},
    {"code": "P3", "count": 3},
    {"code": "P2", "count": 3},
    {"code": "R4", "count": 3},
    {"code": "R3", "count": 3},
    {"code": "TB", "count": 3},
    {"code": "FP", "count": 2},
    {"code": "IT", "count": 2},
    {"code": "NW", "count": 5},
]
OPTIONS = {
    "mode": "irresponsible",
    "composition": COMPOSITION,
    "reaction_deadline": 60,  # a timed No Way window: the table shows its countdown
    "turn_limit": 60,
}
# With this seed the test's player makes about 20 moves, of every kind (No Way included).
SEED = 14
MAX_MOVES = 80
GAME_SECONDS = 45
FIRST = ("no_way", "allow", "give_red", "clear_red", "play_blue", "end_turn")


def card_values(view: dict[str, Any]) -> dict[str, int]:
    return {card["id"]: card["value"] or 0 for card in view["you"]["hand"]}


def choose(base: str, game_id: str, token: str, seen: dict[str, Any]):
    """The test's player: the biggest score (picking its cards in the hand first), else the
    first offered control of the first kind in FIRST."""

    def play(page: Any, shown: list[dict[str, Any]]) -> None:
        view = check_offered_against_view(page, base, game_id, token)
        if view["deadline"] is not None:
            countdown = page.locator("#countdown")
            assert countdown.is_visible()
            assert re.search(r"closes in \d+ s", countdown.inner_text())
            seen["countdown"] = True
        best = best_move(view)
        if best is not None and best["type"] == "score":
            # Pick the green (and purple) in the hand: the controls narrow to that score.
            for card in filter(None, (best["green"], best.get("purple"))):
                page.click(f"#hand button[data-pick='{card}']")
                page.wait_for_selector(f"#hand button[data-pick='{card}'][aria-pressed=true]")
            narrowed = [a for a in offered(page) if a["type"] == "score"]
            assert best in narrowed and all(best["green"] == a["green"] for a in narrowed), narrowed
            seen["picked"] = seen.get("picked", 0) + 1
            click_action(page, best)
            return
        for kind in FIRST:
            for action in shown:
                if action["type"] == kind:
                    click_action(page, action)
                    seen.setdefault("kinds", set()).add(kind)
                    return
        raise AssertionError(f"no known control among {shown}")

    return play


def is_pushed_view(message: str | bytes) -> bool:
    """A view the game socket sends on its own (not an answer to the page's message)."""
    if isinstance(message, bytes):
        return False
    body = json.loads(message)
    return body.get("type") == "view" and "id" not in body


def refuse_a_stale_move(page: Any, guard: Any, base: str, game_id: str, token: str) -> None:
    """Act behind the page's back, then click a control of the older position: the page
    shows the problem's detail and rule, and then the new position."""
    held: list[str] = []
    holding = {"on": True}
    routes: list[Any] = []

    def route(socket: Any) -> None:
        # The page's game socket, through to the server; the views the server pushes are held
        # back while `holding`, so the page keeps showing the older position.
        server = socket.connect_to_server()
        routes.append(socket)

        def from_server(message: str | bytes) -> None:
            if holding["on"] and is_pushed_view(message):
                held.append(message)
            else:
                socket.send(message)

        server.on_message(from_server)
        socket.on_message(lambda message: server.send(message))

    page.route_web_socket(re.compile(r"/socket$"), route)
    page.reload()  # so that the page's socket is a routed one
    wait_for_table(page)
    try:
        view = api_view(base, game_id, token)
        stale = best_move(view)
        answer = requests.post(
            f"{base}/v1/games/{game_id}/actions",
            json=stale,
            headers={"Authorization": f"Bearer {token}"},
            timeout=HTTP_TIMEOUT,
        )
        assert answer.status_code == 200, answer.text
        version = page.get_attribute("main", "data-version")
        buttons = page.locator("#actions button[data-action]")
        for index, text in enumerate(buttons.evaluate_all("bs => bs.map(b => b.dataset.action)")):
            if json.loads(text) == stale:
                buttons.nth(index).click()
                break
        else:
            raise AssertionError("the stale control is not shown")
        # Refused on the socket (422, MT-7: the card is no longer in the hand).
        page.wait_for_selector("#problem .problem-rule", timeout=MOVE_TIMEOUT_MS)
        assert re.search(r"\(rule MT-\d+\)", page.inner_text("#problem .problem-rule"))
        assert page.inner_text("#problem .problem-detail").strip()
        page.wait_for_selector(f"main:not([data-version='{version}'])")
        if answer.json()["view"]["status"] == "active":
            # The new position offers what the view lists now: step 3, a blue card or the end.
            assert {"type": "end_turn"} in offered(page)
    finally:
        # Let the held views through, and every later one.
        holding["on"] = False
        for socket in routes:
            for message in held:
                socket.send(message)


def best_move(view: dict[str, Any]) -> dict[str, Any] | None:
    """The move the test's player would make: the biggest score, else a chore to give."""
    values = card_values(view)
    scores = [a for a in view["legal_actions"] if a["type"] == "score"]
    if scores:
        return max(scores, key=lambda a: values[a["green"]] + values.get(a.get("purple"), 0))
    return next((a for a in view["legal_actions"] if a["type"] == "give_red"), None)


def test_a_whole_mr_toast_game_against_a_bot(open_page, live_server, screenshot):
    started = time.monotonic()
    page, guard = open_page()
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]")
    assert_labelled(page)
    screenshot(page, "lobby-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "lobby-phone")
    page.set_viewport_size({"width": 1280, "height": 900})

    game_id = create_in_lobby(
        page, "mr-toast", name="Ann", seats=["you", "bot:greedy"], options=OPTIONS, seed=SEED
    )
    seat = seat_of(page, game_id)
    token = seat["token"]
    assert seat["seat"] == 0
    assert "Ann, seat 1" in page.inner_text("#table-heading")
    seen: dict[str, Any] = {}
    play = choose(live_server, game_id, token, seen)

    def midway(moves: int) -> None:
        if moves == 2:
            # A reload puts the player back in the seat (the token is kept in localStorage).
            page.reload()
            wait_for_table(page)
            assert "Ann, seat 1" in page.inner_text("#table-heading")
            assert page.locator("#hand [data-card-id]").count() > 0
            seen["reloaded"] = True
        if moves == 3:
            assert_labelled(page)
            screenshot(page, "mr-toast-table-desktop")
            page.set_viewport_size({"width": 390, "height": 844})
            screenshot(page, "mr-toast-table-phone")
            page.set_viewport_size({"width": 1280, "height": 900})
        if (
            "refused" not in seen
            and moves >= 3
            and wait_for_move(page) == "active"
            and best_move(api_view(live_server, game_id, token)) is not None
        ):
            refuse_a_stale_move(page, guard, live_server, game_id, token)
            seen["refused"] = True

    moves = play_until_over(page, play, max_moves=MAX_MOVES, seconds=GAME_SECONDS, between=midway)
    assert seen.get("reloaded") and seen.get("refused") and seen.get("picked")
    # The page followed the game on its game socket (opened again after each reload), with
    # no events long-poll.
    assert any(url.endswith(f"/v1/games/{game_id}/socket") for url in guard.sockets)
    assert guard.long_polls == 0

    result = page.inner_text("#result")
    assert "Game over" in result and "Final scores" in result
    summary = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert summary["status"] == "finished"
    # The lobby offers the turn clock's options, unset unless chosen (no clock, no away bot).
    assert summary["options"]["turn_seconds"] is None and summary["options"]["away_bot"] is None
    assert page.text_content("#revealed-seed") == str(SEED) == str(summary["seed"])
    assert "not set" in page.text_content("[data-secret=deck]")
    winners = summary["result"]["winners"]
    names = {0: "you", 1: "greedy bot"}  # the server names a lone bot "Greedy bot"
    assert all(names[w] in result.lower() for w in winners)
    log = page.inner_text("#log-list")
    assert "scored" in log and "Game over" in log
    assert re.search(r"(gave you a|You gave Greedy bot a) Responsibility \d chore", log), log
    screenshot(page, "mr-toast-result-desktop")

    link = page.get_attribute("#watch-replay", "href")
    assert link == f"/replay/{game_id}", "the end screen leads to the replay"
    # Play again: the rematch (the same game for every seat), this browser in the same seat.
    page.click("#play-again")
    page.wait_for_url(re.compile(r".*/play/(?!" + re.escape(game_id) + ").*"))
    wait_for_table(page)
    again_id = page.url.rsplit("/", 1)[1]
    again = requests.get(f"{live_server}/v1/games/{again_id}", timeout=HTTP_TIMEOUT).json()
    assert again["game_type"] == "mr-toast" and again["players"] == 2
    for option in ("mode", "composition", "reaction_deadline", "turn_limit"):
        assert again["options"][option] == OPTIONS[option], option
    assert [s["bot"] for s in again["seats"]] == [None, "greedy"]
    assert again["seats"][0]["name"] == "Ann" and again["status"] == "active"
    old = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert old["rematch"] == again_id, "the finished game names its rematch"
    print(
        f"\nmr-toast: {moves} moves by clicking, seen {sorted(seen.get('kinds', []))}, "
        f"countdown shown: {bool(seen.get('countdown'))}, winners {winners}, "
        f"{time.monotonic() - started:.1f} s"
    )
