"""Browser fixtures: Debian's Chromium driven by Playwright for Python, against `live_server`.

The tests skip when Chromium or the playwright package is missing, with a message saying how
to get them; with CARDROOM_REQUIRE_BROWSER=1 (set by .ci/run) a missing browser fails them.
Screenshots go to CARDROOM_WEB_ARTIFACTS if set, else to a folder under pytest's temporary
directory; their paths are printed at the end of the run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from web_kit import PageGuard

CHROMIUM = os.environ.get("CARDROOM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
REQUIRED = os.environ.get("CARDROOM_REQUIRE_BROWSER") == "1"
HOW_TO = (
    "the browser tests need Debian's Chromium and the playwright package: "
    "`apt-get install -y chromium` and `.venv/bin/pip install -e '.[dev]'` "
    "(Playwright's own browser download is not needed; CARDROOM_CHROMIUM names another "
    "executable); `.ci/run` installs both and sets CARDROOM_REQUIRE_BROWSER=1"
)
# Without the background-networking flags Chromium keeps calling Google services, which on a
# closed network means a flood of refused connections.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ACTION_TIMEOUT_MS = 15_000

SCREENSHOTS: list[Path] = []


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM}"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    missing = _missing()
    if missing:
        message = f"{missing}: {HOW_TO}"
        if REQUIRED:
            pytest.fail(f"CARDROOM_REQUIRE_BROWSER=1 but {message}")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # launch() starts Chromium on a fresh temporary profile (user-data dir) of its own.
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS, timeout=30_000
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("CARDROOM_WEB_ARTIFACTS")
    if chosen:
        folder = Path(chosen).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("web-artifacts")


@pytest.fixture()
def screenshot(artifacts: Path):
    def take(page: Any, name: str, *, full_page: bool = True) -> Path:
        path = artifacts / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        SCREENSHOTS.append(path)
        return path

    return take


@pytest.fixture()
def open_page(browser: Any, live_server: str):
    """open_page(width, height, capture_json) → (page, guard) in a fresh browser context.

    The guard fails the test on any console error, page error, failed request or HTTP error
    answer that the test did not announce with ``guard.expect(...)``.
    """
    contexts: list[Any] = []
    guards: list[PageGuard] = []

    def make(
        width: int = 1280, height: int = 900, capture_json: bool = False
    ) -> tuple[Any, PageGuard]:
        context = browser.new_context(
            base_url=live_server, viewport={"width": width, "height": height}
        )
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        guard = PageGuard(page, capture_json=capture_json)
        guards.append(guard)
        return page, guard

    yield make
    for context in contexts:
        context.close()
    for guard in guards:
        guard.check()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SCREENSHOTS:
        terminalreporter.write_sep("-", "web table screenshots")
        for path in SCREENSHOTS:
            terminalreporter.write_line(str(path))
