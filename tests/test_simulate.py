"""`cardroom simulate`: in-process bot-vs-bot games, rotation, figures, Wilson intervals."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cardroom import simulate as sim
from cardroom.bots import random_policy
from cardroom.registry import registry
from cardroom.serve import cli


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["simulate", "--no-progress", *argv])
    out, err = capsys.readouterr()
    # Not the command's: JSON log lines that background threads of other tests' apps (a
    # change feed whose Redis a fixture stopped) write to the same stderr meanwhile.
    err = "".join(line for line in err.splitlines(keepends=True) if not line.startswith('{"ts"'))
    return code, out, err


def figures_without_timing(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run_cli(capsys, "--json", *argv)
    assert code == 0, err
    figures = json.loads(out)
    del figures["timing"]
    return figures


# --- determinism and output ------------------------------------------------------------------


@pytest.mark.parametrize("game", ["mr-toast", "exact-plays"])
def test_same_arguments_give_the_same_figures(capsys, game):
    argv = ("--game", game, "--players", "3", "--policies", "greedy,random", "--games", "20")
    first = figures_without_timing(capsys, *argv, "--seed", "7")
    second = figures_without_timing(capsys, *argv, "--seed", "7")
    assert first == second
    other = figures_without_timing(capsys, *argv, "--seed", "8")
    assert other != first  # the seed matters


def test_processes_change_the_time_not_the_figures(capsys):
    argv = ("--game", "exact-plays", "--players", "3", "--policies", "greedy,random", "--games")
    alone = figures_without_timing(capsys, *argv, "12", "--seed", "4")
    shared = figures_without_timing(capsys, *argv, "12", "--seed", "4", "--processes", "2")
    assert shared == alone


def test_search_levels_play_from_what_their_seat_saw(capsys):
    """Issue 29: a search seat reads its own redacted events and the public options, as at
    the server's tables; the same seed gives the same games."""
    argv = ("--game", "mr-toast", "--players", "2", "--policies", "search,greedy", "--games", "2")
    first = figures_without_timing(capsys, *argv, "--seed", "5")
    assert first["by_policy"]["search"]["seats"] == 2
    assert figures_without_timing(capsys, *argv, "--seed", "5") == first


def test_json_output_shape(capsys):
    code, out, _ = run_cli(
        capsys, "--json", "--game", "mr-toast", "--players", "4", "--games", "12", "--seed", "1"
    )
    assert code == 0
    figures = json.loads(out)
    assert set(figures) == {
        "game",
        "players",
        "games",
        "seed",
        "policies",
        "options",
        "by_policy",
        "overall",
        "timing",
    }
    assert figures["game"] == "mr-toast"
    assert figures["policies"] == ["greedy", "random"]
    assert list(figures["by_policy"]) == ["greedy", "random"]
    for row in figures["by_policy"].values():
        assert set(row) == {
            "seats",
            "wins",
            "win_share",
            "win_rate",
            "ci95",
            "share_rate",
            "fair_share",
            "mean_score",
        }
        low, high = row["ci95"]
        assert 0 <= low <= row["win_rate"] <= high <= 1
        assert row["win_share"] <= row["wins"]
        assert row["fair_share"] == 0.25
    rows = figures["by_policy"].values()
    assert sum(row["seats"] for row in rows) == 12 * 4
    # Every game hands out exactly one win share in all.
    assert sum(row["win_share"] for row in rows) == pytest.approx(12)
    overall = figures["overall"]
    assert overall["length_unit"] == "turns"
    assert overall["mean_length"] > 0 and overall["mean_actions"] >= overall["mean_length"]
    assert sum(overall["endings"].values()) == 12
    assert figures["timing"]["seconds"] >= 0


def test_exact_plays_counts_rounds(capsys):
    figures = figures_without_timing(capsys, "--game", "exact-plays", "--games", "5")
    assert figures["overall"]["length_unit"] == "rounds"
    assert 1 <= figures["overall"]["mean_length"] <= 4


def test_table_output(capsys):
    code, out, err = run_cli(capsys, "--game", "exact-plays", "--players", "2", "--games", "6")
    assert code == 0
    assert "greedy" in out and "random" in out and "95% CI" in out
    assert "rounds" in out and "games/s" in out
    assert err == ""  # no progress line when asked not to (and stderr is no terminal)


def test_options_reach_the_engine(capsys):
    figures = figures_without_timing(
        capsys, "--game", "mr-toast", "--games", "6", "--options", '{"turn_limit": 3}'
    )
    assert figures["options"] == {"turn_limit": 3}
    assert figures["overall"]["endings"] == {"turn_limit": 6}
    assert figures["overall"]["mean_length"] == 3


# --- rotation --------------------------------------------------------------------------------


def test_policies_cycle_over_seats_and_rotate_between_games():
    policies = ["greedy", "random", "random", "random"]
    assert sim.seat_policies(policies, 4, 0) == ["greedy", "random", "random", "random"]
    assert sim.seat_policies(policies, 4, 1) == ["random", "random", "random", "greedy"]
    assert sim.seat_policies(policies, 4, 2) == ["random", "random", "greedy", "random"]
    assert sim.seat_policies(["a", "b"], 3, 0) == ["a", "b", "a"]
    assert sim.seat_policies(["a", "b"], 3, 1) == ["b", "a", "b"]
    # Over len(policies) games every seat plays every policy equally often.
    for seat in range(4):
        played = [sim.seat_policies(policies, 4, g)[seat] for g in range(4)]
        assert sorted(played) == sorted(policies)


def test_the_driver_seats_policies_as_rotated(monkeypatch):
    seen: set[tuple[str, int]] = set()

    def spy(name):
        def choose(view, legal, rng):
            seen.add((name, view["you"]["seat"]))
            return random_policy(view, legal, rng)

        return choose

    monkeypatch.setattr(sim, "get_policy", lambda name, game_type: spy(name))
    config = sim.Config("mr-toast", 3, ("greedy", "random"), games=4, seed=3)
    figures = sim.run(config)
    # Without rotation greedy would only ever sit at seats 0 and 2.
    assert seen == {(name, seat) for name in ("greedy", "random") for seat in range(3)}
    assert figures["by_policy"]["greedy"]["seats"] == 6
    assert figures["by_policy"]["random"]["seats"] == 6


def test_game_seeds_are_stable_and_distinct():
    seeds = [sim.game_seed(1, index) for index in range(50)]
    assert seeds == [sim.game_seed(1, index) for index in range(50)]
    assert len(set(seeds)) == 50
    assert all(0 <= seed < 2**53 for seed in seeds)
    assert sim.game_seed(2, 0) != seeds[0]


def test_a_runaway_game_is_an_error():
    config = sim.make_config("mr-toast", 4, "random", games=1, seed=0)
    with pytest.raises(sim.SimulationError, match="runaway"):
        sim.run(config, max_actions=5)


# --- Wilson score interval -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # Roots of (x/n - p)^2 = z^2 p (1 - p) / n, as R's prop.test(x, n, correct = FALSE).
        (5, 10, 0.236593, 0.763407),
        (0, 10, 0.0, 0.277533),
        (10, 10, 0.722467, 1.0),
        (1, 4, 0.045587, 0.699358),
        (81, 263, 0.255289, 0.366210),
    ],
)
def test_wilson_interval_known_values(successes, trials, low, high):
    got_low, got_high = sim.wilson(successes, trials)
    assert got_low == pytest.approx(low, abs=1e-6)
    assert got_high == pytest.approx(high, abs=1e-6)


def test_wilson_interval_is_symmetric_and_narrows():
    low, high = sim.wilson(30, 100)
    mirror_low, mirror_high = sim.wilson(70, 100)
    assert low == pytest.approx(1 - mirror_high) and high == pytest.approx(1 - mirror_low)
    wide = sim.wilson(30, 100)
    narrow = sim.wilson(300, 1000)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
    with pytest.raises(ValueError):
        sim.wilson(0, 0)


# --- argument errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "poker"], "unknown game 'poker'; known games: exact-plays, mr-toast"),
        (["--game", "mr-toast", "--policies", "greedy,smart"], "unknown policy 'smart'"),
        (["--game", "mr-toast", "--policies", "greedy,,random"], "--policies"),
        (["--game", "exact-plays", "--players", "5"], "exact-plays is played by 2 to 4"),
        (["--game", "mr-toast", "--players", "1"], "mr-toast is played by 2 to 6"),
        (["--game", "mr-toast", "--games", "0"], "--games must be at least 1"),
        (["--game", "mr-toast", "--processes", "0"], "--processes must be at least 1"),
        (["--game", "mr-toast", "--options", "{nope"], "--options is not valid JSON"),
        (["--game", "mr-toast", "--options", "[1]"], "--options must be a JSON object"),
        (["--game", "mr-toast", "--options", '{"colour": 1}'], "unknown option 'colour'"),
    ],
)
def test_argument_errors_exit_2_with_a_clear_message(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("cardroom simulate: error: ")
    assert message in err


def test_known_games_are_listed_from_the_registry():
    with pytest.raises(sim.UsageError) as raised:
        sim.make_config("nope")
    for game_type in registry():
        assert game_type in str(raised.value)


def test_cli_in_a_subprocess():
    command = [sys.executable, "-m", "cardroom.serve.cli", "simulate"]
    ok = subprocess.run(
        [*command, "--game", "exact-plays", "--players", "3", "--games", "10", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stderr
    figures = json.loads(ok.stdout)
    assert figures["games"] == 10 and figures["players"] == 3
    assert ok.stderr == ""  # stderr is a pipe: no progress line

    bad = subprocess.run(
        [*command, "--game", "chess"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2
    assert "unknown game 'chess'; known games: exact-plays, mr-toast" in bad.stderr


# --- the policies themselves -----------------------------------------------------------------


@pytest.mark.parametrize("game", ["mr-toast", "exact-plays"])
def test_greedy_clearly_beats_random(game):
    config = sim.make_config(game, 4, "greedy,random,random,random", games=200, seed=11)
    figures = sim.run(config)
    greedy = figures["by_policy"]["greedy"]
    random_ = figures["by_policy"]["random"]
    assert greedy["seats"] == 200 and random_["seats"] == 600
    assert greedy["ci95"][0] > random_["ci95"][1]
    assert greedy["ci95"][0] > greedy["fair_share"] > random_["ci95"][1]
