"""The layers of docs/architecture.md hold: pure engines, and an API layer that knows no game."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from cardroom.games import registry

PACKAGE = Path(__file__).resolve().parent.parent / "server" / "cardroom"
API_LAYER = [
    *sorted((PACKAGE / "api").glob("*.py")),
    *sorted((PACKAGE / "store").glob("*.py")),
    PACKAGE / "service.py",
    PACKAGE / "app.py",
]
FORBIDDEN_IN_ENGINES = {"flask", "redis", "requests", "time", "datetime", "socket", "os"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_engines_do_no_io_and_use_no_clock_or_global_random():
    for path in sorted((PACKAGE / "games").rglob("*.py")):
        modules = imported_modules(path)
        assert not modules & FORBIDDEN_IN_ENGINES, (path, modules & FORBIDDEN_IN_ENGINES)
        if path.name != "rng.py":
            assert "random" not in modules, f"{path}: randomness only through games/rng.py"


def test_the_api_layer_names_no_game_and_no_game_action():
    words: set[str] = set()
    for name, game in registry().items():
        words |= {name, game.title.lower(), name.replace("-", "_")}
    action_types = {"give_red", "clear_red", "play_blue", "end_turn", "no_way", "declare", "rps"}
    for path in API_LAYER:
        text = path.read_text().lower()
        for word in words | action_types:
            assert not re.search(rf"\b{re.escape(word)}\b", text), f"{path} names {word!r}"
