"""The LanceDB store: the only module that talks to LanceDB.

Tables (one database directory or object-store prefix):

- ``chunks``: one row per chunk of a document version, with the vector, the text, its source
  offsets and content hash, and the document's fields repeated (so a search hit carries all a
  reranker needs). A chunk replaced by an edit keeps its row with ``current = false`` and
  ``retired_at`` set: nothing is deleted.
- ``edges``: supersedes / depends_on / contradicts, declared or inferred, with evidence and a
  review ``status`` for contradictions.
- ``events``: append-only audit (ingest, access, feedback, lifecycle, ripple, re-embed, restore).
- ``queries``: the query log with results, rejections and intent, keyed by ``query_id``.

Writes are serialised per store by a file lock (two processes ``merge_insert``-ing the same new
keys at once silently create duplicate rows in LanceDB; appends from two processes are safe). Filters are built with
``lancedb.expr`` (values escaped), never by pasting text into SQL.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from filelock import FileLock

from .clock import ensure_utc
from .errors import StoreError
from .settings import Settings
from .store_lock import S3WriteLock
from .store_repair import repair_tags

os.environ.setdefault("LANCEDB_LOG", "error")
import lancedb  # noqa: E402
from lancedb.expr import col, lit  # noqa: E402
from lancedb.query import FullTextOperator, MatchQuery  # noqa: E402

from .store_logs import COMPACT_EVERY_WRITES, LogTables  # noqa: E402  (after LanceDB's log level)
from .store_schema import (  # noqa: E402
    DOC_COLUMNS,
    EDGES_SCHEMA,
    ENCODER_KEY,
    EVENTS_SCHEMA,
    QUERIES_SCHEMA,
    RESTORABLE_TABLES,
    SCHEMA_VERSION,
    TS,
    check_tag_label,
    chunks_schema,
    cosine_distance,
    cosine_similarity,
    edge_id,
    vector_matrix,
)
from .store_upkeep import TEXT_INDEX, Indexes, Versions  # noqa: E402

# the store's public names, wherever their code lives (store_schema, store_logs, store_upkeep)
__all__ = [
    "COMPACT_EVERY_WRITES", "DOC_COLUMNS", "EDGES_SCHEMA", "EVENTS_SCHEMA", "QUERIES_SCHEMA", "RESTORABLE_TABLES",
    "TS", "Store", "check_tag_label", "chunks_schema", "cosine_distance", "cosine_similarity", "edge_id",
    "vector_matrix",
]

# Measured at 100k rows of embedding-like vectors (2,000 topics) against brute force with the
# prefilter, for questions whose nearest passage has cosine 0.86 / 0.72 / 0.54: recall@20 1.000
# at refine factors 1-5; recall of the whole 60-row pool 0.978/0.959/0.942 at 1, 0.995/0.987/
# 0.988 at 3, 0.998/0.992/0.994 at 5, each step ~1 ms (docs/PERF.md). Random unit vectors have
# no neighbourhood structure: no ANN index finds their top-20 (recall 0.34).
SEARCH_NPROBES = 20        # IVF partitions probed per query
SEARCH_REFINE_FACTOR = 3   # re-rank 3·k candidates by exact distance
SEARCH_EF = 300            # HNSW beam (raised to refine·k when that is larger: LanceDB needs ef >= it)


PLAIN_COLUMNS = ("chunk_id", "doc_id", "text")   # what the plain baseline search returns


def _existing(as_of: datetime | None = None):
    """Filter: current chunks, and (with ``as_of``) only those created by then."""
    cond = col("current") == lit(True)
    return cond if as_of is None else cond & (col("created_at") <= lit(ensure_utc(as_of)))


def _existing_rows(rows: pa.Table, as_of: datetime | None = None) -> pa.ChunkedArray:
    """:func:`_existing` for ``rows`` already read: a mask (null never passes), computed by
    the compute kernels (a filter expression would plan an Acero query: 0.4 ms a search)."""
    mask = pc.fill_null(rows.column("current"), False)
    if as_of is not None:
        mask = pc.and_(mask, pc.fill_null(pc.less_equal(rows.column("created_at"), pa.scalar(ensure_utc(as_of), TS)),
                                          False))
    return mask


def overfetched(limit: int, overfetch: float) -> int:
    """Rows an unfiltered search reads for ``limit`` existing ones: ``ceil(overfetch · limit)``."""
    return int(np.ceil(limit * overfetch))


def first_existing(existing, limit: int, searched: int) -> np.ndarray | None:
    """The rows a search prefiltered by :func:`_existing` returns, from an unfiltered search
    asked for ``searched`` rows (best first) whose existence mask is ``existing``: the first
    ``limit`` existing ones (their positions). None when that may miss some (fewer than ``limit``
    exist among a full ``searched``): then the caller searches with the prefilter. Both ways
    return the best existing rows of the same ranking, so the results are the same
    (tests/store/test_postfilter.py)."""
    mask = np.asarray(existing, dtype=bool)
    keep = np.flatnonzero(mask)
    if len(keep) < limit and len(mask) >= searched:
        return None
    return keep[:limit]


def _postfiltered(search, limit: int, overfetch: float, as_of: datetime | None,
                  columns: Sequence[str] | None) -> pa.Table | None:
    """:func:`first_existing` of ``search(n, columns)``, an unfiltered search for
    ``n = overfetched(limit, overfetch)`` rows that reads the existence columns too."""
    n = overfetched(limit, overfetch)
    wanted = list(columns) if columns else None
    found = search(n, None if wanted is None else list(dict.fromkeys([*wanted, "current", "created_at"])))
    if "current" not in found.column_names:   # a text with no searchable term
        return found
    keep = first_existing(_existing_rows(found, as_of).to_numpy(zero_copy_only=False), limit, n)
    if keep is None:
        return None
    existing = found.take(pa.array(keep, pa.int64()))
    if wanted is not None:
        existing = existing.select([c for c in existing.column_names if c in wanted or c.startswith("_")])
    return existing


def _lock_path(uri: str) -> Path:
    if "://" not in uri:
        Path(uri).mkdir(parents=True, exist_ok=True)
        return Path(uri) / ".write.lock"
    digest = hashlib.sha1(uri.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"smartvector-{digest}.lock"


class Store(LogTables, Versions, Indexes):
    """A SmartVector store over one LanceDB database."""

    def __init__(self, settings: Settings, dim: int, *, read_consistency_s: float | None = 0.0) -> None:
        self.settings = settings
        self.uri = settings.store_uri
        self.dim = dim
        interval = None if read_consistency_s is None else timedelta(seconds=read_consistency_s)
        try:
            self.db = lancedb.connect(self.uri, storage_options=settings.storage_options or None,
                                      read_consistency_interval=interval)
        except Exception as exc:  # pragma: no cover - depends on the URI
            raise StoreError(f"cannot open store {self.uri}: {exc}") from exc
        if self.uri.startswith("s3://"):  # one writer across machines: a lock object in the bucket
            self._lock = S3WriteLock(self.uri, settings.storage_options)
        else:
            self._lock = FileLock(str(_lock_path(self.uri)), timeout=120)
        self._tables: dict[str, Any] = {}
        self._versions_seen: dict[tuple, tuple] = {}   # table names -> (their version files, versions)
        self._writes: dict[str, int] = {}
        self._text_indexed = False   # the full-text index is known to exist (fts_search checks once)
        self._ensure_tables()
        self.repairs: list[str] = repair_tags(self)   # what a fault left, undone on open (store_repair)

    # ----------------------------------------------------------------------------- set-up
    def _ensure_tables(self) -> None:
        """Open the four tables, creating (or finishing) any that a fresh store lacks.

        Creating a store is safe at every instant: a process killed while LanceDB creates a
        table leaves a table directory without a committed version, which ``list_tables`` shows
        but ``open_table`` cannot open ("Table 'events' was not found"). So each table is opened
        by trying, and one that does not open is created under the write lock with
        ``exist_ok=True``, which LanceDB completes over such a half-created directory (a table
        with a committed version is opened, never replaced). Crash points ``store:create:<name>``.
        """
        wanted = {"chunks": chunks_schema(self.dim), "edges": EDGES_SCHEMA,
                  "events": EVENTS_SCHEMA, "queries": QUERIES_SCHEMA}
        for name, schema in wanted.items():
            self._tables[name] = self._open_or_create(name, schema)
        self._add_missing_columns(wanted["chunks"])
        stored_dim = self._tables["chunks"].schema.field("vector").type.list_size
        if stored_dim != self.dim:
            raise StoreError(f"store {self.uri} holds {stored_dim}-d vectors, the model makes "
                             f"{self.dim}-d ones: use the model the store was built with")
        version = (self._tables["chunks"].schema.metadata or {}).get(b"smartvector.schema_version")
        if version and version.decode() != SCHEMA_VERSION:
            raise StoreError(f"store {self.uri} has schema version {version.decode()}, "
                             f"this code reads {SCHEMA_VERSION}")

    def _add_missing_columns(self, schema: pa.Schema) -> None:
        """A store written before a nullable column of the chunks schema existed (the content-time
        spans) gets it, all null, in one commit under the write lock: old stores open, read and
        take new writes. Null spans read as none."""
        table = self._tables["chunks"]
        missing = [schema.field(name) for name in schema.names if name not in table.schema.names]
        if not missing:
            return
        with self.write_lock():
            table.checkout_latest()
            missing = [f for f in missing if f.name not in table.schema.names]
            if missing:
                self._retry(lambda: table.add_columns(missing))

    def _open_or_create(self, name: str, schema: pa.Schema):
        try:
            return self.db.open_table(name)
        except Exception:  # absent, or half-created by a killed process: create it under the lock
            pass
        with self.write_lock():
            try:
                return self.db.open_table(name)   # another process may have finished it meanwhile
            except Exception:
                pass
            self.crash_point(f"store:create:{name}")
            try:
                return self.db.create_table(name, schema=schema, exist_ok=True)
            except Exception as exc:
                raise StoreError(f"store {self.uri}: table {name!r} can be neither opened nor created "
                                 f"({exc})") from exc

    def crash_point(self, point: str) -> None:
        """Test hook: end the process at once (as ``kill -9`` would) when ``SMARTVECTOR_CRASH_AT``
        names ``point`` (``Settings.crash_at``). The crash-point sweep of
        ``tests/reliability/test_crash_points.py`` runs every command once per point."""
        if self.settings.crash_at == point:
            os._exit(137)

    def count_rows(self, name: str, *, at: int | str | None = None) -> int:
        """Rows of table ``name`` (chunks, edges, events, queries), all versions of a document
        included; ``at``: in that table version or tag instead of the current one (read from a
        handle of its own: this store's tables stay current)."""
        if at is None:
            return int(self._tables[name].count_rows())
        table = self.db.open_table(name)
        table.checkout(at)
        return int(table.count_rows())

    def all_rows(self, name: str) -> pa.Table:
        """Every row of table ``name`` as stored (retired chunks, rejected edges included), for
        comparing two stores or two moments of one; the engine reads through the methods below."""
        return self._tables[name].to_arrow()

    def version(self, name: str) -> int:
        """The current version of table ``name`` (changes with every commit, ours or another process's)."""
        return int(self._tables[name].version)

    def versions(self, names: Sequence[str]) -> tuple[int, ...]:
        """The current versions of tables ``names`` (:meth:`version` of each). On a local store
        LanceDB is asked only when the tables' version files changed since it was last asked:
        a directory listing costs ~7 µs a table, LanceDB's check ~0.3 ms (more while the question
        is being encoded beside it), and every query asks. Every commit writes a new manifest
        file, so a listing that has not changed means versions that have not changed."""
        names = tuple(names)
        listed = self._version_files(names)
        known = self._versions_seen.get(names)
        if listed is not None and known is not None and known[0] == listed:
            return known[1]
        versions = tuple(self.version(n) for n in names)
        if listed is not None:   # listed before asking: a commit in between changes the next listing
            self._versions_seen[names] = (listed, versions)
        return versions

    def _version_files(self, names: tuple[str, ...]) -> tuple[frozenset, ...] | None:
        """The manifest file names of each table (None: not a local store, or not laid out as expected)."""
        if "://" in self.uri:
            return None
        try:
            return tuple(frozenset(os.listdir(os.path.join(self.uri, f"{n}.lance", "_versions"))) for n in names)
        except OSError:
            return None

    # ----------------------------------------------------------------------------- encoder
    def encoder(self) -> str | None:
        """The id of the encoder that made this store's vectors (``embedding`` ``encoder_id``),
        kept in the metadata of the chunks table's ``vector`` field; None while none is recorded
        (a store without vectors yet, or one written before encoders were recorded)."""
        value = (self._tables["chunks"].schema.field("vector").metadata or {}).get(ENCODER_KEY)
        return value.decode() if value else None

    def record_encoder(self, encoder_id: str) -> None:
        """Name ``encoder_id`` as the encoder of this store's vectors (one metadata commit)."""
        tbl = self._tables["chunks"]
        with self.write_lock():
            self._retry(lambda: tbl.update_field_metadata(
                {"path": "vector", "metadata": {ENCODER_KEY.decode(): str(encoder_id)}}))

    @contextmanager
    def write_lock(self):
        """Serialise writers of this store across threads and processes."""
        with self._lock:
            yield

    def _retry(self, fn, attempts: int = 6):
        """Run a write, retrying commit conflicts with exponential backoff."""
        delay = 0.05
        for attempt in range(attempts):
            try:
                return fn()
            except Exception as exc:  # lance raises plain errors on commit conflicts
                if attempt == attempts - 1 or "conflict" not in str(exc).lower():
                    raise
                time.sleep(delay)
                delay *= 2
        return None  # pragma: no cover

    # ------------------------------------------------------------------------------ chunks
    def count_chunks(self, *, current_only: bool = True) -> int:
        tbl = self._tables["chunks"]
        return tbl.count_rows(_existing().to_sql()) if current_only else tbl.count_rows()

    def content_hashes(self) -> set[str]:
        """Every content hash already embedded in the store."""
        tbl = self._tables["chunks"]
        rows = tbl.search().select(["content_hash"]).limit(max(1, tbl.count_rows())).to_arrow()
        return set(rows.column("content_hash").to_pylist())

    def vectors_for_hashes(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors keyed by content hash (for embedding reuse)."""
        out: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 2000):
            part = unique[start:start + 2000]
            rows = (self._tables["chunks"].search().where(col("content_hash").isin(part))
                    .select(["content_hash", "vector"]).limit(len(part) * 50).to_arrow())
            if rows.num_rows == 0:
                continue
            vectors = vector_matrix(rows.column("vector"))
            for i, h in enumerate(rows.column("content_hash").to_pylist()):
                out.setdefault(h, vectors[i])
        return out

    def chunks_for_docs(self, doc_ids: Sequence[str], *, current_only: bool = True,
                        with_vectors: bool = False) -> pa.Table:
        if not doc_ids:
            return chunks_schema(self.dim).empty_table()
        cond = col("doc_id").isin(list(doc_ids))
        if current_only:
            cond = cond & _existing()
        q = self._tables["chunks"].search().where(cond)
        if not with_vectors:
            q = q.select([f.name for f in chunks_schema(self.dim) if f.name != "vector"])
        return q.limit(max(1, self.count_chunks(current_only=False))).to_arrow()

    def add_chunks(self, rows: pa.Table) -> None:
        """Append chunk rows in one commit (bulk load; the caller guarantees new ``chunk_id``s)."""
        self._write_chunks(rows, lambda tbl, conformed: tbl.add(conformed))

    def upsert_chunks(self, rows: pa.Table) -> None:
        """Insert new chunk rows and update existing ones (by ``chunk_id``) in one commit."""
        self._write_chunks(rows, lambda tbl, conformed: tbl.merge_insert("chunk_id").when_matched_update_all()
                           .when_not_matched_insert_all().execute(conformed))

    def _write_chunks(self, rows: pa.Table, write) -> None:
        """``write(table, rows)`` under the store lock (retried), rows in the chunks schema."""
        if rows.num_rows == 0:
            return
        schema = chunks_schema(self.dim)
        conformed = rows.select(schema.names).cast(schema)
        tbl = self._tables["chunks"]
        with self.write_lock():
            self._retry(lambda: write(tbl, conformed))

    def update_doc_fields(self, updates: Sequence[dict[str, Any]]) -> int:
        """Set document-level fields (e.g. ``lifecycle``, ``superseded_at``) on all rows of each doc.

        ``updates``: dicts with ``doc_id`` and the fields to set. One commit for the lot.
        """
        if not updates:
            return 0
        by_doc = {u["doc_id"]: u for u in updates}
        fields = sorted({k for u in updates for k in u if k != "doc_id"})
        rows = self.chunks_for_docs(list(by_doc), current_only=False)
        if rows.num_rows == 0:
            return 0
        schema = chunks_schema(self.dim)
        cols: dict[str, list] = {"chunk_id": rows.column("chunk_id").to_pylist()}
        doc_ids = rows.column("doc_id").to_pylist()
        for name in fields:
            old = rows.column(name).to_pylist()
            cols[name] = [by_doc[d].get(name, old[i]) for i, d in enumerate(doc_ids)]
        table = pa.table({k: pa.array(v, type=schema.field(k).type) for k, v in cols.items()})
        tbl = self._tables["chunks"]
        with self.write_lock():
            self._retry(lambda: tbl.merge_insert("chunk_id").when_matched_update_all().execute(table))
        return len(by_doc)

    def documents(self, *, include_retired: bool = False) -> pa.Table:
        """One row per document (its first current chunk), without vectors or text."""
        tbl = self._tables["chunks"]
        q = tbl.search()
        if not include_retired:
            q = q.where(_existing())
        rows = q.select(DOC_COLUMNS + ["ordinal", "chunk_id"]).limit(max(1, tbl.count_rows())).to_arrow()
        if rows.num_rows == 0:
            return rows
        ids = rows.column("doc_id").to_numpy(zero_copy_only=False)
        ordinals = rows.column("ordinal").to_numpy(zero_copy_only=False)
        order = np.lexsort((ordinals, ids))
        first = order[np.r_[True, ids[order][1:] != ids[order][:-1]]]
        return rows.take(pa.array(np.sort(first)))

    def search(self, vector: np.ndarray, *, as_of: datetime | None, limit: int,
               columns: Sequence[str] | None = None, extra: Any = None, exact: bool = False,
               overfetch: float | None = None) -> pa.Table:
        """Nearest current chunks that existed at ``as_of`` (prefiltered), cosine distance.

        ``as_of=None`` drops the existence bound (a caller that knows no chunk is newer than its
        moment saves LanceDB that filter). Uses the vector index when the table has one
        (``SEARCH_NPROBES`` partitions, exact re-ranking of ``SEARCH_REFINE_FACTOR``·limit rows);
        ``exact`` forces brute force.

        ``overfetch`` (a caller that knows most rows pass the existence filter, e.g. ``1 /
        share``): the same rows, found by an unfiltered search for ``overfetch``·limit rows cut
        to the existing ones (:func:`_postfiltered`): LanceDB's prefilter evaluates the condition
        over the whole table on every query (its cost at 1M chunks: docs/PERF.md).
        """
        def build(cond, n: int, cols: Sequence[str] | None):
            q = self._vector_query(vector, n, cond, exact=exact)
            if cols:   # name _distance too: LanceDB warns on every search that leaves it implicit
                q = q.select(list(dict.fromkeys([*cols, "_distance"])))
            return q.to_arrow()

        cond = _existing(as_of)
        if extra is not None:
            cond = cond & extra
        elif overfetch is not None and overfetch >= 1.0:
            found = _postfiltered(lambda n, cols: build(None, n, cols), limit, overfetch, as_of, columns)
            if found is not None:
                return found
        return build(cond, limit, columns)

    def plain_search(self, vector: np.ndarray, limit: int, columns: Sequence[str] = PLAIN_COLUMNS) -> pa.Table:
        """The plainest LanceDB vector search: the ``limit`` rows nearest ``vector`` with LanceDB's
        defaults (no prefilter, no tuning), ``columns`` and ``_distance``: the baseline a user
        compares the product with (``perf``'s ``plain_overhead_ratio``)."""
        return (self._tables["chunks"].search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
                .limit(limit).select([*columns, "_distance"]).to_arrow())

    def _vector_query(self, vector: np.ndarray, n: int, cond=None, *, exact: bool = False):
        """LanceDB's search for the ``n`` chunk rows nearest ``vector`` (cosine), prefiltered by
        ``cond``: by the vector index where there is one (``SEARCH_NPROBES`` partitions, exact
        re-ranking of ``SEARCH_REFINE_FACTOR``·n rows), by brute force where ``exact``."""
        q = self._tables["chunks"].search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
        q = q.distance_type("cosine").limit(n)
        if cond is not None:
            q = q.where(cond, prefilter=True)
        if exact:
            return q.bypass_vector_index()
        return q.nprobes(SEARCH_NPROBES).refine_factor(SEARCH_REFINE_FACTOR).ef(max(SEARCH_EF, n * SEARCH_REFINE_FACTOR))

    def search_row_ids(self, vector: np.ndarray, n: int) -> pa.Table:
        """The ``n`` chunk rows nearest ``vector``, unfiltered, best first, as ``_rowid`` and
        ``_distance`` only: the ranking of :meth:`search`, without reading a column of the rows
        (LanceDB reads each projected column of each hit at random: at 1M chunks 10 ms against
        20 ms for the query's columns). The caller holds the rows' columns by row id
        (:class:`retrieval.text_index.TextIndex`)."""
        return self._vector_query(vector, n).with_row_id(True).select(["_distance"]).to_arrow()

    def fts_search(self, text: str, *, as_of: datetime | None, limit: int,
                   columns: Sequence[str] = ("chunk_id", "doc_id"), require_all: bool = False,
                   within: Sequence[str] | None = None, overfetch: float | None = None) -> pa.Table:
        """Full-text (BM25) search over current chunk texts that existed at ``as_of``.

        LanceDB's native FTS index on ``text`` (:meth:`ensure_text_index`, built on ingest;
        created here only if missing). Rows written since the index was built are searched too,
        unindexed (LanceDB), until the next rebuild. ``require_all``: every term of ``text`` must
        occur (a ``MatchQuery`` with the AND operator); ``within``: only these chunk ids. Returns
        ``columns`` and ``_score`` (BM25, higher is better), best first; empty for a text with no
        searchable term. ``overfetch``: as in :meth:`search` (BM25 does not depend on the filter:
        its statistics are the index's).
        """
        empty = pa.table({**{c: pa.array([], pa.string()) for c in columns}, "_score": pa.array([], pa.float32())})
        if not self._text_indexed:
            self.ensure_text_index()
            self._text_indexed = TEXT_INDEX in self.chunk_indexes()
        if not str(text).strip() or not self._text_indexed or (within is not None and not len(within)):
            return empty
        # always a MatchQuery: the question's words are terms, never query syntax (a plain string
        # would be parsed, and '"…"' turned into a phrase query that this index cannot answer)
        query = MatchQuery(str(text), TEXT_INDEX,
                           operator=FullTextOperator.AND if require_all else FullTextOperator.OR)

        def build(cond, n: int, cols: Sequence[str]):
            q = self._tables["chunks"].search(query, query_type="fts", fts_columns=TEXT_INDEX)
            if cond is not None:
                q = q.where(cond, prefilter=True)
            try:
                return q.select([*cols, "_score"]).limit(n).to_arrow()
            except Exception as exc:  # lance raises on a query that tokenises to nothing
                if "token" in str(exc).lower() or "empty" in str(exc).lower():
                    return empty
                raise

        if within is None and overfetch is not None and overfetch >= 1.0:
            found = _postfiltered(lambda n, cols: build(None, n, cols), limit, overfetch, as_of, columns)
            if found is not None:
                return found
        cond = _existing(as_of)
        if within is not None:
            cond = cond & col("chunk_id").isin([str(c) for c in within])
        return build(cond, limit, columns)

    def chunk_rows(self, columns: Sequence[str]) -> pa.Table:
        """``columns`` of every row of the chunks table, retired versions included (what
        LanceDB's full-text index covers: :class:`retrieval.text_index.TextIndex` is built from
        it), with LanceDB's ``_rowid`` of each row."""
        tbl = self._tables["chunks"]
        return tbl.search().select(list(columns)).with_row_id(True).limit(max(1, tbl.count_rows())).to_arrow()

    def chunk_rows_after(self, row_id: int, columns: Sequence[str], limit: int) -> pa.Table:
        """``columns`` and ``_rowid`` of up to ``limit`` rows of the chunks table whose row id is
        above ``row_id``. LanceDB writes every new or rewritten row into a new fragment, whose id
        is above every earlier one, so these are the rows written since a reader that saw row
        ids up to ``row_id`` (unless a compaction rewrote the table)."""
        return (self._tables["chunks"].search().where(f"_rowid > {int(row_id)}").select(list(columns))
                .with_row_id(True).limit(max(1, int(limit))).to_arrow())

    def chunks_by_row_id(self, row_ids: Sequence[int], columns: Sequence[str]) -> pa.Table:
        """``columns`` of the chunk rows ``row_ids`` (``_rowid`` values, any order; at 1M rows
        ~6 ms for 30 where a ``chunk_id IN`` filter takes ~10). A row id is valid for the table
        version it was read from: the caller checks the chunk ids it gets back."""
        if not len(row_ids):
            return self._tables["chunks"].schema.empty_table().select(list(columns))
        return self._tables["chunks"].take_row_ids([int(r) for r in row_ids]).select(list(columns)).to_arrow()

    def chunks_by_id(self, chunk_ids: Sequence[str], columns: Sequence[str]) -> pa.Table:
        """``columns`` of the chunks ``chunk_ids`` (any order; an unknown id is left out)."""
        ids = [str(c) for c in chunk_ids]
        if not ids:
            return self._tables["chunks"].schema.empty_table().select(list(columns))
        return (self._tables["chunks"].search().where(col("chunk_id").isin(ids)).select(list(columns))
                .limit(len(ids)).to_arrow())

    def current_chunks(self, columns: Sequence[str] = ("chunk_id", "doc_id", "text")
                       ) -> tuple[pa.Table, np.ndarray]:
        """Every current chunk (``columns``) and its vectors as an (n, dim) float32 array, in
        ``chunk_id`` order: the same rows in the same order whatever the table's physical layout
        (so neighbour ties break the same way after compaction or a crash and re-run)."""
        tbl = self._tables["chunks"]
        names = list(dict.fromkeys([*columns, "chunk_id"]))
        rows = (tbl.search().where(_existing()).select(names + ["vector"])
                .limit(max(1, tbl.count_rows())).to_arrow())
        rows = rows.take(pc.sort_indices(rows, sort_keys=[("chunk_id", "ascending")]))
        if "chunk_id" not in columns:
            rows = rows.drop(["chunk_id"])
        if rows.num_rows == 0:
            return rows.drop(["vector"]), np.zeros((0, self.dim), dtype=np.float32)
        return rows.drop(["vector"]), vector_matrix(rows.column("vector"))

    # ------------------------------------------------------------------------------ edges
    def upsert_edges(self, rows: Iterable[dict[str, Any]]) -> int:
        rows = list(rows)
        if not rows:
            return 0
        for r in rows:
            r.setdefault("edge_id", edge_id(r["src"], r["edge_type"], r["dst"]))
            r.setdefault("status", "")
            r.setdefault("evidence", "")
        table = pa.Table.from_pylist(rows, schema=EDGES_SCHEMA)
        tbl = self._tables["edges"]
        with self.write_lock():
            self._retry(lambda: tbl.merge_insert("edge_id").when_matched_update_all()
                        .when_not_matched_insert_all().execute(table))
        return len(rows)

    def edges(self) -> pa.Table:
        tbl = self._tables["edges"]
        return tbl.search().limit(max(1, tbl.count_rows())).to_arrow()

