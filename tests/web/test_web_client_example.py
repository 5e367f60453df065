"""docs/web.md's JavaScript example, run as written in a page of the server against its bots:
it must play a whole game on the game socket (the act's own result reaching its ``updates()``
loop), end, and leave no error behind.

The example is served, unchanged, as a module of the server's origin (a route of the test's
browser), so the lobby page's Content-Security-Policy (``script-src 'self'``) lets it run; a
second small module imports it and marks the page when it has finished or failed.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from web_kit import HTTP_TIMEOUT, MOVE_TIMEOUT_MS

sys.path.append(str(Path(__file__).resolve().parents[1] / "docs"))
from doc_blocks import ROOT, code_blocks, marked

WEB_MD = ROOT / "docs" / "web.md"
MARKER = "example: socket"
EXAMPLE_PATH = "/doc-example/socket.js"
RUNNER_PATH = "/doc-example/run.js"
RUNNER = f"""
import("{EXAMPLE_PATH}").then(
  () => {{ document.documentElement.dataset.example = "finished"; }},
  (error) => {{
    document.documentElement.dataset.example = "failed";
    console.error(`the example failed: ${{error && error.stack || error}}`);
  }},
);
"""
GAME_SECONDS = 40
# Against the server's bots every move is answered at once: a game that has not moved for
# this long is stuck (the hang of issue 31 sat at "to_act": [0]).
STALLED_SECONDS = 6


def test_every_javascript_block_is_run() -> None:
    blocks = [block for block in code_blocks(WEB_MD) if block.language in ("js", "javascript")]
    assert blocks and all(block.marker == MARKER for block in blocks), blocks


def play_as(game_type: str, options: dict[str, Any]):
    """A route handler that sends the example's game creation on as ``game_type``: the text
    of the example stays as written, the game it creates changes."""

    def handle(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.loads(route.request.post_data or "{}")
        body.update(game_type=game_type, options=options)
        route.continue_(post_data=json.dumps(body))

    return handle


# Mr Toast as written; Exact Plays as docs/web.md says the example plays it.
@pytest.mark.parametrize(
    ("game_type", "options"),
    [("mr-toast", None), ("exact-plays", {})],
    ids=["mr-toast", "exact-plays"],
)
def test_the_socket_example_plays_a_whole_game(
    open_page, live_server: str, game_type: str, options: dict[str, Any] | None
) -> None:
    (block,) = marked(WEB_MD, MARKER)
    page, _guard = open_page()
    page.route(f"{live_server}{EXAMPLE_PATH}", lambda route: fulfil_script(route, block.code))
    page.route(f"{live_server}{RUNNER_PATH}", lambda route: fulfil_script(route, RUNNER))
    if options is not None:
        page.route(f"{live_server}/v1/games", play_as(game_type, options))
    created: list[dict[str, Any]] = []

    def note_creation(response: Any) -> None:
        if response.request.method == "POST" and response.url.endswith("/v1/games"):
            created.append(response.json())

    page.on("response", note_creation)
    closed: list[str] = []
    page.on("websocket", lambda socket: socket.on("close", lambda _: closed.append(socket.url)))

    lobby = page.goto("/")
    assert "script-src 'self'" in lobby.headers["content-security-policy"]
    page.wait_for_selector("body[data-ready=true]", timeout=MOVE_TIMEOUT_MS)
    page.add_script_tag(url=RUNNER_PATH, type="module")

    summary = wait_for_the_example(page, live_server, created)
    assert page.get_attribute("html", "data-example") == "finished"
    assert summary["game_type"] == game_type
    assert summary["status"] == "finished", summary
    assert summary["result"], summary
    for _ in range(50):  # the close handshake may still be under way
        if closed:
            break
        page.wait_for_timeout(100)
    assert closed, "the example's socket was not closed"


# A game socket fed by hand (a stand-in WebSocket that sends nothing): which updates() yields.
CROSSINGS = """async () => {
  const real = window.WebSocket;
  class Quiet {
    static OPEN = 1;
    static CLOSING = 2;
    readyState = 1;
    sent = [];
    addEventListener() {}
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { this.readyState = 3; }
  }
  window.WebSocket = Quiet;
  const { CardroomClient } = await import("/web/client.js");
  const socket = new CardroomClient().socket("g", { token: "t", eventsAfter: 0 });
  window.WebSocket = real;
  const yielded = [];
  const updates = socket.updates();
  const take = async () => {
    while (socket.queue.length) {
      const { value } = await updates.next();
      yielded.push([value.view.version, value.view.etag, value.events.map((e) => e.seq)]);
    }
  };
  const view = (version, last_seq, etag) => ({ version, last_seq, etag });
  const events = (...seqs) => seqs.map((seq) => ({ seq }));
  const push = (v, e) => socket.receive({ type: "view", view: v, events: e });
  const answer = async (v, e) => {
    const done = socket.act({ type: "end_turn" });
    const id = socket.ws.sent[socket.ws.sent.length - 1].id;
    const result = { version: v.version, events: e, view: v };
    socket.receive({ type: "result", id, status: 200, replayed: false, result });
    return (await done).view.etag;
  };
  push(view(1, 2, "a"), events(1, 2));
  const answered = await answer(view(2, 3, "b"), events(3));  // nothing pushed after it
  push(view(2, 3, "b"), events(3));                            // the same view again
  await take();
  push(view(3, 5, "c"), events(4, 5));                         // pushed before the answer
  await answer(view(3, 5, "c"), events(5));
  await answer(view(5, 8, "e"), events(7, 8));                 // an answer before an
  push(view(4, 7, "d"), events(6, 7));                         // older pushed view
  await take();
  await answer(view(6, 10, "f"), events(10));                  // 9 came before it, unsent
  await take();
  push(view(5, 9, "x"), events(9));                            // older: 9 waits for the next
  push(view(7, 11, "g"), events(9, 10, 11));
  push(view(7, 11, "h"), []);                                  // a write with no event (a rematch)
  await answer(view(7, 11, "h"), []);                          // a replayed answer
  await take();
  return { answered, yielded };
}"""


def test_updates_yield_each_newer_view_once_the_answers_included(open_page) -> None:
    page, _guard = open_page()
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]", timeout=MOVE_TIMEOUT_MS)
    seen = page.evaluate(CROSSINGS)
    assert seen["answered"] == "b"  # act() still resolves with the answer
    assert seen["yielded"] == [
        [1, "a", [1, 2]],
        [2, "b", [3]],
        [3, "c", [4, 5]],
        [5, "e", [6, 7, 8]],
        [6, "f", [10]],
        [7, "g", [9, 11]],
        [7, "h", []],
    ]


def fulfil_script(route: Any, text: str) -> None:
    route.fulfill(status=200, content_type="text/javascript; charset=utf-8", body=text)


def wait_for_the_example(page: Any, base: str, created: list[dict[str, Any]]) -> dict[str, Any]:
    """Wait until the example's module has finished; the game's summary then. Fails as soon
    as the game stops moving while the example still runs."""
    ends = time.monotonic() + GAME_SECONDS
    moved_at, version, summary = time.monotonic(), -1, {}
    while page.get_attribute("html", "data-example") is None:
        now = time.monotonic()
        assert now < ends, f"the example did not finish in {GAME_SECONDS} s: {summary}"
        if created:
            summary = game_summary(base, created[0]["id"])
            if summary["version"] != version:
                moved_at, version = now, summary["version"]
            assert summary["status"] == "finished" or now - moved_at < STALLED_SECONDS, (
                f"the example hangs: the game has not moved for {STALLED_SECONDS} s "
                f"(version {version}, status {summary['status']}, to_act {summary['to_act']})"
            )
        page.wait_for_timeout(200)
    assert created, "the example created no game"
    return game_summary(base, created[0]["id"])


def game_summary(base: str, game_id: str) -> dict[str, Any]:
    response = requests.get(f"{base}/v1/games/{game_id}", timeout=HTTP_TIMEOUT)
    assert response.status_code == 200, response.text
    return response.json()
