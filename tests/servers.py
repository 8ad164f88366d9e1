"""Local servers for the tests and the timing scripts (``scripts/bench/browser_timings.py``,
``scripts/bench/api.py``): a free port on 127.0.0.1, the wait until a server answers, and the
dashboard served for a browser (with the Chromium it is driven by)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-sync"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, *, timeout: float = 60.0, what: str = "server") -> None:
    """Return once ``GET url`` answers 200. :class:`RuntimeError` when ``proc`` exits first,
    :class:`TimeoutError` after ``timeout`` seconds (the caller stops ``proc``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{what} did not answer {url} within {timeout:.0f} s")


@contextmanager
def streamlit_app(store: str | Path, model: str, log: Path, *, timeout: float = 60.0) -> Iterator[str]:
    """``streamlit run app.py`` over ``store`` with ``model`` on a free 127.0.0.1 port (no operator
    token, no usage statistics, no file watcher), its output in ``log``: yields its URL once it
    answers, and stops it on leaving."""
    env = {**os.environ, "SMARTVECTOR_STORE": str(store), "SMARTVECTOR_MODEL": model, "LANCEDB_LOG": "error"}
    env.pop("SMARTVECTOR_OPERATOR_TOKEN", None)
    url = f"http://127.0.0.1:{free_port()}"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", url.rsplit(":", 1)[1], "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_healthy(f"{url}/_stcore/health", proc, timeout=timeout, what=f"streamlit (log: {log})")
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
