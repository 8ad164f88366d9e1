"""Shared fixtures: a temporary LanceDB store per test, a fake and a real embedder."""

from __future__ import annotations

import json
import os
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
