"""Bots, run_bot and the cardroom-bot command, against a live server."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cardroom_sdk import Bot, Client, EagerBot, FunctionBot, RandomBot, View, load_bot, run_bot
from cardroom_sdk.runner import main


def test_run_bot_joins_and_plays_to_the_end(live_server: str) -> None:
    client = Client(live_server)
    game = client.create_game("mr-toast", 3, bots={0: "greedy", 2: "random"})
    seen: list[View] = []

    class Watching(EagerBot):
        def choose(self, view: View) -> dict:
            seen.append(view)
            return super().choose(view)

    summary = run_bot(client, game.id, Watching(seed=3), name="watcher")
    assert summary.finished and summary.winners
    assert summary.seats[1].name == "watcher"
    assert seen and all(view.my_turn and view.seat == 1 for view in seen)


def test_run_bot_with_a_saved_token(live_server: str) -> None:
    client = Client(live_server)
    game = client.create_game("mr-toast", 2, bots={0: "random"})
    joined = client.join(game.id, "me")
    summary = run_bot(Client(live_server), game.id, RandomBot(), token=joined.token)
    assert summary.finished
    assert client.seat(game.id, None, joined.token).seat == joined.seat


def test_load_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_bots.py").write_text(
        textwrap.dedent(
            """
            from cardroom_sdk import Bot

            class First(Bot):
                def choose(self, view):
                    return view.legal_actions[0]

            class Duck:
                def choose(self, view):
                    return view.legal_actions[-1]

            def last(view):
                return view.legal_actions[-1]
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert isinstance(load_bot("random"), RandomBot)
    assert isinstance(load_bot("eager"), EagerBot)
    assert type(load_bot("my_bots:First")).__name__ == "First"
    assert isinstance(load_bot("my_bots:Duck"), FunctionBot)
    assert isinstance(load_bot("my_bots:last"), FunctionBot)
    for bad in ("clever", "my_bots:", "my_bots:Missing", "no_such_module_x:Bot"):
        with pytest.raises((ValueError, ImportError, AttributeError)):
            load_bot(bad)
    with pytest.raises(NotImplementedError):
        Bot().choose(View("g", "t", "active", 0))


def test_greedy_is_the_servers_word_not_an_sdk_bot() -> None:
    with pytest.raises(ValueError, match=r"'greedy' is the server's policy.*is 'eager'"):
        load_bot("greedy")
    with pytest.warns(DeprecationWarning, match="GreedyBot is now EagerBot"):
        from cardroom_sdk import GreedyBot
    assert GreedyBot is EagerBot
    with pytest.warns(DeprecationWarning):
        from cardroom_sdk.bot import GreedyBot as Old
    assert Old is EagerBot
    with pytest.raises(AttributeError):
        import cardroom_sdk

        cardroom_sdk.NoSuchBot  # noqa: B018


def test_eager_prefers_playing_to_ending() -> None:
    view = View.from_json(
        {
            "game_id": "g",
            "game_type": "mr-toast",
            "status": "active",
            "version": 3,
            "to_act": [0],
            "you": {"seat": 0, "hand": [{"id": "c1", "code": "G1"}, {"id": "c2", "code": "P1"}]},
            "legal_actions": [
                {"type": "end_turn"},
                {"type": "score", "green": "c1"},
                {"type": "score", "green": "c1", "purple": "c2"},
            ],
        }
    )
    assert EagerBot().choose(view) == {"type": "score", "green": "c1", "purple": "c2"}


def test_cardroom_bot_main(
    live_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    (tmp_path / "cli_bots.py").write_text(
        "from cardroom_sdk import RandomBot\n\nclass Mine(RandomBot):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    client = Client(live_server)
    game = client.create_game("mr-toast", 2, bots={1: "greedy"})
    # --game=ID: a game id may begin with "-"
    code = main(["--url", live_server, f"--game={game.id}", "--policy", "cli_bots:Mine"])
    assert code == 0
    out = capsys.readouterr().out
    assert f"game {game.id} finished: winners" in out
    assert main(["--url", live_server, f"--game={game.id}", "--policy", "nope"]) == 2
    assert main(["--url", live_server, f"--game={game.id}", "--policy", "greedy"]) == 2
    assert "the SDK's game-agnostic heuristic, called GreedyBot before, is 'eager'" in (
        capsys.readouterr().err
    )
    assert main(["--url", live_server, "--game", "no-such-game"]) == 1
    assert "no game" in capsys.readouterr().err


def console_script() -> Path:
    script = Path(sys.executable).parent / "cardroom-bot"
    # The README's test command installs the SDK, console script included.
    assert script.exists(), "cardroom-bot is not installed next to this Python (pip install ./sdk)"
    return script


def test_cardroom_bot_command_logs_every_move(live_server: str) -> None:
    client = Client(live_server)
    game = client.create_game("mr-toast", 2, bots={1: "greedy"})
    done = subprocess.run(
        [
            *(str(console_script()), "--url", live_server, f"--game={game.id}", "--seat", "0"),
            *("--name", "cli", "--policy", "eager", "--verbose"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f"game {game.id} finished" in done.stdout
    moves = [line for line in done.stderr.splitlines() if f"game {game.id} seat 0 plays" in line]
    assert moves and all(" INFO " in line for line in moves)
    assert client.game(game.id).seats[0].name == "cli"
