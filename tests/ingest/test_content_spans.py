"""Ingest keeps the periods each chunk's text names (content time) with the chunk; stores written
before those columns existed open, read, and take new writes."""

from __future__ import annotations

from datetime import UTC, datetime

import lancedb
import pyarrow as pa

from smartvector_core.clock import to_us
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings
from smartvector_core.store.schema import CONTENT_TIME_COLUMNS, chunks_schema, content_spans
from tests.conftest import NOW

CAREER = {"id": "career", "title": "A career", "created_at": "2021-02-20T00:00:00Z", "doc_type": "reference",
          "text": "She taught at Leiden from 2004 to 2005. Last year she retired."}


def y(year):
    return to_us(datetime(year, 1, 1, tzinfo=UTC))


def test_ingest_stores_spans_per_chunk(fake_app):
    fake_app.ingest_records([CAREER], now=NOW)
    rows = fake_app.store.chunks_for_docs(["career"])
    offsets, starts, ends = content_spans(rows.column("content_start_us"), rows.column("content_end_us"))
    assert offsets.tolist() == [0, 2]
    assert list(zip(starts.tolist(), ends.tolist(), strict=True)) == [(y(2004), y(2006)), (y(2020), y(2021))]


def test_undated_document_keeps_only_absolute_periods(fake_app):
    undated = {**CAREER, "id": "undated"}
    del undated["created_at"]
    fake_app.ingest_records([undated], now=NOW)
    rows = fake_app.store.chunks_for_docs(["undated"])
    assert rows.column("content_start_us").to_pylist() == [[y(2004)]]


def test_store_without_the_columns_is_migrated(store_dir):
    app = SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())
    app.ingest_records([CAREER], now=NOW)
    old = chunks_schema(app.store.dim)
    # rewrite the chunks table as a store of before the columns: same rows, without them
    db = lancedb.connect(str(store_dir))
    rows = db.open_table("chunks").to_arrow().drop_columns(list(CONTENT_TIME_COLUMNS))
    db.drop_table("chunks")
    db.create_table("chunks", data=rows, schema=pa.schema([f for f in old if f.name not in CONTENT_TIME_COLUMNS],
                                                          metadata=old.metadata))
    assert "content_start_us" not in db.open_table("chunks").schema.names

    reopened = SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())
    table = reopened.store.chunks_for_docs(["career"])
    assert table.column("content_start_us").to_pylist() == [None]          # read as no spans
    assert content_spans(table.column("content_start_us"), table.column("content_end_us"))[0].tolist() == [0, 0]
    reopened.ingest_records([{**CAREER, "id": "second"}], now=NOW)         # new writes carry spans
    assert reopened.store.chunks_for_docs(["second"]).column("content_start_us").to_pylist() == [[y(2004), y(2020)]]
