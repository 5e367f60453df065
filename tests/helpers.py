"""Helpers shared by the API tests: create, join, play through the HTTP API."""

from __future__ import annotations

import random
from typing import Any

from cardroom.kit.conformance.draws import card_ids  # the one card finder: re-exported


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create_game(client: Any, game_type: str, players: int, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/games", json={"game_type": game_type, "players": players, **body})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def join_all(client: Any, game: dict[str, Any]) -> dict[int, str]:
    tokens: dict[int, str] = {}
    for seat in game["seats"]:
        if seat["taken"]:
            continue
        response = client.post(f"/v1/games/{game['id']}/join", json={"name": f"p{seat['seat']}"})
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        tokens[body["seat"]] = body["token"]
    return tokens


def new_table(client: Any, game_type: str, players: int, **body: Any) -> tuple[str, dict]:
    game = create_game(client, game_type, players, **body)
    return game["id"], join_all(client, game)


def view(client: Any, game_id: str, token: str | None = None) -> dict[str, Any]:
    headers = auth(token) if token else {}
    response = client.get(f"/v1/games/{game_id}/view", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def play_random_game(
    client: Any,
    game_id: str,
    tokens: dict[int, str],
    rng: random.Random,
    max_steps: int = 20_000,
    check_secrets: bool = True,
) -> dict[str, Any]:
    """Play by choosing any legal action of a seat that is to act, to the end.

    Checks at every step that no seat's view shows a card of another seat's hand, and that
    a spectator sees no hand at all. Returns the final summary.
    """
    for _ in range(max_steps):
        views = {seat: view(client, game_id, token) for seat, token in tokens.items()}
        any_view = next(iter(views.values()))
        if any_view["status"] == "finished":
            break
        if check_secrets:
            hands = {seat: card_ids(v["you"]["hand"]) for seat, v in views.items()}
            for seat, seen in views.items():
                shown = card_ids({k: v for k, v in seen.items() if k != "you"})
                for other, hand in hands.items():
                    if other != seat:
                        assert not (shown & hand), f"seat {seat} sees seat {other}'s cards"
            spectator = view(client, game_id)
            assert spectator["you"] is None and spectator["legal_actions"] == []
            for hand in hands.values():
                assert not (card_ids(spectator) & hand), "a spectator sees a hand card"
        movers = [seat for seat in any_view["to_act"] if seat in tokens]
        assert movers, f"nobody can act: {any_view['to_act']}"
        seat = rng.choice(movers)
        legal = views[seat]["legal_actions"]
        assert legal, f"seat {seat} is to act but has no legal action"
        action = rng.choice(legal)
        response = client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
        )
        assert response.status_code == 200, (action, response.get_json())
        assert response.get_json()["version"] > views[seat]["version"]
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished", "the game did not end"
    assert summary["result"] and summary["result"]["winners"]
    return summary
