"""A seeded temporary store for the dashboard tests (hashing embedder, demo corpus + a hostile title)."""

from __future__ import annotations

from pathlib import Path

import pytest

from smartvector_core.service import SmartVector
from smartvector_core.settings import DEMO_CORPUS, load_settings
from tests.conftest import NOW, REPO

SCRIPT_TITLE = "<script>alert(1)</script>"
HOSTILE = {"id": "hostile_doc", "title": SCRIPT_TITLE, "created_at": "2026-10-01T00:00:00Z", "doc_type": "policy",
           "text": "API rate limits <b>bold</b> <img src=x onerror=alert(2)> are shown as text, not HTML."}


def seed_store(path: Path, model: str = "hashing") -> SmartVector:
    sv = SmartVector(load_settings(str(path), env={"SMARTVECTOR_MODEL": model}))
    sv.ingest_paths([DEMO_CORPUS], now=NOW)
    sv.ingest_records([HOSTILE], now=NOW)
    return sv


@pytest.fixture
def seeded_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = tmp_path / "store"
    seed_store(store)
    monkeypatch.setenv("SMARTVECTOR_STORE", str(store))
    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")
    monkeypatch.delenv("SMARTVECTOR_OPERATOR_TOKEN", raising=False)
    monkeypatch.chdir(REPO)
    return store
