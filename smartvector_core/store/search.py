"""Search over the chunks table: nearest vectors, full text (BM25), each bounded to the chunks
that existed at ``as_of``, prefiltered by LanceDB or cut from an unfiltered search. A part of
:class:`smartvector_core.store.Store`, over the shared :class:`.context.StoreContext`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.expr import col
from lancedb.query import FullTextOperator, MatchQuery

from ..clock import ensure_utc
from .chunks import existing
from .context import StoreContext
from .indexes import TEXT_INDEX, Indexes
from .schema import TS

# Measured at 100k rows of embedding-like vectors (2,000 topics) against brute force with the
# prefilter, for questions whose nearest passage has cosine 0.86 / 0.72 / 0.54: recall@20 1.000
# at refine factors 1-5; recall of the whole 60-row pool 0.978/0.959/0.942 at 1, 0.995/0.987/
# 0.988 at 3, 0.998/0.992/0.994 at 5, each step ~1 ms (docs/PERF.md). Random unit vectors have
# no neighbourhood structure: no ANN index finds their top-20 (recall 0.34).
SEARCH_NPROBES = 20        # IVF partitions probed per query
SEARCH_REFINE_FACTOR = 3   # re-rank 3·k candidates by exact distance
SEARCH_EF = 300            # HNSW beam (raised to refine·k when that is larger: LanceDB needs ef >= it)

PLAIN_COLUMNS = ("chunk_id", "doc_id", "text")   # what the plain baseline search returns


def existing_rows(rows: pa.Table, as_of: datetime | None = None) -> pa.ChunkedArray:
    """:func:`.chunks.existing` for ``rows`` already read: a mask (null never passes), computed by
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
    """The rows a search prefiltered by :func:`.chunks.existing` returns, from an unfiltered search
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
    keep = first_existing(existing_rows(found, as_of).to_numpy(zero_copy_only=False), limit, n)
    if keep is None:
        return None
    existing = found.take(pa.array(keep, pa.int64()))
    if wanted is not None:
        existing = existing.select([c for c in existing.column_names if c in wanted or c.startswith("_")])
    return existing


class ChunkSearch:
    """Vector and full-text search of one store's chunks table; ``indexes`` builds the full-text
    index a first full-text search finds missing."""

    def __init__(self, ctx: StoreContext, indexes: Indexes) -> None:
        self.ctx = ctx
        self.indexes = indexes
        self._text_indexed = False   # the full-text index is known to exist (fts_search checks once)

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

        cond = existing(as_of)
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
        return (self.ctx.tables["chunks"].search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
                .limit(limit).select([*columns, "_distance"]).to_arrow())

    def _vector_query(self, vector: np.ndarray, n: int, cond=None, *, exact: bool = False):
        """LanceDB's search for the ``n`` chunk rows nearest ``vector`` (cosine), prefiltered by
        ``cond``: by the vector index where there is one (``SEARCH_NPROBES`` partitions, exact
        re-ranking of ``SEARCH_REFINE_FACTOR``·n rows), by brute force where ``exact``."""
        q = self.ctx.tables["chunks"].search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
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
            self.indexes.ensure_text_index()
            self._text_indexed = TEXT_INDEX in self.indexes.chunk_indexes()
        if not str(text).strip() or not self._text_indexed or (within is not None and not len(within)):
            return empty
        # always a MatchQuery: the question's words are terms, never query syntax (a plain string
        # would be parsed, and '"…"' turned into a phrase query that this index cannot answer)
        query = MatchQuery(str(text), TEXT_INDEX,
                           operator=FullTextOperator.AND if require_all else FullTextOperator.OR)

        def build(cond, n: int, cols: Sequence[str]):
            q = self.ctx.tables["chunks"].search(query, query_type="fts", fts_columns=TEXT_INDEX)
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
        cond = existing(as_of)
        if within is not None:
            cond = cond & col("chunk_id").isin([str(c) for c in within])
        return build(cond, limit, columns)
