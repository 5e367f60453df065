"""Game packages across deployments, on real servers (``cardroom serve``) sharing one data
folder, as an operator meets them (issue 30, "Versions and deployments" and "A broken
plug-in never takes the server down"):

- a release of the game's package that raises its rules version: the games recorded under
  the old one answer ``game-rules-changed`` and are listed as unavailable, new games are
  played by the new rules; a release that keeps the rules version plays them on;
- the package removed: its games answer ``game-type-unavailable``, listed as unavailable;
- broken packages installed (one that fails to import, one whose declaration is wrong, one
  that claims a built-in game's type): the server starts, serves every other game, and its
  log and ``cardroom games`` name each package and why it was refused.

A package "installed" for one server only is a folder put first on its PYTHONPATH holding the
package and its ``.dist-info`` (metadata and entry points), which Python's package metadata
reads as it reads an installed one, so the shared throwaway venv keeps the example game at
1.0.0 for the other tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import requests

from cardroom.store.embedded import free_port

from helpers import auth
from plugin_venv import EXAMPLES, PluginVenv, serve

GAME = "crazy-eights"
PACKAGE = "cardroom-crazy-eights"
TIMEOUT = 10


def installed_for_one_server(
    root: Path, name: str, version: str, entry_points: dict[str, str], rules_version: int | None
) -> Path:
    """A folder in which ``name`` ``version`` looks installed, with these entry points of the
    ``cardroom.games`` group; with ``rules_version``, a copy of the example game declaring it."""
    root.mkdir(parents=True, exist_ok=True)
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = "".join(f"{point} = {target}\n" for point, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[cardroom.games]\n{lines}")
    if rules_version is not None:
        copy = root / "crazy_eights"
        shutil.copytree(EXAMPLES / GAME / "src" / "crazy_eights", copy)
        declared = (copy / "plugin.py").read_text()
        assert "rules_version=1" in declared
        (copy / "plugin.py").write_text(
            declared.replace("rules_version=1", f"rules_version={rules_version}")
        )
    return root


def problem_type(base: str, path: str, token: str | None = None) -> str:
    answer = requests.get(f"{base}{path}", headers=auth(token) if token else {}, timeout=TIMEOUT)
    assert answer.status_code == 503, (path, answer.status_code, answer.text)
    return answer.json()["type"]


def listed(base: str) -> dict[str, dict[str, Any]]:
    games = requests.get(f"{base}/v1/games?limit=100", timeout=TIMEOUT).json()["games"]
    return {summary["id"]: summary for summary in games}


def game_types(base: str) -> dict[str, dict[str, Any]]:
    answer = requests.get(f"{base}/v1/game-types", timeout=TIMEOUT).json()
    return {entry["game_type"]: entry for entry in answer["game_types"]}


def a_game_is_created_and_played(base: str, game_type: str) -> None:
    created = requests.post(
        f"{base}/v1/games",
        json={"game_type": game_type, "players": 2, "bots": [{"seat": 1, "policy": "random"}]},
        timeout=TIMEOUT,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    token = requests.post(
        f"{base}/v1/games/{game_id}/join", json={"name": "ann"}, timeout=TIMEOUT
    ).json()["token"]
    view = requests.get(f"{base}/v1/games/{game_id}/view", headers=auth(token), timeout=TIMEOUT)
    legal = view.json()["legal_actions"]
    if legal:
        acted = requests.post(
            f"{base}/v1/games/{game_id}/actions", json=legal[0], headers=auth(token), timeout=10
        )
        assert acted.status_code == 200, acted.text


def test_a_game_s_package_upgraded_or_removed_under_its_recorded_games(
    plugin_venv: PluginVenv, example_game_server: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with plugin_venv.serve(data, free_port()) as base:
        created = requests.post(
            f"{base}/v1/games",
            json={"game_type": GAME, "players": 2, "bots": [{"seat": 1, "policy": "random"}]},
            timeout=TIMEOUT,
        ).json()
        game_id = created["id"]
        assert created["plugin"] == {"package": PACKAGE, "version": "1.0.0", "rules_version": 1}
        token = requests.post(
            f"{base}/v1/games/{game_id}/join", json={"name": "ann"}, timeout=TIMEOUT
        ).json()["token"]

    # 2.0.0 changes the rules (rules version 2): the recorded game is not replayed under them.
    upgraded = installed_for_one_server(
        tmp_path / "v2", PACKAGE, "2.0.0", {GAME: "crazy_eights.plugin:plugin"}, rules_version=2
    )
    with plugin_venv.serve(data, free_port(), path=upgraded) as base:
        assert game_types(base)[GAME]["version"] == "2.0.0"
        assert game_types(base)[GAME]["rules_version"] == 2
        for path in (f"/v1/games/{game_id}", f"/v1/games/{game_id}/view"):
            assert problem_type(base, path, token) == "/problems/game-rules-changed"
        detail = requests.get(f"{base}/v1/games/{game_id}", timeout=TIMEOUT).json()["detail"]
        assert "rules version 1 of 'crazy-eights'" in detail and PACKAGE + " 2.0.0" in detail
        assert listed(base)[game_id]["available"] is False
        a_game_is_created_and_played(base, GAME)  # new games: the new rules
        a_game_is_created_and_played(base, "mr-toast")

    # 1.0.1 keeps the rules version: the game plays on.
    patched = installed_for_one_server(
        tmp_path / "v101", PACKAGE, "1.0.1", {GAME: "crazy_eights.plugin:plugin"}, rules_version=1
    )
    with plugin_venv.serve(data, free_port(), path=patched) as base:
        view = requests.get(
            f"{base}/v1/games/{game_id}/view", headers=auth(token), timeout=TIMEOUT
        ).json()
        assert view["game_type"] == GAME and view["legal_actions"]
        assert listed(base)[game_id]["available"] is True
        assert listed(base)[game_id]["plugin"]["version"] == "1.0.0"  # as recorded

    # The package removed: a server of the suite's own environment, which never had it.
    suite_cardroom = [sys.executable, "-c", "from cardroom.serve.cli import main; main()"]
    own_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with serve(suite_cardroom, own_env, data, free_port(), None) as base:
        assert GAME not in game_types(base)
        assert problem_type(base, f"/v1/games/{game_id}") == "/problems/game-type-unavailable"
        assert listed(base)[game_id]["available"] is False
        a_game_is_created_and_played(base, "exact-plays")


BROKEN = {
    # entry point name: (package, what it names, the reason the log and `cardroom games` give)
    "never-imports": (
        "cardroom-never-imports",
        "never_imports.plugin:plugin",
        "failed to import: ModuleNotFoundError",
    ),
    "wrong-name": (
        "cardroom-wrong-name",
        "crazy_eights.plugin:plugin",
        "named 'wrong-name' but its game says 'crazy-eights'",
    ),
    "mr-toast": (
        "cardroom-toast-thief",
        "crazy_eights.plugin:plugin",
        "already served by package cardroom",
    ),
}


def test_broken_packages_are_refused_by_name_and_the_server_serves_the_others(
    plugin_venv: PluginVenv, example_game_server: str, tmp_path: Path
) -> None:
    folder = tmp_path / "broken"
    for point, (package, target, _) in BROKEN.items():
        installed_for_one_server(folder, package, "0.1.0", {point: target}, rules_version=None)
    log_path = tmp_path / "server.log"
    with (
        log_path.open("wb") as log,
        plugin_venv.serve(tmp_path / "data", free_port(), path=folder, log=log) as base,
    ):
        assert requests.get(f"{base}/healthz", timeout=TIMEOUT).status_code == 200
        served = game_types(base)
        assert list(served) == ["exact-plays", "mr-toast", GAME]
        assert served["mr-toast"]["package"] == "cardroom"
        for game_type in served:
            a_game_is_created_and_played(base, game_type)
    said = log_path.read_text()
    for point, (package, _, reason) in BROKEN.items():
        line = next((line for line in said.splitlines() if f"game plug-in {point!r}" in line), None)
        assert line is not None, f"no log line refusing {point}:\n{said}"
        assert package in line and reason in line, line

    listing = subprocess.run(
        [plugin_venv.bin / "cardroom", "games"],
        env=plugin_venv.env(PYTHONPATH=str(folder)),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert listing.returncode == 1, listing
    said = listing.stdout + listing.stderr
    for package, _, reason in BROKEN.values():
        assert package in said and reason in said, said
    assert "crazy-eights  Crazy Eights  (package cardroom-crazy-eights 1.0.0)" in listing.stdout
