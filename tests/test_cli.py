"""The `cardroom` command itself: its help, a busy port, and output into a closed pipe."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cardroom.serve import cli

COMMAND = [sys.executable, "-m", "cardroom.serve.cli"]
TIMEOUT = 60


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def test_every_option_of_every_command_says_what_it_does_and_its_default():
    commands = subcommands()
    assert set(commands) == {"serve", "healthcheck", "openapi", "games", "simulate", "ladder"}
    for name, parser in commands.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            where = f"cardroom {name} {action.option_strings[0]}"
            assert action.help and len(action.help.split()) >= 4, where
            assert "(default: " in action.help or "(required)" in action.help, where
        shown = parser.format_help()
        # A person's words: no Python value where a default is explained.
        assert "None" not in shown and "False" not in shown, name


def test_serve_help_shows_host_and_port_with_their_defaults(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["serve", "--help"])
    assert done.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())  # unwrapped
    assert "--host HOST the address to listen on" in shown
    assert "(default: 127.0.0.1)" in shown
    assert "--port PORT the port to listen on" in shown
    assert "(default: 8000)" in shown


@pytest.mark.parametrize("option", ["--port", "--metrics-port"])
def test_a_busy_port_says_so_and_suggests_another(tmp_path: Path, option: str):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ports = ["--port", str(port)] if option == "--port" else ["--port", "0", option, str(port)]
        done = subprocess.run(
            [*COMMAND, "serve", *ports, "--data-dir", str(tmp_path / "data")],
            env={**os.environ, "REDIS_URL": "redis://127.0.0.1:1/0"},  # never reached
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"cardroom: cannot listen on 127.0.0.1:{port}: the port is in use (by another "
        f"server?): choose another with {option}, e.g. cardroom serve {option} {port + 1}, "
        f"or {option} 0 for any free port\n"
    )


# --- a reader that leaves (`cardroom … | head`) ------------------------------------------------


def run_into_a_closed_pipe(*argv: str) -> subprocess.CompletedProcess[bytes]:
    """Run a command whose stdout is a pipe nobody reads any more, as `| head` leaves it once
    it has what it wants."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [*COMMAND, *argv],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
        )
    finally:
        os.close(write_end)


SIMULATE = ("simulate", "--game", "mr-toast", "--games", "3", "--no-progress")


@pytest.mark.parametrize(
    "argv",
    [[*SIMULATE, "--json"], list(SIMULATE), ["openapi"]],
    ids=["simulate-json", "simulate-table", "openapi"],
)
def test_output_into_a_closed_pipe_ends_quietly(argv: list[str]):
    done = run_into_a_closed_pipe(*argv)
    assert done.stderr.decode() == ""
    assert done.returncode == 1  # as Python's own exit on EPIPE (the signal module's docs)
