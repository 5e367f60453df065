"""The fenced code blocks of a Markdown page, with the marker comment just above each.

A block is run by the docs tests when the line above its opening fence is a marker such as
``<!-- walkthrough -->`` or ``<!-- example: tour -->``; ``<!-- not run: why -->`` says why a
block is not. The tests also check that no code block goes without a marker, so a new
example cannot slip past them.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS_URL = "http://127.0.0.1:8000"  # where the docs' examples expect the server

_BLOCK = re.compile(
    r"(?:^<!-- (?P<marker>[^\n]*?) -->\n)?^```(?P<language>[\w-]*)\n(?P<code>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class Block:
    marker: str | None
    language: str
    code: str


def code_blocks(path: Path) -> list[Block]:
    """Every fenced block with a language (``sh``, ``python``…), in page order."""
    return [
        Block(match["marker"], match["language"], match["code"])
        for match in _BLOCK.finditer(path.read_text())
        if match["language"]
    ]


def marked(path: Path, marker: str) -> list[Block]:
    found = [block for block in code_blocks(path) if block.marker == marker]
    assert found, f"{path.name} has no block marked <!-- {marker} -->"
    return found


def served_at(code: str, base_url: str) -> str:
    """The example, pointed at the test server instead of the docs' 127.0.0.1:8000."""
    assert DOCS_URL in code, f"the example does not name {DOCS_URL}"
    return code.replace(DOCS_URL, base_url)


def need_tools(*tools: str) -> None:
    """Skip (or, with CARDROOM_REQUIRE_CURL_JQ=1 as in .ci/run, fail) without ``tools``."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if not missing:
        return
    message = (
        f"{' and '.join(missing)} not found: the README's walk-through needs them "
        f"(Debian/Ubuntu: apt-get install -y {' '.join(tools)}; macOS: brew install "
        f"{' '.join(tools)})"
    )
    if os.environ.get("CARDROOM_REQUIRE_CURL_JQ") == "1":
        pytest.fail(message)
    pytest.skip(message)
