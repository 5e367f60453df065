"""A finished game as a replay: every step with its events unredacted and the hands after it
(``GET /v1/games/{id}/replay``, docs/api.md "Replays").

The log (``cardroom.table.steps``) is applied again, entry by entry, through the same functions live
play used, so the replay is the game as it was played, timeouts and bot moves included. To
keep a long game's replay small, a card is described once (``cards``, by id), hands are lists
of card ids, and a step lists only the hands and scores that it changed: a client rebuilds the
table at step n by applying the steps up to n over the deal (the SDK's ``Replay`` does).
"""

from __future__ import annotations

from typing import Any

import orjson

from cardroom.kit.base import Game
from cardroom.store.games import GameRecord
from cardroom.table import steps

# The kinds of step, by their log entry (cardroom.table.steps).
KINDS = {steps.JOINED: "join", steps.EXPIRED: "timeout", steps.BACK: "back"}


def build(record: GameRecord) -> dict[str, Any]:
    """The replay of a game (finished: the caller checks), from its stored log."""
    replay = steps.Replay(record)
    game = replay.game
    cards: dict[str, Any] = {}
    start_ms = steps.clock_ms(record.created_at)

    deal = hands = _hands(game, replay.record.state, cards)
    deal_scores = scores = game.scores(replay.record.state)
    opening = list(replay.events)
    played: list[dict[str, Any]] = []
    for line in record.log_lines():
        entry = orjson.loads(line)
        events = replay.step(entry)
        step: dict[str, Any] = {
            "kind": KINDS.get(entry[0], "action") if isinstance(entry[0], str) else "action",
            "seat": entry[1] if entry[0] != steps.EXPIRED else None,
            "at": replay.record.logged_ms - start_ms,
            "events": events,
        }
        if step["kind"] == "action":
            step["seat"], step["action"] = entry[0], entry[1]
        elif step["kind"] == "join":
            step["name"] = entry[2]
        state = replay.record.state
        now_hands = _hands(game, state, cards)
        changed = {str(seat): hand for seat, hand in enumerate(now_hands) if hand != hands[seat]}
        if changed:
            step["hands"] = changed
        now_scores = game.scores(state)
        if now_scores != scores:
            step["scores"] = now_scores
        hands, scores = now_hands, now_scores
        played.append(step)
    return {
        "game_id": record.id,
        "game_type": record.game_type,
        "players": record.players,
        "options": record.options,
        "seed": record.seed,
        "seats": [
            {"seat": seat, "name": entry["name"], "bot": entry["bot"]}
            for seat, entry in enumerate(record.seats)
        ],
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "result": game.result(record.state),
        "cards": cards,
        "deal": {"hands": deal, "scores": deal_scores},
        "opening_events": opening,
        "steps": played,
        "final": {"hands": hands, "scores": scores},
    }


def _hands(game: Game, state: dict[str, Any], cards: dict[str, Any]) -> list[list[str]]:
    """Each seat's hand as card ids; every card met is described once in ``cards``."""
    hands = []
    for seat in range(state["players"]):
        hand = game.view(state, seat)["you"]["hand"]
        for card in hand:
            cards.setdefault(card["id"], card)
        hands.append([card["id"] for card in hand])
    return hands
