"""A game socket's hello is judged on the game its follower reads once the watch began: one
read of the game from the hello to the first view (served in process over a socket pair).

The process's change feed is subscribed first: when it subscribes, every follower looks at
its game again, since a write before the subscription was not heard (store/changes.py), and
that read is right but not the hello's."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import new_table
from inprocess_socket import InProcessSocket

WAIT = 10.0


@pytest.mark.parametrize("seat", [0, None], ids=["seat", "spectator"])
def test_a_hello_reads_the_game_once(app: Any, client: Any, monkeypatch, seat: int | None):
    game_id, tokens = new_table(client, "exact-plays", 2)
    store = app.extensions["cardroom.tables"].store
    assert store.changes.live(WAIT), "the change feed subscribes"
    loads: list[str] = []
    original = store.load

    def spy(game: str, *args: Any, **kwargs: Any) -> Any:
        loads.append(game)
        return original(game, *args, **kwargs)

    monkeypatch.setattr(store, "load", spy)
    sock = InProcessSocket(app, game_id, None if seat is None else tokens[seat])
    try:
        sock.send({"type": "look", "id": "now"})
        looked = sock.receive()
        assert looked["id"] == "now" and (looked["view"]["you"] or {}).get("seat") == seat
        assert loads == [game_id], "the hello and the first view share one read"
    finally:
        sock.close()


def test_a_hello_with_a_wrong_token_is_refused_before_any_view(app: Any, client: Any):
    game_id, _ = new_table(client, "exact-plays", 2)
    sock = InProcessSocket(app, game_id, None, greet=False)
    try:
        sock.send({"type": "hello", "token": "0" * 64})
        problem = sock.receive()
        assert problem["type"] == "problem" and problem["problem"]["status"] == 401
    finally:
        sock.close()
