"""The store's modules stay small enough to read whole: no module of server/cardroom outside
games/ is over 500 lines (issue 27)."""

from __future__ import annotations

from pathlib import Path

import cardroom.store

STORE = Path(cardroom.store.__file__).parent
MOST_LINES = 500


def test_no_store_module_is_over_500_lines() -> None:
    sizes = {path.name: len(path.read_text().splitlines()) for path in STORE.glob("*.py")}
    assert {name: lines for name, lines in sizes.items() if lines > MOST_LINES} == {}
