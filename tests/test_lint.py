"""ruff check and ruff format --check pass on the whole project."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ruff() -> str:
    return shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))


def test_ruff_check_passes():
    result = subprocess.run([ruff(), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_check_passes():
    result = subprocess.run(
        [ruff(), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
