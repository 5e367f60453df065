"""The layers of docs/architecture.md hold: the import contracts of pyproject.toml
(`lint-imports`), no import cycle between files, pure engines, and an API layer that knows no
game."""

from __future__ import annotations

import ast
import itertools
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

from cardroom.registry import registry

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "server" / "cardroom"
# The server's core: every module but the game packages (games/). It names no game.
CORE = sorted(
    path for path in PACKAGE.rglob("*.py") if "games" not in path.relative_to(PACKAGE).parts
)
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
    paths = [*(PACKAGE / "games").rglob("*.py"), *(PACKAGE / "kit").rglob("*.py")]
    for path in sorted(paths):
        modules = imported_modules(path)
        assert not modules & FORBIDDEN_IN_ENGINES, (path, modules & FORBIDDEN_IN_ENGINES)
        if path.name != "rng.py" and "conformance" not in path.parts:
            assert "random" not in modules, f"{path}: randomness only through kit/rng.py"


def test_the_core_names_no_game_and_no_game_action():
    """Not the API, the table, the store, serving, the kit, the bots, the registry, the
    simulator nor the web's Python: a game is a plug-in, cardroom's own two too (issue 30).
    (tests/web/test_web_plugin_game.py holds the web table's JavaScript to the same.)"""
    words: set[str] = set()
    for name, game in registry().items():
        words |= {name, game.title.lower(), name.replace("-", "_")}
    # An action type as a string; those that are plain words ("play", "pass") are names of
    # functions and fields too, so only the game's own compound names are looked for.
    action_types = {
        move.type for game in registry().values() for move in game.moves if "_" in move.type
    }
    assert {"give_red", "clear_red", "play_blue", "end_turn"} <= action_types
    assert len(CORE) > 60
    for path in CORE:
        text = path.read_text().lower()
        for word in words:
            assert not re.search(rf"\b{re.escape(word)}\b", text), f"{path} names {word!r}"
        for kind in action_types:
            quoted = rf"[\"']{re.escape(kind)}[\"']"
            assert not re.search(quoted, path.read_text()), f"{path} names action {kind!r}"


def test_the_import_contracts_hold():
    """pyproject.toml's [tool.importlinter] contracts, checked by `lint-imports` (the dev
    extra's import-linter) as a developer runs it."""
    lint_imports = Path(sys.executable).parent / "lint-imports"
    assert lint_imports.exists(), f"no {lint_imports}: pip install -e '.[dev]'"
    done = subprocess.run(
        [str(lint_imports), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200"},  # a contract's name on one line
    )
    assert done.returncode == 0, f"lint-imports failed:\n{done.stdout}\n{done.stderr}"


MOST_LINES = 500


def test_no_module_outside_the_engines_is_over_500_lines():
    """Each module of the server, but the engines and their contract (games/), is small
    enough to read whole (issue 27)."""
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text().splitlines())
        for path in PACKAGE.rglob("*.py")
        if "games" not in path.relative_to(PACKAGE).parts
    }
    assert len(sizes) > 50
    assert {name: lines for name, lines in sizes.items() if lines > MOST_LINES} == {}


def contract_layers(contract_id: str) -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}
    return contracts[contract_id]["layers"]


def drawings() -> list[list[str]]:
    """The ```text blocks of docs/architecture.md's "Layers" section, as lists of lines."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    section = page.split("\n## Layers", 1)[1].split("\n## ", 1)[0]
    return [block.splitlines() for block in re.findall(r"```text\n(.*?)```", section, re.S)]


def test_the_architecture_page_draws_the_layers_the_contracts_state():
    """The drawings on docs/architecture.md cannot drift from pyproject.toml: the server's
    and the SDK's columns, and the serving package's and the table's own layers, read as the
    contracts list them."""
    server_and_sdk, serve, table = drawings()[:3]
    header, *rows = server_and_sdk
    right = header.index("cardroom_sdk")
    server = [row[:right].strip() for row in rows if row[:right].strip()]
    sdk = [row[right:].strip() for row in rows if row[right:].strip()]
    assert server == contract_layers("layers")
    assert sdk == contract_layers("sdk-layers")

    def left_column(block: list[str]) -> list[str]:
        return [re.split(r"\s{2,}", row.strip())[0] for row in block if row.strip()]

    assert left_column(serve) == contract_layers("serve-layers")
    assert left_column(table) == contract_layers("table-layers")


def test_the_architecture_page_names_the_moves_stages_in_their_order():
    """docs/architecture.md, "An action's path", lists the move's stages by their functions'
    names: each is a function ``table/move.py`` calls, and ``attempt`` calls them in that
    order (``answer`` from ``commit``, ``refuse`` for a refusal)."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    path = page.split("\n## An action's path", 1)[1].split("\n## ", 1)[0]
    chain = re.search(r"`attempt` reads top to bottom.*?:(.*?), and `refuse`", path, re.S)
    assert chain, "the page no longer lists the move's stages"
    stages = re.findall(r"`(\w+)`", chain.group(1))
    assert len(stages) >= 8
    source = (PACKAGE / "table" / "move.py").read_text()
    tree = ast.parse(source)
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}

    def calls(function: str) -> list[str]:
        found = [
            node
            for node in ast.walk(functions[function])
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        ]
        found.sort(key=lambda node: (node.lineno, node.col_offset))
        return [node.func.id for node in found]  # type: ignore[union-attr]

    everything_called = {name for function in functions for name in calls(function)}
    for stage in [*stages, "refuse"]:
        assert stage in everything_called, f"table/move.py calls no {stage}()"
    in_attempt = [name for name in calls("attempt") if name in stages]
    ordered = sorted(set(in_attempt), key=stages.index)
    first_calls = list(dict.fromkeys(in_attempt))
    assert first_calls == ordered, f"attempt calls {first_calls}, the page lists {stages}"
    assert "answer" in calls("commit")


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """One cycle for each group of files that import one another, directly or not: the
    shortest way from the group's first file back to itself."""
    cycles: list[list[str]] = []
    seen: set[str] = set()
    for module in sorted(graph.modules):
        if module in seen:
            continue
        upstream = graph.find_upstream_modules(module)
        group = {other for other in upstream if module in graph.find_upstream_modules(other)}
        if module in graph.find_modules_directly_imported_by(module):
            group.add(module)
        if not group:
            continue
        seen |= group | {module}
        first = sorted(group & graph.find_modules_directly_imported_by(module))[0]
        back = graph.find_shortest_chain(importer=first, imported=module) or (module,)
        cycles.append([module, *back] if first != module else [module, module])
    return cycles


def describe(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    hops = []
    for importer, imported in itertools.pairwise(cycle):
        details = graph.get_import_details(importer=importer, imported=imported)
        where = "; ".join(f"line {d['line_number']}: {d['line_contents']}" for d in details)
        hops.append(f"  {importer} -> {imported} ({where})")
    return " -> ".join(cycle) + "\n" + "\n".join(hops)


def test_no_import_cycle_between_files():
    """No two files of the server or the SDK import each other, directly or through others,
    counting imports inside functions and under TYPE_CHECKING (issue 27): a type that two
    modules need both ways belongs in a third."""
    graph = grimp.build_graph("cardroom", "cardroom_sdk", cache_dir=None)
    cycles = import_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(describe(graph, c) for c in cycles)
