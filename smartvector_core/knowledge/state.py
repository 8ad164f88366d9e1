"""The store's events, edges, documents and relations graph as one snapshot (:class:`KnowledgeState`),
cached per table version (:class:`KnowledgeCache`).

:class:`KnowledgeState` loads the ``events`` and ``edges`` tables once; writes made through
:meth:`KnowledgeCache.record_events` are appended to the cached state as well, so a process's own
access events do not force a reload. Trust and the relations graph are computed from it for any
``as_of`` (so a past answer can be reproduced).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ..consolidation.incremental import ConsolidationCache
from ..event_index import EventIndex, aggregate_tail, combine
from ..memory import KnowledgeGraph, live_trust
from ..temporal.codes import NO_END
from ..temporal.validity import is_live
from .doc_index import DocIndex
from .events import events_frame, live_edges, rows_frame


@dataclass
class KnowledgeState:
    """``versions``: the (events, edges, chunks) table versions the state was loaded at (None: not
    loaded from a store); ``verdicts``: how many times operator verdicts were appended to it since
    (a cache fitted on its verdicts is stale once this changes)."""

    events: pd.DataFrame
    edges: pd.DataFrame
    graph: KnowledgeGraph
    docs: pa.Table | None = None
    versions: tuple[int, int, int] | None = None
    verdicts: int = 0
    _indexes: dict[bool, DocIndex] = field(default_factory=dict)
    _event_index: Any = None
    _last_aggregates: Any = None

    def doc_index(self, *, with_inferred: bool = True) -> DocIndex:
        """Chains and supersession over every document (built once per state)."""
        if with_inferred not in self._indexes:
            self._indexes[with_inferred] = DocIndex.build(self.docs, self.edges, self.graph,
                                                          with_inferred=with_inferred)
        return self._indexes[with_inferred]

    @classmethod
    def load(cls, store, versions: tuple[int, int, int] | None = None, *, documents=None) -> KnowledgeState:
        """``documents``: a caught-up copy of :meth:`Store.documents` (``documents(store)``, e.g.
        :meth:`~smartvector_core.consolidation.incremental.ConsolidationCache.documents`), else it
        is read."""
        edges = store.edges().to_pandas()
        edges = live_edges(edges)
        docs = documents(store) if documents is not None else store.documents()
        # the graph holds only documents that have edges (a store of 100k mostly unrelated
        # documents would otherwise cost seconds per reload); the others have no relations
        stored = set(docs.column("doc_id").to_pylist()) if docs.num_rows else set()
        linked = (set(edges["src"]) | set(edges["dst"])) & stored if len(edges) else set()
        graph = KnowledgeGraph.from_edges(edges if len(edges) else None, sorted(linked))
        return cls(events=events_frame(store.events()), edges=edges, graph=graph, docs=docs, versions=versions)

    def trust(self, doc_ids: np.ndarray, authority: np.ndarray, as_of_us: int, *,
              superseded: np.ndarray | None = None, ripple: bool = True,
              doc_code: np.ndarray | None = None) -> np.ndarray:
        """Trust at ``as_of`` of each document, from its event history: the one computation
        every result, feedback message, chart and stat shows (:func:`memory.live_trust`).
        ``doc_ids`` may repeat (several passages of one document): one value per row.
        ``superseded``: per row, a newer version of its chain is in force at ``as_of``
        (None: read from :meth:`doc_index`); ``doc_code``: one integer per row naming its
        document (``Candidates.doc_code``: 0 .. documents − 1), when the caller has it (else the ids
        are factorised)."""
        ids = np.asarray(doc_ids, dtype=object)
        if superseded is None:
            superseded = self.superseded_at(ids, as_of_us)
        codes = pd.factorize(ids)[0] if doc_code is None else np.asarray(doc_code)
        if len(codes) and int(codes.max()) + 1 != len(ids):   # a document on several rows: once each
            first = np.unique(codes, return_index=True)[1]
            values = self.trust(ids[first], np.asarray(authority)[first], as_of_us,
                                superseded=np.asarray(superseded)[first], ripple=ripple)
            return values[codes]
        agg = self.event_aggregates(doc_ids if isinstance(doc_ids, np.ndarray) else ids, as_of_us, ripple=ripple)
        return live_trust(authority, as_of_us, agg, superseded)

    def superseded_at(self, doc_ids: np.ndarray, as_of_us: int) -> np.ndarray:
        """Per document: a newer version of its chain has taken effect by ``as_of``."""
        if self.docs is None or self.docs.num_rows == 0:
            return np.zeros(len(doc_ids), dtype=bool)
        index = self.doc_index()
        pos = index.lookup(doc_ids)
        return (pos >= 0) & (index.superseded_us[np.maximum(pos, 0)] <= int(as_of_us))

    def not_live(self, as_of_us: int | None) -> set[str]:
        """The stored documents that are not live at ``as_of`` (superseded then, or ARCHIVED:
        :func:`~smartvector_core.temporal.validity.is_live`); None: at the end of time (every
        scheduled successor has taken effect). A ripple neither hits nor traverses them."""
        if self.docs is None or self.docs.num_rows == 0:
            return set()
        index = self.doc_index()
        ids = self.docs.column("doc_id").to_numpy(zero_copy_only=False).astype(object)
        superseded_us = index.superseded_us[index.lookup(ids)]
        superseded = superseded_us != NO_END if as_of_us is None else superseded_us <= int(as_of_us)
        lifecycle = self.docs.column("lifecycle").to_numpy(zero_copy_only=False).astype(object)
        return set(ids[~is_live(superseded, lifecycle)].tolist())

    def event_aggregates(self, doc_ids: np.ndarray, as_of_us: int, *, ripple: bool = True):
        """Per-document event sums up to ``as_of`` (see :mod:`smartvector_core.event_index`).

        The sorted index covers the events present when it was built; rows appended since
        (this process's own access events) are summed directly, and the index is rebuilt once
        they pass 5% of it.
        """
        events = self.events
        last = self._last_aggregates
        if last is not None and last[0] is doc_ids and last[1:4] == (as_of_us, ripple, len(events)):
            return last[4]   # the same candidates asked again (trust, then the explanation)
        index = self._event_index
        if index is None or len(events) < index.size or len(events) - index.size > max(256, index.size // 20):
            index = self._event_index = EventIndex.build(events)
        agg = index.aggregate(doc_ids, as_of_us, ripple=ripple)
        if len(events) > index.size:
            agg = combine(agg, aggregate_tail(events, index.size, doc_ids, as_of_us, ripple=ripple))
        self._last_aggregates = (doc_ids, as_of_us, ripple, len(events), agg)
        return agg


class KnowledgeCache:
    """Caches one :class:`KnowledgeState` per (events, edges, chunks) table version of a store."""

    def __init__(self, store) -> None:
        self.store = store
        self._key: tuple[int, int, int] | None = None
        self._state: KnowledgeState | None = None
        # one refresh at a time (threads that ask meanwhile get its state), and the append of our
        # own events to the store and to the state as one step beside it
        self._lock = threading.RLock()
        self._documents = ConsolidationCache(chunks=False)   # the documents, caught up per write

    def versions(self) -> tuple[int, int, int]:
        """The (events, edges, chunks) table versions a state is valid for."""
        return self.store.versions(("events", "edges", "chunks"))

    def get(self) -> KnowledgeState:
        """The state of the tables' versions now: a whole snapshot (a reader keeps the one it
        got while another thread swaps in the next)."""
        state = self._state
        if state is not None and state.versions == self.versions():
            return state
        with self._lock:
            key = self.versions()
            if self._state is None or key != self._key:
                self._state = KnowledgeState.load(self.store, key, documents=self._documents.documents)
                self._key = key
            return self._state

    def record_events(self, rows: list[dict]) -> None:
        """Append events to the store and to the cached state (no reload for our own writes)."""
        if not rows:
            return
        with self._lock:
            before = self.versions()
            self.store.append_events(rows)
            if self._state is not None and before == self._key:
                self._state.events = pd.concat([self._state.events, rows_frame(rows)], ignore_index=True)
                if any(str(r["event_type"]).startswith("FEEDBACK") for r in rows):
                    self._state.verdicts += 1   # verdicts changed: a calibration fitted on them is refitted
                self._state.versions = self.versions()
                self._key = self._state.versions
