"""The example game package (examples/crazy-eights) is what an outside author would publish:
it may import nothing of cardroom but the author's kit, ``cardroom.kit``, and (in its tests)
``cardroom.kit.conformance``. Read from its source with ``ast``: nothing is installed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "crazy-eights"
ALLOWED = frozenset({"cardroom.kit", "cardroom.kit.conformance"})
# What building or installing it leaves behind (copies of its sources) is not read.
GENERATED = ("build", "dist", "__pycache__", ".egg-info", ".venv", ".ruff_cache")
SOURCES = sorted(
    path
    for path in EXAMPLE.rglob("*.py")
    if not any(part.endswith(GENERATED) for part in path.relative_to(EXAMPLE).parts)
)


def cardroom_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every import of cardroom or a module of it in ``tree``:
    ``import cardroom.x``, ``from cardroom.x import y``, ``from cardroom import x`` (as
    ``cardroom.x``), and ``importlib.import_module("cardroom.x")`` or ``__import__``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "cardroom":
                found += [(node.lineno, f"cardroom.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args:
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            first = node.args[0]
            if name in ("import_module", "__import__") and isinstance(first, ast.Constant):
                found.append((node.lineno, str(first.value)))
    return sorted(
        (line, module)
        for line, module in found
        if module == "cardroom" or module.startswith("cardroom.")
    )


def test_the_example_package_is_there():
    names = {path.relative_to(EXAMPLE).as_posix() for path in SOURCES}
    assert {
        "src/crazy_eights/engine.py",
        "src/crazy_eights/plugin.py",
        "tests/test_conformance.py",
    } <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.relative_to(EXAMPLE).as_posix())
def test_each_file_imports_only_the_kit_of_cardroom(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    wrong = [
        f"line {line}: {module}" for line, module in cardroom_imports(tree) if module not in ALLOWED
    ]
    assert not wrong, f"{path.relative_to(ROOT)} imports more of cardroom than its kit: {wrong}"


def test_the_check_sees_every_form_of_import():
    """The reader itself: each form names its module, and only cardroom's count."""
    source = (
        "import cardroom.table\n"
        "from cardroom.kit import Game\n"
        "from cardroom import registry\n"
        "from . import cards\n"
        "import cardroom_sdk\n"
        "importlib.import_module('cardroom.bots')\n"
    )
    assert cardroom_imports(ast.parse(source)) == [
        (1, "cardroom.table"),
        (2, "cardroom.kit"),
        (3, "cardroom.registry"),
        (6, "cardroom.bots"),
    ]
