"""The events table as a pandas frame: the one conversion (stored Arrow rows, or rows about to be
appended) every reader of the event history uses; and the edges that stand (not rejected)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..clock import to_us

EVENT_COLUMNS = ["doc_id", "event_type", "at_us", "delta", "query_id", "actor", "detail"]


def events_frame(table: pa.Table) -> pd.DataFrame:
    """The events ``table`` (the store's schema: ``at`` a timestamp) as a frame of
    :data:`EVENT_COLUMNS` (``at_us``: microseconds since the epoch, int64)."""
    if table.num_rows == 0:
        return pd.DataFrame({c: pd.Series(dtype="int64" if c == "at_us" else "float64" if c == "delta"
                                          else "object") for c in EVENT_COLUMNS})
    return pd.DataFrame({
        "doc_id": table.column("doc_id").to_numpy(zero_copy_only=False).astype(object),
        "event_type": table.column("event_type").to_numpy(zero_copy_only=False).astype(object),
        "at_us": pc.cast(table.column("at"), pa.int64()).to_numpy(),
        "delta": table.column("delta").to_numpy(zero_copy_only=False).astype(np.float64),
        "query_id": table.column("query_id").to_numpy(zero_copy_only=False).astype(object),
        "actor": table.column("actor").to_numpy(zero_copy_only=False).astype(object),
        "detail": table.column("detail").to_numpy(zero_copy_only=False).astype(object),
    })


def rows_frame(rows: list[dict]) -> pd.DataFrame:
    """Event rows as written (``at`` a datetime; ``delta``, ``query_id``, ``actor``, ``detail``
    optional) as a frame of :data:`EVENT_COLUMNS`."""
    return pd.DataFrame({
        "doc_id": [r["doc_id"] for r in rows], "event_type": [r["event_type"] for r in rows],
        "at_us": np.array([to_us(r["at"]) for r in rows], dtype=np.int64),
        "delta": np.array([float(r.get("delta", 0.0)) for r in rows]),
        "query_id": [r.get("query_id", "") for r in rows], "actor": [r.get("actor", "") for r in rows],
        "detail": [r.get("detail", "") for r in rows]})


def live_edges(edges: pd.DataFrame) -> pd.DataFrame:
    """The stored ``edges`` (the store's edges table as a frame) that stand: every edge but those
    an operator rejected (``status`` "rejected"). Chains, the relations graph and consolidation
    read these."""
    return edges[edges["status"].fillna("") != "rejected"] if len(edges) else edges
