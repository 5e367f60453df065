"""`cardroom ladder`: the round robin's fairness, duplicate deals, the OpenSkill ratings, the
command's figures and misuse, and an SDK bot entered against a live server."""

from __future__ import annotations

import json
import textwrap
import threading
from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest

from cardroom import ladder as lad
from cardroom.serve import cli
from cardroom.store.embedded import free_port
from cardroom_sdk import Bot, EagerBot, View


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["ladder", "--no-progress", *argv])
    out, err = capsys.readouterr()
    # Not the command's: JSON log lines other tests' background threads write meanwhile.
    err = "".join(line for line in err.splitlines(keepends=True) if not line.startswith('{"ts"'))
    return code, out, err


def figures(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run_cli(capsys, "--json", *argv)
    assert code == 0, err
    found = json.loads(out)
    del found["timing"]
    return found


def by_policy(found: dict) -> dict[str, dict]:
    return {row["policy"]: row for row in found["ratings"]}


# --- the round robin -------------------------------------------------------------------------


def test_two_players_meet_as_every_ordered_pair_home_and_away():
    tables = lad.round_robin(["a", "b", "c"], 2)
    assert sorted(tables) == sorted(permutations("abc", 2))
    # Listed as rotations: each pair is followed by its return game.
    assert tables[:2] == [("a", "b"), ("b", "a")]


@pytest.mark.parametrize(
    ("policies", "players", "size"),
    [("abcd", 4, 24), ("ab", 4, 14), ("abc", 4, 36), ("abcde", 4, 120), ("abc", 3, 6)],
)
def test_a_cycle_gives_every_policy_every_seat_and_opponent_evenly(policies, players, size):
    """Fair scheme (ladder.py's docstring): each policy holds each seat equally often, and
    meets each other policy in each pair of seats equally often."""
    tables = lad.round_robin(list(policies), players)
    assert len(tables) == size == len(set(tables))
    assert all(len(set(table)) == min(len(policies), players) for table in tables)
    seats = Counter((seat, name) for table in tables for seat, name in enumerate(table))
    assert len(set(seats.values())) == 1 and len(seats) == players * len(policies)
    meetings = Counter(
        (first, second, table[first], table[second])
        for table in tables
        for first in range(players)
        for second in range(players)
        if first != second and table[first] != table[second]
    )
    assert len(set(meetings.values())) == 1
    assert len(meetings) == players * (players - 1) * len(policies) * (len(policies) - 1)


def test_the_entrant_takes_at_most_one_seat_and_every_seat_evenly():
    tables = lad.round_robin(["greedy", "random", "me"], 4, entrant="me")
    assert tables and all(table.count("me") <= 1 for table in tables)
    seats = Counter((seat, name) for table in tables for seat, name in enumerate(table))
    for name in ("greedy", "random", "me"):
        assert len({seats[seat, name] for seat in range(4)}) == 1, name
    assert seats[0, "greedy"] == seats[0, "random"]


def test_rotations_of_a_seating_share_a_deal_and_cycles_get_new_ones():
    ladder = lad.make_ladder("mr-toast", 4, "greedy,random", games=28, seed=3)
    planned = lad.schedule(ladder)
    assert [table.seating for table in planned[:14]] == ladder.tables
    by_deal: dict[int, list[tuple[str, ...]]] = {}
    for table in planned[:14]:
        by_deal.setdefault(table.deal_seed, []).append(table.seating)
    for seatings in by_deal.values():  # one seating turned round the table
        first = seatings[0]
        assert set(seatings) == {first[turn:] + first[:turn] for turn in range(4)}
    first_cycle = {table.deal_seed for table in planned[:14]}
    second_cycle = {table.deal_seed for table in planned[14:]}
    assert len(first_cycle) == len(by_deal) and not first_cycle & second_cycle
    assert len({table.rng_key for table in planned}) == 28


# --- the ratings -----------------------------------------------------------------------------


def test_ranks_put_winners_first_and_the_others_tied_behind_them():
    """A game is won or lost: a loser's score does not rank it (a bot that risks more to
    win must not rate below one that never wins)."""
    assert lad.ranks({"winners": [2], "scores": [5, 7, 9, 7]}, 4) == [2, 2, 1, 2]
    assert lad.ranks({"winners": [0, 1], "scores": [3, 3]}, 2) == [1, 1]  # a shared win
    assert lad.ranks({"winners": [1], "scores": [-4, -9]}, 2) == [2, 1]  # winners, not score
    assert lad.ranks({"winners": [], "scores": [1, 2, 3]}, 3) == [1, 1, 1]


def test_seats_of_one_policy_combine_as_independent_evidence():
    model = lad.PlackettLuce(mu=lad.MU, sigma=lad.SIGMA, beta=lad.BETA, tau=lad.TAU)
    one = model.rating(mu=30.0, sigma=5.0)
    assert lad.combined((25.0, 8.0), [one]) == (30.0, 5.0)
    # Two seats that each learnt nothing leave the prior as it was.
    same = model.rating(mu=25.0, sigma=8.0)
    mu, sigma = lad.combined((25.0, 8.0), [same, same])
    assert mu == pytest.approx(25.0) and sigma == pytest.approx(8.0)
    # Two seats that each learnt the same thing are surer than either.
    mu, sigma = lad.combined((25.0, 8.0), [one, one])
    assert mu > 30.0 and sigma < 5.0


@pytest.mark.parametrize("game", ["mr-toast", "exact-plays"])
def test_greedy_is_rated_above_random(capsys, game):
    found = figures(capsys, "--game", game, "--players", "2", "--policies", "random,greedy",
                    "--games", "24", "--seed", "5")  # fmt: skip
    assert [row["policy"] for row in found["ratings"]] == ["greedy", "random"]
    greedy, random_ = by_policy(found)["greedy"], by_policy(found)["random"]
    assert greedy["mu"] > random_["mu"] and greedy["ordinal"] > random_["ordinal"]
    assert greedy["sigma"] < lad.SIGMA
    assert greedy["games"] == random_["games"] == greedy["seats"] == 24
    assert greedy["ordinal"] == pytest.approx(greedy["mu"] - 3 * greedy["sigma"], abs=1e-5)
    low, high = greedy["ci95"]
    assert low <= greedy["win_rate"] <= high
    assert found["cycle"] == {"tables": 2, "whole": True}
    assert found["model"]["model"] == "PlackettLuce" and found["model"]["tau"] == 0


def test_the_same_seed_gives_the_same_figures_however_many_processes(capsys):
    argv = ("--game", "exact-plays", "--players", "4", "--policies", "greedy,random",
            "--games", "14")  # fmt: skip
    first = figures(capsys, *argv, "--seed", "7")
    assert figures(capsys, *argv, "--seed", "7", "--processes", "2") == first
    assert figures(capsys, *argv, "--seed", "8") != first  # the seed matters
    rows = by_policy(first)
    assert rows["greedy"]["games"] == 14 and rows["greedy"]["seats"] == 28  # 2 seats a table


def test_search_plays_in_the_ladder(capsys):
    found = figures(capsys, "--game", "mr-toast", "--players", "2", "--policies",
                    "search,greedy", "--games", "2", "--seed", "1")  # fmt: skip
    assert {row["policy"]: row["games"] for row in found["ratings"]} == {"search": 2, "greedy": 2}
    assert all(row["sigma"] < lad.SIGMA for row in found["ratings"])


def test_every_bot_of_the_game_by_default_and_a_table(capsys):
    ladder = lad.make_ladder("mr-toast", 2)
    assert ladder.policies == ("random", "greedy", "search", "search-strong")
    assert len(ladder.tables) == 12
    code, out, _ = run_cli(capsys, "--game", "exact-plays", "--players", "2", "--policies",
                           "greedy,random", "--games", "3")  # fmt: skip
    assert code == 0
    assert "round robin of greedy, random (2 tables a cycle, duplicate deals)" in out
    assert "note: not a whole number of cycles" in out
    assert "ordinal = mu - 3 sigma" in out and "95% CI" in out


# --- misuse ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "poker"], "unknown game 'poker'; known games: exact-plays, mr-toast"),
        (["--game", "mr-toast", "--policies", "greedy,smart"], "unknown policy 'smart'"),
        (["--game", "mr-toast", "--policies", "greedy,greedy"], "'greedy' more than once"),
        (["--game", "mr-toast", "--policies", "greedy"], "at least 2 participants (got 1"),
        (["--game", "exact-plays", "--players", "5"], "exact-plays is played by 2 to 4"),
        (["--game", "mr-toast", "--games", "0"], "--games must be at least 1"),
        (["--game", "mr-toast", "--processes", "0"], "--processes must be at least 1"),
        (["--game", "mr-toast", "--game-timeout", "0"], "--game-timeout must be more than 0"),
        (["--game", "mr-toast", "--entrant", "eager"], "--entrant and --server go together"),
        (["--game", "mr-toast", "--server", "http://127.0.0.1:8000"], "go together"),
        (["--game", "mr-toast", "--entrant", "eager", "--server", "localhost:80"], "a URL"),
        (
            ["--game", "mr-toast", "--entrant", "no_such_module:Bot", "--server", "http://x"],
            "cannot load the entrant 'no_such_module:Bot'",
        ),
    ],
)
def test_misuse_exits_2_with_a_clear_message(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("cardroom ladder: error: ")
    assert message in err


def test_a_server_that_does_not_answer_exits_1(capsys):
    url = f"http://127.0.0.1:{free_port()}"
    code, out, err = run_cli(capsys, "--game", "mr-toast", "--players", "2", "--policies",
                             "random", "--entrant", "eager", "--server", url)  # fmt: skip
    assert code == 1 and out == ""
    assert f"cardroom ladder: error: cannot reach the server at {url}" in err


# --- an SDK bot, entered against a live server -----------------------------------------------


def test_an_sdk_bot_enters_the_ladder_on_a_server(capsys, live_server, tmp_path, monkeypatch):
    (tmp_path / "ladder_bots.py").write_text(
        textwrap.dedent(
            """
            from cardroom_sdk import EagerBot

            class Keen(EagerBot):
                seats = []

                def game_started(self, view):
                    self.seats.append(view.seat)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = figures(capsys, "--game", "mr-toast", "--players", "2", "--policies",
                    "random,greedy", "--games", "6", "--seed", "2",
                    "--entrant", "ladder_bots:Keen", "--server", live_server)  # fmt: skip
    import ladder_bots  # the module the command loaded

    assert sorted(ladder_bots.Keen.seats) == [0, 0, 1, 1]  # every seat, on the server
    rows = by_policy(found)
    assert set(rows) == {"random", "greedy", "ladder_bots:Keen"}
    assert {name: row["games"] for name, row in rows.items()} == {
        "random": 4,
        "greedy": 4,
        "ladder_bots:Keen": 4,
    }
    assert found["entrant"] == "ladder_bots:Keen" and found["server"] == live_server
    assert all(row["sigma"] < lad.SIGMA for row in rows.values())


def test_an_entrant_named_like_a_policy_is_told_apart(live_server):
    ladder = lad.make_ladder(
        "mr-toast", 2, "random,greedy", games=2, entrant="random", server=live_server
    )
    assert ladder.policies == ("random", "greedy", "sdk:random")
    results = lad.played_results(ladder, entrant=EagerBot(seed=1))
    assert len(results) == 2 and all("winners" in result for result in results)


def test_an_entrant_game_that_hangs_or_fails_fails_the_run(live_server):
    release = threading.Event()

    class Stuck(Bot):
        def choose(self, view: View) -> dict:
            release.wait(10)
            raise RuntimeError("let go")

    class Broken(Bot):
        def choose(self, view: View) -> dict:
            raise ValueError("no idea what to play")

    ladder = lad.make_ladder("mr-toast", 2, "random", games=2, entrant="me", server=live_server)
    try:
        with pytest.raises(lad.LadderError, match=r"game 0 \(server game .+\): no result within"):
            lad.played_results(ladder, game_timeout=1.0, entrant=Stuck())
    finally:
        release.set()
    with pytest.raises(lad.LadderError, match="ValueError: no idea what to play"):
        lad.played_results(ladder, entrant=Broken())


def test_the_docs_show_how_to_run_the_ladder():
    page = (Path(__file__).resolve().parent.parent / "docs" / "bots.md").read_text()
    assert "cardroom ladder --game" in page and "--entrant" in page
    assert "## Ratings" in page
    for setting in ("Exact Plays, 2 players", "Mr Toast, 4 players"):
        assert f"**{setting}** (`--game" in page  # each ratings table says its command
