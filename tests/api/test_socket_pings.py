"""A quiet game socket is pinged (so proxies keep it open), served in process over a socket
pair as gunicorn hands it over (``gunicorn.socket``); the other end is a wsproto client."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import pytest
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Ping, Request, TextMessage

from cardroom.api import socket as game_socket

from helpers import new_table


def client_events(sock: socket.socket, connection: WSConnection, seconds: float) -> list[Any]:
    """What arrives within ``seconds`` (pongs are answered by wsproto's caller: here)."""
    sock.settimeout(0.05)
    found: list[Any] = []
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        if not data:
            break
        connection.receive_data(data)
        found += list(connection.events())
    return found


def test_a_quiet_socket_is_pinged(app, client, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(game_socket, "PING_SECONDS", 0.3)
    game_id, tokens = new_table(client, "mr-toast", 2)
    server_end, client_end = socket.socketpair()
    path = f"/v1/games/{game_id}/socket"
    ws = WSConnection(ConnectionType.CLIENT)
    # The upgrade request as the client sends it; the server gets it parsed, as from gunicorn.
    upgrade = ws.send(Request(host="localhost", target=path)).decode("latin-1")
    headers = dict(line.split(": ", 1) for line in upgrade.split("\r\n")[1:] if ": " in line)

    def serve() -> None:
        environ = {"gunicorn.socket": server_end, "RAW_URI": path}
        with app.test_request_context(path, headers=headers, environ_overrides=environ):
            game_socket.open_socket(app.extensions["cardroom.tables"], game_id, None)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    events = client_events(client_end, ws, 0.5)
    assert any(isinstance(event, AcceptConnection) for event in events)
    hello = {"type": "hello", "token": tokens[1]}
    client_end.sendall(ws.send(TextMessage(data=json.dumps(hello))))
    events = client_events(client_end, ws, 1.0)  # the view, then quiet: pinged
    kinds = [type(event) for event in events]
    assert TextMessage in kinds and Ping in kinds, kinds
    assert json.loads(next(e for e in events if isinstance(e, TextMessage)).data)["type"] == "view"
    client_end.close()
    server.join(5)
    assert not server.is_alive()
