"""sdk/README.md's examples run against the live server, each as a user would run it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from doc_blocks import ROOT, code_blocks, marked, served_at

from cardroom_sdk import Client

README = ROOT / "sdk" / "README.md"
# As in an activated virtual environment: cardroom-bot is the installed console script.
VENV_PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
EXAMPLES = {"play", "tour", "errors", "bots", "cardroom-bot"}  # each has a test below


def test_every_code_block_is_run() -> None:
    markers = {block.marker for block in code_blocks(README)}
    assert markers == {"not run: install"} | {f"example: {name}" for name in EXAMPLES}


def run_python(*args: str, cwd: Path | None = None, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_complete_bot_creates_or_joins_a_game(live_server: str) -> None:
    (block,) = marked(README, "example: play")
    assert len(block.code.strip().splitlines()) <= 25  # "a complete bot in 20 lines"
    out = run_python("-c", block.code, CARDROOM_URL=live_server)
    assert "finished: winners [" in out
    # Joining a given game: one seat left free next to a server bot.
    game = Client(live_server).create_game("mr-toast", 2, bots={0: "random"})
    out = run_python("-c", block.code, game.id, CARDROOM_URL=live_server)
    assert f"game {game.id}: playing seat 1" in out and "finished: winners [" in out
    assert Client(live_server).game(game.id).finished


def test_the_quick_tour(live_server: str) -> None:
    (block,) = marked(README, "example: tour")
    lines = run_python("-c", served_at(block.code, live_server)).splitlines()
    assert lines[0] == "True"
    assert {line.split()[0] for line in lines[1:3]} == {"mr-toast", "exact-plays"}
    assert lines[3].endswith("waiting [0, 1]")
    assert lines[5].endswith("[1]")  # alice declared: the game waits for bob only
    assert "play" in lines  # bob declared too: alice's 3 tokens start (EP-4)


def test_the_errors_example(live_server: str) -> None:
    (block,) = marked(README, "example: errors")
    out = run_python("-c", served_at(block.code, live_server))
    assert re.fullmatch(
        r"(refused: 422 illegal-action: green: card c999 is not in your hand"
        r" \(rule MT-7, field green\)"
        r"|not now: 409 not-your-turn: .*\(rule MT-7, field type\))\n",
        out,
    ), out


def test_the_bots_example_and_cardroom_bot(live_server: str, tmp_path: Path) -> None:
    (bots,) = marked(README, "example: bots")
    (commands,) = marked(README, "example: cardroom-bot")
    (tmp_path / "mybots.py").write_text(served_at(bots.code, live_server))
    out = run_python("mybots.py", cwd=tmp_path)  # python mybots.py
    assert re.fullmatch(r"\[\d(, \d)*\] \[-?\d+(, -?\d+)*\]\n", out), out

    # Each cardroom-bot line, run from the directory of mybots.py, GAME_ID and TOKEN filled
    # in with a game whose other seats the server plays.
    client = Client(live_server)
    lines = commands.code.strip().splitlines()
    assert len(lines) == 3
    for number, line in enumerate(lines):
        seat = int(line.split("--seat ")[1].split()[0]) if "--seat " in line else 0
        players = max(2, seat + 1)
        bots = {other: "greedy" for other in range(players) if other != seat}
        game = client.create_game(("exact-plays", "mr-toast")[number % 2], players, bots=bots)
        line = line.replace("GAME_ID", game.id)
        if "TOKEN" in line:
            line = line.replace("TOKEN", client.join(game.id, "me").token)
        if "http://" in line:
            line = served_at(line, live_server)
        done = subprocess.run(
            ["bash", "-c", line],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={**os.environ, "CARDROOM_URL": live_server, "PATH": VENV_PATH},
        )
        assert done.returncode == 0, (line, done.stderr)
        assert f"game {game.id} finished" in done.stdout
        assert client.game(game.id).seats[seat].name is not None
