"""A game socket served in this process by the app, over a socket pair, as gunicorn hands one
over (api/socket.py): JSON messages in and out. Imported as ``from inprocess_socket import …``
by the tests that compare the socket with HTTP or drive it where HTTP cannot."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Ping, Request, TextMessage

from cardroom.api import socket as game_socket

TIMEOUT = 10.0


class InProcessSocket:
    """A game socket served by this process's app over a socket pair; JSON messages."""

    def __init__(self, app: Any, game_id: str, token: str | None, greet: bool = True):
        server_end, self.end = socket.socketpair()
        self.end.settimeout(TIMEOUT)
        path = f"/v1/games/{game_id}/socket"
        self.ws = WSConnection(ConnectionType.CLIENT)
        upgrade = self.ws.send(Request(host="localhost", target=path)).decode("latin-1")
        headers = dict(line.split(": ", 1) for line in upgrade.split("\r\n")[1:] if ": " in line)

        def serve() -> None:
            environ = {"gunicorn.socket": server_end, "RAW_URI": path}
            with app.test_request_context(path, headers=headers, environ_overrides=environ):
                game_socket.open_socket(app.extensions["cardroom.tables"], game_id, None)

        self.server = threading.Thread(target=serve, daemon=True)
        self.server.start()
        self.pending: list[Any] = []
        self._next(AcceptConnection)
        if greet:
            self.send({"type": "hello", **({"token": token} if token else {})})
            assert self.receive()["type"] == "view"

    def _next(self, kind: type) -> Any:
        ends = time.monotonic() + TIMEOUT
        while time.monotonic() < ends:
            while self.pending:
                event = self.pending.pop(0)
                if isinstance(event, Ping):
                    self.end.sendall(self.ws.send(event.response()))
                elif isinstance(event, kind):
                    return event
            self.ws.receive_data(self.end.recv(65536))
            self.pending += list(self.ws.events())
        raise AssertionError(f"no {kind.__name__} in {TIMEOUT} s")

    def send(self, message: dict[str, Any]) -> None:
        self.end.sendall(self.ws.send(TextMessage(data=json.dumps(message))))

    def receive(self) -> dict[str, Any]:
        parts = [self._next(TextMessage)]
        while not parts[-1].message_finished:
            parts.append(self._next(TextMessage))
        return json.loads("".join(part.data for part in parts))

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a message; the answer with its id (pushed views are skipped)."""
        self.send(message)
        while True:
            received = self.receive()
            if received["type"] != "view" and received.get("id") == message.get("id"):
                return received

    def close(self) -> None:
        self.end.close()
        self.server.join(5)
        assert not self.server.is_alive()
