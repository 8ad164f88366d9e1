"""The store's upkeep: table versions, tags and restore, compaction and cleanup, and the chunk
table's indexes (scalar, vector, full-text). Mixins of :class:`smartvector_core.store.Store`
(``self._tables``, ``write_lock``, ``_retry``, ``crash_point``); imported by :mod:`.store` only,
after it has set LanceDB's log level."""

from __future__ import annotations

import contextlib
import time
from datetime import datetime, timedelta
from typing import Any

from lancedb.index import FTS, Bitmap, BTree, IvfHnswSq

from .errors import InputError, StoreError
from .store_index import ivf_hnsw_partitions
from .store_repair import repair_tags
from .store_schema import RESTORABLE_TABLES, check_tag_label, chunks_schema

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


class Versions:
    # -------------------------------------------------------------------- versions & upkeep
    def table_versions(self) -> dict[str, int]:
        return {name: int(t.version) for name, t in self._tables.items()}

    def versions_of(self, name: str) -> list[int]:
        """The versions table ``name`` still keeps (``maintain`` drops old untagged ones), oldest first."""
        return [int(v["version"]) for v in self._tables[name].list_versions()]

    def fragments(self, name: str) -> int:
        """Data fragments of table ``name`` (small appends add one each until it is compacted)."""
        return int(self._tables[name].stats()["fragment_stats"]["num_fragments"])

    def tag(self, label: str) -> dict[str, int]:
        """Tag the current version of every table with ``label`` (kept by cleanup), all or
        nothing: a table that cannot be tagged (a full disk) is a :class:`StoreError`, its
        broken tag file is removed (:func:`~smartvector_core.store_repair.repair_tags`) and the
        tags this call created on the other tables are deleted again."""
        label = check_tag_label(label)
        versions: dict[str, int] = {}
        created: list[Any] = []
        with self.write_lock():
            for name, t in self._tables.items():
                try:
                    if label in t.tags.list():
                        t.tags.update(label, t.version)
                    else:
                        t.tags.create(label, t.version)
                        created.append(t)
                    t.tags.list()   # read back: a full disk can leave the file empty without an error
                except Exception as exc:
                    repair_tags(self)
                    for done in created:   # removed already, or a broken file repair_tags took: fine
                        with contextlib.suppress(Exception):
                            done.tags.delete(label)
                    raise StoreError(f"store {self.uri}: cannot tag table {name} {label!r} ({exc}); "
                                     "the tags this call created on other tables were deleted again") from exc
                versions[name] = int(t.version)
        return versions

    def tags(self) -> dict[str, dict[str, Any]]:
        return {name: t.tags.list() for name, t in self._tables.items()}

    def restore(self, *, tag: str | None = None, versions: dict[str, int] | None = None) -> dict[str, int]:
        """Make an earlier version of the knowledge tables current again (a new version: history
        is kept), all or nothing.

        Only ``RESTORABLE_TABLES`` (chunks, edges: what the store knows) roll back. ``events`` and
        ``queries`` are append-only history (the audit and the query log): a restore never removes
        what operators did, it is recorded there as one more event by the caller
        (docs/RELIABILITY.md, "Restore"). Under the write lock, every target is checked first
        (:meth:`restore_problem`: the tag is on every table, each version is still kept, not
        cleaned up by ``maintain``), then the tables roll back; if one fails, those already rolled
        back return to the versions they had. Crash points ``restore:after:<table>``: a re-run
        of the same restore converges.
        """
        restored = {}
        with self.write_lock():
            problem = self.restore_problem(tag=tag, versions=versions)
            if problem:
                raise InputError(problem, field="--tag" if tag is not None else "--version")
            previous = self.table_versions()
            try:
                for name in RESTORABLE_TABLES:
                    t = self._tables[name]
                    target: int | str | None = tag if tag is not None else (versions or {}).get(name)
                    if target is None:
                        continue
                    t.checkout(target)
                    t.restore()
                    restored[name] = int(t.version)
                    self.crash_point(f"restore:after:{name}")
                if "chunks" in restored:   # a version older than a column gets it back (one more commit)
                    self._add_missing_columns(chunks_schema(self.dim))
                    restored["chunks"] = int(self._tables["chunks"].version)
            except Exception:
                for name in restored:   # all or nothing: the tables already rolled back go forward again
                    t = self._tables[name]
                    t.checkout(previous[name])
                    t.restore()
                raise
        return restored

    def restore_problem(self, *, tag: str | None = None, versions: dict[str, int] | None = None) -> str | None:
        """Why :meth:`restore` of ``tag`` or ``versions`` cannot be done whole (None: it can)."""
        if (tag is None) == (versions is None):
            return "give exactly one of a tag or versions"
        if tag is not None:
            lacking = [name for name in RESTORABLE_TABLES if tag not in self._tables[name].tags.list()]
            return f"no tag {tag!r} on table(s) {', '.join(lacking)}" if lacking else None
        if not versions:
            return "no table version given"
        for name, number in versions.items():
            if name not in RESTORABLE_TABLES:
                return (f"expected a table of {', '.join(RESTORABLE_TABLES)} (events and queries are "
                        f"append-only history), found {name!r}")
            kept = self.versions_of(name)
            if number not in kept:
                cleaned = 1 <= number < max(kept, default=0)
                return (f"{name} version {number} " + ("was cleaned up by maintain" if cleaned else "does not exist")
                        + f" (kept: {_ranges(kept)})")
        return None

    def optimize(self, *, cleanup_older_than_days: float | None = None, now: datetime | None = None) -> None:
        """Compact, and (with ``cleanup_older_than_days`` and ``now``) drop versions older than
        that age at ``now``.

        Tagged versions are kept: LanceDB 0.40 refuses a cleanup whose cut-off passes a tagged
        version, so the cut-off stops just before each table's oldest tagged version (rolling
        tags move forward, so old versions still go; a pinned operator tag pins what follows it).
        """
        if cleanup_older_than_days is not None and now is None:
            raise ValueError("optimize: a cleanup needs the moment it is measured from (now)")
        with self.write_lock():
            for t in self._tables.values():
                t.optimize()  # compaction; the cleanup follows with a cut-off computed after it
                if cleanup_older_than_days is None:
                    continue
                local_now = now.astimezone().replace(tzinfo=None)   # LanceDB stamps versions in naive local time
                age = timedelta(days=cleanup_older_than_days)
                tagged = {v["version"] for v in t.tags.list().values()}
                stamps = [v["timestamp"] for v in t.list_versions() if v["version"] in tagged]
                if stamps:  # one second of slack for the time between here and LanceDB's clock
                    age = max(age, local_now - min(stamps) + timedelta(seconds=1))
                t.optimize(cleanup_older_than=age)  # compacted already: this is the cleanup


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``"1-3, 7, 9-10"``."""
    out: list[str] = []
    for n in sorted(numbers):
        if out and int(out[-1].split("-")[-1]) == n - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out) or "none"


class Indexes:
    # ----------------------------------------------------------------------------- indexes
    def chunk_indexes(self) -> dict[str, str]:
        """Indexed columns of the chunks table and their index type."""
        return {idx.columns[0]: str(idx.index_type) for idx in self._tables["chunks"].list_indices()}

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
        tbl = self._tables["chunks"]
        rows = tbl.count_rows()
        done: dict[str, Any] = {"rows": rows, "created": [], "optimized": False}
        if self.ensure_text_index():
            done["created"].append(TEXT_INDEX)
        if rows < min(SCALAR_INDEX_MIN_ROWS, vector_min_rows or SCALAR_INDEX_MIN_ROWS):
            return done
        t0 = time.perf_counter()
        have = self.chunk_indexes()
        with self.write_lock():
            for column, kind in SCALAR_INDEXES.items():
                if column not in have:
                    tbl.create_index(column, config=Bitmap() if kind == "bitmap" else BTree())
                    done["created"].append(column)
            if "vector" not in have and rows >= (vector_min_rows or VECTOR_INDEX_MIN_ROWS):
                tbl.create_index("vector", config=IvfHnswSq(distance_type="cosine",
                                                            num_partitions=ivf_hnsw_partitions(rows)))
                done["created"].append("vector")
            elif have:
                stale = max((s.num_unindexed_rows for s in
                             (tbl.index_stats(f"{c}_idx") for c in have) if s is not None), default=0)
                if stale > REINDEX_FRACTION * rows:
                    tbl.optimize()
                    done["optimized"] = True
        done["seconds"] = round(time.perf_counter() - t0, 3)
        return done

    def ensure_text_index(self) -> bool:
        """Build LanceDB's native full-text (BM25) index on chunk ``text`` when it is missing,
        or rebuild it when more than ``REINDEX_FRACTION`` of the rows are unindexed (stemmed,
        English stop words removed: ``lancedb.index.FTS`` defaults). Called on every ingest
        (through :meth:`ensure_indexes`); cheap when there is nothing to do. True if built."""
        tbl = self._tables["chunks"]
        rows = tbl.count_rows()
        if rows == 0:
            return False
        if TEXT_INDEX in self.chunk_indexes():
            stats = tbl.index_stats(f"{TEXT_INDEX}_idx")
            if stats is None or stats.num_unindexed_rows <= REINDEX_FRACTION * rows:
                return False
        with self.write_lock():
            self._retry(lambda: tbl.create_index(TEXT_INDEX, config=FTS(), replace=True))
        return True
