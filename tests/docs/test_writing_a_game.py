"""docs/writing-a-game.md, run as a reader follows it: from an empty folder to a game played
on a server that serves the new game.

In a temporary folder, the page's blocks run in page order: each ``<!-- file: PATH -->``
block is written to PATH (so the files are whole and fit together: they are the package that
gets installed and tested), and each ``<!-- tutorial -->`` block runs with
``bash -euo pipefail`` in the shared ``plugin_venv``'s environment (``plugin_venv.env()``, as
with cardroom's venv activated; without REDIS_URL, so the server keeps its data in ``./data``
as the page says), each with a timeout, so that a hang fails. Two things differ from the
page, and only these:

- ``cardroom serve`` runs in the background with ``--port <a free port>`` appended: the page's
  server listens on 8000, which the suite may not take. It is stopped after the last block
  (SIGTERM, then its process group is killed).
- the blocks after it run with ``CARDROOM_URL`` naming that server: ``play.py`` reads it,
  and defaults to the page's http://127.0.0.1:8000.

What the page shows of a command's output, as ``# `` comments under it, is checked: the lines
shown for ``cardroom games`` and ``cardroom simulate`` (seeded: the same figures every time)
verbatim, the tests' count and the played game's lines by their form. The game package is
uninstalled from the shared venv afterwards, so the other plug-in tests find it as they
left it.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest
import requests
from doc_blocks import DOCS_URL, ROOT, Block, code_blocks, marked

from cardroom.store.embedded import free_port

from gunicorns import wait_healthy
from plugin_venv import PluginVenv, stop

PAGE = ROOT / "docs" / "writing-a-game.md"
PACKAGE = "cardroom-goofspiel"
GENERIC_RENDERER = ROOT / "server" / "cardroom" / "web" / "static" / "games" / "generic.js"
SERVE = "cardroom serve"
TIMEOUT = 120  # seconds, per command: the pip install is the slowest, a few seconds
NOT_RUN = "not run: it needs Docker and the network; the test suite lints it with hadolint"


def file_path(block: Block) -> str | None:
    """The path a ``<!-- file: PATH -->`` block is written to, or None for another block."""
    if block.marker is None or not block.marker.startswith("file: "):
        return None
    return block.marker.removeprefix("file: ")


def written_files() -> list[str]:
    return [path for block in code_blocks(PAGE) if (path := file_path(block))]


def test_every_code_block_is_run() -> None:
    """Each block is a file written, a command run, the layout (checked below) or the
    Dockerfile, which no test can build (hadolint checks it below)."""
    blocks = code_blocks(PAGE)
    fences = re.findall(r"^```", PAGE.read_text(), re.MULTILINE)
    assert len(fences) == 2 * len(blocks), "a code block without a language is never run"
    assert all(block.marker for block in blocks), [b.code[:60] for b in blocks if not b.marker]
    others = {b.marker for b in blocks if not file_path(b)} - {"tutorial", "layout", NOT_RUN}
    assert not others, others
    assert [b.language for b in blocks if b.marker == NOT_RUN] == ["dockerfile"]
    paths = written_files()
    assert len(paths) == len(set(paths)), paths
    for path in paths:
        assert not PurePosixPath(path).is_absolute() and ".." not in PurePosixPath(path).parts


def test_the_layout_lists_the_files_the_page_writes() -> None:
    (layout,) = marked(PAGE, "layout")
    listed = [line.split()[0] for line in layout.code.splitlines() if line.strip()]
    assert listed == written_files()


def test_the_dockerfile_passes_hadolint_and_derives_the_composed_image(tmp_path: Path) -> None:
    (block,) = marked(PAGE, NOT_RUN)
    base = re.search(r"^FROM (\S+)$", block.code, re.MULTILINE)
    assert base and f"image: {base[1]}" in (ROOT / "deploy" / "compose.yaml").read_text()
    assert "COPY goofspiel " in block.code  # the package folder the page makes
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(block.code)
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    linted = subprocess.run(
        [hadolint, str(dockerfile)], capture_output=True, text=True, timeout=60, check=False
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr


def shown_output(block: Block) -> list[str]:
    """The output a command block shows as comments after its command (``# …``)."""
    return [line[2:] for line in block.code.splitlines() if line.startswith("# ")]


def run(command: str, folder: Path, env: dict[str, str]) -> str:
    try:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", command],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the page's command did not finish in {TIMEOUT} s:\n{command}")
    assert done.returncode == 0, f"{command}\nexited {done.returncode}:\n{done.stdout}{done.stderr}"
    return done.stdout


@contextlib.contextmanager
def serving(folder: Path, env: dict[str, str]) -> Iterator[str]:
    """The page's ``cardroom serve``, in the background on a free port: its base URL."""
    port = free_port()
    with open(folder / "serve.log", "wb") as log:
        process = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", f"{SERVE} --port {port}"],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_healthy(base, process, timeout=60)
        except RuntimeError as error:
            pytest.fail(f"{SERVE}: {error}\n{(folder / 'serve.log').read_text()}")
        yield base
    finally:
        stop(process)


def test_the_tutorial_goes_from_an_empty_folder_to_a_played_game(
    plugin_venv: PluginVenv, tmp_path: Path
) -> None:
    folder = tmp_path / "tutorial"
    folder.mkdir()
    env = {key: value for key, value in plugin_venv.env().items() if key != "REDIS_URL"}
    outputs: dict[str, str] = {}
    shown: dict[str, list[str]] = {}
    try:
        with contextlib.ExitStack() as stack:
            for block in code_blocks(PAGE):
                if path := file_path(block):
                    (folder / path).parent.mkdir(parents=True, exist_ok=True)
                    (folder / path).write_text(block.code)
                elif block.marker == "tutorial" and block.code.strip() == SERVE:
                    base = stack.enter_context(serving(folder, env))
                    env = {**env, "CARDROOM_URL": base}
                elif block.marker == "tutorial":
                    command = block.code.splitlines()[0]
                    outputs[command] = run(block.code, folder, env)
                    shown[command] = shown_output(block)
            assert "CARDROOM_URL" in env, f"the page never runs {SERVE}"
            served_by_the_page(env["CARDROOM_URL"])
    finally:
        with contextlib.suppress(AssertionError):
            plugin_venv.run(plugin_venv.python, "-m", "pip", "uninstall", "-y", PACKAGE)

    test_file = (folder / "goofspiel" / "tests" / "test_goofspiel.py").read_text()
    tests = len(re.findall(r"^def test_", test_file, re.MULTILINE))
    assert f"{tests} passed" in outputs["python -m pytest goofspiel -q"]
    for command in ("cardroom games", next(c for c in outputs if c.startswith("cardroom simu"))):
        lines = [line.rstrip() for line in outputs[command].splitlines()]
        missing = [line for line in shown[command] if line not in lines]
        assert not missing, f"{command} does not print {missing}:\n{outputs[command]}"
    assert f"goofspiel  Goofspiel  (package {PACKAGE} 0.1.0)" in shown["cardroom games"]
    assert DOCS_URL in (folder / "play.py").read_text() and f"open {DOCS_URL}/" in PAGE.read_text()
    played = outputs["python play.py"].splitlines()
    assert re.fullmatch(r"game \S+: you are seat 0", played[0]), played
    finished = r"finished: winners \[[0-2](, [0-2])*\], scores \[\d+, \d+, \d+\]"
    assert re.fullmatch(finished, played[-1]), played


def served_by_the_page(base: str) -> None:
    """What "open http://127.0.0.1:8000/ and pick Goofspiel" finds: the lobby's game list
    names it with its policy, its rules page and the table's (generic) renderer are there."""
    types = requests.get(f"{base}/v1/game-types", timeout=10).json()["game_types"]
    goofspiel = next(t for t in types if t["game_type"] == "goofspiel")
    assert (goofspiel["package"], goofspiel["rules_version"]) == (PACKAGE, 1)
    assert set(goofspiel["bot_policies"]) == {"random", "match-the-prize"}
    rules = requests.get(f"{base}/rules/goofspiel", timeout=10)
    assert rules.status_code == 200 and 'id="gs-5"' in rules.text
    renderer = requests.get(f"{base}/web/renderers/goofspiel.js", timeout=10)
    assert renderer.status_code == 200 and renderer.text == GENERIC_RENDERER.read_text()
    assert requests.get(f"{base}/", timeout=10).status_code == 200
