"""Seat.wait_for_turn: wakes at the move (not on a timer) and does not poll in a loop, on the game
socket (the default) and over HTTP (held view requests: ``sockets=False``, or a server that
refuses the upgrade)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import requests

import cardroom_sdk.socket
from cardroom_sdk import Client, Seat, View


class CountingSession(requests.Session):
    """A requests session that records every request it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, str, dict[str, Any]]] = []
        self.headers_sent: list[dict[str, str]] = []
        self.long_poll = threading.Event()  # set when a request with wait > 0 is sent

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:
        params = dict(kwargs.get("params") or {})
        self.sent.append((method, url, params))
        self.headers_sent.append(dict(kwargs.get("headers") or {}))
        if float(params.get("wait", 0)) > 0:
            self.long_poll.set()
        return super().request(method, url, *args, **kwargs)


# How a seat follows its game: on the game socket, or over HTTP (held view requests).
WAYS = pytest.mark.parametrize("sockets", [True, False], ids=["socket", "http"])


def two_seats(
    live_server: str, game_type: str = "mr-toast", sockets: bool = True, **options: Any
) -> tuple:
    main = Client(live_server)
    game = main.create_game(game_type, 2, options={"first_seat": 0, **options})
    session = CountingSession()
    waiter_client = Client(live_server, session=session, sockets=sockets)
    first = main.join(game.id, "first")  # seat 0, plays first
    second = waiter_client.join(game.id, "second")
    assert (first.seat, second.seat) == (0, 1)
    return main, first, second, session


def waiting(seat: Seat, session: CountingSession, seconds: float = 5) -> bool:
    """The seat is waiting: its held view request was sent, or its socket has its view."""
    if not seat.client.sockets:
        return session.long_poll.wait(seconds)
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        sock = seat._socket
        if sock is not None and sock.latest is not None:
            return True
        time.sleep(0.01)
    return False


def wait_in_thread(seat: Seat, **kwargs: Any) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["view"] = seat.wait_for_turn(**kwargs)
        except BaseException as error:
            out["error"] = error
        out["returned"] = time.perf_counter()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


@WAYS
def test_wait_for_turn_wakes_at_the_move(live_server: str, sockets: bool) -> None:
    _, first, second, session = two_seats(live_server, sockets=sockets)
    latencies = []
    for _ in range(3):
        session.long_poll.clear()
        thread, out = wait_in_thread(second, timeout=10)
        assert waiting(second, session), "the waiter never waited"
        time.sleep(0.05)  # let the held request reach the server and block there
        assert "returned" not in out
        first.act({"type": "end_turn"})  # seat 0 ends its turn: seat 1 is to act
        answered = time.perf_counter()
        thread.join(5)
        assert "error" not in out, out.get("error")
        view: View = out["view"]
        assert view.my_turn and view.to_act == [1]
        latencies.append(out["returned"] - answered)
        second.act({"type": "end_turn"})  # and back to seat 0
        assert first.view().my_turn
    print(f"wait_for_turn latency after the move's response: {[round(x, 4) for x in latencies]}")
    # Woken by the move itself: far sooner than any timer (the held waits last 30 s). Not a
    # speed figure (the benchmarks measure those), so the bound is wide for a loaded machine.
    assert max(latencies) < 1.0, latencies


@WAYS
def test_wait_for_turn_does_not_poll_while_nothing_happens(live_server: str, sockets: bool) -> None:
    _, _, second, session = two_seats(live_server, sockets=sockets)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        second.wait_for_turn(timeout=2)
    elapsed = time.monotonic() - started
    assert 1.9 <= elapsed < 3.5, elapsed
    during = [entry for entry in session.sent if "/join" not in entry[1]]
    if sockets:  # the socket's first view, then nothing until something happens
        assert during == [] and second._socket is not None
        return
    # one view, one held view request of ~2 s: a handful, not dozens
    assert len(during) <= 3, during
    assert any(float(params.get("wait", 0)) >= 1.5 for _, _, params in during), during


def test_wait_for_turn_wakes_when_the_game_starts(live_server: str) -> None:
    main = Client(live_server)
    game = main.create_game("mr-toast", 2, options={"first_seat": 0})
    first = main.join(game.id, "first")
    assert first.joined is not None and first.joined.status == "waiting"
    thread, out = wait_in_thread(Seat(Client(live_server), game.id, 0, first.token), timeout=10)
    time.sleep(0.2)
    assert "returned" not in out
    main.join(game.id, "second")  # no version change, only seat_taken and game_started
    joined = time.perf_counter()
    thread.join(5)
    assert "error" not in out, out.get("error")
    assert out["view"].status == "active" and out["view"].my_turn
    assert out["returned"] - joined < 1.0  # woken by the join, not by a 30 s timer


def test_wait_for_turn_wakes_at_a_reaction_deadline(live_server: str) -> None:
    # A small deck of Take a Break (blue) and green cards; No Way windows close after 0.5 s.
    composition = [{"code": "TB", "count": 10}, {"code": "G1", "count": 10}]
    deck = ["TB", "G1"] * 10  # stacked: seat 0 is dealt Take a Break cards
    _, first, _, _ = two_seats(
        live_server, composition=composition, deck=deck, reaction_deadline=0.5, auto_allow=False
    )
    view = first.view()
    blue = next(action for action in view.legal_actions if action["type"] == "play_blue")
    result = first.act(blue)
    assert result.view is not None and result.view.to_act == [1]  # seat 1 may say No Way
    assert result.view.deadline is not None
    started = time.monotonic()
    view = first.wait_for_turn(timeout=5)  # nobody answers: the window closes at the deadline
    elapsed = time.monotonic() - started
    assert view.my_turn and view.to_act == [0]
    assert elapsed < 1.5, elapsed


def test_simultaneous_phase_waits_for_the_others(live_server: str) -> None:
    main = Client(live_server)
    game = main.create_game("exact-plays", 2, options={"tiebreak": "random"})
    first, second = main.join(game.id, "first"), main.join(game.id, "second")
    view = first.wait_for_turn(timeout=5)
    assert view.public["phase"] == "declare" and view.my_turn and view.awaiting == [0, 1]
    result = first.act({"type": "declare", "tokens": 5})
    # It answered: the game no longer waits for it, though it may still change it (EP-3).
    assert result.view is not None and result.view.awaiting == [1]
    view = first.view()
    assert view.to_act == [0, 1] and view.awaiting == [1]
    assert view.can_act and not view.my_turn
    with pytest.warns(DeprecationWarning, match="again=True"):
        assert first.wait_for_turn(timeout=0, again=True).can_act
    with pytest.raises(TimeoutError):
        first.wait_for_turn(timeout=0.5)
    thread, out = wait_in_thread(first, timeout=10)
    time.sleep(0.1)
    assert "returned" not in out
    second.act({"type": "declare", "tokens": 3})  # the most tokens (first's 5) starts: EP-4
    thread.join(5)
    assert "error" not in out, out.get("error")
    assert out["view"].public["phase"] == "play" and out["view"].to_act == [first.seat]
    assert out["view"].my_turn


def test_over_http_wait_for_turn_holds_the_view_it_has(live_server: str) -> None:
    _, first, second, session = two_seats(live_server, sockets=False)
    thread, out = wait_in_thread(second, timeout=10)
    assert session.long_poll.wait(5), "the waiter never held a view request"
    held = first.client.view(second.game_id, second.token)  # not through the counted session
    result = first.act({"type": "end_turn"})
    thread.join(5)
    assert "error" not in out, out.get("error")
    views = [
        (params, headers)
        for (_, url, params), headers in zip(session.sent, session.headers_sent, strict=True)
        if url.endswith("/view")
    ]
    # One view, then one held request naming it: no reading of the game's history first.
    assert len(views) == 2 and float(views[1][0]["wait"]) > 0
    assert views[1][1]["If-None-Match"] == f'"{held.etag}"'
    assert result.view is not None and out["view"].last_seq == result.view.last_seq
    assert out["view"].version == result.view.version


def test_a_server_without_game_sockets_is_followed_over_http(
    live_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, first, second, session = two_seats(live_server)
    # A server (or a proxy) that does not open game sockets: the upgrade answers 404.
    monkeypatch.setattr(
        cardroom_sdk.socket,
        "socket_url",
        lambda base, game: base.replace("http", "ws", 1) + "/v1/no-socket-here",
    )
    thread, out = wait_in_thread(second, timeout=10)
    assert session.long_poll.wait(5), "the waiter never held a view request"
    first.act({"type": "end_turn"})
    thread.join(5)
    assert "error" not in out, out.get("error")
    assert out["view"].my_turn and second._socket is None
    assert second.client.sockets is False  # it gave up on sockets for this client


def test_a_server_that_does_not_hold_views_is_followed_with_the_events_long_poll(
    live_server: str,
) -> None:
    _, first, second, session = two_seats(live_server, sockets=False)
    holding = second.client.view

    def not_held(game_id: str, token: str | None = None, **held: Any) -> View:
        held["wait"] = 0  # as a server before held views: 304 at once
        return holding(game_id, token, **held)

    second.client.view = not_held  # type: ignore[method-assign]
    thread, out = wait_in_thread(second, timeout=10)
    assert session.long_poll.wait(5), "the waiter never long-polled"
    first.act({"type": "end_turn"})
    thread.join(5)
    assert "error" not in out, out.get("error")
    assert out["view"].my_turn and second.client.held_views is False
    views = [url for _, url, _ in session.sent if url.endswith("/view")]
    assert len(views) <= 4, views  # no loop of view requests: the long-poll waits instead
