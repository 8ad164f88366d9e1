"""One real-browser test: Streamlit served on 127.0.0.1, driven by Playwright through Debian's Chromium.

Runs a side-by-side query in the Query Lab and checks both columns and their score-breakdown
charts, checks a ``<script>`` title shows as literal text (and no dialog opens), and saves a
screenshot under the test's output folder. With ``SMARTVECTOR_SCREENSHOT_MODEL`` set (``make
screenshot``: the real MiniLM) it also writes ``docs/query_lab.png``, the README's picture; a plain
test run uses the hashing model and leaves that file alone.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.ui.conftest import SCRIPT_TITLE, seed_store

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-sync"]
pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"streamlit did not answer {url}/_stcore/health within {timeout:.0f} s")


SCREENSHOT_MODEL = os.environ.get("SMARTVECTOR_SCREENSHOT_MODEL", "")


@pytest.fixture
def server(tmp_path: Path):
    store = tmp_path / "store"
    model = SCREENSHOT_MODEL or "hashing"
    seed_store(store, model)
    port = _free_port()
    env = {**os.environ, "SMARTVECTOR_STORE": str(store), "SMARTVECTOR_MODEL": model, "LANCEDB_LOG": "error",
           "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    env.pop("SMARTVECTOR_OPERATOR_TOKEN", None)
    log = (tmp_path / "streamlit.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_query_lab_side_by_side_in_chromium(server, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium; `make test` does it)")
    from playwright.sync_api import sync_playwright

    dialogs: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1300})
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(f"{server}/query_lab", wait_until="domcontentloaded")
            page.get_by_role("heading", name="Query Lab").wait_for(timeout=30_000)
            page.get_by_label("Question").fill("What are the API rate limits?")
            page.get_by_role("button", name="Run side by side").click()
            page.get_by_text("Profile: naive").wait_for(timeout=30_000)
            page.get_by_text("Profile: default").wait_for(timeout=30_000)
            charts = page.locator('[data-testid="stPlotlyChart"]')
            charts.nth(1).wait_for(timeout=30_000)
            page.locator(".js-plotly-plot .barlayer").first.wait_for(timeout=30_000)
            assert charts.count() == 2
            columns = page.locator('[data-testid="stColumn"]').filter(has_text="Profile:")
            assert columns.filter(has_text="Profile: naive").count() >= 1
            assert columns.filter(has_text="Profile: default").count() >= 1
            assert page.get_by_text("Score breakdown · naive").count() >= 1
            page.wait_for_timeout(500)     # let the charts finish drawing before the picture
            shot = tmp_path / "query_lab.png"
            page.screenshot(path=str(shot), full_page=False)
            if SCREENSHOT_MODEL:
                (REPO / "docs").mkdir(exist_ok=True)
                shutil.copyfile(shot, REPO / "docs" / "query_lab.png")

            page.get_by_label("Question").fill("API rate limits shown as text not HTML bold")
            page.get_by_role("button", name="Run side by side").click()
            page.get_by_text(SCRIPT_TITLE).first.wait_for(timeout=30_000)
            assert page.locator("script", has_text="alert(1)").count() == 0
            assert not dialogs
        finally:
            browser.close()
    assert shot.stat().st_size > 10_000
