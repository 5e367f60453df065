"""One throwaway virtual environment for the plug-in tests (tests/plugins/, the tutorial in
tests/docs/), shared by them through the ``plugin_venv`` fixture (tests/conftest.py).

cardroom and the SDK are installed in it as a user installs them (``pip install -e '.[kit]'
-e ./sdk``, plus pytest for a game author's own tests), so a game package installed there
(``pip install ./examples/crazy-eights``) is found through its entry points exactly as on a
user's machine, and the suite's own environment, where the committed OpenAPI document is
checked, never sees it. Imported as ``from plugin_venv import …``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from gunicorns import wait_healthy

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class PluginVenv:
    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a shell with this venv activated."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        env["VIRTUAL_ENV"] = str(self.root)
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env.update(extra)
        return env

    def run(
        self, *command: str | Path, cwd: Path | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """Run a command in the venv; its output in the assertion if it fails."""
        done = subprocess.run(
            [str(part) for part in command],
            cwd=cwd,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, (
            f"{command} exited {done.returncode}:\n{done.stdout}{done.stderr}"
        )
        return done

    def pip_install(self, *targets: str | Path) -> None:
        self.run(self.python, "-m", "pip", "install", "-q", *targets)

    def installed(self, distribution: str) -> bool:
        probe = f"import importlib.metadata as m; m.distribution({distribution!r})"
        return subprocess.run([self.python, "-c", probe], capture_output=True).returncode == 0

    def serve(
        self, data_dir: Path, port: int, *, path: Path | None = None, log: IO[bytes] | None = None
    ) -> contextlib.AbstractContextManager[str]:
        """``cardroom serve`` from this venv, on its embedded Redis in ``data_dir``: the
        base URL while it runs. ``path`` is put before the venv's packages (PYTHONPATH: a
        folder of packages as if installed, taking precedence); ``log`` gets its output."""
        env = self.env(**({"PYTHONPATH": str(path)} if path else {}))
        return serve([str(self.bin / "cardroom")], env, data_dir, port, log)


@contextlib.contextmanager
def serve(
    cardroom: list[str], env: dict[str, str], data_dir: Path, port: int, log: IO[bytes] | None
) -> Iterator[str]:
    """``cardroom serve`` (the command ``cardroom``) on port ``port`` and its embedded Redis
    in ``data_dir``, until the block ends: its base URL."""
    process = subprocess.Popen(
        [*cardroom, "serve", "--port", str(port), "--data-dir", str(data_dir)],
        env={**env, "CARDROOM_LOG_LEVEL": "warning", "CARDROOM_WORKERS": "2"},
        stdin=subprocess.DEVNULL,
        stdout=log or subprocess.DEVNULL,
        stderr=log or subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, process, timeout=60)
        yield base
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a ``cardroom serve`` cleanly (gunicorn, then its Redis), or kill its group."""
    process.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def make_plugin_venv(root: Path) -> PluginVenv:
    venv.EnvBuilder(with_pip=True).create(root)
    made = PluginVenv(root)
    made.pip_install("-e", f"{ROOT}[kit]", "-e", ROOT / "sdk", "pytest")
    return made
