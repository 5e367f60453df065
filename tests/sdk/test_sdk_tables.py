"""Tables a user can build, played to the end against the live server (gunicorn + Redis)."""

from __future__ import annotations

import pytest
from table_kit import Played, Table, play_table


def check_finished(played: Played) -> None:
    assert not played.hung, (
        f"{played.table.id}: {', '.join(played.hung)} still playing after "
        f"{played.table.bound}s (game {played.game_id}, {played.summary.status}, "
        f"to_act {played.summary.to_act})"
    )
    for index, run in played.runs.items():
        if run.error is not None:
            raise AssertionError(f"sdk seat {index} failed") from run.error
        assert run.final is not None and run.final.finished
    for index, done in played.processes.items():
        assert done.returncode == 0, f"cli seat {index}: {done.stderr}"
        assert f"game {played.game_id} finished" in done.stdout
    assert played.summary.finished and played.summary.winners


@pytest.mark.parametrize("players", [2, 4])
def test_one_sdk_seat_among_server_bots_finishes_exact_plays(
    live_server: str, players: int
) -> None:
    """The issue's hang: the server bots end a round and declare for the next one inside the
    SDK seat's own request; the seat must see that it is awaited again."""
    bots = ("bot:greedy", "bot:random", "bot:greedy")[: players - 1]
    played = play_table(live_server, Table("exact-plays", ("sdk:eager", *bots), bound=20))
    check_finished(played)
    assert played.count("round_started") >= 2
    assert sum(played.changed_declarations.values()) == 0


def test_answered_seats_do_not_redeclare_while_a_slow_seat_thinks(live_server: str) -> None:
    """Two SDK bots have declared, a third seat takes 3 s: the two wait, they do not
    change their declarations back and forth."""
    table = Table("exact-plays", ("sdk:eager", "sdk:random", "sdk:slow"), bound=30)
    played = play_table(live_server, table)
    print(
        f"\n{table.id}: changed declarations {dict(played.changed_declarations)}, "
        f"declared events {played.count('declared')}, {played.elapsed:.1f}s"
    )
    check_finished(played)
    assert sum(played.changed_declarations.values()) == 0
