"""Driving the web table in a browser: a guard against errors, reading the page, clicking moves.

The pages expose their state for tests (and for assistive tools) on ``<main>``:
``data-status`` (waiting/active/finished), ``data-version``, ``data-busy`` and ``data-my-move``;
every move is a ``button[data-action]`` holding the legal action it sends, and every card
element carries ``data-card-id``.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import requests

from helpers import auth, card_ids

MOVE_TIMEOUT_MS = 15_000
HTTP_TIMEOUT = 10


class PageGuard:
    """Collects what must not happen on a page: console errors, uncaught errors, failed
    requests and HTTP error answers, except the ones a test announces with ``expect``."""

    def __init__(self, page: Any, capture_json: bool = False):
        self.page = page
        self.problems: list[str] = []
        self.expected: list[list[Any]] = []  # [status, url part, how many still expected]
        self.capture_json = capture_json
        self.json_answers: list[tuple[str, Any]] = []
        self.sockets: list[str] = []  # game sockets the page opened
        self.long_polls = 0  # events long-polls it sent (none while its socket works)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("requestfailed", self._request_failed)
        page.on("response", self._response)
        page.on("websocket", self._websocket)
        page.on("request", self._request)

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        # Chromium logs each HTTP error answer as "Failed to load resource: …"; _response
        # judges those, with the URL, and lets the expected ones through.
        if message.text.startswith("Failed to load resource: the server responded"):
            return
        self.problems.append(f"console error: {message.text} at {message.location}")

    def _request(self, request: Any) -> None:
        if "/events?" in request.url and "wait=" in request.url and "wait=0" not in request.url:
            self.long_polls += 1

    def _request_failed(self, request: Any) -> None:
        failure = request.failure or ""
        # Reloading or leaving the page cancels the reads under way (above all its held events
        # long-poll, but also a static file such as the icon still loading): the browser
        # aborts them, the server did nothing wrong. A server fault shows otherwise (an HTTP
        # error status, a reset or an empty answer).
        if "ERR_ABORTED" in failure and request.method == "GET":
            return
        self.problems.append(f"request failed: {request.method} {request.url}: {failure}")

    def _response(self, response: Any) -> None:
        if self.capture_json and "/v1/" in response.url and response.status == 200:
            # A body already gone (the page navigated away) has nothing left to check.
            with contextlib.suppress(Exception):
                self.json_answers.append((response.url, response.json()))
        if response.status < 400:
            return
        for entry in self.expected:
            if entry[0] == response.status and entry[1] in response.url and entry[2] > 0:
                entry[2] -= 1
                return
        self.problems.append(f"HTTP {response.status}: {response.request.method} {response.url}")

    def _websocket(self, socket: Any) -> None:
        """What the game socket brings is checked like the JSON answers of requests."""
        self.sockets.append(socket.url)
        if not self.capture_json:
            return

        def received(payload: str | bytes) -> None:
            if isinstance(payload, str):
                self.json_answers.append((socket.url, json.loads(payload)))

        socket.on("framereceived", received)

    def expect(self, status: int, url_part: str, count: int = 1) -> None:
        self.expected.append([status, url_part, count])

    def check(self) -> None:
        assert not self.problems, "the page went wrong:\n" + "\n".join(self.problems)
        unmet = [entry for entry in self.expected if entry[2] > 0]
        assert not unmet, f"expected answers that never came: {unmet}"


# --- reading the page -------------------------------------------------------------------------


def game_id_of(page: Any) -> str:
    path = page.url.split("://", 1)[1].split("/", 1)[1]
    kind, game_id = path.split("?")[0].split("/")[:2]
    assert kind in ("play", "watch"), page.url
    return game_id


def seat_of(page: Any, game_id: str) -> dict[str, Any]:
    """The seat this browser keeps for the game (its localStorage entry)."""
    stored = page.evaluate("key => localStorage.getItem(key)", f"cardroom.seat.{game_id}")
    assert stored, f"no seat kept in this browser for {game_id}"
    return json.loads(stored)


def status(page: Any) -> str:
    return page.get_attribute("main", "data-status") or ""


def wait_for_table(page: Any) -> None:
    page.wait_for_selector("body[data-ready=table]", timeout=MOVE_TIMEOUT_MS)


def wait_for_move(page: Any, timeout_ms: int = MOVE_TIMEOUT_MS) -> str:
    """Wait until this seat may move or the game is over; the page's status."""
    page.wait_for_selector(
        "main[data-my-move=true], main[data-status=finished]", timeout=timeout_ms
    )
    return status(page)


def offered(page: Any) -> list[dict[str, Any]]:
    buttons = page.locator("#actions button[data-action]")
    texts = buttons.evaluate_all("buttons => buttons.map(b => b.dataset.action)")
    return [json.loads(text) for text in texts]


def click_action(page: Any, action: dict[str, Any], keyboard: bool = False) -> None:
    """Click the control that sends ``action`` (or reach it with the keyboard alone: the skip
    link, then Tab, then Enter) and wait for the table to move on."""
    version = page.get_attribute("main", "data-version")
    buttons = page.locator("#actions button[data-action]")
    if action not in offered(page):
        raise AssertionError(f"{action} is not offered: {offered(page)}")
    if keyboard:
        page.focus("a.skip")
        page.keyboard.press("Enter")  # "Skip to your move"
        for _ in range(60):
            page.keyboard.press("Tab")
            focused = page.evaluate("() => document.activeElement.dataset.action || null")
            if focused and json.loads(focused) == action:
                break
        else:
            raise AssertionError(f"Tab never reached {action}")
        page.keyboard.press("Enter")
    else:
        buttons.nth(offered(page).index(action)).click()
    page.wait_for_selector(
        f"main:not([data-version='{version}'])[data-busy=false], #problem:not(:empty)",
        timeout=MOVE_TIMEOUT_MS,
    )


def assert_labelled(page: Any) -> None:
    """Every form field has a label, every button and link a name, every card a description."""
    unlabelled = page.locator("input, select, textarea").evaluate_all(
        "fields => fields.filter(f => !f.labels.length && !f.getAttribute('aria-label'))"
        ".map(f => f.outerHTML)"
    )
    assert not unlabelled, unlabelled
    nameless = page.locator("button, a").evaluate_all(
        "items => items.filter(i => !(i.getAttribute('aria-label') || i.textContent.trim()))"
        ".map(i => i.outerHTML)"
    )
    assert not nameless, nameless
    cards = page.locator("[data-card-id]").evaluate_all(
        "cards => cards.filter(c => !c.getAttribute('aria-label')).map(c => c.outerHTML)"
    )
    assert not cards, cards


def api_view(base: str, game_id: str, token: str | None = None) -> dict[str, Any]:
    headers = auth(token) if token else {}
    url = f"{base}/v1/games/{game_id}/view"
    response = requests.get(url, headers=headers, timeout=HTTP_TIMEOUT)
    assert response.status_code == 200, response.text
    return response.json()


def check_offered_against_view(page: Any, base: str, game_id: str, token: str) -> dict[str, Any]:
    """Every control is one of the view's legal actions, and every kind of legal action has
    a control. Returns the view."""
    view = api_view(base, game_id, token)
    shown = offered(page)
    legal = view["legal_actions"]
    assert shown, "no control offered on the page's move"
    assert all(action in legal for action in shown), (shown, legal)
    assert {a["type"] for a in shown} == {a["type"] for a in legal}, (shown, legal)
    return view


def play_until_over(
    page: Any,
    choose: Callable[[Any, list[dict[str, Any]]], None],
    *,
    max_moves: int,
    seconds: float,
    between: Callable[[int], None] | None = None,
) -> int:
    """Click moves chosen by ``choose(page, offered)`` until the result shows; the moves made."""
    moves = 0
    ends = time.monotonic() + seconds
    while wait_for_move(page) != "finished":
        assert moves < max_moves, f"no result after {moves} moves"
        assert time.monotonic() < ends, f"no result after {seconds} s ({moves} moves)"
        choose(page, offered(page))
        moves += 1
        if between:
            between(moves)
    page.wait_for_selector("#result:not([hidden]) h2", timeout=MOVE_TIMEOUT_MS)
    return moves


def hand_card_ids(view: dict[str, Any]) -> set[str]:
    return {card["id"] for card in (view["you"] or {}).get("hand", [])}


def dom_card_ids(page: Any) -> set[str]:
    return set(page.locator("[data-card-id]").evaluate_all("es => es.map(e => e.dataset.cardId)"))


def answered_card_ids(guard: PageGuard) -> set[str]:
    found: set[str] = set()
    for _, body in guard.json_answers:
        found |= card_ids(body)
    return found


def create_in_lobby(
    page: Any,
    game_type: str,
    *,
    name: str,
    seats: list[str],
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    before_create: Callable[[Any], None] | None = None,
) -> str:
    """Fill the lobby's form for ``game_type`` and create the game; the new game's id.

    ``seats`` holds one choice per seat: "you", "friend" or "bot:<policy>" ("bot:search").
    """
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]", timeout=MOVE_TIMEOUT_MS)
    page.fill("#player-name", name)
    form = page.locator(f"form[data-game-type={game_type}]")
    form.locator("select[name=players]").select_option(str(len(seats)))
    for seat, choice in enumerate(seats):
        form.locator(f"select[name=seat-{seat}]").select_option(choice)
    if options or seed is not None:
        form.locator("details.options > summary").click()
        # The seed and the stacked decks are in the "Advanced" fold inside the options.
        form.locator("details.advanced > summary").click()
    for option, value in (options or {}).items():
        field = form.locator(f"[data-option={option}]")
        tag = field.evaluate("e => e.tagName + ':' + (e.type || '')")
        if tag.startswith("SELECT"):
            field.select_option(json.dumps(value))
        elif tag == "INPUT:checkbox":
            field.set_checked(bool(value))
        else:
            field.fill(value if isinstance(value, str) else json.dumps(value))
    if seed is not None:
        form.locator("input[name=seed]").fill(str(seed))
    if before_create:
        before_create(page)
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/play/*", timeout=MOVE_TIMEOUT_MS)
    wait_for_table(page)
    return game_id_of(page)


def create_with_bots(
    base: str,
    game_type: str,
    players: int,
    bots: dict[int, str],
    *,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
) -> str:
    """A game made through the API with server bots in ``bots`` ({seat: policy}); its id."""
    body: dict[str, Any] = {
        "game_type": game_type,
        "players": players,
        "options": options or {},
        "bots": [{"seat": seat, "policy": policy} for seat, policy in bots.items()],
    }
    if seed is not None:
        body["seed"] = seed
    response = requests.post(f"{base}/v1/games", json=body, timeout=HTTP_TIMEOUT)
    assert response.status_code == 201, response.text
    return response.json()["id"]


def sit_down(page: Any, game_id: str, name: str) -> None:
    """Open the game's table and take the offered seat with its form, as a newcomer does."""
    page.goto(f"/play/{game_id}")
    page.wait_for_selector("body[data-ready=join]", timeout=MOVE_TIMEOUT_MS)
    page.fill("#join-name", name)
    page.click("#join button[type=submit]")
    wait_for_table(page)


def in_viewport(page: Any, selector: str) -> dict[str, float]:
    """Where ``selector`` is in the window: {top, bottom, height (the window's), inside}."""
    return page.eval_on_selector(
        selector,
        "e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom,"
        " height: window.innerHeight, inside: r.top >= 0 && r.bottom <= window.innerHeight}; }",
    )


# A simple person's moves: the first offered move of the first kind in this order (a
# declaration of 3 plays; a play of the most cards).
PREFERENCE = (
    "score",
    "give_red",
    "clear_red",
    "play_blue",
    "no_way",
    "allow",
    "end_turn",
    "declare",
    "rps",
    "play",
    "draw",
    "pass",
)


def click_preferred(page: Any, shown: list[dict[str, Any]]) -> None:
    """Click the move ``PREFERENCE`` picks among those shown."""
    kinds = {action["type"] for action in shown}
    kind = next(kind for kind in PREFERENCE if kind in kinds)
    if kind == "declare":
        choice = {"type": "declare", "tokens": 3}
    elif kind == "play":
        choice = max((a for a in shown if a["type"] == "play"), key=lambda a: len(a["cards"]))
    else:
        choice = next(action for action in shown if action["type"] == kind)
    click_action(page, choice)
