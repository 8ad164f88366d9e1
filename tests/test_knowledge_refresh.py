"""The knowledge state across writes (issue 30, item 1): after another process's write a query
answers from the state held while the next one loads in the background, then sees the write;
after a write of this process the next query sees it at once. Real LanceDB in a temp dir; a
second ``SmartVector`` over the same store stands for the other process (its own tables and
write count)."""

from __future__ import annotations

import time

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

from .conftest import NOW

AS_OF = "2026-12-01T00:00:00Z"


def _app(store_dir) -> SmartVector:
    return SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())


def _ingest(app, doc_id: str, text: str) -> None:
    app.ingest_records([{"id": doc_id, "text": text, "created_at": "2026-11-01T00:00:00Z"}], now=NOW)


def _texts(app, question: str) -> list[tuple[str, str]]:
    from smartvector_core.clock import parse_time

    response = app.query(question, as_of=parse_time(AS_OF), log=False)
    return [(r.id, r.text) for r in response.results]


def _caught_up(app, timeout_s: float = 30.0) -> None:
    """Wait (bounded) until the background refresh has swapped in the tables' state."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if app.knowledge.get(wait=False).versions == app.knowledge.versions():
            return
        time.sleep(0.02)
    raise AssertionError("the knowledge state was not refreshed in time")


def test_another_process_write_is_served_from_the_held_state_then_seen(store_dir):
    ours, other = _app(store_dir), _app(store_dir)
    _ingest(ours, "base", "The gateway timeout is thirty seconds for every request.")
    assert [i for i, _ in _texts(ours, "gateway timeout")] == ["base"]
    held = ours.knowledge.get(wait=False)
    _ingest(other, "quota", "The zephyr quota is nine hundred requests per minute.")
    assert ours.knowledge.get(wait=False) is held or ours.knowledge.get(wait=False).versions != held.versions
    _caught_up(ours)
    assert "quota" in [i for i, _ in _texts(ours, "zephyr quota requests per minute")]
    assert ours.knowledge.get().docs.num_rows == 2


def test_our_own_write_is_seen_by_the_next_query(store_dir):
    ours, other = _app(store_dir), _app(store_dir)
    _ingest(ours, "base", "The gateway timeout is thirty seconds for every request.")
    _texts(ours, "gateway timeout")
    _ingest(other, "quota", "The zephyr quota is nine hundred requests per minute.")
    _texts(ours, "gateway timeout")   # may start the background refresh
    _ingest(ours, "limit", "The marmot limit is twelve uploads per hour.")
    ids = [i for i, _ in _texts(ours, "marmot limit uploads per hour")]
    assert "limit" in ids   # our write: no stale state is served after it
    assert ours.knowledge.get(wait=False).own_writes == ours.store.own_writes


def test_a_replaced_document_is_gone(store_dir):
    ours, other = _app(store_dir), _app(store_dir)
    _ingest(ours, "policy", "Refunds are accepted within fourteen days of purchase.")
    assert "fourteen" in _texts(ours, "refunds accepted days purchase")[0][1]
    _ingest(other, "policy", "Refunds are accepted within thirty days of purchase.")
    _caught_up(ours)
    texts = [t for i, t in _texts(ours, "refunds accepted days purchase") if i == "policy"]
    assert texts and all("thirty" in t and "fourteen" not in t for t in texts)
    _ingest(ours, "policy", "Refunds are accepted within sixty days of purchase.")   # ours: seen at once
    texts = [t for i, t in _texts(ours, "refunds accepted days purchase") if i == "policy"]
    assert texts and all("sixty" in t and "thirty" not in t for t in texts)


def test_our_events_during_a_background_load_are_kept_once(store_dir):
    ours, other = _app(store_dir), _app(store_dir)
    _ingest(ours, "base", "The gateway timeout is thirty seconds for every request.")
    _texts(ours, "gateway timeout")
    cache = ours.knowledge
    _ingest(other, "quota", "The zephyr quota is nine hundred requests per minute.")
    held = cache.get(wait=False)   # starts the background load
    cache.record_events([{"doc_id": "base", "event_type": "ACCESS", "at": NOW, "query_id": "q-during",
                          "actor": "query", "detail": {}}])
    assert (held.events["query_id"] == "q-during").sum() == 1   # the held state has it at once
    _caught_up(ours)
    state = cache.get()
    assert (state.events["query_id"] == "q-during").sum() == 1
    assert state.own_writes == ours.store.own_writes


def _fields_equal(a: dict, b: dict) -> None:
    import numpy as np

    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_document_fields_after_a_write_equal_those_built_whole(store_dir):
    import pyarrow as pa
    import pyarrow.compute as pc

    from smartvector_core.retrieval.candidates import document_fields, document_fields_after

    app = _app(store_dir)
    app.ingest_records([{"id": f"d{i}", "text": f"Document {i} says the limit is {i} items.",
                         "created_at": f"2026-10-{i + 1:02d}T00:00:00Z", "authority": 0.5 + i / 20}
                        for i in range(8)], now=NOW)
    docs = app.store.documents()
    before = docs.slice(0, 6)
    cases = {
        "appended": docs,
        "same": before,
        "one moved in place": docs.set_column(docs.column_names.index("lifecycle"), "lifecycle",
                                              pc.if_else(pc.equal(docs.column("doc_id"), "d2"), "ARCHIVED",
                                                         docs.column("lifecycle"))),
        "one removed": docs.take(pa.array([0, 1, 3, 4, 5, 6, 7])),
        "empty before": docs,
    }
    for name, rows in cases.items():
        start = before.slice(0, 0) if name == "empty before" else before
        got = document_fields_after(rows, start, document_fields(start) if start.num_rows else {})
        _fields_equal(got, document_fields(rows))
        for field in got.values():
            assert field.shape[0] == rows.num_rows
