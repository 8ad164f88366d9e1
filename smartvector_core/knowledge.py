"""What the store knows beyond the chunks: its events and edges, as arrays for the query path.

:class:`KnowledgeState` loads the ``events`` and ``edges`` tables once and caches them by table
version; writes made through :meth:`record_events` are appended to the cache as well, so a
process's own access events do not force a reload. Live confidence and the relations graph are
computed from it for any ``as_of`` (so a past answer can be reproduced).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from .clock import to_us
from .memory import KnowledgeGraph, aggregate_events, live_confidence
from .models import EdgeType

EVENT_COLUMNS = ["doc_id", "event_type", "at_us", "delta", "query_id", "actor", "detail"]


def _events_frame(table: pa.Table) -> pd.DataFrame:
    if table.num_rows == 0:
        return pd.DataFrame({c: pd.Series(dtype="int64" if c == "at_us" else "float64" if c == "delta"
                                          else "object") for c in EVENT_COLUMNS})
    import pyarrow.compute as pc

    return pd.DataFrame({
        "doc_id": table.column("doc_id").to_numpy(zero_copy_only=False).astype(object),
        "event_type": table.column("event_type").to_numpy(zero_copy_only=False).astype(object),
        "at_us": pc.cast(table.column("at"), pa.int64()).to_numpy(),
        "delta": table.column("delta").to_numpy(zero_copy_only=False).astype(np.float64),
        "query_id": table.column("query_id").to_numpy(zero_copy_only=False).astype(object),
        "actor": table.column("actor").to_numpy(zero_copy_only=False).astype(object),
        "detail": table.column("detail").to_numpy(zero_copy_only=False).astype(object),
    })


@dataclass
class KnowledgeState:
    events: pd.DataFrame
    edges: pd.DataFrame
    graph: KnowledgeGraph
    chain_of: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, store) -> KnowledgeState:
        edges = store.edges().to_pandas()
        if len(edges):
            edges = edges[edges["status"].fillna("") != "rejected"]
        doc_ids = set(edges["src"]).union(edges["dst"]) if len(edges) else set()
        graph = KnowledgeGraph.from_edges(edges, doc_ids) if len(edges) else KnowledgeGraph([])
        return cls(events=_events_frame(store.events()), edges=edges, graph=graph,
                   chain_of=graph.version_chains())

    def confidence(self, doc_ids: np.ndarray, authority: np.ndarray, created_us: np.ndarray,
                   half_life_days: np.ndarray, as_of_us: int, *, ripple: bool = True) -> np.ndarray:
        """Live confidence at ``as_of`` of each document, from its event history."""
        events = self.events
        if not ripple and len(events):
            events = events[events["event_type"] != "RIPPLE"]
        agg = aggregate_events(events, np.asarray(doc_ids, dtype=object), as_of_us)
        return live_confidence(authority, created_us, half_life_days, as_of_us, agg)

    def supersedes_pairs(self, *, include_inferred: bool = True) -> pd.DataFrame:
        e = self.edges
        if not len(e):
            return e
        mask = e["edge_type"] == EdgeType.SUPERSEDES.value
        if not include_inferred:
            mask &= e["origin"] == "declared"
        return e[mask]


class KnowledgeCache:
    """Caches one :class:`KnowledgeState` per (events, edges) table version of a store."""

    def __init__(self, store) -> None:
        self.store = store
        self._key: tuple[int, int] | None = None
        self._state: KnowledgeState | None = None

    def _versions(self) -> tuple[int, int]:
        return (int(self.store.table("events").version), int(self.store.table("edges").version))

    def get(self) -> KnowledgeState:
        key = self._versions()
        if self._state is None or key != self._key:
            self._state = KnowledgeState.load(self.store)
            self._key = key
        return self._state

    def record_events(self, rows: list[dict]) -> None:
        """Append events to the store and to the cached state (no reload for our own writes)."""
        if not rows:
            return
        before = self._versions()
        self.store.append_events(rows)
        if self._state is not None and before == self._key:
            new = pd.DataFrame({
                "doc_id": [r["doc_id"] for r in rows], "event_type": [r["event_type"] for r in rows],
                "at_us": np.array([to_us(r["at"]) for r in rows], dtype=np.int64),
                "delta": np.array([float(r.get("delta", 0.0)) for r in rows]),
                "query_id": [r.get("query_id", "") for r in rows], "actor": [r.get("actor", "") for r in rows],
                "detail": [r.get("detail", "") for r in rows]})
            self._state.events = pd.concat([self._state.events, new], ignore_index=True)
            self._key = self._versions()
