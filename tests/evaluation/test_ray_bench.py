"""The Ray-vs-local benchmark's store comparison finds a differing column and nothing else."""

from __future__ import annotations

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.evaluation.perf.ray_bench import same_contents
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

from ..conftest import NOW

RECORDS = [{"id": f"d{i}", "title": f"Doc {i}", "text": f"Paragraph one of {i}.\n\nParagraph two of {i}.",
            "created_at": "2026-01-01T00:00:00Z", **({"authority": 0.9} if i % 2 else {})} for i in range(6)]


def _app(path):
    return SmartVector(load_settings(str(path), env={}), embedder=HashingEmbedder())


def test_equal_stores_compare_equal_and_a_changed_column_is_named(tmp_path):
    a, b = _app(tmp_path / "a"), _app(tmp_path / "b")
    a.ingest_records(RECORDS, now=NOW, consolidate=False)
    b.ingest_records(list(reversed(RECORDS)), now=NOW, consolidate=False)   # other write order, NaN authorities
    same = same_contents(a, b)
    assert same["equal"] and same["vector_max_abs_diff"] == 0.0, same
    c = _app(tmp_path / "c")
    c.ingest_records([dict(r, title=r["title"] + "!") if r["id"] == "d3" else r for r in RECORDS], now=NOW,
                     consolidate=False)
    differs = same_contents(a, c)
    assert not differs["equal"] and set(differs["columns_differing"]) == {"title", "doc_hash"}   # the hash covers the title
