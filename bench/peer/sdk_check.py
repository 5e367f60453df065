"""The SDK itself plays a few games, and every request and game-socket message it sends (and
every view the server pushes to it) is counted by kind.

The peer load's cardroom client (load-cardroom.js) reproduces the SDK's requests and
messages without Python's cost per message; this check says whether it still does: the run
prints the SDK's messages per move next to the Node client's. Outside the measured windows.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from urllib.parse import urlsplit

import requests

from cardroom_sdk import Client, RandomBot
from cardroom_sdk.socket import GameSocket

PLAYERS = 4


def kind_of(response: requests.Response) -> str:
    """The request's kind, named as load-cardroom.js names it."""
    request = response.request
    parts = urlsplit(request.url or "")
    path = parts.path
    if request.method == "POST" and path == "/v1/games":
        return "create"
    if path.endswith("/join"):
        return "join"
    if path.endswith("/actions"):
        return "act"
    if path.endswith("/events"):
        return "events (wait)" if "wait=" in parts.query else "events"
    if path.endswith("/view"):
        return "view (held)" if "wait=" in parts.query else "view"
    return path


def run(url: str, games: int, game_type: str, seed: int, timeout: float = 120.0) -> dict[str, Any]:
    """Play ``games`` concurrent games, a thread per seat, each ``Seat.play(RandomBot)``."""
    counts: dict[str, int] = {}
    moves = 0
    refused = 0
    lock = threading.Lock()
    errors: list[str] = []

    def count(response: requests.Response, *args: Any, **kwargs: Any) -> None:
        nonlocal moves, refused
        kind = kind_of(response)
        with lock:
            counts[kind] = counts.get(kind, 0) + 1
            if kind == "act":
                if response.status_code == 200:
                    moves += 1
                else:
                    refused += 1

    pushed = 0
    socket_send, socket_receive = GameSocket._send, GameSocket._receive

    def counted_send(sock: GameSocket, message: dict[str, Any]) -> None:
        with lock:
            kind = str(message.get("type"))
            counts[kind] = counts.get(kind, 0) + 1
            if kind == "hello":  # the upgrade request that opened the socket
                counts["socket"] = counts.get("socket", 0) + 1
        socket_send(sock, message)

    def counted_receive(sock: GameSocket, seconds: float | None) -> Any:
        nonlocal pushed, moves, refused
        before = sock.latest
        answer = socket_receive(sock, seconds)
        with lock:
            if sock.latest is not before and answer is None:
                pushed += 1
            if answer is not None and answer.get("type") == "result":
                moves += 1
            elif answer is not None and answer.get("type") == "problem":
                refused += 1
        return answer

    GameSocket._send = counted_send  # type: ignore[method-assign]
    GameSocket._receive = counted_receive  # type: ignore[method-assign]
    clients: list[Client] = []
    threads: list[threading.Thread] = []

    def play(seat: Any, bot_seed: int) -> None:
        try:
            seat.play(RandomBot(bot_seed), timeout=60)
        except Exception as error:  # reported, not raised: the check is informative
            with lock:
                errors.append(f"{type(error).__name__}: {error}")

    started = time.monotonic()
    try:
        for game_no in range(games):
            seats = []
            for player in range(PLAYERS):
                client = Client(url, timeout=40)
                client.session.hooks["response"].append(count)
                clients.append(client)
                if player == 0:
                    game = client.create_game(game_type, PLAYERS, seed=seed + game_no)
                seats.append(client.join(game.id, f"sdk{player}"))
            for player, seat in enumerate(seats):
                thread = threading.Thread(
                    target=play, args=(seat, seed * 10 + game_no * PLAYERS + player), daemon=True
                )
                threads.append(thread)
                thread.start()
        for thread in threads:
            thread.join(max(0.1, timeout - (time.monotonic() - started)))
        if any(thread.is_alive() for thread in threads):
            errors.append(f"games still running after {timeout:.0f} s")
    finally:
        GameSocket._send, GameSocket._receive = socket_send, socket_receive  # type: ignore[method-assign]
        for client in clients:
            client.close()
    per_move = max(1, moves)
    return {
        "games": games,
        "game_type": game_type,
        "moves": moves,
        "refused_actions": refused,
        "seconds": time.monotonic() - started,
        "requests_per_move": {kind: n / per_move for kind, n in sorted(counts.items())},
        "requests_total_per_move": sum(counts.values()) / per_move,
        "pushed_per_move": pushed / per_move,
        "errors": errors[:5],
    }
