"""The store's events, edges, documents and relations graph as one snapshot (:class:`KnowledgeState`),
cached per table version (:class:`KnowledgeCache`).

:class:`KnowledgeState` loads the ``events`` and ``edges`` tables once; writes made through
:meth:`KnowledgeCache.record_events` are appended to the cached state as well, so a process's own
access events do not force a reload. Trust and the relations graph are computed from it for any
``as_of`` (so a past answer can be reproduced).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
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

REFRESH_ROUNDS = 3   # ours: background loads tried before the next query's own (a write of ours during each)


@dataclass
class KnowledgeState:
    """``versions``: the (events, edges, chunks) table versions the state was loaded at (None: not
    loaded from a store); ``own_writes``: :meth:`Store.own_writes` before its tables were read
    (it holds every write of this process up to that count; None: unknown); ``verdicts``: how many times operator verdicts were appended to it since
    (a cache fitted on its verdicts is stale once this changes)."""

    events: pd.DataFrame
    edges: pd.DataFrame
    graph: KnowledgeGraph
    docs: pa.Table | None = None
    versions: tuple[int, int, int] | None = None
    verdicts: int = 0
    own_writes: int | None = None   # the store's own_writes when it was loaded (None: unknown)
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
    def load(cls, store, versions: tuple[int, int, int] | None = None, *, documents=None,
             events: pd.DataFrame | None = None) -> KnowledgeState:
        """``documents``: a caught-up copy of :meth:`Store.documents` (``documents(store)``, e.g.
        :meth:`~smartvector_core.consolidation.incremental.ConsolidationCache.documents`), else it
        is read; ``events``: the events table read already (``events_frame``), else it is read."""
        edges = store.edges().to_pandas()
        edges = live_edges(edges)
        docs = documents(store) if documents is not None else store.documents()
        # the graph holds only documents that have edges (a store of 100k mostly unrelated
        # documents would otherwise cost seconds per reload); the others have no relations
        stored = set(docs.column("doc_id").to_pylist()) if docs.num_rows else set()
        linked = (set(edges["src"]) | set(edges["dst"])) & stored if len(edges) else set()
        graph = KnowledgeGraph.from_edges(edges if len(edges) else None, sorted(linked))
        events = events_frame(store.events()) if events is None else events
        return cls(events=events, edges=edges, graph=graph, docs=docs, versions=versions)

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

    def event_index(self) -> EventIndex:
        """The sorted event index (:mod:`smartvector_core.event_index`), built when missing or
        when the rows appended since pass 5% of it."""
        events, index = self.events, self._event_index
        if index is None or len(events) < index.size or len(events) - index.size > max(256, index.size // 20):
            index = self._event_index = EventIndex.build(events)
        return index

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
        index = self.event_index()
        agg = index.aggregate(doc_ids, as_of_us, ripple=ripple)
        if len(events) > index.size:
            agg = combine(agg, aggregate_tail(events, index.size, doc_ids, as_of_us, ripple=ripple))
        self._last_aggregates = (doc_ids, as_of_us, ripple, len(events), agg)
        return agg


class KnowledgeCache:
    """Caches one :class:`KnowledgeState` per (events, edges, chunks) table version of a store.

    ``get(wait=False)`` (the query path) does not wait for the load that another process's
    commit makes needed: it answers from the state it has while one background thread loads the
    next (and ``prepare`` readies what the queries build per state: the query cache's document
    fields, chunk counts, text-index catch-up, calibration), then swaps it in. Only a state that
    holds every write of this process is served so: each state records the store's
    ``own_writes`` count from before its tables were read (:meth:`Store.own_writes`), and our own
    events are appended to it (:meth:`record_events`); after a write of ours that it lacks (an
    ingest, a lifecycle move) the next query loads the state itself, as ``get()`` always does.
    So the query after our own write sees it; after another process's write a query sees it
    once the background load is done (about one load, 0.1–0.4 s at 100k chunks)."""

    def __init__(self, store, prepare: Callable[[KnowledgeState], None] | None = None) -> None:
        self.store = store
        self._key: tuple[int, int, int] | None = None
        self._state: KnowledgeState | None = None
        # one refresh at a time (threads that ask meanwhile get its state), and the append of our
        # own events to the store and to the state as one step beside it
        self._lock = threading.RLock()
        self._load_lock = threading.Lock()   # one load at a time (the documents' copy is not thread-safe)
        self._refreshing = threading.Lock()  # held while a background refresh runs
        self._prepare = prepare
        # our events since a background load read them, each with 1 when it held verdicts
        self._since_load: list[tuple[pd.DataFrame, int]] | None = None
        self._documents = ConsolidationCache(chunks=False)   # the documents, caught up per write

    def versions(self) -> tuple[int, int, int]:
        """The (events, edges, chunks) table versions a state is valid for."""
        return self.store.versions(("events", "edges", "chunks"))

    def _own_writes(self) -> int | None:
        return getattr(self.store, "own_writes", None)

    def get(self, *, wait: bool = True) -> KnowledgeState:
        """The state of the tables' versions now: a whole snapshot (a reader keeps the one it
        got while another thread swaps in the next). ``wait=False``: the state held, if it holds
        every write of this process, while a background thread loads the new one (see the class)."""
        state = self._state
        if state is not None:
            if state.versions == self.versions():
                return state
            if not wait and self._servable(state):
                return state
        with self._lock:   # (waits for an append of our events in progress, then looks again)
            state = self._state
            if state is not None and not wait and state.versions != self.versions() and self._servable(state):
                return state
            if state is None or self.versions() != self._key:
                self._state = self._load()
                self._key = self._state.versions
            return self._state

    def _servable(self, state: KnowledgeState) -> bool:
        """``state`` holds every write this process has finished, so :meth:`get` may serve it
        (a write still in progress has not returned yet: a query beside it may answer without
        it). A background load is started only when no write of ours is in progress (a commit
        of ours already seen in the versions is not another process's)."""
        if state.own_writes is None or state.own_writes != self._own_writes():
            return False
        if not getattr(self.store, "own_writing", True):
            self._refresh_in_background()
        return True

    def _load(self, *, background: bool = False) -> KnowledgeState:
        """A fresh state. The count of our writes, the versions and the events are read under
        the cache's lock, so no event of ours is appended meanwhile; ``background``: the events
        we append from then on are kept (``_since_load``) for :meth:`_swap` to add."""
        with self._load_lock:
            with self._lock:
                own, key = self._own_writes(), self.versions()
                events = events_frame(self.store.events())
                if background:
                    self._since_load = []
            state = KnowledgeState.load(self.store, key, documents=self._documents.documents, events=events)
            state.own_writes = own
            return state

    def _refresh_in_background(self) -> None:
        if self._refreshing.acquire(blocking=False):
            threading.Thread(target=self._refresh, name="smartvector-knowledge-refresh", daemon=True).start()

    def _refresh(self) -> None:
        """Load and prepare the next state, then swap it in (:meth:`_swap`; again, up to
        ``REFRESH_ROUNDS`` times, when a write of ours other than events came in meanwhile)."""
        try:
            for _ in range(REFRESH_ROUNDS):
                state = self._load(background=True)
                if self._prepare is not None:
                    with contextlib.suppress(Exception):   # a query builds what failed here, itself
                        self._prepare(state)
                with self._lock:
                    if self._swap(state):
                        return
        except Exception:  # noqa: BLE001 - the next query loads the state itself
            pass
        finally:
            with self._lock:
                self._since_load = None
            self._refreshing.release()

    def _swap(self, state: KnowledgeState) -> bool:
        """Under the lock: put ``state`` in place, with the events we appended since its load,
        if those were our only writes since (one section each: else False, load again). A newer state held (a
        query of ours loaded one meanwhile) stays."""
        held, pending = self._state, self._since_load or []
        self._since_load = None
        if held is not None and held.versions is not None and state.versions is not None \
                and all(h >= s for h, s in zip(held.versions, state.versions, strict=True)):
            return True
        if state.own_writes is None or state.own_writes + len(pending) != self._own_writes():
            return False
        if pending:
            state.events = pd.concat([state.events, *(frame for frame, _ in pending)], ignore_index=True)
            state.verdicts += sum(verdicts for _, verdicts in pending)
            state.own_writes += len(pending)
        self._state, self._key = state, state.versions
        return True

    def record_events(self, rows: list[dict]) -> None:
        """Append events to the store and to the cached state (no reload for our own writes).
        A state behind other processes' writes only gets them too, and stays servable by
        ``get(wait=False)``."""
        if not rows:
            return
        with self._lock:
            own = self._own_writes()
            before = self.versions()
            self.store.append_events(rows)
            state = self._state
            if state is None:
                return
            complete = state.own_writes is not None and state.own_writes == own
            if before != self._key and not complete:
                return   # the next get loads a state with them
            frame = rows_frame(rows)
            verdicts = int(any(str(r["event_type"]).startswith("FEEDBACK") for r in rows))
            state.events = pd.concat([state.events, frame], ignore_index=True)
            if self._since_load is not None:
                self._since_load.append((frame, verdicts))   # a background load in progress adds them too
            state.verdicts += verdicts   # verdicts changed: a calibration fitted on them is refitted
            if before == self._key:
                state.versions = self.versions()
                self._key = state.versions
            after = self._own_writes()
            # ours alone since ``own`` (this append's one section): the state holds them all
            state.own_writes = after if complete and after == own + 1 else None
