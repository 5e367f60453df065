"""Exact Plays in the web table (docs/web.md): a whole 3-player game against two server bots,
and a 2-player game between two browsers, the second seated through an invitation link, with
a spectator who never receives a hand card."""

from __future__ import annotations

import time
from typing import Any

import requests

from helpers import auth
from web_kit import (
    HTTP_TIMEOUT,
    answered_card_ids,
    api_view,
    assert_labelled,
    check_offered_against_view,
    click_action,
    create_in_lobby,
    dom_card_ids,
    game_id_of,
    hand_card_ids,
    offered,
    play_until_over,
    seat_of,
    status,
    wait_for_table,
)

# With this seed and the test's player declaring 6, the 3-player game has a rock-paper-
# scissors tie-break, Wild plays and three rounds, in about 23 moves.
SEED_THREE = 5
DECLARE_THREE = 6
SEED_TWO = 3
DECLARE_TWO = 3
TURN_LIMIT_TWO = 16  # EP-16 keeps the two-browser game short: it ends at 16 turns
# A stacked first round (option `decks`, secret until the end): the bolts are the removed
# suit; seat 1 gets the first 8 cards, seat 2 the next 8, the acorns are the draw pile.
ROUND_ONE = [f"{n}{suit}" for suit in "MS" for n in range(2, 10)]
ROUND_ONE = ROUND_ONE[0:4] + ROUND_ONE[8:12] + ROUND_ONE[4:8] + ROUND_ONE[12:16]
ROUND_ONE += [f"{n}A" for n in range(2, 10)]
MAX_MOVES = 80
GAME_SECONDS = 45


def player(
    base: str, game_id: str, token: str, declare: int, seen: dict[str, Any], shape: str = "rock"
):
    """The test's player: declare ``declare``; throw ``shape``; the biggest play (picking its
    cards in the hand first when it uses the Wild token); else draw (2 players); else a pass
    that turns a Play token to Wild; else the first pass."""

    def play(page: Any, shown: list[dict[str, Any]]) -> None:
        check_offered_against_view(page, base, game_id, token)
        kinds = {action["type"] for action in shown}
        if "declare" in kinds:
            choice = {"type": "declare", "tokens": declare}
        elif "rps" in kinds:
            choice = {"type": "rps", "shape": shape}
        elif "play" in kinds:
            plays = [action for action in shown if action["type"] == "play"]
            choice = max(
                plays,
                key=lambda a: (len(a["cards"]) + (a.get("wild") is not None), "wild" not in a),
            )
            if "wild" in choice:
                for card in choice["cards"]:
                    page.click(f"#hand button[data-pick='{card}']")
                narrowed = offered(page)
                assert choice in narrowed
                plays = [a for a in narrowed if a["type"] == "play"]
                assert all(set(choice["cards"]) <= set(a["cards"]) for a in plays), plays
        elif "draw" in kinds:
            choice = {"type": "draw"}
        else:
            passes = [action for action in shown if action["type"] == "pass"]
            choice = next((a for a in passes if a.get("switch") == "to_wild"), passes[0])
        label = choice["type"] + ("+wild" if "wild" in choice else "")
        seen[label] = seen.get(label, 0) + 1
        # Declarations and throws are made with the keyboard alone.
        click_action(page, choice, keyboard=choice["type"] in ("declare", "rps"))

    return play


def test_a_whole_three_player_exact_plays_game_against_two_bots(open_page, live_server, screenshot):
    started = time.monotonic()
    page, _ = open_page()
    game_id = create_in_lobby(
        page,
        "exact-plays",
        name="Ann",
        seats=["you", "bot:greedy", "bot:random"],
        seed=SEED_THREE,
    )
    token = seat_of(page, game_id)["token"]
    seen: dict[str, Any] = {}
    assert_labelled(page)

    def midway(moves: int) -> None:
        if moves == 4 and status(page) == "active":
            screenshot(page, "exact-plays-table-desktop")
            page.set_viewport_size({"width": 390, "height": 844})
            screenshot(page, "exact-plays-table-phone")
            page.set_viewport_size({"width": 1280, "height": 900})

    moves = play_until_over(
        page,
        player(live_server, game_id, token, DECLARE_THREE, seen),
        max_moves=MAX_MOVES,
        seconds=GAME_SECONDS,
        between=midway,
    )
    summary = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert summary["status"] == "finished"
    assert seen.get("declare", 0) >= 2 and seen.get("rps") and seen.get("play+wild"), seen
    result = page.inner_text("#result")
    assert "Game over" in result and "Final scores" in result
    assert page.text_content("#revealed-seed") == str(SEED_THREE)
    assert "Penalties by round" in page.inner_text("#centre")
    log = page.inner_text("#log-list")
    assert "Declarations:" in log and "rock" in log and "Round 2 begins" in log
    screenshot(page, "exact-plays-result-desktop")
    print(
        f"\nexact-plays, 3 players: {moves} moves by clicking {seen}, "
        f"winners {summary['result']['winners']}, {time.monotonic() - started:.1f} s"
    )


def check_spectator(spectator: Any, watcher: Any, base: str, game_id: str, tokens: list[str]):
    """No card of any hand in the spectator's page, nor in any answer it received."""
    spectator.reload()  # every answer the spectator page gets is now captured from here on
    wait_for_table(spectator)
    hands = set()
    for token in tokens:
        hands |= hand_card_ids(api_view(base, game_id, token))
    assert len(hands) >= 8
    assert spectator.locator("#hand").is_hidden()
    assert spectator.locator("#actions").is_hidden()
    assert "Watching" in spectator.inner_text("#table-heading")
    assert spectator.locator("#seats .seat").count() == 2
    assert not dom_card_ids(spectator) & hands
    answered = answered_card_ids(watcher)
    assert watcher.json_answers, "the spectator page received no answer"
    assert not answered & hands, answered & hands
    public = api_view(base, game_id)
    assert public["you"] is None
    assert public["options"]["decks"] == "stacked"  # the stacked deck too is secret (EP-17)


def test_a_friend_joins_by_link_and_a_spectator_sees_no_hand(open_page, live_server, screenshot):
    started = time.monotonic()
    host, _ = open_page()
    game_id = create_in_lobby(
        host,
        "exact-plays",
        name="Ann",
        seats=["you", "friend"],
        options={"turn_limit": TURN_LIMIT_TWO, "decks": [ROUND_ONE]},
        seed=SEED_TWO,
    )
    assert status(host) == "waiting"
    host_token = seat_of(host, game_id)["token"]
    assert hand_card_ids(api_view(live_server, game_id, host_token)) == set(ROUND_ONE[:8])
    invitation = host.input_value("#invite-1")
    watch_link = host.input_value("#watch-link")
    assert invitation.endswith(f"/play/{game_id}?seat=1")
    screenshot(host, "exact-plays-waiting-for-a-friend")

    # The friend finds the game among the lobby's open games, but opens the invitation link,
    # in a browser of their own, on a phone-sized screen.
    friend, _ = open_page(390, 844)
    friend.goto("/")
    listed = friend.locator(f"#open-list li[data-game-id='{game_id}']")
    assert listed.locator("a", has_text="Take seat 2").get_attribute("href") == (
        f"/play/{game_id}?seat=1"
    )
    # The creator stacked the deck and chose the seed: a joiner is told before sitting down.
    assert "stacked the deck" in listed.inner_text()
    friend.goto(invitation)
    friend.wait_for_selector("body[data-ready=join]")
    assert "stacked the deck" in friend.inner_text("#join")
    assert_labelled(friend)
    assert friend.input_value("#join-seat") == "1"
    friend.fill("#join-name", "Bea")
    friend.click("#join button[type=submit]")
    wait_for_table(friend)
    assert game_id_of(friend) == game_id and "Bea, seat 2" in friend.inner_text("#table-heading")
    assert "stacked the deck" in friend.inner_text("#deal")
    # The host's table learns it through the events long-poll: the game has begun.
    host.wait_for_selector("main[data-status=active]")
    host.wait_for_selector("#log-list li:has-text('Bea sat down in seat 2')")

    spectator, watcher = open_page(capture_json=True)
    spectator.goto(watch_link)
    wait_for_table(spectator)

    friend_token = seat_of(friend, game_id)["token"]
    seen: dict[str, Any] = {}
    players = {
        "host": (host, player(live_server, game_id, host_token, DECLARE_TWO, seen)),
        "friend": (
            friend,
            player(live_server, game_id, friend_token, DECLARE_TWO, seen, shape="scissors"),
        ),
    }
    moves = {"host": 0, "friend": 0}
    ends = time.monotonic() + GAME_SECONDS
    checked = False
    while status(host) != "finished" or status(friend) != "finished":
        assert time.monotonic() < ends and sum(moves.values()) < MAX_MOVES, (moves, seen)
        moved = False
        for name, (page, play) in players.items():
            if page.get_attribute("main", "data-my-move") == "true":
                play(page, offered(page))
                moves[name] += 1
                moved = True
        if not moved:
            # Neither page may move yet: wait for either to be told (long-poll) it may.
            host.wait_for_timeout(50)
        public = api_view(live_server, game_id)["public"]
        if not checked and public["phase"] == "play" and len(public["cleared"]) >= 2:
            check_spectator(spectator, watcher, live_server, game_id, [host_token, friend_token])
            screenshot(spectator, "exact-plays-spectator")
            checked = True
    assert checked, "the game ended before the spectator could be checked"
    assert moves["friend"] >= 3 and moves["host"] >= 3, moves
    spectator.wait_for_selector("#result:not([hidden]) h2")
    for page in (host, friend, spectator):
        assert "Game over" in page.inner_text("#result")
    # The stacked deck, secret while the game ran, is revealed at the end.
    assert '"2M","3M","4M","5M","2S"' in host.text_content("[data-secret=decks]")
    # A spectator has no seat to play again with.
    assert spectator.locator("#play-again").count() == 0
    summary = requests.get(f"{live_server}/v1/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert summary["options"]["turn_limit"] == TURN_LIMIT_TWO
    response = requests.get(
        f"{live_server}/v1/games/{game_id}/view", headers=auth(friend_token), timeout=HTTP_TIMEOUT
    )
    assert response.json()["you"]["seat"] == 1
    print(
        f"\nexact-plays, 2 browsers: {moves} moves by clicking {seen}, "
        f"reason {summary['result']['reason']}, {time.monotonic() - started:.1f} s"
    )
