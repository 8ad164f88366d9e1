"""A run on a warm :class:`ConsolidationCache` writes what a run reading the store writes.

Two copies of one consolidated store (real LanceDB in tmp, hashing embedder) take the same
writes, each with its consolidation: one service reads its inputs from the cache (caught up per
write, read once), the other from the store. After every write both stores hold the same
edges, events and document fields, and the runs report the same counts.
"""

from __future__ import annotations

import shutil
from datetime import timedelta

import numpy as np
import pyarrow as pa
import pytest

from smartvector_core.consolidation.incremental import ConsolidationCache

from ..conftest import NOW
from .helpers import bench_corpus, hashing_app

LATER = NOW + timedelta(hours=1)
WRITE_EVENTS = ("INGEST", "UPDATE")


def _state(app) -> dict:
    """Every edge and event (sorted by id) and every chunk's document fields (by chunk id)."""
    def rows(table: pa.Table, key: str, drop=()) -> list:
        table = table.drop([c for c in drop if c in table.column_names])
        return sorted(table.to_pylist(), key=lambda r: r[key])

    chunks = app.store.chunk_rows(["chunk_id", "doc_id", "current", "lifecycle", "superseded_at"]).drop(["_rowid"])
    events = [{**e, "event_id": e["event_id"] if e["event_type"] not in WRITE_EVENTS else ""}
              for e in app.store.events().to_pylist()]   # an ingest's event id is random; the rest derive theirs
    return {"edges": rows(app.store.edges(), "edge_id"), "chunks": rows(chunks, "chunk_id"),
            "events": sorted(events, key=lambda e: (e["event_id"], e["doc_id"], e["event_type"], e["detail"]))}


def _counts(report: dict | None) -> dict:
    return {k: v for k, v in (report or {}).items() if k not in ("seconds", "timings")}


def _writes(corpus: list[dict]) -> list[list[dict]]:
    """One-document writes that reach every planner: a new version by title, a near copy from
    another source with a changed number, a citation by id and by title, an edit of a cited
    document (ripple), a re-ingest with nothing changed."""
    a, c = corpus[3], corpus[20]
    newer = (NOW - timedelta(days=1)).isoformat()
    return [
        [{**a, "id": "w_version", "created_at": newer, "text": a["text"] + " Updated for the new quarter."}],
        [{"id": "w_rule", "title": "Refund rule", "source": "docs", "created_at": newer, "kind": "STATIC",
          "doc_type": "policy", "text": "Refunds are accepted within 30 days of purchase for every plan."}],
        [{"id": "w_conflict", "title": "Forum answer", "source": "forum", "created_at": newer, "kind": "STATIC",
          "doc_type": "general", "authority": 0.3,
          "text": "Refunds are accepted within 45 days of purchase for every plan."}],
        [{"id": "w_cites", "title": "Citing note", "created_at": newer, "kind": "STATIC", "doc_type": "reference",
          "source": "docs", "text": f"See {c['id']} for details. It follows {a['title']} closely."}],
        [{**c, "text": c["text"] + " Changed in review: the limit moved."}],
        [{**c, "text": c["text"] + " Changed in review: the limit moved."}],
        [{**corpus[30], "id": "w_depends", "created_at": newer, "depends_on": ["w_version"],
          "text": "Depends on the new version of the policy, limits of 12 days."}],
    ]


@pytest.fixture(params=["indexed", "unindexed"])
def twin_stores(tmp_path, request):
    """With the scalar indexes a large store has, LanceDB updates ``lifecycle`` and
    ``superseded_at`` in place (rows keep their row ids); without, it rewrites the rows."""
    base = hashing_app(tmp_path / "base")
    corpus = bench_corpus(240)
    base.ingest_records(corpus, now=NOW)
    if request.param == "indexed":
        assert "chunk_id" in base.store.ensure_indexes(vector_min_rows=100)["created"]
    del base
    shutil.copytree(tmp_path / "base", tmp_path / "cached")
    shutil.copytree(tmp_path / "base", tmp_path / "read")
    return hashing_app(tmp_path / "cached"), hashing_app(tmp_path / "read"), corpus


def test_cached_runs_write_what_store_reading_runs_write(twin_stores):
    cached, read, corpus = twin_stores
    assert _state(cached) == _state(read)
    cache = cached.keep_consolidation_inputs()
    cache.inputs(cached.store)   # warm: the one read of the table
    reached = dict.fromkeys(("inferred_supersedes", "contradictions", "inferred_depends_on", "rippled"), 0)
    for write in _writes(corpus):
        got = cached.ingest_records(write, now=LATER)
        for k in reached:
            reached[k] += (got.consolidation or {}).get(k, 0)
        want = read.ingest_records(write, now=LATER, consolidate=False)
        if want.added or want.updated:   # as ingest_records decides
            want.consolidation = read.consolidate(now=LATER)
        assert _counts(got.consolidation) == _counts(want.consolidation), write[0]["id"]
        assert _state(cached) == _state(read), write[0]["id"]
    assert cache.reads == 1   # every write was caught up, none read the table afresh
    assert all(reached.values()), reached   # the writes reached every planner
    again = _counts(cached.consolidate(now=LATER, cached=True))
    assert (again["supersessions"], again["contradictions"], again["rippled"]) == (0, 0, 0)   # idempotent


def test_cache_inputs_equal_the_stores_reads(twin_stores):
    """The cached documents and current chunks are the store's, in its order, after writes."""
    cached, _, corpus = twin_stores
    cache, documents = ConsolidationCache(), ConsolidationCache(chunks=False)
    cache.inputs(cached.store)
    documents.documents(cached.store)
    for write in _writes(corpus)[:4]:
        cached.ingest_records(write, now=LATER, consolidate=False)
        cached.consolidate(now=LATER)
        inputs = cache.inputs(cached.store)
        docs = cached.store.documents()
        assert inputs.doc_table.column("doc_id").to_pylist() == docs.column("doc_id").to_pylist()
        assert inputs.doc_table.column("lifecycle").to_pylist() == docs.column("lifecycle").to_pylist()
        # the knowledge state's copy (repr: an unknown authority is NaN, which equals nothing)
        assert repr(documents.documents(cached.store).to_pylist()) == repr(docs.to_pylist())
        chunks, vectors = cached.store.current_chunks(("chunk_id", "doc_id", "text"))
        assert inputs.chunk_doc_ids.tolist() == chunks.column("doc_id").to_pylist()
        assert (inputs.chunk_doc == inputs.docs.position.get_indexer(inputs.chunk_doc_ids)).all()
        assert inputs.texts.tolist() == chunks.column("text").to_pylist()
        assert (np.asarray(inputs.vectors) == vectors).all()
        rows = np.arange(len(vectors))[::7]
        assert (inputs.vectors[rows] == vectors[rows]).all()   # a gather reads the same rows
        sums = np.zeros((len(inputs.docs), vectors.shape[1]), np.float32)
        np.add.at(sums, inputs.chunk_doc, vectors)   # the store-reading run's centroids, bit for bit
        sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        assert (np.asarray(inputs.centroids) == sums).all()
        assert (inputs.centroids[[0, len(sums) - 1]] == sums[[0, len(sums) - 1]]).all()
    assert cache.reads == documents.reads == 1


def test_a_one_shot_service_reads_the_store_and_a_long_lived_one_keeps_the_cache(tmp_path):
    app = hashing_app(tmp_path / "store")
    corpus = bench_corpus(40)
    app.ingest_records(corpus[:20], now=NOW)
    assert app.ingest_service.warm_inputs is None   # a CLI command: no cache built for one run
    app.keep_consolidation_inputs()
    cache = app.ingest_service.warm_inputs
    app.ingest_records(corpus[20:30], now=LATER)
    app.ingest_records(corpus[30:], now=LATER)
    assert cache is app.ingest_service.warm_inputs and cache.reads == 1   # read once, then caught up


def test_the_fields_of_this_process_writes_are_read_alone_another_process_s_by_a_scan(twin_stores):
    """Where this process made every commit since the last catch-up, only the documents they name
    are read for fields updated in place; a commit of another store object (another process)
    makes the cache read those fields of every row, and it sees that write's change."""
    cached, _, corpus = twin_stores
    cache, documents = ConsolidationCache(), ConsolidationCache(chunks=False)
    cache.inputs(cached.store)
    documents.documents(cached.store)
    for write in _writes(corpus)[:3]:
        cached.ingest_records(write, now=LATER)   # ingest + consolidation: lifecycle merged per document
        assert repr(documents.documents(cached.store).to_pylist()) == repr(cached.store.documents().to_pylist())
    assert cache.inputs(cached.store).docs.states.tolist() == cached.store.documents().column("lifecycle").to_pylist()
    assert (cache.field_scans, documents.field_scans) == (0, 0)
    other = hashing_app(cached.store.ctx.uri)     # a second writer over the same directory
    doc = corpus[5]["id"]
    assert other.store.update_doc_fields([{"doc_id": doc, "lifecycle": "DORMANT"}]) == 1
    got = documents.documents(cached.store)
    assert documents.field_scans == 1
    assert dict(zip(got.column("doc_id").to_pylist(), got.column("lifecycle").to_pylist(), strict=True))[doc] == "DORMANT"
    assert repr(got.to_pylist()) == repr(cached.store.documents().to_pylist())
    assert cache.inputs(cached.store).docs.states.tolist() == got.column("lifecycle").to_pylist()
    assert cache.reads == documents.reads == 1


def test_a_commit_between_the_catch_up_read_and_the_count_is_read_too(twin_stores, monkeypatch):
    """Another writer commits after the catch-up read the rows past its top and before it counts
    the table: the cache reads the rows past its new top again instead of the whole table (under
    a trickle of foreign writes that race made the knowledge refresh read 100k rows per write)."""
    cached, _, corpus = twin_stores
    documents = ConsolidationCache(chunks=False)
    documents.documents(cached.store)
    other = hashing_app(cached.store.ctx.uri)     # a second writer over the same directory
    other.ingest_records([corpus[1] | {"id": "late_a", "title": "Late A"}], now=LATER, consolidate=False)
    read, reads = cached.store.chunk_rows_after, []

    def read_then_another_commit(*args, **kwargs):
        rows = read(*args, **kwargs)
        reads.append(rows.num_rows)
        if len(reads) == 1:
            other.ingest_records([corpus[2] | {"id": "late_b", "title": "Late B"}], now=LATER, consolidate=False)
        return rows
    monkeypatch.setattr(cached.store, "chunk_rows_after", read_then_another_commit)
    got = documents.documents(cached.store)
    assert len(reads) == 2 and reads[1] > 0 and documents.reads == 1   # caught up twice, no full read
    assert {"late_a", "late_b"} <= set(got.column("doc_id").to_pylist())
    assert repr(got.to_pylist()) == repr(cached.store.documents().to_pylist())
