"""Whose turn it is, from the view's ``awaiting``; answers given once, changed only on purpose."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from table_kit import SlowDeclarer, all_events

from cardroom_sdk import Bot, Client, IllegalAction, NotYourTurn, RandomBot, View


def view_json(**fields: Any) -> dict[str, Any]:
    base = {
        "game_id": "g",
        "game_type": "exact-plays",
        "status": "active",
        "version": 4,
        "last_seq": 9,
        "to_act": [0, 1, 2],
        "awaiting": [1, 2],
        "you": {"seat": 0, "hand": []},
        "legal_actions": [{"type": "declare", "tokens": 3}],
    }
    return {**base, **fields}


def test_my_turn_means_awaited() -> None:
    answered = View.from_json(view_json())
    assert answered.awaiting == [1, 2] and answered.last_seq == 9
    assert answered.can_act and not answered.my_turn  # it declared; it may still change (EP-3)
    awaited = View.from_json(view_json(you={"seat": 1, "hand": []}))
    assert awaited.my_turn and awaited.can_act
    nothing_to_do = View.from_json(view_json(you={"seat": 1, "hand": []}, legal_actions=[]))
    assert not nothing_to_do.my_turn and not nothing_to_do.can_act
    spectator = View.from_json(view_json(you=None, legal_actions=[]))
    assert not spectator.my_turn and not spectator.can_act
    # A server that does not send `awaiting` waits for every seat in `to_act`.
    older = View.from_json({k: v for k, v in view_json().items() if k != "awaiting"})
    assert older.awaiting == [0, 1, 2] and older.my_turn
    assert View.from_json(view_json(last_seq="x")).last_seq is None


class ChangesOnce(Bot):
    """Declares 1, and changes it to 2 the first time the game moves on before everyone
    has declared; otherwise the first legal action."""

    def __init__(self) -> None:
        self.reconsidered: list[View] = []
        self.changed = False

    def choose(self, view: View) -> dict[str, Any]:
        if view.public["phase"] == "declare":
            return {"type": "declare", "tokens": 1}
        return view.legal_actions[0]

    def reconsider(self, view: View) -> dict[str, Any] | None:
        self.reconsidered.append(view)
        if self.changed:
            return None
        self.changed = True
        return {"type": "declare", "tokens": 2}


def test_a_bot_changes_its_answer_only_when_it_decides_to(live_server: str) -> None:
    client = Client(live_server)
    game = client.create_game("exact-plays", 3, options={"tiebreak": "random"}, seed=5)
    changer = client.join(game.id, "changer")
    # Seat 1 declares after 0.3 s, seat 2 after 1 s: seat 0 hears of seat 1's declaration
    # while the phase is still open.
    others = [
        (Client(live_server).join(game.id, "second"), SlowDeclarer(seed=1, first=0.3, later=0)),
        (Client(live_server).join(game.id, "third"), SlowDeclarer(seed=2, first=1.0, later=0)),
    ]
    errors: list[BaseException] = []

    def run(seat: Any, bot: Bot) -> None:
        try:
            seat.play(bot, timeout=15)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run, args=pair, daemon=True) for pair in others]
    for thread in threads:
        thread.start()
    bot = ChangesOnce()
    final = changer.play(bot, timeout=15)
    for thread in threads:
        thread.join(15)
    assert not errors and not any(thread.is_alive() for thread in threads)
    assert final.finished
    assert bot.reconsidered and all(v.can_act and not v.my_turn for v in bot.reconsidered)
    events = all_events(client, game.id)
    changed = [e for e in events if e["type"] == "declared" and e.get("changed")]
    assert [e["seat"] for e in changed] == [0]  # once, by the bot that decided to
    revealed = next(e for e in events if e["type"] == "declarations_revealed")
    assert revealed["declarations"][0] == 2


class WrongPhase(RandomBot):
    """Sends ``action`` whenever it is asked: a mistake the server refuses every time."""

    def __init__(self, action: dict[str, Any]):
        super().__init__(seed=1)
        self.action = action
        self.asked = 0

    def choose(self, view: View) -> dict[str, Any]:
        self.asked += 1
        return self.action


@pytest.mark.parametrize(
    ("game_type", "action", "error"),
    [
        ("exact-plays", {"type": "end_turn"}, IllegalAction),  # no such action (422)
        ("mr-toast", {"type": "allow"}, NotYourTurn),  # no window is open (409)
    ],
)
def test_a_bots_own_mistake_is_raised_not_repeated(
    live_server: str, game_type: str, action: dict[str, Any], error: type
) -> None:
    client = Client(live_server)
    options = {"first_seat": 0} if game_type == "mr-toast" else {}
    game = client.create_game(game_type, 2, options=options, bots={1: "greedy"})
    seat = client.join(game.id, "mistaken")
    bot = WrongPhase(action)
    with pytest.raises(error):
        seat.play(bot, timeout=10)
    assert bot.asked == 1
