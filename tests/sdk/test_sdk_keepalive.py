"""No failed request for an idle keep-alive connection closed under it.

gunicorn closes a keep-alive connection idle for 5 s. A request sent on it just as it does
gets no answer: an action would be retried safely (its Idempotency-Key), but a create or a
join could not be. So the SDK never sends on a connection idle for ``IDLE_REUSE`` (4 s) or
more: it opens a new one. The proxy here plays the worst case of the race: a request on a
connection idle past its keep-alive is dropped unanswered, as if the server's close crossed
it on the wire.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from relay import Connection, Relay

import cardroom_sdk.client
from cardroom_sdk import Client, ServerUnavailable

SERVER_KEEPALIVE = 0.6  # the proxy's keep-alive, standing for gunicorn's 5 s


class KeepAliveProxy(Relay):
    """Forwards requests to ``upstream``; a request on a connection idle for ``keepalive``
    seconds or more is dropped without an answer, and the connection closed."""

    def __init__(self, upstream: str, keepalive: float):
        self.keepalive = keepalive
        self.dropped = 0
        super().__init__(upstream)

    def forward(self, request: bytes, connection: Connection) -> bool:
        last = connection.answered
        if last is not None and time.monotonic() - last >= self.keepalive:
            self.dropped += 1
            return False  # closed as the request came: it was never processed
        return True


@pytest.fixture()
def proxy(live_server: str) -> Iterator[KeepAliveProxy]:
    proxy = KeepAliveProxy(live_server, SERVER_KEEPALIVE)
    yield proxy
    proxy.close()


def test_a_connection_idle_for_the_reuse_window_is_not_sent_on_again(
    proxy: KeepAliveProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK's window, below the server's keep-alive as 4 s is below gunicorn's 5 s.
    monkeypatch.setattr(cardroom_sdk.client, "IDLE_REUSE", SERVER_KEEPALIVE * 2 / 3)
    client = Client(proxy.url, retries=0)
    game = client.create_game("mr-toast", 2)
    time.sleep(SERVER_KEEPALIVE + 0.1)  # idle past both
    client.join(game.id, "ann")  # a join is not retried once sent: it must not be lost
    assert proxy.dropped == 0 and proxy.connections == 2  # a new connection for the join


def test_without_the_reuse_window_the_join_would_fail(
    proxy: KeepAliveProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cardroom_sdk.client, "IDLE_REUSE", 3600.0)
    client = Client(proxy.url, retries=3)
    game = client.create_game("mr-toast", 2)
    time.sleep(SERVER_KEEPALIVE + 0.1)
    with pytest.raises(ServerUnavailable, match="not retried"):
        client.join(game.id, "ann")
    assert proxy.dropped == 1
