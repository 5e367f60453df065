"""A small HTTP/1.1 relay for SDK tests: it forwards each request to the server and relays
the answer, and a subclass decides, request by request, to drop a request unforwarded or to
swallow the server's answer (a connection closed at the worst moment)."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit


def read_message(sock: socket.socket, buffer: bytearray) -> bytes | None:
    """One HTTP/1.1 message (head and Content-Length body) from ``sock``; None at EOF."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buffer += chunk
    head_end = buffer.index(b"\r\n\r\n") + 4
    length = 0
    for line in bytes(buffer[:head_end]).split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(buffer) < head_end + length:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buffer += chunk
    message = bytes(buffer[: head_end + length])
    del buffer[: head_end + length]
    return message


@dataclass
class Connection:
    """What the relay knows of one client connection."""

    answered: float | None = None  # when its last answer was relayed (monotonic)
    swallow: bool = False  # the answer to the request in flight is not relayed


class Relay:
    """Listens on a free port of 127.0.0.1 (``url``) and relays to ``upstream``."""

    def __init__(self, upstream: str):
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.connections = 0
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def forward(self, request: bytes, connection: Connection) -> bool:
        """Whether to send ``request`` on (False: the connection is closed unanswered)."""
        return True

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(self.upstream)
        from_client, from_server = bytearray(), bytearray()
        connection = Connection()
        try:
            while True:
                request = read_message(client, from_client)
                if request is None or not self.forward(request, connection):
                    return
                upstream.sendall(request)
                response = read_message(upstream, from_server)
                if response is None or connection.swallow:
                    return
                client.sendall(response)
                connection.answered = time.monotonic()
        except OSError:
            return
        finally:
            client.close()
            upstream.close()
