"""Whole games played by SDK bots in threads against the live server (gunicorn + Redis)."""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any

import pytest

from cardroom_sdk import ActionResult, Client, EagerBot, RandomBot, Seat, View


def walk_strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON value (keys excluded)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(walk_strings(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(walk_strings(item) for item in value))
    return set()


def card_ids(value: Any) -> set[str]:
    """The ids of every card (an object with "id" and "code") anywhere in a JSON value."""
    if isinstance(value, dict):
        own = {str(value["id"])} if "id" in value and "code" in value else set()
        return own.union(*(card_ids(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(card_ids(item) for item in value))
    return set()


def hand_keys_outside_you(value: Any, path: str = "") -> list[str]:
    """Paths of any list of cards called 'hand' outside the seat's own 'you' part."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if path == "" and key == "you":
                continue
            if key in ("hand", "hands") and isinstance(item, list | dict) and item:
                found.append(f"{path}.{key}")
            found += hand_keys_outside_you(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += hand_keys_outside_you(item, f"{path}[{index}]")
    return found


class Player:
    """One SDK bot in its own thread, with its own Client, recording every view it gets (the
    views it fetches, those its game socket brings and those its actions' answers carry)."""

    def __init__(self, base_url: str, game_id: str, index: int, bot_class: type):
        self.client = Client(base_url, timeout=15)
        self.views: list[View] = []
        fetch = self.client.view

        def recording_view(game_id: str, token: str | None = None, **held: Any) -> View:
            view = fetch(game_id, token, **held)
            self.views.append(view)
            return view

        self.client.view = recording_view  # type: ignore[method-assign]
        act = self.client.act

        def recording_act(*args: Any, **kwargs: Any) -> ActionResult:
            result = act(*args, **kwargs)
            if result.view is not None:
                self.views.append(result.view)
            return result

        self.client.act = recording_act  # type: ignore[method-assign]
        self.seat: Seat = self.client.join(game_id, f"sdk-bot-{index}")
        open_socket = self.seat._open_socket

        def recording_socket() -> Any:
            sock = open_socket()
            if sock is not None and not hasattr(sock, "recorded"):
                sock.recorded = True
                receive = sock._receive

                def recording_receive(seconds: float | None) -> Any:
                    before = sock.latest
                    answer = receive(seconds)
                    if sock.latest is not None and sock.latest is not before:
                        self.views.append(sock.latest)
                    return answer

                sock._receive = recording_receive
            return sock

        self.seat._open_socket = recording_socket  # type: ignore[method-assign]
        self.bot = bot_class(seed=index)
        self.final: View | None = None
        self.events: list[dict[str, Any]] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.final = self.seat.play(self.bot, timeout=20)
            after = 0
            while True:  # every event of the game, as this seat may see them
                batch = self.seat.events(after=after, limit=1000)
                self.events += [event.raw for event in batch.events]
                if batch.last_seq == after:
                    break
                after = batch.last_seq
        except BaseException as error:  # reported by the main thread
            self.error = error


# Bound the games' length (and the tests' time): at the turn limit the leaders win.
TURN_LIMITS = {"mr-toast": 80, "exact-plays": 400}


def play_game(live_server: str, game_type: str, players: int, bot_class: type) -> tuple:
    client = Client(live_server)
    game = client.create_game(game_type, players, options={"turn_limit": TURN_LIMITS[game_type]})
    table = [Player(live_server, game.id, index, bot_class) for index in range(players)]
    threads = [threading.Thread(target=player.run, daemon=True) for player in table]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=25)
    assert not any(thread.is_alive() for thread in threads), "a bot did not finish"
    for player in table:
        if player.error is not None:
            raise player.error
    return client, game.id, table


@pytest.mark.parametrize(
    ("game_type", "players", "bot_class"),
    [
        ("mr-toast", 4, RandomBot),
        ("exact-plays", 4, EagerBot),
        ("exact-plays", 2, RandomBot),
    ],
)
def test_sdk_bots_play_whole_games(
    live_server: str, game_type: str, players: int, bot_class: type
) -> None:
    client, game_id, table = play_game(live_server, game_type, players, bot_class)

    summary = client.game(game_id)
    assert summary.status == "finished"
    assert summary.winners, summary.result
    assert set(summary.winners) <= set(range(players))
    assert summary.version > players
    for player in table:
        assert player.final is not None and player.final.finished
        assert player.final.winners == summary.winners
        assert player.seat.seat in range(players)
    assert sorted(player.seat.seat for player in table) == list(range(players))

    # Every view is its own seat's, shows its own hand, and no other hand anywhere.
    hands: dict[int, dict[int, set[str]]] = defaultdict(dict)  # version -> seat -> card ids
    for player in table:
        assert player.views
        # Every seat's final view is of the same version, so some views are always compared
        # (in a 2-player game a seat's other views may all fall on its own turns).
        player.views.append(player.final)
        for view in player.views:
            assert view.seat == player.seat.seat
            assert view.you is not None and isinstance(view.you.get("hand"), list)
            assert hand_keys_outside_you(view.raw) == [], view.raw
            hands[view.version][player.seat.seat] = {card["id"] for card in view.hand}
    compared = 0
    for player in table:
        for view in player.views:
            others = hands[view.version]
            visible = walk_strings(view.raw)
            for seat, cards in others.items():
                if seat == player.seat.seat:
                    continue
                compared += 1
                assert not cards & {card["id"] for card in view.hand}
                assert not cards & visible, f"seat {player.seat.seat} sees seat {seat}'s cards"
    assert compared > 0  # views of the same version by different seats were compared

    # Events: a spectator sees no secret; a secret is only its owner's.
    spectator = {event.seq: event.raw for event in client.events(game_id, limit=1000)}
    copies: dict[int, dict[int, dict[str, Any]]] = defaultdict(dict)
    for player in table:
        for event in player.events:
            copies[event["seq"]][player.seat.seat] = event
    secrets_checked = 0
    for seq, by_seat in copies.items():
        public = spectator.get(seq)
        if public is None:
            continue  # beyond the spectator's first page (or hidden from spectators)
        secret_cards: dict[int, set[str]] = {}
        for seat, event in by_seat.items():
            extra = {key: value for key, value in event.items() if public.get(key) != value}
            if extra and "seat" in public:
                assert public["seat"] == seat, f"seat {seat} sees {public['seat']}'s secret"
            secret_cards[seat] = card_ids(extra)
            secrets_checked += bool(extra)
        seats = list(secret_cards)
        for position, seat in enumerate(seats):
            for other in seats[position + 1 :]:
                assert not secret_cards[seat] & secret_cards[other], (seq, by_seat)
    assert secrets_checked > 0  # some events carried a secret (a hand, a draw, a declaration)
    assert not any("private" in event or "audience" in event for event in spectator.values())
