"""An unfiltered search cut to the existing rows (``overfetch``) returns what LanceDB's
prefiltered search returns, including when too few exist and it falls back to the prefilter."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from smartvector_core.clock import parse_time
from smartvector_core.retrieval.search import search_overfetch
from smartvector_core.store import search as store_search

from ..conftest import NOW

TOPICS = ["rate limit policy for the public api", "refund window for annual plans",
          "on-call rotation and escalation", "database backup retention", "password rotation rules"]


def _corpus(fake_app):
    """40 documents over four years, then 10 of them re-ingested with new text (their old
    chunks stay as retired rows): rows that are not current, and rows created after a past as_of."""
    records = [{"id": f"d{i}", "text": f"{TOPICS[i % 5]}. Revision {i}: limit {i * 10} requests per minute.",
                "created_at": f"{2022 + i % 4}-0{1 + i % 9}-01", "kind": "STATIC", "doc_type": "policy"}
               for i in range(40)]
    fake_app.ingest_records(records, now=NOW)
    edited = [{**r, "text": r["text"] + " Amended: now twice as strict."} for r in records[:10]]
    fake_app.ingest_records(edited, now=NOW + timedelta(days=1))
    assert fake_app.store.count_rows("chunks") > fake_app.store.count_chunks()   # retired rows exist
    return fake_app.store


def _ids(table):
    return table.column("chunk_id").to_pylist()


@pytest.mark.parametrize("as_of", [None, "2023-06-01", "2024-03-01", "2022-01-15"])
@pytest.mark.parametrize("overfetch", [1.0, 1.25, 4.0])
def test_vector_search_with_overfetch_equals_the_prefiltered_search(fake_app, as_of, overfetch):
    store = _corpus(fake_app)
    moment = None if as_of is None else parse_time(as_of)
    for topic in TOPICS:
        vector = fake_app.embedder.encode([topic])[0]
        for limit in (3, 12, 60):
            plain = store.search(vector, as_of=moment, limit=limit, columns=["chunk_id", "doc_id"], exact=True)
            fast = store.search(vector, as_of=moment, limit=limit, columns=["chunk_id", "doc_id"], exact=True,
                                overfetch=overfetch)
            assert _ids(fast) == _ids(plain)
            assert fast.column_names == plain.column_names
            assert np.allclose(fast.column("_distance").to_numpy(), plain.column("_distance").to_numpy())


@pytest.mark.parametrize("as_of", [None, "2023-06-01"])
def test_full_text_search_with_overfetch_equals_the_prefiltered_search(fake_app, as_of):
    store = _corpus(fake_app)
    moment = None if as_of is None else parse_time(as_of)
    for text, require_all in (("refund annual plans", False), ("rotation", True), ("requests minute", True),
                              ("the", False)):
        for limit in (2, 30, 1000):
            plain = store.fts_search(text, as_of=moment, limit=limit, require_all=require_all)
            fast = store.fts_search(text, as_of=moment, limit=limit, require_all=require_all, overfetch=1.25)
            assert fast.column_names == plain.column_names
            scores = plain.column("_score").to_pylist()
            assert fast.column("_score").to_pylist() == pytest.approx(scores)
            # equal scores at the cut may come in either order (LanceDB's own order among ties)
            above = {c for c, s in zip(_ids(plain), scores, strict=True) if s > min(scores) + 1e-6}
            assert above <= set(_ids(fast))


def test_the_unfiltered_search_is_used_when_enough_rows_exist_and_not_otherwise(fake_app, monkeypatch):
    store = _corpus(fake_app)
    outcomes = []
    original = store_search._postfiltered
    monkeypatch.setattr(store_search, "_postfiltered",
                        lambda *a, **kw: outcomes.append(original(*a, **kw)) or outcomes[-1])
    vector = fake_app.embedder.encode([TOPICS[0]])[0]
    store.search(vector, as_of=None, limit=5, columns=["chunk_id"], overfetch=1.25)
    assert outcomes[-1] is not None                      # answered by the unfiltered search
    store.search(vector, as_of=parse_time("2022-01-15"), limit=5, columns=["chunk_id"], overfetch=1.0)
    assert outcomes[-1] is None                          # too few existed then: the prefilter ran


def test_the_overfetch_follows_the_share_of_existing_rows(fake_app):
    store = _corpus(fake_app)
    state = fake_app.query_cache()
    assert state.current_share == pytest.approx(store.count_chunks() / store.count_rows("chunks"))
    assert state.existing_share(None) == pytest.approx(state.current_share)
    assert state.existing_share(0) == 0.0
    assert state.existing_share(10 ** 18) == pytest.approx(state.current_share)
    assert search_overfetch(0.8) == pytest.approx(1.25 / 0.8)
    assert search_overfetch(1.0) == 1.0          # every row exists: no margin for an estimate's error
    assert search_overfetch(0.3) is None
