"""The store: filters never widened by hostile ids, time prefilter, naive query shape."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smartvector_core.clock import parse_time

from ..conftest import NOW

HOSTILE = ["x' OR '1'='1", "a\\' OR 1=1 --", "'); DROP TABLE chunks; --", 'quote"double', "ünïcødé ✓", "back\\slash"]


def _docs(ids):
    return [{"id": i, "text": f"document number {n} about topic {n}", "kind": "STATIC", "doc_type": "reference",
             "created_at": "2024-01-01"} for n, i in enumerate(ids)]


def test_hostile_ids_round_trip_and_never_widen_filters(fake_app):
    ids = HOSTILE + ["plain"]
    fake_app.ingest_records(_docs(ids), now=NOW)
    stored = set(fake_app.store.documents().column("doc_id").to_pylist())
    assert stored == set(ids)
    for doc_id in ids:
        rows = fake_app.store.chunks_for_docs([doc_id]).column("doc_id").to_pylist()
        assert rows == [doc_id]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(probe=st.text(min_size=1, max_size=30))
def test_property_any_id_filter_matches_only_itself(fake_app, probe):
    if not fake_app.store.count_chunks():
        fake_app.ingest_records(_docs(HOSTILE), now=NOW)
    rows = fake_app.store.chunks_for_docs([probe]).column("doc_id").to_pylist()
    assert rows == ([probe] if probe in HOSTILE else [])


def test_documents_created_after_as_of_do_not_exist(fake_app):
    fake_app.ingest_records([
        {"id": "old", "text": "rate limit policy", "created_at": "2024-01-01", "kind": "STATIC", "doc_type": "policy"},
        {"id": "new", "text": "rate limit policy", "created_at": "2026-01-01", "kind": "STATIC", "doc_type": "policy"},
    ], now=NOW)
    past = fake_app.query("rate limit policy", as_of=parse_time("2025-01-01"), profile="naive")
    assert [r.id for r in past.results] == ["old"]
    now = fake_app.query("rate limit policy", as_of=NOW, profile="naive")
    assert {r.id for r in now.results} == {"old", "new"}


def test_naive_result_shape_matches_contract(fake_app):
    fake_app.ingest_records(_docs(["a", "b"]), now=NOW)
    out = fake_app.query("topic 1", as_of=NOW, profile="naive", k=2).to_dict()
    assert set(out) >= {"query_id", "query", "as_of", "profile", "results", "rejections"}
    r = out["results"][0]
    assert set(r) >= {"id", "chunk_id", "text", "rank", "score", "confidence", "confidence_tier",
                      "validity_state", "kind", "signals", "reasons"}
    assert set(r["signals"]["semantic"]) == {"value", "weight", "contribution"}
    assert 0.0 <= r["confidence"] <= 1.0


def test_cosine_similarity_and_distance_are_inverse():
    """Distance -> similarity has one home (store.cosine_similarity / cosine_distance)."""
    import numpy as np
    import pyarrow as pa

    from smartvector_core.store import cosine_distance, cosine_similarity

    sims = np.array([1.0, 0.5, -0.25])
    hits = pa.table({"_distance": cosine_distance(sims)})
    assert hits.column("_distance").to_pylist() == [0.0, 0.5, 1.25]
    assert cosine_similarity(hits).tolist() == [1.0, 0.5, -0.25]


def test_table_versions_see_another_writers_commits_and_skip_lancedb_when_nothing_changed(fake_app):
    """``Store.versions`` (asked by every query) answers from the version files while they are
    unchanged, and sees a commit made through another handle (another process) at once."""
    from smartvector_core.store import Store

    store = fake_app.store
    names = ("events", "edges", "chunks")
    before = store.versions(names)
    asked = []
    original = store.upkeep.version
    store.upkeep.version = lambda name: asked.append(name) or original(name)
    assert store.versions(names) == before and asked == []            # nothing changed: no LanceDB call
    other = Store(store.settings, store.dim)                           # a second writer on the same files
    other.append_events([{"doc_id": "d1", "event_type": "ACCESS", "at": NOW}])
    after = store.versions(names)
    assert after[0] == before[0] + 1 and after[1:] == before[1:] and asked == list(names)
    assert store.versions(names) == after and len(asked) == 3          # and quiet again
