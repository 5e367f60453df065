"""The SDK's replays and rematches (docs/api.md, "Replays", "Rematch"): a finished game
fetched and stepped through, forward and back; "play again" for every seat."""

from __future__ import annotations

import pytest

from cardroom_sdk import Client, EagerBot, GameNotFinished, Replay


def finished_with_a_person(client: Client, game_type: str, players: int):
    bots = {seat: "greedy" for seat in range(1, players)}
    game = client.create_game(game_type, players, bots=bots, seed=5)
    seat = client.join(game.id, "ann")
    final = seat.play(EagerBot(seed=1), timeout=60)
    assert final.finished
    return seat, final


@pytest.mark.parametrize(("game_type", "players"), [("mr-toast", 2), ("exact-plays", 2)])
def test_a_replay_is_stepped_through_to_the_final_table(live_server, game_type, players):
    client = Client(live_server)
    seat, final = finished_with_a_person(client, game_type, players)
    replay = client.replay(seat.game_id)
    assert isinstance(replay, Replay) and len(replay) > 0
    assert replay.winners == final.winners and replay.seed == client.game(seat.game_id).seed

    deal = replay.current
    assert deal.index == 0 and deal.step is None and len(deal.hands) == players
    first = replay.forward()
    assert first.index == 1 and first.step is replay.steps[0]
    assert replay.back().index == 0 and replay.back().index == 0, "the cursor stops at the deal"
    end = replay.seek(len(replay))
    assert replay.at_end and replay.forward().index == len(replay), "and at the end"
    assert [card["id"] for card in end.hands[0]] == [card["id"] for card in final.hand]
    assert end.scores == final.result["scores"]
    assert all("code" in card for hand in end.hands for card in hand)
    events = replay.events_until(len(replay))
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    assert "game_over" in [event.type for event in events]


def test_a_replay_before_the_end_is_refused(live_server):
    client = Client(live_server)
    game = client.create_game("exact-plays", 2)
    with pytest.raises(GameNotFinished):
        client.replay(game.id)


def test_play_again_takes_the_same_seat_in_the_same_new_game(live_server):
    client = Client(live_server)
    seat, _ = finished_with_a_person(client, "exact-plays", 3)
    again = seat.rematch()
    assert again.seat == seat.seat and again.game_id != seat.game_id
    assert seat.summary().rematch == again.game_id
    assert client.rematch(seat.game_id, seat.token).id == again.game_id, "the same game"
    summary = again.summary()
    assert summary.status == "active", "the bots kept their seats; the game begins"
    assert [info.bot for info in summary.seats] == [None, "greedy", "greedy"]
    assert again.view().seat == seat.seat
