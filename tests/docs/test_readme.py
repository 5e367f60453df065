"""README.md's examples run against the live server: the curl walk-through, step by step, and
the front end's flow in Python."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from typing import Any

import pytest
from doc_blocks import ROOT, code_blocks, marked, need_tools, served_at

from cardroom_sdk import Client, RandomBot, run_bot

README = ROOT / "README.md"

# Blocks of README.md that these tests do not run, and where they are checked instead.
NOT_RUN_HERE = {
    "test-command": ".ci/run runs it as written",
    "serve-command": "installs the package and serves on port 8000 until stopped",
}

# Every curl fails the walk-through on an HTTP error (the README's plain `curl -s` would
# print the problem and go on), and no request may hang.
STRICT_CURL = (
    'set -euo pipefail\ncurl() { command curl --fail-with-body --show-error --max-time 30 "$@"; }\n'
)


def test_every_code_block_is_run() -> None:
    markers = {block.marker for block in code_blocks(README)}
    assert markers <= {"walkthrough", "example: front-end", *NOT_RUN_HERE}, markers


def run_walkthrough(base_url: str) -> list[str]:
    script = "\n".join(block.code for block in marked(README, "walkthrough"))
    assert script.count("B=http://127.0.0.1:8000\n") == 1  # the one line the test changes
    script = served_at(script, base_url)
    done = subprocess.run(
        ["bash", "-c", STRICT_CURL + script], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, f"the walk-through failed:\n{done.stderr}\n{done.stdout}"
    return done.stdout.splitlines()


def json_lines(lines: list[str]) -> list[Any]:
    return [json.loads(line) for line in lines if line.startswith(("{", "["))]


def test_the_curl_walkthrough_works_step_by_step(live_server: str) -> None:
    need_tools("curl", "jq")
    lines = run_walkthrough(live_server)
    assert lines[0].startswith("game ")
    view, answer, events, toast_end, plays_view, declared, plays_end = json_lines(lines)
    # Mr Toast: the game waits for Ann, whatever the deal (a turn, or a No Way window).
    assert view["status"] == "active" and view["awaiting"] == [0] and view["legal_actions"]
    assert view["phase"] in ("play", "reaction") and len(view["hand"]) >= 5
    assert answer["version"] >= 1 and answer["events"]
    assert events[0] == "game_created" and "game_started" in events
    assert toast_end["status"] == "finished" and toast_end["winners"]
    # Exact Plays: every seat may declare, the game waits for Ann alone.
    assert plays_view == {
        "phase": "declare",
        "to_act": [0, 1, 2],
        "awaiting": [0],
        "hand": plays_view["hand"],
    }
    assert len(plays_view["hand"]) == 8
    assert declared["events"][:2] == ["declared", "declarations_revealed"]
    assert declared["declarations"][0] == 4 and declared["phase"] in ("play", "rps", "declare")
    assert plays_end["status"] == "finished" and plays_end["winners"]


def test_the_front_end_flow_plays_a_game_with_a_friend(live_server: str) -> None:
    (block,) = marked(README, "example: front-end")
    process = subprocess.Popen(
        [sys.executable, "-c", served_at(block.code, live_server)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    friend: dict[str, Any] = {}
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("game "), first + (process.stderr.read() if process.stderr else "")
        game_id = first.split()[1]

        def play_friend() -> None:
            try:
                friend["summary"] = run_bot(
                    Client(live_server), game_id, RandomBot(seed=1), "friend", timeout=30
                )
            except BaseException as error:
                friend["error"] = error

        thread = threading.Thread(target=play_friend, daemon=True)
        thread.start()
        out, err = process.communicate(timeout=90)
        thread.join(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "error" not in friend, friend.get("error")
    assert friend["summary"].finished
    winners = json.loads(out.strip().splitlines()[-1])
    assert winners == friend["summary"].winners


def test_without_curl_or_jq_the_walkthrough_says_how_to_get_them(monkeypatch) -> None:
    monkeypatch.setattr("doc_blocks.shutil.which", lambda tool: None if tool == "jq" else tool)
    monkeypatch.delenv("CARDROOM_REQUIRE_CURL_JQ", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"jq not found.*apt-get install -y curl jq"):
        need_tools("curl", "jq")
    monkeypatch.setenv("CARDROOM_REQUIRE_CURL_JQ", "1")  # as .ci/run does: a failure
    with pytest.raises(pytest.fail.Exception, match="jq not found"):
        need_tools("curl", "jq")


def test_readme_names_every_tool_and_switch_of_ci() -> None:
    """The README's list of optional tools is the one .ci/run installs and makes mandatory."""
    ci = (ROOT / ".ci" / "run").read_text()
    installed = set(re.findall(r"missing\+=\((\w+)\)", ci))
    switches = set(re.findall(r"\bCARDROOM_REQUIRE_\w+=1", ci))
    text = README.read_text()
    table = text.split("<!-- optional-tools -->", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"^\| (.+?) \|", table, re.MULTILINE))
    tools = {tool.strip("` ") for cell in listed for tool in cell.split(",")}
    assert installed == {"curl", "jq", "chromium", "nginx"}, installed
    assert installed <= tools, f"the README does not list {installed - tools}"
    assert tools - {"tool", "---"} <= installed, f".ci/run does not install {tools - installed}"
    assert switches and all(switch in text for switch in switches), switches
