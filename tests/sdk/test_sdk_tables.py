"""Every kind of table a user can build, played to the end against the live server.

Tables mix SDK seats (``Seat.play``, ``run_bot``), server bot seats and ``cardroom-bot``
processes, for both games at every player count, in different seat orders. Each game is
bounded in wall time (a hang fails, it does not stall the suite), and no seat may change a
declaration it has made (the SDK's bots never do: a change is a re-declaring loop).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from table_kit import REMOTE, SDK_BOTS, Dawdler, Played, Table, play_table

DEADLINE = {"reaction_deadline": 0.3}  # MT-13/14: a timed No Way window

SDK_BOTS["dawdle-all"] = lambda seed: Dawdler(seed=seed, delay=0.45, times=5)


def stacked_blue_deck() -> dict[str, object]:
    """Mr Toast, 3 players, seat 0 first with greens and Take a Breaks: it scores, then
    plays a blue card (MT-8) and so opens No Way windows, turn after turn."""
    hands = ["G1", "TB", "TB", "G1", "TB", "G1", "G1", "NW", "G1", "G1"]
    hands += ["G1", "TB", "G1", "NW", "G1"]
    rest = ["G1", "TB"] * 5 + ["G1", "G1", "G1", "G1", "NW"]
    return {
        "composition": [
            {"code": "G1", "count": 18},
            {"code": "TB", "count": 9},
            {"code": "NW", "count": 3},
        ],
        "deck": hands + rest,
        "first_seat": 0,
        "turn_limit": 12,
        **DEADLINE,
    }


def toast(*seats: str, seed: int, note: str = "", **options: object) -> Table:
    """A Mr Toast table; at most 100 turns (MT-11), so that no game of the matrix runs long."""
    return Table("mr-toast", seats, {"turn_limit": 100, **options}, seed, note=note)


def plays(*seats: str, seed: int, note: str = "") -> Table:
    return Table("exact-plays", seats, {}, seed, note=note)


MATRIX = [
    # Mr Toast, 2 to 6 players
    toast("sdk:eager", "bot:greedy", seed=1),
    toast("bot:random", "sdk:random", seed=2, note="-deadline", **DEADLINE),
    toast("cli:random", "bot:greedy", seed=3),
    toast("bot:greedy", "bot:random", "sdk:random", seed=4, note="-deadline", **DEADLINE),
    toast("sdk:dawdle", "bot:greedy", "bot:random", seed=5, note="-late", **DEADLINE),
    toast("run:eager", "cli:random", "sdk:random", seed=6, note="-auto-allow", auto_allow=True),
    toast(
        "sdk:eager", "sdk:dawdle-all", "bot:greedy", seed=7, note="-stacked", **stacked_blue_deck()
    ),
    toast("sdk:random", "cli:eager", "bot:greedy", "sdk:eager", seed=8),
    toast("bot:greedy", "bot:random", "bot:greedy", "sdk:eager", seed=9),
    toast(
        *("bot:greedy", "sdk:dawdle", "bot:random", "cli:random", "run:eager"),
        seed=10,
        note="-deadline",
        **DEADLINE,
    ),
    toast("sdk:random", "bot:random", "bot:greedy", "bot:random", "bot:greedy", seed=11),
    toast(
        "sdk:eager", "bot:random", "sdk:random", "bot:greedy", "cli:eager", "bot:random", seed=12
    ),
    toast(
        *("bot:greedy", "sdk:random", "sdk:dawdle", "cli:random", "run:eager", "bot:random"),
        seed=13,
        note="-deadline",
        **DEADLINE,
    ),
    # Exact Plays, 2 to 4 players
    plays("sdk:eager", "bot:greedy", seed=21),
    plays("bot:random", "sdk:random", seed=22),
    plays("cli:eager", "bot:greedy", seed=23),
    plays("sdk:steady", "run:steady", seed=24, note="-rps"),
    plays("bot:greedy", "bot:random", "sdk:eager", seed=25),
    plays("sdk:steady", "cli:table_kit:Steady", "sdk:steady", seed=26, note="-rps"),
    plays("run:random", "bot:greedy", "cli:random", seed=27),
    plays("sdk:eager", "bot:greedy", "bot:random", "bot:greedy", seed=28),
    plays("bot:random", "sdk:random", "cli:eager", "sdk:steady", seed=29),
    plays("bot:greedy", "bot:greedy", "bot:random", "run:random", seed=30),
    plays("sdk:steady", "bot:greedy", "run:steady", "cli:eager", seed=31),
]


def report(played: Played) -> str:
    return (
        f"{played.table.id:72s} {played.elapsed:5.2f}s  v{played.summary.version:<4d}"
        f" {(played.summary.result or {}).get('reason')}"
    )


@pytest.fixture(scope="module")
def matrix(live_server: str) -> Iterator[dict[str, Played | BaseException]]:
    """Every table of the matrix, four at a time (each with its own wall-time bound)."""

    def play(table: Table) -> Played | BaseException:
        try:
            return play_table(live_server, table)
        except Exception as error:  # reported by the table's own test
            return error

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip([t.id for t in MATRIX], pool.map(play, MATRIX), strict=True))
    elapsed = time.monotonic() - started
    played = [result for result in results.values() if isinstance(result, Played)]
    print(f"\nmatrix: {len(results)} tables in {elapsed:.1f}s, four at a time")
    for one in sorted(played, key=lambda one: -one.elapsed):
        print(report(one))
    yield results


def played_table(matrix: dict[str, Played | BaseException], table_id: str) -> Played:
    result = matrix[table_id]
    if isinstance(result, BaseException):
        raise AssertionError(f"{table_id} could not be played") from result
    return result


@pytest.mark.parametrize("table", MATRIX, ids=lambda table: table.id)
def test_table_plays_to_the_end(matrix: dict[str, Played | BaseException], table: Table) -> None:
    played = played_table(matrix, table.id)
    assert not played.problems(), "\n".join(played.problems())
    assert set(played.summary.winners) <= set(range(table.players))
    # No seat changes its mind: the SDK's bots and the server's never re-declare.
    assert not played.changed_declarations, played.changed_declarations
    for index, run in played.runs.items():
        assert run.chosen_from, f"seat {index} was never asked to move"
        assert all(view.my_turn and view.seat == index for view in run.chosen_from)


def remote_seats(played: Played) -> set[int]:
    return set(played.table.seats_of(*REMOTE))


def test_the_matrix_meets_every_situation(matrix: dict[str, Played | BaseException]) -> None:
    """What the matrix is for: each situation the SDK must handle happened in it."""
    tables = [played_table(matrix, table.id) for table in MATRIX]
    toast = [played for played in tables if played.table.game_type == "mr-toast"]
    plays = [played for played in tables if played.table.game_type == "exact-plays"]
    assert {played.table.players for played in toast} == {2, 3, 4, 5, 6}
    assert {played.table.players for played in plays} == {2, 3, 4}

    # No Way windows without a deadline, answered by seats that play through the API.
    untimed = [p for p in toast if "reaction_deadline" not in p.table.options]
    answers = sum(
        1
        for played in untimed
        for event in played.of("allowed") + played.of("no_way")
        if event["seat"] in remote_seats(played) and not event.get("auto")
    )
    assert answers > 0
    assert sum(played.count("no_way") for played in toast) > 0

    # Timed windows closed at their deadline, the late seat's answer refused and got over;
    # and a remote seat that opened the window waited until the server closed it.
    closed = [
        (played, event)
        for played in toast
        for event in played.of("window_closed")
        if event.get("reason") == "deadline"
    ]
    assert closed
    opened_by_remote = 0
    for played, event in closed:
        blue = [e for e in played.of("blue_played") if e["seq"] < event["seq"]][-1]
        opened_by_remote += blue["seat"] in remote_seats(played)
    assert opened_by_remote > 0

    # Simultaneous phases: declarations by every remote seat, and rock-paper-scissors
    # among remote seats.
    for played in plays:
        declared = {event["seat"] for event in played.of("declared")}
        assert remote_seats(played) <= declared, played.table.id
    rps_by_remote = sum(
        1
        for played in plays
        for event in played.of("rps_chosen")
        if event["seat"] in remote_seats(played)
    )
    assert rps_by_remote > 0

    # Rounds changed, and games ended, inside a request that was not the remote seat's own:
    # a server bot's move made inside another seat's request.
    def by_server_bot(played: Played, event_type: str) -> int:
        bots = set(played.table.seats_of("bot"))
        return sum(1 for event in played.of(event_type) if event.get("actor") in bots)

    assert sum(by_server_bot(played, "round_started") for played in plays) > 0
    assert sum(by_server_bot(played, "game_over") for played in tables) > 0


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("how", ["sdk", "run", "cli"])
def test_one_remote_seat_among_server_bots_finishes_exact_plays(
    live_server: str, how: str, players: int
) -> None:
    """The issue's hang: the server bots end a round and declare for the next one inside the
    remote seat's own request; ``Seat.play``, ``run_bot()`` and ``cardroom-bot`` alike must
    see that the game waits for them again."""
    bots = ("bot:greedy", "bot:random", "bot:greedy")[: players - 1]
    table = Table("exact-plays", (f"{how}:eager", *bots), seed=players, bound=30)
    played = play_table(live_server, table)
    assert not played.problems(), "\n".join(played.problems())
    assert played.count("round_started") >= 1  # round 2 was dealt (round 1 is in the view)
    assert not played.changed_declarations


def test_answered_seats_do_not_redeclare_while_a_slow_seat_thinks(live_server: str) -> None:
    """Two SDK bots have declared, a third seat takes 3 s: the two wait; they do not
    change their declarations back and forth (before the fix: 242 changes in those 3 s)."""
    table = Table("exact-plays", ("sdk:eager", "sdk:random", "sdk:slow"), seed=1, bound=30)
    played = play_table(live_server, table)
    print(
        f"\n{table.id}: {played.count('declared')} declared events, changed "
        f"{dict(played.changed_declarations)}, {played.elapsed:.1f}s"
    )
    assert not played.problems(), "\n".join(played.problems())
    assert not played.changed_declarations
    first_round = [e for e in played.events if e["type"] == "declared"][:3]
    assert sorted(event["seat"] for event in first_round) == [0, 1, 2]


@pytest.mark.parametrize("game_type", ["mr-toast", "exact-plays"])
def test_an_sdk_bot_plays_a_whole_game_at_a_table_with_two_search_bots(
    live_server: str, game_type: str
) -> None:
    """Issue 29: the search bots think off the request path (cardroom.thinking), in each
    worker's own deciding process; the SDK seat's requests answer at once and the game is
    played to its end, no seat changing its mind."""
    seats = ("sdk:eager", "bot:search", "bot:search")
    table = (toast if game_type == "mr-toast" else plays)(*seats, seed=40, note="-search")
    played = play_table(live_server, replace(table, bound=120.0))
    assert not played.problems(), "\n".join(played.problems())
    searched = set(played.table.seats_of("bot"))
    assert any(event.get("actor") in searched for event in played.events)
    assert not played.changed_declarations
