"""What every benchmark's output shares: the progress log, text tables, the commit measured."""

from __future__ import annotations

import subprocess
import sys
import time

from bench.launch import ROOT

# Other work on the machine above this share of all cores makes a window's figures noisy.
NOISY_OTHER_CPU = 0.10


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def table(headers: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, the first left-aligned, the others right."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = []
    for index, row in enumerate([headers, *rows]):
        cells = [
            str(cell).ljust(width) if position == 0 else str(cell).rjust(width)
            for position, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells))
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def commit(*measured: str, label: str = "files") -> str:
    """The checkout's short commit, and how many files under ``measured`` are uncommitted
    (they are measured too): "abc1234+2 uncommitted <label>"."""

    def git(*words: str) -> str:
        try:
            return subprocess.run(
                ["git", *words], cwd=ROOT, capture_output=True, text=True, check=False
            ).stdout.strip()
        except OSError:
            return ""

    found = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--", *measured)
    return found + (f"+{len(dirty.splitlines())} uncommitted {label}" if dirty else "")
