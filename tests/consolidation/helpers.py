"""Shared by the consolidation tests and the Ray consolidation tests: a hashing-embedder app, the
consolidation benchmark's generated corpus, and the plan a consolidation run builds."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from smartvector_core import consolidation as c
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parents[2]


def hashing_app(path) -> SmartVector:
    return SmartVector(load_settings(str(path), env={"SMARTVECTOR_MODEL": "hashing"}), embedder=HashingEmbedder())


def bench_corpus(n: int) -> list[dict]:
    """``n`` chunks of scripts/bench/consolidate.py's generator (versions, numbers, citations)."""
    spec = importlib.util.spec_from_file_location("bench_consolidate", ROOT / "scripts" / "bench" / "consolidate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.corpus(n)


def consolidation_plan(tmp_path, n: int = 300, config=None):
    """The plan one consolidation run builds over ``n`` generated chunks (captured from its finder)."""
    app = hashing_app(tmp_path / "store")
    app.ingest_records(bench_corpus(n), now=NOW, consolidate=False)
    captured = {}

    def finder(plan):
        captured["plan"] = plan
        return c.local_finder(plan)

    c.consolidate(app.store, None, now=NOW, finder=finder, **({} if config is None else {"config": config}))
    return captured["plan"]
