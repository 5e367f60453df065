"""Many clients on one game at once, over HTTP against gunicorn and a real Redis.

Every property is checked by replaying the accepted actions from the game's seed
(hardening_kit.replay_matches): the stored game must be exactly that replay.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests
from hardening_kit import Accepted, replay_matches

TIMEOUT = 10


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(base: str, game_type: str, players: int, **body: Any) -> tuple[str, dict[int, str]]:
    created = requests.post(
        f"{base}/v1/games",
        json={"game_type": game_type, "players": players, **body},
        timeout=TIMEOUT,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    tokens = {}
    for seat in range(players):
        joined = requests.post(
            f"{base}/v1/games/{game_id}/join", json={"name": f"p{seat}"}, timeout=TIMEOUT
        )
        assert joined.status_code == 201, joined.text
        tokens[joined.json()["seat"]] = joined.json()["token"]
    return game_id, tokens


def fire_at_once(calls: list[Callable[[], Any]], stagger: float = 0.0) -> list[Any]:
    """Run the calls from one thread each, released together (call i after i*stagger s)."""
    barrier = threading.Barrier(len(calls))

    def run(index: int) -> Any:
        barrier.wait()
        if stagger:
            time.sleep(index * stagger)
        return calls[index]()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, range(len(calls))))


def post_action(
    base: str, game_id: str, token: str, action: dict[str, Any], **headers: str
) -> requests.Response:
    return requests.post(
        f"{base}/v1/games/{game_id}/actions",
        json=action,
        headers={**bearer(token), **headers},
        timeout=TIMEOUT,
    )


# --- turns: many clients, two per seat, racing with If-Match -----------------------------------


def test_racing_clients_each_accepted_action_is_applied_exactly_once(live_server, redis_server):
    base = live_server
    players, per_seat, target = 6, 2, 120
    game_id, tokens = new_game(base, "mr-toast", players, seed=20261129, options={"turn_limit": 60})
    accepted: list[Accepted] = []
    outcomes: Counter[int] = Counter()
    responses: list[tuple[int, dict[str, Any]]] = []
    lock = threading.Lock()
    stop = threading.Event()
    deadline = time.monotonic() + 30  # a bound on the test's length, not an assertion

    def client(seat: int, rng: random.Random) -> None:
        try:
            play(seat, rng)
        except BaseException:
            stop.set()
            raise

    def play(seat: int, rng: random.Random) -> None:
        session = requests.Session()
        session.headers.update(bearer(tokens[seat]))
        while not stop.is_set() and time.monotonic() < deadline:
            view = session.get(f"{base}/v1/games/{game_id}/view", timeout=TIMEOUT)
            assert view.status_code == 200, view.text
            body = view.json()
            if body["status"] == "finished":
                stop.set()
                return
            if not body["legal_actions"]:
                time.sleep(0.002)
                continue
            action = rng.choice(body["legal_actions"])
            answer = session.post(
                f"{base}/v1/games/{game_id}/actions",
                json=action,
                headers={"If-Match": view.headers["ETag"]},
                timeout=TIMEOUT,
            )
            with lock:
                outcomes[answer.status_code] += 1
                if answer.status_code == 200:
                    result = answer.json()
                    accepted.append(Accepted(seat, action, result["version"]))
                    responses.append((seat, result))
                    if len(accepted) >= target:
                        stop.set()
                elif answer.status_code not in (409, 412):
                    stop.set()

    threads = [
        threading.Thread(target=client, args=(seat, random.Random(seat * 10 + copy)))
        for seat in range(players)
        for copy in range(per_seat)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert set(outcomes) <= {200, 409, 412}, f"refusals must be 409 or 412: {outcomes}"
    assert len(accepted) >= 30, outcomes
    assert outcomes[409] + outcomes[412] > 0, "the clients never raced: the test proves nothing"
    record = replay_matches(redis_server.url, game_id, accepted)
    assert record.version == outcomes[200] == len(accepted)
    # Each client got the events of its own version, as the log holds them for its seat.
    for seat, result in responses:
        seen = requests.get(
            f"{base}/v1/games/{game_id}/events",
            params={"after": 0, "limit": 1000},
            headers=bearer(tokens[seat]),
            timeout=TIMEOUT,
        ).json()["events"]
        mine = [event for event in seen if event["version"] == result["version"]]
        assert result["events"] == mine
    print(f"\nconcurrency: {len(threads)} clients, outcomes {dict(outcomes)}")


# --- simultaneous phases: every seat's answer is accepted, whatever the arrival order ----------


def answer_together(
    base: str,
    game_id: str,
    tokens: dict[int, str],
    answers: list[tuple[int, dict[str, Any]]],
    order: tuple[int, ...],
) -> tuple[list[Accepted], tuple[int, ...]]:
    """Send every (seat, action) at once, released in ``order``; all must be accepted.

    Returns the accepted actions and the order in which the server applied them (by the
    versions they were given).
    """
    calls = [
        (lambda seat=seat, action=action: post_action(base, game_id, tokens[seat], action))
        for seat, action in (answers[i] for i in order)
    ]
    results = fire_at_once(calls, stagger=0.003)
    accepted = []
    versions = {}
    for i, result in zip(order, results, strict=True):
        assert result.status_code == 200, (answers[i], result.text)
        version = result.json()["version"]
        accepted.append(Accepted(answers[i][0], answers[i][1], version))
        versions[i] = version
    return accepted, tuple(sorted(versions, key=versions.__getitem__))


def test_declarations_and_rock_paper_scissors_accept_any_arrival_order(live_server, redis_server):
    base = live_server
    declarations = [4, 4, 4, 1]  # seats 0-2 tie: rock-paper-scissors
    first_throw = ["rock", "rock", "scissors"]  # seat 2 is out
    second_throw = ["paper", "rock"]  # seat 0 starts
    orders_seen: set[tuple[int, ...]] = set()
    for repeat, order in enumerate(itertools.islice(itertools.permutations(range(4)), 0, 24, 5)):
        game_id, tokens = new_game(
            base, "exact-plays", 4, seed=7000 + repeat, options={"tiebreak": "rps"}
        )
        declared, arrived = answer_together(
            base,
            game_id,
            tokens,
            [(seat, {"type": "declare", "tokens": n}) for seat, n in enumerate(declarations)],
            order,
        )
        orders_seen.add(arrived)
        thrown, _ = answer_together(
            base,
            game_id,
            tokens,
            [(seat, {"type": "rps", "shape": shape}) for seat, shape in enumerate(first_throw)],
            tuple(i for i in order if i < 3),
        )
        rethrown, _ = answer_together(
            base,
            game_id,
            tokens,
            [(seat, {"type": "rps", "shape": shape}) for seat, shape in enumerate(second_throw)],
            tuple(i for i in order if i < 2),
        )
        record = replay_matches(redis_server.url, game_id, declared + thrown + rethrown)
        assert record.version == 4 + 3 + 2
        view = requests.get(
            f"{base}/v1/games/{game_id}/view", headers=bearer(tokens[3]), timeout=TIMEOUT
        ).json()
        assert view["public"]["declarations"] == declarations
        assert view["public"]["phase"] == "play" and view["public"]["start_player"] == 0
        throws = view["public"]["rps"]["throws"]
        assert [t["remaining"] for t in throws] == [[0, 1], [0]]
    assert len(orders_seen) >= 2, f"every repetition arrived in the same order: {orders_seen}"
    print(f"\nsimultaneous declarations: arrival orders seen {sorted(orders_seen)}")


def no_way_deck() -> tuple[list[str], list[dict[str, Any]]]:
    """Seat 0 holds Find a Penny; seats 1 and 2 a No Way each; seat 3 only greens."""
    hands = [
        ["FP", "G1", "G2", "G3", "G4"],
        ["NW", "G1", "G2", "G3", "G5"],
        ["NW", "G1", "G2", "G4", "G5"],
        ["G1", "G2", "G3", "G4", "G5"],
    ]
    deck = [code for hand in hands for code in hand] + ["G1", "G2", "G3", "G4", "G5"] * 2
    composition = [{"code": code, "count": count} for code, count in Counter(deck).items()]
    return deck, composition


def test_no_way_window_answers_are_accepted_in_any_arrival_order(live_server, redis_server):
    base = live_server
    deck, composition = no_way_deck()
    orders_seen: set[tuple[int, ...]] = set()
    for repeat, order in enumerate(itertools.permutations(range(3))):
        game_id, tokens = new_game(
            base,
            "mr-toast",
            4,
            seed=8000 + repeat,
            options={"deck": deck, "composition": composition, "first_seat": 0},
        )
        hands = {
            seat: requests.get(
                f"{base}/v1/games/{game_id}/view", headers=bearer(token), timeout=TIMEOUT
            ).json()["you"]["hand"]
            for seat, token in tokens.items()
        }

        def card(seat: int, code: str) -> str:
            return next(c["id"] for c in hands[seat] if c["code"] == code)  # noqa: B023

        blue = {"type": "play_blue", "card": card(0, "FP")}
        played = post_action(base, game_id, tokens[0], blue)
        assert played.status_code == 200, played.text
        accepted = [Accepted(0, blue, played.json()["version"])]
        assert played.json()["view"]["to_act"] == [1, 2, 3]
        # Seat 1 cancels with a No Way, seats 2 and 3 allow: all at once, in this order.
        answers = [
            (1, {"type": "no_way", "card": card(1, "NW")}),
            (2, {"type": "allow"}),
            (3, {"type": "allow"}),
        ]
        answered, arrived = answer_together(base, game_id, tokens, answers, order)
        accepted += answered
        orders_seen.add(arrived)
        record = replay_matches(redis_server.url, game_id, accepted)
        assert record.version == 4
    assert len(orders_seen) >= 2, f"every repetition arrived in the same order: {orders_seen}"
    print(f"\nNo Way windows: arrival orders seen {sorted(orders_seen)}")


# --- idempotent retries racing each other --------------------------------------------------


def test_racing_retries_with_one_idempotency_key_apply_once_and_answer_alike(
    live_server, redis_server
):
    base = live_server
    racers, steps = 16, 8
    game_id, tokens = new_game(base, "mr-toast", 3, seed=4242)
    rng = random.Random(4242)
    accepted: list[Accepted] = []
    replays = 0
    for step in range(steps):
        spectator = requests.get(f"{base}/v1/games/{game_id}/view", timeout=TIMEOUT).json()
        seat = rng.choice(spectator["to_act"])
        view = requests.get(
            f"{base}/v1/games/{game_id}/view", headers=bearer(tokens[seat]), timeout=TIMEOUT
        ).json()
        action = rng.choice(view["legal_actions"])
        key = f"race-{step}"
        results = fire_at_once(
            [
                lambda: post_action(base, game_id, tokens[seat], action, **{"Idempotency-Key": key})  # noqa: B023
            ]
            * racers
        )
        assert [result.status_code for result in results] == [200] * racers
        assert len({result.text for result in results}) == 1, "the answers differ"
        first = [result for result in results if "Idempotent-Replayed" not in result.headers]
        assert len(first) == 1, "exactly one answer is the first, the others replay it"
        replays += racers - 1
        version = results[0].json()["version"]
        assert version == step + 1
        accepted.append(Accepted(seat, action, version))
    record = replay_matches(redis_server.url, game_id, accepted)
    assert record.version == steps
    print(f"\nidempotent races: {steps} actions x {racers} racers, {replays} replays")
