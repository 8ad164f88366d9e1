"""What the store knows beyond the chunks: its events and edges, as arrays for the query path.

:class:`KnowledgeState` loads the ``events`` and ``edges`` tables once and caches them by table
version; writes made through :meth:`record_events` are appended to the cache as well, so a
process's own access events do not force a reload. Trust and the relations graph are
computed from it for any ``as_of`` (so a past answer can be reproduced).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .clock import to_us
from .event_index import EventIndex, aggregate_tail, combine
from .memory import KnowledgeGraph, live_trust
from .memory.chains import NO_END, chain_labels, effective_us, superseded_at
from .models import EdgeType
from .retrieval.candidates import document_fields
from .retrieval.text_index import TextIndex

EVENT_COLUMNS = ["doc_id", "event_type", "at_us", "delta", "query_id", "actor", "detail"]
TEXT_INDEX_NOW_ROWS = 20_000   # ours: a store of up to this many chunk rows builds its in-memory text
#                                index at its first question (0.4–0.9 s at 20k distinct texts); a larger one in the background


def _building(store, into: Future):
    """A function that builds the store's :class:`TextIndex` into ``into`` (a failure is kept
    there: LanceDB's own index then answers)."""
    def build() -> None:
        try:
            into.set_result(TextIndex.from_store(store))
        except Exception as exc:  # noqa: BLE001 - kept in the future, read by text_index
            into.set_exception(exc)
    return build


def _events_frame(table: pa.Table) -> pd.DataFrame:
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


@dataclass
class KnowledgeState:
    events: pd.DataFrame
    edges: pd.DataFrame
    graph: KnowledgeGraph
    docs: pa.Table | None = None
    _indexes: dict[bool, DocIndex] = field(default_factory=dict)
    _event_index: Any = None
    _last_aggregates: Any = None
    _document_fields: dict[str, np.ndarray] | None = None
    # retrieval: full-text results per (name or question, existence bound): a name's store-wide
    # matches, a question's best hits;
    # valid while this state is (it is replaced when any table's version changes)
    full_text_results: dict = field(default_factory=dict)
    calibration: dict[str, tuple[np.ndarray, np.ndarray]] | None = None   # the store's refit (service)
    current_share: float = 1.0    # current chunks / all chunk rows (the rest: retired versions, kept for restore)
    chunk_rows: int = 0           # rows of the chunks table, retired versions included
    _created_sorted: np.ndarray | None = None
    _text_index: Future | None = None   # the chunks table's TextIndex (built on first use)

    def calibration_knots(self, profile: str) -> tuple[np.ndarray, np.ndarray] | None:
        """This store's calibration knots of ``profile`` refitted on operators' verdicts
        (None: the shipped prior applies; see ``SmartVector.store_calibration``)."""
        return (self.calibration or {}).get(profile)

    def doc_index(self, *, with_inferred: bool = True) -> DocIndex:
        """Chains and supersession over every document (built once per state)."""
        if with_inferred not in self._indexes:
            self._indexes[with_inferred] = DocIndex.build(self.docs, self.edges, self.graph,
                                                          with_inferred=with_inferred)
        return self._indexes[with_inferred]

    def document_fields(self) -> dict[str, np.ndarray] | None:
        """The document-level candidate fields of every document, in ``doc_index()`` order
        (built once per state; None for an empty store). They are written on every chunk of a
        document, so a search need not read them from LanceDB."""
        if self.docs is None or self.docs.num_rows == 0:
            return None
        if self._document_fields is None:
            self._document_fields = document_fields(self.docs)
        return self._document_fields

    @classmethod
    def load(cls, store) -> KnowledgeState:
        edges = store.edges().to_pandas()
        if len(edges):
            edges = edges[edges["status"].fillna("") != "rejected"]
        docs = store.documents()
        # the graph holds only documents that have edges (a store of 100k mostly unrelated
        # documents would otherwise cost seconds per reload); the others have no relations
        stored = set(docs.column("doc_id").to_pylist()) if docs.num_rows else set()
        linked = (set(edges["src"]) | set(edges["dst"])) & stored if len(edges) else set()
        graph = KnowledgeGraph.from_edges(edges if len(edges) else None, sorted(linked))
        rows = store.count_rows("chunks")
        current_share = store.count_chunks() / rows if rows else 1.0
        return cls(events=_events_frame(store.events()), edges=edges, graph=graph, docs=docs,
                   current_share=current_share, chunk_rows=rows)

    def text_index(self, store) -> TextIndex | None:
        """The in-memory copy of the chunks table (:class:`retrieval.text_index.TextIndex`: its
        full-text index, and each row's id, document and text for the vector hits), or None while
        it is being built. Built at the first call: there and then for a store of up
        to ``TEXT_INDEX_NOW_ROWS`` rows, else in the background (the caller searches LanceDB's
        index meanwhile); a build that fails leaves LanceDB's index in use."""
        if self._text_index is None:
            self._text_index = Future()
            build = _building(store, self._text_index)
            if self.chunk_rows <= TEXT_INDEX_NOW_ROWS:
                build()
            else:   # a daemon: a one-shot command does not wait for it at exit
                threading.Thread(target=build, name="smartvector-text-index", daemon=True).start()
        built = self._text_index
        return built.result() if built.done() and built.exception() is None else None

    def wait_for_text_index(self, store, timeout: float | None = None) -> TextIndex | None:
        """:meth:`text_index`, waiting up to ``timeout`` seconds for a background build (a server
        warming up, a benchmark that measures the steady state); None if it is not ready then."""
        self.text_index(store)
        try:
            return self._text_index.result(timeout=timeout)
        except Exception:  # noqa: BLE001 - not ready in time, or the build failed: LanceDB answers
            return None

    def existing_share(self, as_of_us: int | None) -> float:
        """The share of the chunk table's rows a search at ``as_of`` may return (current, and
        created by then; None: no time bound), estimated as ``current_share`` times the share of
        documents created by ``as_of`` (documents counted alike, whatever their size). Used to
        size an unfiltered search (``Store.search(overfetch=)``): an estimate, not a result."""
        fields = self.document_fields()
        if fields is None:
            return 0.0
        if as_of_us is None:
            return self.current_share
        if self._created_sorted is None:
            self._created_sorted = np.sort(fields["created_us"])
        created = self._created_sorted
        return self.current_share * float(np.searchsorted(created, as_of_us, side="right")) / len(created)

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
    """Caches one :class:`KnowledgeState` per (events, edges) table version of a store."""

    def __init__(self, store) -> None:
        self.store = store
        self._key: tuple[int, int, int] | None = None
        self._state: KnowledgeState | None = None

    def versions(self) -> tuple[int, int, int]:
        """The (events, edges, chunks) table versions a state is valid for."""
        return self.store.versions(("events", "edges", "chunks"))

    def get(self) -> KnowledgeState:
        key = self.versions()
        if self._state is None or key != self._key:
            before, before_key = self._state, self._key
            self._state = KnowledgeState.load(self.store)
            if before is not None and before_key is not None and before_key[2] == key[2]:
                self._state._text_index = before._text_index   # the same chunks: the same text index
            self._key = key
        return self._state

    def record_events(self, rows: list[dict]) -> None:
        """Append events to the store and to the cached state (no reload for our own writes)."""
        if not rows:
            return
        before = self.versions()
        self.store.append_events(rows)
        if self._state is not None and before == self._key:
            new = pd.DataFrame({
                "doc_id": [r["doc_id"] for r in rows], "event_type": [r["event_type"] for r in rows],
                "at_us": np.array([to_us(r["at"]) for r in rows], dtype=np.int64),
                "delta": np.array([float(r.get("delta", 0.0)) for r in rows]),
                "query_id": [r.get("query_id", "") for r in rows], "actor": [r.get("actor", "") for r in rows],
                "detail": [r.get("detail", "") for r in rows]})
            self._state.events = pd.concat([self._state.events, new], ignore_index=True)
            if any(str(r["event_type"]).startswith("FEEDBACK") for r in rows):
                self._state.calibration = None   # verdicts changed: the store's calibration is refitted
            self._key = self.versions()


def _edge_rows(edges: pd.DataFrame, edge_type: EdgeType, position: pd.Index,
               with_inferred: bool) -> tuple[np.ndarray, np.ndarray]:
    """Row positions (src, dst) of the ``edge_type`` edges between known documents
    (declared ones only unless ``with_inferred``)."""
    if not len(edges):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    picked = edges[edges["edge_type"] == edge_type.value]
    if not with_inferred:
        picked = picked[picked["origin"] == "declared"]
    s = position.get_indexer(picked["src"].to_numpy())
    d = position.get_indexer(picked["dst"].to_numpy())
    ok = (s >= 0) & (d >= 0)
    return s[ok], d[ok]


@dataclass
class DocIndex:
    """Document-level arrays over the whole store, for version chains and supersession.

    ``effective_us``: when a version takes effect (``valid_from``, else ``created_at``).
    ``chain``: version-chain label: connected components of SUPERSEDES edges (declared, plus
    inferred ones when ``with_inferred``); ``superseded_us``: the earliest effective time of a
    direct successor (NO_END: never). Both as defined once in :mod:`smartvector_core.memory.chains`.
    ``relational``: the paper's relational importance over live documents (0 where no edges).
    """

    ids: np.ndarray
    position: pd.Index
    effective_us: np.ndarray
    chain: np.ndarray
    superseded_us: np.ndarray
    relational: np.ndarray
    dependency_stale_us: np.ndarray   # when the first document this one relies on was superseded
    _where: dict | None = field(default=None, repr=False)

    @classmethod
    def build(cls, docs: pa.Table, edges: pd.DataFrame, graph: KnowledgeGraph, *,
              with_inferred: bool = True) -> DocIndex:
        n = docs.num_rows
        ids = np.asarray(docs.column("doc_id").to_pylist(), dtype=object)
        position = pd.Index(ids)
        created = pc.cast(docs.column("created_at"), pa.int64()).to_numpy(zero_copy_only=False)
        valid_from = pc.cast(docs.column("valid_from"), pa.int64()).fill_null(-1).to_numpy()
        effective = effective_us(valid_from, created)
        s, d = _edge_rows(edges, EdgeType.SUPERSEDES, position, with_inferred)
        labels = chain_labels(n, s, d)
        superseded = superseded_at(effective, s, d)
        live = superseded == NO_END
        relational = np.zeros(n)
        if graph.doc_ids:
            linked = np.asarray(graph.doc_ids, dtype=object)
            at = position.get_indexer(linked)
            relational[at] = graph.relational_importance(linked, live[at])
        dependency_stale = np.full(n, NO_END, dtype=np.int64)
        s, d = _edge_rows(edges, EdgeType.DEPENDS_ON, position, with_inferred)
        np.minimum.at(dependency_stale, s, superseded[d])
        return cls(ids, position, effective, labels, superseded, relational, dependency_stale)

    def lookup(self, doc_ids: np.ndarray) -> np.ndarray:
        """Positions of ``doc_ids`` in the index (-1 where unknown): one dict probe per id."""
        if self._where is None:
            self._where = {d: i for i, d in enumerate(self.ids.tolist())}
        get = self._where.get
        ids = np.asarray(doc_ids, dtype=object)
        return np.array([get(d, -1) for d in ids.tolist()], dtype=np.intp).reshape(len(ids))
