"""The chunks table's indexes (scalar, vector, full-text): when each is built or merged, and the
vector index's sizing. A part of :class:`smartvector_core.store.Store`, over the shared
:class:`.context.StoreContext`.

IVF_HNSW_SQ builds one HNSW graph per IVF partition. LanceDB's own advice is few partitions
(one works for most tables) and more only when one graph would not fit in memory while it is
trained: so partitions are sized by rows per graph, not by ``sqrt(rows)`` (which at 100k rows
would give 316 graphs of 316 vectors, and 20 probes would then see only 6% of the data).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from lancedb.index import FTS, Bitmap, BTree, IvfHnswSq

from .context import StoreContext
from .fragments import compact, fragment_rows, merge_small_fragments, merge_tier

# Index policy (measured, see docs/PERF.md): under SCALAR_INDEX_MIN_ROWS a scan is as fast as
# any index. Brute-force top-k grows linearly while IVF_HNSW_SQ stays near 10 ms: searches of the
# chunk columns on 2 cores, brute force / indexed: 8.9 / 9.7 ms at 5k rows, 12.9 / 8.4 ms at 10k
# (index built in 2.6 s, recall@20 0.997), 19.4 / 11.2 ms at 20k; so the vector index is built
# from VECTOR_INDEX_MIN_ROWS.
SCALAR_INDEX_MIN_ROWS = 5_000
VECTOR_INDEX_MIN_ROWS = 10_000
REINDEX_FRACTION = 0.10
TEXT_INDEX = "text"          # the column of the full-text (BM25) index
SCALAR_INDEXES = {"chunk_id": "btree", "doc_id": "btree", "content_hash": "btree", "created_at": "btree",
                  "current": "bitmap", "kind": "bitmap", "doc_type": "bitmap", "lifecycle": "bitmap"}

ROWS_PER_PARTITION = 250_000   # 384-d float32: ~0.4 GB of vectors + graph per partition trained
MAX_PARTITIONS = 4_096


def ivf_hnsw_partitions(rows: int, *, rows_per_partition: int = ROWS_PER_PARTITION,
                        max_partitions: int = MAX_PARTITIONS) -> int:
    """IVF partitions for an IVF_HNSW_SQ index over ``rows`` vectors.

    ``clamp(ceil(rows / rows_per_partition), 1, max_partitions)``: 1 up to 250k rows, 4 at 1 M,
    400 at 100 M (then ``nprobes = 20`` reads 5% of the partitions per query).
    """
    if rows <= 0:
        return 1
    return max(1, min(max_partitions, math.ceil(rows / rows_per_partition)))


def search_nprobes(partitions: int, *, floor: int = 20, fraction: float = 0.05) -> int:
    """Partitions to probe: at least ``floor`` (or all), else ``fraction`` of them."""
    return min(partitions, max(floor, math.ceil(fraction * partitions)))


class Indexes:
    """The indexes of one store's chunks table."""

    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx

    def chunk_indexes(self) -> dict[str, str]:
        """Indexed columns of the chunks table and their index type."""
        return {idx.columns[0]: str(idx.index_type) for idx in self.ctx.tables["chunks"].list_indices()}

    def ensure_indexes(self, *, vector_min_rows: int | None = None) -> dict[str, Any]:
        """Index the chunks table once it is large enough; cheap when there is nothing to do.

        - from ``SCALAR_INDEX_MIN_ROWS`` rows: BTree on ids, hashes and times, Bitmap on the
          low-cardinality filter columns (the prefilter of every search reads ``current`` and
          ``created_at``; ``merge_insert`` joins on ``chunk_id``);
        - from ``VECTOR_INDEX_MIN_ROWS`` rows: an IVF_HNSW_SQ cosine index on ``vector``
          (FACTS.md: IVF_PQ with defaults found ~10% of the true top-20);
        - when more than ``REINDEX_FRACTION`` of the rows are not yet in the vector index (or
          a scalar one), ``optimize()`` compacts and merges the new rows into the indexes.
        ``vector_min_rows`` lowers the vector index's threshold (and the scalar ones' with it: a
        store that large would have them). Returns what was done (``created``, ``optimized``, seconds).
        """
        tbl = self.ctx.tables["chunks"]
        rows = tbl.count_rows()
        done: dict[str, Any] = {"rows": rows, "created": [], "optimized": False}
        if self.ensure_text_index():
            done["created"].append(TEXT_INDEX)
        if rows < min(SCALAR_INDEX_MIN_ROWS, vector_min_rows or SCALAR_INDEX_MIN_ROWS):
            return done
        t0 = time.perf_counter()
        have = self.chunk_indexes()
        with self.ctx.write_lock():
            for column, kind in SCALAR_INDEXES.items():
                if column not in have:
                    tbl.create_index(column, config=Bitmap() if kind == "bitmap" else BTree())
                    self.ctx.note_commit(())   # an index: no row changed
                    done["created"].append(column)
            if "vector" not in have and rows >= (vector_min_rows or VECTOR_INDEX_MIN_ROWS):
                tbl.create_index("vector", config=IvfHnswSq(distance_type="cosine",
                                                            num_partitions=ivf_hnsw_partitions(rows)))
                self.ctx.note_commit(())
                done["created"].append("vector")
            elif have:
                stale = max((s.num_unindexed_rows for s in
                             (tbl.index_stats(f"{c}_idx") for c in have) if s is not None), default=0)
                if stale > REINDEX_FRACTION * rows:
                    compact(tbl)
                    self.ctx.note_commit(())
                    done["optimized"] = True
        done["seconds"] = round(time.perf_counter() - t0, 3)
        return done

    def ensure_text_index(self) -> bool:
        """Build LanceDB's native full-text (BM25) index on chunk ``text`` when it is missing,
        or rebuild it when more than ``REINDEX_FRACTION`` of the rows are unindexed (stemmed,
        English stop words removed: ``lancedb.index.FTS`` defaults). Called on every ingest
        (through :meth:`ensure_indexes`); cheap when there is nothing to do. True if built."""
        tbl = self.ctx.tables["chunks"]
        rows = tbl.count_rows()
        if rows == 0:
            return False
        if TEXT_INDEX in self.chunk_indexes():
            stats = tbl.index_stats(f"{TEXT_INDEX}_idx")
            if stats is None or stats.num_unindexed_rows <= REINDEX_FRACTION * rows:
                return False
        with self.ctx.write_lock():
            self.ctx.retry(lambda: tbl.create_index(TEXT_INDEX, config=FTS(), replace=True))
            self.ctx.note_commit(())
        return True

    def merge_appends(self, names: Sequence[str]) -> list[str]:
        """Merge the small fragments a write gathered in each table of ``names``
        (:mod:`.fragments`), each under the write lock; returns the tables merged."""
        merged = []
        for name in names:
            table = self.ctx.tables[name]
            if merge_tier(fragment_rows(table)) is None:   # the common case: no lock taken
                continue
            with self.ctx.write_lock():
                if merge_small_fragments(table, self.ctx.unmergeable, name):
                    if name == "chunks":
                        self.ctx.note_commit(())   # rows moved, none changed
                    merged.append(name)
        return merged
