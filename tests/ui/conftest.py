"""A seeded temporary store for the dashboard tests (hashing embedder, demo corpus + a hostile title):
built once per test process, copied for each test."""

from __future__ import annotations

import shutil
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


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded store, built once per test process; tests get copies (:func:`seeded_store`)."""
    store = tmp_path_factory.mktemp("seeded") / "store"
    seed_store(store)
    return store


@pytest.fixture
def seeded_store(seeded_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the seeded store of its own for each test (it may write), in the environment."""
    store = tmp_path / "store"
    shutil.copytree(seeded_template, store)
    monkeypatch.setenv("SMARTVECTOR_STORE", str(store))
    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")
    monkeypatch.delenv("SMARTVECTOR_OPERATOR_TOKEN", raising=False)
    monkeypatch.chdir(REPO)
    return store
