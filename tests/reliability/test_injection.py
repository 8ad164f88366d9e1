"""No filter injection: hostile ids, titles and query texts never widen or break a LanceDB filter."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ..conftest import NOW

FRAGMENTS = ["'", '"', "\\", "\\'", "' OR '1'='1", "'; DROP TABLE chunks; --", "%", "_", "*", ") OR (1=1",
             "doc_id IS NOT NULL", "\u202e", "ünïcødé", "日本語", "🙂", "NULL", "--", "/*", "*/", "`", "$1", "?"]
hostile = st.lists(st.sampled_from(FRAGMENTS) | st.text(min_size=1, max_size=6), min_size=1, max_size=4).map("".join)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _clean(value: str) -> str:
    """What validation keeps of an id: stripped and NFC-normalised (``ingest.validate``: U+F900
    is stored as U+8C48), no control characters (those are rejected)."""
    return unicodedata.normalize("NFC", value.strip())


@SETTINGS
@given(ids=st.lists(hostile.filter(lambda s: s.strip() and s.isprintable()), min_size=2, max_size=4, unique_by=_clean),
       title=hostile)
@example(ids=["'", "\uf900"], title="'")   # a compatibility ideograph: stored NFC-normalised
def test_hostile_ids_and_titles_round_trip_and_filter_only_themselves(fake_app, ids, title):
    ids = [_clean(i) for i in ids]
    anchor = "anchor-doc"
    fake_app.ingest_records([{"id": anchor, "text": "an ordinary document about tea", "created_at": "2024-01-01"}]
                            + [{"id": i, "title": title, "text": f"hostile document {n} text {title}",
                                "created_at": "2024-01-01"} for n, i in enumerate(ids)],
                            now=NOW, consolidate=False)
    stored = set(fake_app.store.documents().column("doc_id").to_pylist())
    assert set(ids) <= stored and anchor in stored
    for i in ids:
        rows = fake_app.store.chunks_for_docs([i])
        assert set(rows.column("doc_id").to_pylist()) == {i}
        assert rows.column("title").to_pylist()[0] == title.strip() or not title.isprintable()
        assert set(fake_app.store.events([i]).column("doc_id").to_pylist()) == {i}
    assert set(fake_app.store.chunks_for_docs(ids).column("doc_id").to_pylist()) == set(ids)


@SETTINGS
@given(text=hostile.filter(lambda s: s.strip()))
def test_query_text_with_sql_never_errors_or_widens(fake_app, text):
    if not fake_app.store.count_chunks():
        fake_app.ingest_records([{"id": f"d{n}", "text": f"document {n} about tea and coffee",
                                  "created_at": "2024-01-01"} for n in range(5)], now=NOW, consolidate=False)
    for profile in ("naive", "default"):
        resp = fake_app.query(text, as_of=NOW, profile=profile, k=3)
        assert len(resp.results) <= 3
        assert {r.id for r in resp.results} <= {f"d{n}" for n in range(5)}
    logged = fake_app.store.queries([resp.query_id])
    assert logged.column("query").to_pylist() == [text.strip()]


@pytest.mark.parametrize("text", ['""', '"tea"', "title:tea", "(", "AND", 'tea" OR "1'])
def test_query_syntax_in_a_question_is_only_words(fake_app, text):
    """A question's quotes, fields and operators are words to match, never full-text query syntax
    (a '"…"' phrase query once raised: the index keeps no positions)."""
    fake_app.ingest_records([{"id": f"d{n}", "text": f"document {n} about tea and coffee",
                              "created_at": "2024-01-01"} for n in range(3)], now=NOW, consolidate=False)
    hits = fake_app.store.fts_search(text, as_of=NOW, limit=5)
    assert set(hits.column("chunk_id").to_pylist()) <= {c for c in fake_app.store.current_chunks(("chunk_id",))[0]
                                                        .column("chunk_id").to_pylist()}
    for profile in ("naive", "default"):
        assert len(fake_app.query(text, as_of=NOW, profile=profile, k=3).results) <= 3
