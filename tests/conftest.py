"""Shared fixtures: a temporary LanceDB store per test, a fake and a real embedder; and the guard
that no test writes into the source tree (``make test`` runs test files on parallel workers, so a
file written there would be read by another test at the same time)."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

os.environ.setdefault("LANCEDB_LOG", "error")
os.environ.setdefault("SMARTVECTOR_EMBED_THREADS", "1")

from smartvector_core.cli import main  # noqa: E402
from smartvector_core.embedding import HashingEmbedder  # noqa: E402
from smartvector_core.service import SmartVector  # noqa: E402
from smartvector_core.settings import load_settings  # noqa: E402

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
REPO = Path(__file__).resolve().parent.parent
# the one folder a run may write in the tree: the README's screenshots, under `make screenshot`
SCREENSHOT_DIR = "docs/screenshots/"
_TREE = pytest.StashKey[dict]()


def _source_tree() -> dict[str, tuple[int, int] | None] | None:
    """(mtime ns, size) of every tracked or unignored file of the checkout; None outside git."""
    try:
        names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                               cwd=REPO, capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    state: dict[str, tuple[int, int] | None] = {}
    for name in filter(None, names.decode("utf-8", "surrogateescape").split("\0")):
        try:
            stat = (REPO / name).stat()
            state[name] = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            state[name] = None
    return state


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):   # the controller (or a serial run), not each worker
        session.config.stash[_TREE] = _source_tree()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(_TREE, None)
    after = _source_tree() if before is not None else None
    if after is None:
        return
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
                     and not (os.environ.get("SMARTVECTOR_SCREENSHOT_MODEL") and name.startswith(SCREENSHOT_DIR)))
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = ("files of the source tree were written during the run (a test must write under tmp_path): "
                   + ", ".join(changed[:20]) + (f" and {len(changed) - 20} more" if len(changed) > 20 else ""))
        if reporter is not None:
            reporter.write_line("\n" + message, red=True, bold=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def fake_app(store_dir: Path) -> SmartVector:
    """A knowledge base over a temp store with the deterministic hashing embedder (pure logic)."""
    return SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())


@pytest.fixture
def cli(monkeypatch, store_dir, capsys):
    """Run the command line in-process on the temp store with the hashing model:
    ``cli("ingest", path)`` -> (exit code, stdout, stderr)."""
    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["--store", str(store_dir), *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(scope="session")
def real_embedder():
    """The real all-MiniLM-L6-v2 model (one encoder thread), loaded once per test session."""
    from smartvector_core.embedding import get_embedder

    return get_embedder()


@pytest.fixture
def real_app(store_dir: Path, real_embedder) -> SmartVector:
    return SmartVector(load_settings(str(store_dir), env={}), embedder=real_embedder)


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def corpus_app(real_app: SmartVector, tmp_path: Path, request) -> SmartVector:
    """``real_app`` with the test module's ``RECORDS`` ingested (:func:`ingested`)."""
    return ingested(real_app, tmp_path, request.module.RECORDS)


def release_notes(version: str, created_at: str, text: str, product: str = "Acme") -> dict:
    """One release's notes as a corpus record (``<product>-<version>``, titled "<product> <version>
    release notes": the title that makes them a release record)."""
    return {"id": f"{product.lower()}-{version}", "title": f"{product} {version} release notes",
            "created_at": created_at, "version": version, "text": text}


def ingested(app: SmartVector, folder: Path, records: list[dict]) -> SmartVector:
    """``app`` with ``records`` ingested from a JSON-lines file in ``folder`` at :data:`NOW`, as the
    CLI's ``ingest`` reads them (consolidated)."""
    app.ingest_paths([write_jsonl(folder / "records.jsonl", records)], now=NOW)
    return app
