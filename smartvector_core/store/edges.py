"""The edges table: supersedes / depends_on / contradicts, declared or inferred, with evidence
and a review ``status`` for contradictions, keyed by ``edge_id``. A part of
:class:`smartvector_core.store.Store`, over the shared :class:`.context.StoreContext`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa

from .context import StoreContext, read_whole
from .schema import EDGES_SCHEMA, edge_id


class EdgeTable:
    """Reads and writes of one store's edges table."""

    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx

    def upsert_edges(self, rows: Iterable[dict[str, Any]]) -> int:
        rows = list(rows)
        if not rows:
            return 0
        for r in rows:
            r.setdefault("edge_id", edge_id(r["src"], r["edge_type"], r["dst"]))
            r.setdefault("status", "")
            r.setdefault("evidence", "")
        table = pa.Table.from_pylist(rows, schema=EDGES_SCHEMA)
        tbl = self.ctx.tables["edges"]
        with self.ctx.write_lock():
            self.ctx.retry(lambda: tbl.merge_insert("edge_id").when_matched_update_all()
                        .when_not_matched_insert_all().execute(table))
        return len(rows)

    def edges(self) -> pa.Table:
        tbl = self.ctx.tables["edges"]
        return read_whole(tbl, tbl.search())
