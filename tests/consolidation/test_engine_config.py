"""``EngineConfig.consolidation`` reaches every consolidation run of the service (after ingest,
``consolidate``) and the ripple of a correction, the way ``EngineConfig`` reaches every query."""

from __future__ import annotations

from dataclasses import replace

import pytest

from smartvector_core.config import DEFAULT_ENGINE
from smartvector_core.config.consolidation import DEFAULT_CONSOLIDATION, RippleConfig
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

from ..conftest import NOW

DOCS = [
    {"id": "base", "text": "The base fact about gateway timeouts.", "created_at": "2026-11-20T00:00:00Z"},
    {"id": "dep1", "text": "A guide that relies on the base fact.", "created_at": "2026-11-20T00:00:00Z",
     "depends_on": ["base"]},
    {"id": "dep2", "text": "A checklist that relies on the guide.", "created_at": "2026-11-20T00:00:00Z",
     "depends_on": ["dep1"]},
]


def app_with(directory, consolidation) -> SmartVector:
    config = replace(DEFAULT_ENGINE, consolidation=consolidation)
    return SmartVector(load_settings(str(directory), env={}), embedder=HashingEmbedder(), config=config)


def test_the_service_consolidates_with_its_engine_config(tmp_path):
    ours = replace(DEFAULT_CONSOLIDATION, tag="ours-before-consolidate",
                   ripple=RippleConfig(penalty=0.25, hop_decay=0.2, max_hops=1))
    app = app_with(tmp_path / "store", ours)
    app.ingest_records(DOCS, now=NOW)                     # consolidates after the write
    assert all("ours-before-consolidate" in tags for tags in app.store.tags().values())
    assert not any(DEFAULT_CONSOLIDATION.tag in tags for tags in app.store.tags().values())

    before = app.trust_of(["dep1", "dep2"], as_of=NOW)
    out = app.feedback("base", "correct", now=NOW)
    after = app.trust_of(["dep1", "dep2"], as_of=NOW)
    assert [step["doc_id"] for step in out["rippled"]] == ["dep1"]          # max_hops 1: dep2 not reached
    assert before["dep1"] - after["dep1"] == pytest.approx(0.25)
    assert before["dep2"] == after["dep2"]


def test_one_run_can_override_the_engine_config(tmp_path):
    app = app_with(tmp_path / "store", DEFAULT_CONSOLIDATION)
    app.ingest_records(DOCS, now=NOW, consolidate=False)
    app.consolidate(now=NOW, config=replace(DEFAULT_CONSOLIDATION, tag="this-run-only"))
    assert all("this-run-only" in tags for tags in app.store.tags().values())
