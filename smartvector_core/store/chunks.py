"""The chunks table: one row per chunk of a document version, with its vector, text, source
offsets and content hash, and the document's fields repeated. Writes (append, upsert, document
fields) and reads (by document, id, row id, hash; every current chunk); the encoder that made the
vectors. A part of :class:`smartvector_core.store.Store`, over the shared
:class:`.context.StoreContext`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.expr import col, lit

from ..clock import ensure_utc
from .context import StoreContext, read_whole
from .schema import DOC_COLUMNS, ENCODER_KEY, chunks_schema, vector_matrix


def existing(as_of: datetime | None = None):
    """Filter: current chunks, and (with ``as_of``) only those created by then."""
    cond = col("current") == lit(True)
    return cond if as_of is None else cond & (col("created_at") <= lit(ensure_utc(as_of)))


class ChunkTable:
    """Reads and writes of one store's chunks table."""

    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx

    # ----------------------------------------------------------------------------- encoder
    def encoder(self) -> str | None:
        """The id of the encoder that made this store's vectors (``embedding`` ``encoder_id``),
        kept in the metadata of the chunks table's ``vector`` field; None while none is recorded
        (a store without vectors yet, or one written before encoders were recorded)."""
        value = (self.ctx.tables["chunks"].schema.field("vector").metadata or {}).get(ENCODER_KEY)
        return value.decode() if value else None

    def record_encoder(self, encoder_id: str) -> None:
        """Name ``encoder_id`` as the encoder of this store's vectors (one metadata commit)."""
        tbl = self.ctx.tables["chunks"]
        with self.ctx.write_lock():
            self.ctx.retry(lambda: tbl.update_field_metadata(
                {"path": "vector", "metadata": {ENCODER_KEY.decode(): str(encoder_id)}}))

    # ------------------------------------------------------------------------------ chunks
    def count_chunks(self, *, current_only: bool = True) -> int:
        tbl = self.ctx.tables["chunks"]
        return tbl.count_rows(existing().to_sql()) if current_only else tbl.count_rows()

    def content_hashes(self) -> set[str]:
        """Every content hash already embedded in the store."""
        tbl = self.ctx.tables["chunks"]
        rows = read_whole(tbl, tbl.search().select(["content_hash"]))
        return set(rows.column("content_hash").to_pylist())

    def vectors_for_hashes(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors keyed by content hash (for embedding reuse)."""
        out: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 2000):
            part = unique[start:start + 2000]
            rows = (self.ctx.tables["chunks"].search().where(col("content_hash").isin(part))
                    .select(["content_hash", "vector"]).limit(len(part) * 50).to_arrow())
            if rows.num_rows == 0:
                continue
            vectors = vector_matrix(rows.column("vector"))
            for i, h in enumerate(rows.column("content_hash").to_pylist()):
                out.setdefault(h, vectors[i])
        return out

    def chunks_for_docs(self, doc_ids: Sequence[str], *, current_only: bool = True,
                        with_vectors: bool = False, columns: Sequence[str] | None = None) -> pa.Table:
        """The chunk rows of ``doc_ids`` (every column but the vector, or ``columns`` only:
        a caller that reads two fields skips the texts)."""
        names = list(columns) if columns is not None else \
            [f.name for f in chunks_schema(self.ctx.dim) if with_vectors or f.name != "vector"]
        if not doc_ids:
            return chunks_schema(self.ctx.dim).empty_table().select(names)
        cond = col("doc_id").isin(list(doc_ids))
        if current_only:
            cond = cond & existing()
        q = self.ctx.tables["chunks"].search().where(cond).select(names)
        return q.limit(max(1, self.count_chunks(current_only=False))).to_arrow()

    def add_chunks(self, rows: pa.Table) -> None:
        """Append chunk rows in one commit (bulk load; the caller guarantees new ``chunk_id``s)."""
        self._write_chunks(rows, lambda tbl, conformed: tbl.add(conformed), in_place=False)

    def upsert_chunks(self, rows: pa.Table) -> None:
        """Insert new chunk rows and update existing ones (by ``chunk_id``) in one commit."""
        self._write_chunks(rows, lambda tbl, conformed: tbl.merge_insert("chunk_id").when_matched_update_all()
                           .when_not_matched_insert_all().execute(conformed), in_place=True)

    def _write_chunks(self, rows: pa.Table, write, *, in_place: bool) -> None:
        """``write(table, rows)`` under the store lock (retried), rows in the chunks schema;
        noted with the documents it may have updated in place (``in_place``: a merge)."""
        if rows.num_rows == 0:
            return
        schema = chunks_schema(self.ctx.dim)
        conformed = rows.select(schema.names).cast(schema)
        tbl = self.ctx.tables["chunks"]
        with self.ctx.write_lock():
            self.ctx.retry(lambda: write(tbl, conformed))
            self.ctx.note_commit(conformed.column("doc_id").to_pylist() if in_place else ())

    def update_doc_fields(self, updates: Sequence[dict[str, Any]]) -> int:
        """Set document-level fields (e.g. ``lifecycle``, ``superseded_at``) on all rows of each doc.

        ``updates``: dicts with ``doc_id`` and the fields to set. One commit for the lot.
        """
        if not updates:
            return 0
        by_doc = {u["doc_id"]: u for u in updates}
        fields = sorted({k for u in updates for k in u if k != "doc_id"})
        rows = self.chunks_for_docs(list(by_doc), current_only=False, columns=["chunk_id", "doc_id", *fields])
        if rows.num_rows == 0:
            return 0
        schema = chunks_schema(self.ctx.dim)
        cols: dict[str, list] = {"chunk_id": rows.column("chunk_id").to_pylist()}
        doc_ids = rows.column("doc_id").to_pylist()
        for name in fields:
            old = rows.column(name).to_pylist()
            cols[name] = [by_doc[d].get(name, old[i]) for i, d in enumerate(doc_ids)]
        table = pa.table({k: pa.array(v, type=schema.field(k).type) for k, v in cols.items()})
        tbl = self.ctx.tables["chunks"]
        with self.ctx.write_lock():
            self.ctx.retry(lambda: tbl.merge_insert("chunk_id").when_matched_update_all().execute(table))
            self.ctx.note_commit(by_doc)
        return len(by_doc)

    def documents(self, *, include_retired: bool = False) -> pa.Table:
        """One row per document (its first current chunk), without vectors or text."""
        tbl = self.ctx.tables["chunks"]
        q = tbl.search()
        if not include_retired:
            q = q.where(existing())
        rows = read_whole(tbl, q.select(DOC_COLUMNS + ["ordinal", "chunk_id"]))
        if rows.num_rows == 0:
            return rows
        ids = rows.column("doc_id").to_numpy(zero_copy_only=False)
        ordinals = rows.column("ordinal").to_numpy(zero_copy_only=False)
        order = np.lexsort((ordinals, ids))
        first = order[np.r_[True, ids[order][1:] != ids[order][:-1]]]
        return rows.take(pa.array(np.sort(first)))

    def chunk_rows(self, columns: Sequence[str], doc_ids: Sequence[str] | None = None) -> pa.Table:
        """``columns`` of every row of the chunks table (of ``doc_ids`` only, when given),
        retired versions included (what LanceDB's full-text index covers:
        :class:`retrieval.text_index.TextIndex` is built from it), with LanceDB's ``_rowid`` of
        each row."""
        tbl = self.ctx.tables["chunks"]
        q = tbl.search()
        if doc_ids is not None:
            q = q.where(col("doc_id").isin(list(doc_ids)))
        return read_whole(tbl, q.select(list(columns)).with_row_id(True))

    def commits_between(self, after: int, upto: int) -> set[str] | None:
        """:meth:`.context.StoreContext.commits_between` of the chunks table."""
        return self.ctx.commits_between(after, upto)

    def chunk_rows_after(self, row_id: int, columns: Sequence[str], limit: int) -> pa.Table:
        """``columns`` and ``_rowid`` of up to ``limit`` rows of the chunks table whose row id is
        above ``row_id``. LanceDB writes every new or rewritten row into a new fragment, whose id
        is above every earlier one, so these are the rows written since a reader that saw row
        ids up to ``row_id`` (unless a compaction rewrote the table)."""
        return (self.ctx.tables["chunks"].search().where(f"_rowid > {int(row_id)}").select(list(columns))
                .with_row_id(True).limit(max(1, int(limit))).to_arrow())

    def chunks_by_row_id(self, row_ids: Sequence[int], columns: Sequence[str]) -> pa.Table:
        """``columns`` of the chunk rows ``row_ids`` (``_rowid`` values, any order; at 1M rows
        ~6 ms for 30 where a ``chunk_id IN`` filter takes ~10). A row id is valid for the table
        version it was read from: the caller checks the chunk ids it gets back."""
        if not len(row_ids):
            return self.ctx.tables["chunks"].schema.empty_table().select(list(columns))
        return self.ctx.tables["chunks"].take_row_ids([int(r) for r in row_ids]).select(list(columns)).to_arrow()

    def chunks_by_id(self, chunk_ids: Sequence[str], columns: Sequence[str]) -> pa.Table:
        """``columns`` of the chunks ``chunk_ids`` (any order; an unknown id is left out)."""
        ids = [str(c) for c in chunk_ids]
        if not ids:
            return self.ctx.tables["chunks"].schema.empty_table().select(list(columns))
        return (self.ctx.tables["chunks"].search().where(col("chunk_id").isin(ids)).select(list(columns))
                .limit(len(ids)).to_arrow())

    def current_chunks(self, columns: Sequence[str] = ("chunk_id", "doc_id", "text")
                       ) -> tuple[pa.Table, np.ndarray]:
        """Every current chunk (``columns``) and its vectors as an (n, dim) float32 array, in
        ``chunk_id`` order: the same rows in the same order whatever the table's physical layout
        (so neighbour ties break the same way after compaction or a crash and re-run)."""
        tbl = self.ctx.tables["chunks"]
        names = list(dict.fromkeys([*columns, "chunk_id"]))
        rows = read_whole(tbl, tbl.search().where(existing()).select(names + ["vector"]))
        rows = rows.take(pc.sort_indices(rows, sort_keys=[("chunk_id", "ascending")]))
        if "chunk_id" not in columns:
            rows = rows.drop(["chunk_id"])
        if rows.num_rows == 0:
            return rows.drop(["vector"]), np.zeros((0, self.ctx.dim), dtype=np.float32)
        return rows.drop(["vector"]), vector_matrix(rows.column("vector"))
