"""Candidate retrieval: document fields from the knowledge state equal LanceDB's own rows, and the
existence bound holds with or without LanceDB's time prefilter (also for a state older than the store)."""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime

import numpy as np
import pyarrow as pa

from smartvector_core.clock import parse_time, to_us
from smartvector_core.retrieval.search import retrieve

from .conftest import NOW


def _doc(doc_id, created, text, **extra):
    return {"id": doc_id, "title": f"Title of {doc_id}", "text": text, "created_at": created,
            "doc_type": "policy", "source": "official", **extra}


def _corpus(app):
    app.ingest_records([
        _doc("rate_2024", "2024-01-01", "The API rate limit is 100 requests per minute.", kind="VERSIONED",
             version="1", authority=0.9, valid_until="2025-01-01"),
        _doc("rate_2025", "2025-01-01", "The API rate limit is 500 requests per minute.", kind="VERSIONED",
             version="2", supersedes=["rate_2024"], depends_on=["billing"]),
        _doc("billing", "2023-06-01", "Billing runs monthly.\n\nThe rate limit applies per key and minute."),
        _doc("outage", "2025-03-02", "Outage notice: the API rate limit was lowered during the incident.",
             kind="EVENT"),
    ], now=NOW, consolidate=False)


def _same(a, b):
    assert list(a.doc_id) == list(b.doc_id)
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if x is None or y is None:          # lexical: only when the question's text is searched
            assert x is None and y is None, f.name
            continue
        if isinstance(x, pa.Array):         # the content-time spans: Arrow list arrays
            assert x.to_pylist() == y.to_pylist(), f.name
            continue
        if x.dtype == object:
            assert [v if not isinstance(v, float | np.floating) or v == v else "nan" for v in x.tolist()] == \
                   [v if not isinstance(v, float | np.floating) or v == v else "nan" for v in y.tolist()], f.name
        else:
            assert np.allclose(x, y, equal_nan=True) if x.dtype.kind == "f" else np.array_equal(x, y), f.name


def test_state_columns_equal_lancedb_columns_now_and_in_the_past(fake_app):
    _corpus(fake_app)
    state = fake_app.query_cache()
    vector = fake_app.embedder.encode(["What is the API rate limit per minute?"])[0]
    for as_of in (NOW, parse_time("2025-02-01"), parse_time("2024-06-01")):
        plain = retrieve(fake_app.store, vector, as_of, 5)
        joined = retrieve(fake_app.store, vector, as_of, 5, state)
        assert len(joined) > 0
        _same(plain, joined)
    past = retrieve(fake_app.store, vector, parse_time("2024-06-01"), 5, state)
    assert set(past.doc_id) == {"rate_2024", "billing"}


def test_a_state_older_than_the_store_still_keeps_the_existence_bound(fake_app):
    _corpus(fake_app)
    stale = fake_app.query_cache()            # knows nothing newer than 2025-03-02
    fake_app.ingest_records([
        _doc("rate_future", "2026-06-01", "The API rate limit will be 900 requests per minute."),
        _doc("rate_note", "2025-06-01", "Note: the API rate limit per minute is counted per key."),
    ], now=NOW, consolidate=False)
    vector = fake_app.embedder.encode(["What is the API rate limit per minute?"])[0]
    as_of = datetime(2026, 1, 1, tzinfo=NOW.tzinfo)
    assert to_us(as_of) >= stale.document_fields()["created_us"].max()   # LanceDB gets no time bound
    got = retrieve(fake_app.store, vector, as_of, 5, stale)
    assert "rate_future" not in set(got.doc_id)          # created after as_of
    assert "rate_note" in set(got.doc_id)                # unknown to the state: the plain search
    note = list(got.doc_id).index("rate_note")
    assert got.title[note] == "Title of rate_note" and got.source[note] == "official"
    _same(retrieve(fake_app.store, vector, as_of, 5), got)
