"""The store's append-only tables, ``events`` (the audit) and ``queries`` (the query log):
appends under the write lock, their small fragments merged (:mod:`.fragments`), reads of all
rows or by key. A part of
:class:`smartvector_core.store.Store`, over the shared :class:`.context.StoreContext`."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
from lancedb.expr import col

from .context import StoreContext, read_whole
from .fragments import merge_small_fragments
from .schema import EVENTS_SCHEMA, QUERIES_SCHEMA

LOG_MERGE_EVERY = 50   # merge an append-only table's small fragments every this many writes of one process


class LogTables:
    """The ``events`` and ``queries`` tables of one store."""

    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx

    # ----------------------------------------------------------------------------- events
    def append_events(self, rows: Iterable[dict[str, Any]]) -> int:
        rows = list(rows)
        if not rows:
            return 0
        for r in rows:
            r.setdefault("event_id", os.urandom(12).hex())
            r.setdefault("delta", 0.0)
            r.setdefault("query_id", "")
            r.setdefault("actor", "")
            r.setdefault("detail", "")
            if isinstance(r["detail"], dict):
                r["detail"] = json.dumps(r["detail"], sort_keys=True, default=str)
        return self._append("events", rows, EVENTS_SCHEMA)

    def events(self, doc_ids: Sequence[str] | None = None) -> pa.Table:
        return self._read_log("events", "doc_id", doc_ids)

    def existing_event_ids(self, event_ids: Sequence[str]) -> set[str]:
        """Which of ``event_ids`` are already in the events table (for idempotent writers)."""
        found: set[str] = set()
        unique = list(dict.fromkeys(event_ids))
        for start in range(0, len(unique), 5000):
            part = unique[start:start + 5000]
            rows = (self.ctx.tables["events"].search().where(col("event_id").isin(part))
                    .select(["event_id"]).limit(len(part) + 1).to_arrow())
            found.update(rows.column("event_id").to_pylist())
        return found

    # ---------------------------------------------------------------------------- queries
    def log_queries(self, rows: Iterable[dict[str, Any]]) -> int:
        return self._append("queries", list(rows), QUERIES_SCHEMA)

    def _append(self, name: str, rows: list[dict[str, Any]], schema: pa.Schema) -> int:
        """Append ``rows`` to the append-only table ``name`` (events, queries) under the write
        lock; every ``LOG_MERGE_EVERY`` writes of this process its small fragments are merged
        (:func:`.fragments.merge_small_fragments`: feedback clicks and query logs write one tiny
        fragment each). Not after every write as the chunks table: a click need not list the
        table's fragments each time (the schedule these tables had before the tiered merge). The
        race that an every-8 merge once made frequent was a consolidation reading chunks newer than
        its documents (docs/RELIABILITY.md, fixed in ``consolidation.runner._findings``). Returns how
        many."""
        if not rows:
            return 0
        table = pa.Table.from_pylist(rows, schema=schema)
        tbl = self.ctx.tables[name]
        with self.ctx.write_lock(counted=name != "queries"):   # no knowledge state reads the query log
            self.ctx.retry(lambda: tbl.add(table))
            self.ctx.writes[name] = self.ctx.writes.get(name, 0) + 1
            if self.ctx.writes[name] % LOG_MERGE_EVERY == 0:
                merge_small_fragments(tbl, self.ctx.unmergeable, name)
        return len(rows)

    def _read_log(self, name: str, key: str, values: Sequence[str] | None) -> pa.Table:
        """Every row of the append-only table ``name``, or those whose ``key`` is in ``values``."""
        tbl = self.ctx.tables[name]
        q = tbl.search()
        if values is not None:
            q = q.where(col(key).isin(list(values)))
        return read_whole(tbl, q)

    def queries(self, query_ids: Sequence[str] | None = None) -> pa.Table:
        return self._read_log("queries", "query_id", query_ids)
