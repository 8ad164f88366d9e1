"""One consolidation run: read the store, call the planners in order, write their records.

Order (each step idempotent; a second run with nothing new writes nothing): findings (local or
Ray) -> supersession -> supersession applied -> contradictions -> dependencies -> ripple ->
writes (edges, then events) -> lifecycle (LIFECYCLE events, then the ``lifecycle`` and
``superseded_at`` fields in one commit).

**Crash safety**: writes go edges -> events -> fields. Event ids are derived from what they
record (trigger, document), and a move whose LIFECYCLE event is already the document's latest
is not written twice, so rerunning after a crash converges to the uninterrupted result. The
store is tagged ``pre-consolidate`` (one rolling tag) before each run.

**Exactly once beside other writers**: runs plan without the store's write lock, so two may
plan the same work. Each idempotent write is checked and made under the lock: events are
appended only if their id is absent (:func:`append_new_events`), and a document's lifecycle moves are
written only if the store still holds the state they start from (:func:`write_moves`): the
second of two runs (or of a run and an ingest's run) finds the moves made and writes none.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from ..clock import from_us, to_us
from ..config.consolidation import DEFAULT_CONSOLIDATION, ConsolidationConfig
from ..knowledge import edge_rows, events_frame, live_edges, rows_frame
from ..memory import aggregate_events, live_trust, wake_on_access
from ..memory.chains import NO_END, chain_ids
from ..models import EdgeType, EventType, Lifecycle, event_detail
from ..temporal.validity import is_live
from .contradictions import contradiction_twin, plan_contradictions, plan_settlements
from .dependencies import plan_dependencies
from .documents import Documents, _us, vector_sums
from .incremental import ConsolidationCache, RunInputs
from .lifecycle import count_moves, move_events, plan_moves
from .neighbours import ConsolidationPlan, Findings, local_finder
from .records import ConsolidationReport
from .ripple import plan_ripple, ripple_graph
from .supersession import (
    Supersession,
    apply_supersession,
    document_texts,
    plan_supersession,
    same_title_versions,
)

Finder = Callable[..., Findings]


@dataclass
class _Run:
    """What one run read from the store (before it writes) and what it plans to write."""

    now: datetime
    now_us: int
    table: Any                                # the documents table (Store.documents)
    docs: Documents
    query_side: np.ndarray                    # bool: the documents compared with their neighbours
    events: pd.DataFrame
    live_edges: pd.DataFrame                  # stored edges that are not rejected
    stored_edges: pd.DataFrame
    known_ids: set
    sup_src: np.ndarray                       # stored SUPERSEDES edges, as document rows
    sup_dst: np.ndarray
    new_edges: list = field(default_factory=list)
    new_events: list = field(default_factory=list)
    settled_rows: list = field(default_factory=list)
    inputs: RunInputs | None = None           # what the store holds, from a warm cache (None: read it)


def consolidate(store, knowledge_state, *, now: datetime, config: ConsolidationConfig = DEFAULT_CONSOLIDATION,
                full: bool = False, finder: Finder | None = None,
                cache: ConsolidationCache | None = None) -> ConsolidationReport:
    """Run the agent once at ``now`` (see the package docstring); returns what it did.

    ``finder``: ``(plan) -> Findings`` computes the pure, expensive part (neighbour
    pairs and the per-pair checks) for every query document; None runs it in this process
    (:func:`~.neighbours.local_finder`), :func:`smartvector_core.scaleout.ray_consolidate.ray_finder`
    as Ray tasks. The planners and writes below are the same for both.

    ``knowledge_state``: a current :class:`~smartvector_core.knowledge.KnowledgeState` whose
    ``events`` are used; None reads the events table (all that is needed).

    ``cache``: a :class:`~.incremental.ConsolidationCache` that holds the documents and current
    chunks of this store (caught up here), read from it instead of the store: the same inputs,
    so the same writes (the local engine only; its citation index stays in this process).

    Phases, each timed in ``report.timings``: read -> neighbours -> supersession ->
    contradictions -> dependencies -> ripple -> writes (edges, then events) -> lifecycle.
    """
    t_start = time.perf_counter()
    report = ConsolidationReport(full=full)
    store.tag(config.tag)
    t_read = time.perf_counter()
    inputs = cache.inputs(store) if cache is not None and finder is None else None
    table = inputs.doc_table if inputs is not None else store.documents()
    report.documents = table.num_rows
    if table.num_rows == 0:
        report.seconds = time.perf_counter() - t_start
        return report
    run = _read(store, table, knowledge_state, now=now, full=full, inputs=inputs)
    report.query_documents = int(run.query_side.sum())
    report.timings["read"] = time.perf_counter() - t_read
    timed = _timer(report.timings)
    plan, findings = timed("neighbours", _neighbours_phase, store, run, report, config, finder)
    sup = timed("supersession", _supersession_phase, run, report, plan, findings, config)
    timed("contradictions", _contradictions_phase, run, report, plan, findings, sup, config)
    timed("dependencies", _dependencies_phase, run, report, findings, sup, config)
    timed("ripple", _ripple_phase, store, run, sup, config)
    written = _write_plan(store, run)
    report.rippled = sum(r["event_type"] == EventType.RIPPLE.value for r in written)
    timed("lifecycle", _lifecycle_phase, store, run, report, sup, written, config)
    report.seconds = time.perf_counter() - t_start
    return report


def _timer(timings: dict[str, float]) -> Callable:
    """``timed(name, phase, *args)``: run ``phase(*args)``, its seconds into ``timings[name]``."""
    def timed(name: str, phase: Callable, *args):
        t0 = time.perf_counter()
        out = phase(*args)
        timings[name] = time.perf_counter() - t0
        return out
    return timed


def _read(store, table, knowledge_state, *, now: datetime, full: bool, inputs: RunInputs | None = None) -> _Run:
    """The documents (``table``), the query side (every document when ``full``, else the
    UNCONSOLIDATED ones), the events and the stored edges, read before the run writes."""
    docs = inputs.docs if inputs is not None else Documents.from_table(table)
    query_side = np.ones(len(docs), bool) if full else docs.states == Lifecycle.UNCONSOLIDATED.value
    events = knowledge_state.events if knowledge_state is not None else _stored_events(store)
    edges = store.edges().to_pandas()
    known_ids = set(edges["edge_id"]) if len(edges) else set()
    standing = live_edges(edges)
    sup_src, sup_dst = edge_rows(standing, EdgeType.SUPERSEDES, docs.position, with_inferred=True)
    return _Run(now, to_us(now), table, docs, query_side, events, standing, edges, known_ids, sup_src, sup_dst,
                inputs=inputs)


def _neighbours_phase(store, run: _Run, report: ConsolidationReport, config: ConsolidationConfig,
                      finder: Finder | None) -> tuple[ConsolidationPlan | None, Findings]:
    """The finder's plan and findings (neighbour pairs and their checks); counts the chunks and
    the distinct document pairs examined."""
    docs = run.docs
    plan, findings = _findings(store, docs, run.query_side, chain_ids(docs.ids, run.sup_src, run.sup_dst),
                               config, finder, run.inputs)
    if plan is not None:
        report.chunks = len(plan.chunk_doc)
        doc_a, doc_b = plan.chunk_doc[findings.chunk_a], plan.chunk_doc[findings.chunk_b]
        report.examined_pairs = int(len(np.unique(np.minimum(doc_a, doc_b).astype(np.int64) * len(docs)
                                                  + np.maximum(doc_a, doc_b))))
    return plan, findings


def _supersession_phase(run: _Run, report: ConsolidationReport, plan: ConsolidationPlan | None,
                        findings: Findings, config: ConsolidationConfig) -> Supersession:
    """Implicit versions (same title, near duplicates) as new SUPERSEDES edges, then
    ``superseded_at`` and chains from every live SUPERSEDES edge."""
    docs = run.docs
    centroids = plan.centroids if plan is not None else np.zeros((0, 0), np.float32)
    texts = (lambda rows: document_texts(rows, plan.chunk_doc, plan.texts)) if plan is not None else None
    new_edges = plan_supersession(docs, same_title_versions(docs, centroids, run.query_side, config, texts),
                                  findings.near_duplicates, run.sup_src, run.sup_dst, run.known_ids)
    report.inferred_supersedes = len(new_edges)
    run.new_edges += new_edges
    s = docs.position.get_indexer([e.src for e in new_edges])
    d = docs.position.get_indexer([e.dst for e in new_edges])
    sup = apply_supersession(docs, np.r_[run.sup_src, s], np.r_[run.sup_dst, d], run.now_us)
    report.supersessions = len(sup.newly)
    return sup


def _live(docs: Documents, sup: Supersession) -> np.ndarray:
    """Per document: live at this run (neither superseded by now nor archived), the documents
    contradictions and dependencies are judged between and ripple stops at."""
    return is_live(sup.superseded_now, docs.states)


def _contradictions_phase(run: _Run, report: ConsolidationReport, plan: ConsolidationPlan | None,
                          findings: Findings, sup: Supersession, config: ConsolidationConfig) -> None:
    """Review-queue edges and penalties for contradictions between live documents of different
    chains (trust as it was before this run), and the settlements of resolved ones."""
    docs = run.docs
    live = _live(docs, sup)
    chunk_doc = plan.chunk_doc if plan is not None else np.zeros(0, np.int64)
    hits = [(int(chunk_doc[ca]), int(chunk_doc[cb]), hit) for ca, cb, hit in findings.contradictions]
    trust = live_trust(docs.authority, run.now_us, aggregate_events(run.events, docs.ids, run.now_us))
    until = _us(run.table.column("valid_until"), NO_END) if "valid_until" in run.table.column_names else None
    contradiction_edges, new_events = plan_contradictions(docs, hits, sup.chain, live, run.known_ids, config,
                                                          trust=trust, until_us=until)
    run.new_edges += contradiction_edges
    report.contradictions = len(contradiction_edges)
    settled_rows, settled_events = plan_settlements(docs, run.stored_edges, run.events, sup.chain, live)
    run.new_events += new_events + settled_events
    run.settled_rows += settled_rows


def _dependencies_phase(run: _Run, report: ConsolidationReport, findings: Findings, sup: Supersession,
                        config: ConsolidationConfig) -> None:
    """DEPENDS_ON edges from the citations of the query documents; counts them with the declared
    ones of newly consolidated documents."""
    if not run.query_side.any():
        return
    docs, live_edges = run.docs, run.live_edges
    live = _live(docs, sup)
    dependency_edges = plan_dependencies(docs, findings.citations, sup.chain, live, run.known_ids, config)
    run.new_edges += dependency_edges
    report.inferred_depends_on = len(dependency_edges)
    fresh = set(docs.ids[run.query_side & (docs.states == Lifecycle.UNCONSOLIDATED.value)])
    declared = 0
    if len(live_edges) and fresh:   # the fresh sources first: a few of all edges
        mine = live_edges[live_edges["src"].isin(fresh)]
        declared = int(((mine["edge_type"] == EdgeType.DEPENDS_ON.value) & (mine["origin"] == "declared")
                        & mine["dst"].astype(object).isin(set(docs.ids))).sum())
    report.dependencies = report.inferred_depends_on + declared


def _ripple_phase(store, run: _Run, sup: Supersession, config: ConsolidationConfig) -> None:
    """Penalties for the dependents of newly superseded or edited documents (over the stored
    and the new edges)."""
    docs, ids = run.docs, run.docs.ids
    triggers = [(f"superseded:{ids[i]}", ids[i], "superseded") for i in sup.newly if sup.superseded_now[i]]
    triggers += [(f"edit:{d}:{h}", d, "edited") for d, h in _edited(store, docs, run.query_side)]
    if triggers:
        frames = [f for f in (run.live_edges, pd.DataFrame([e.row(run.now) for e in run.new_edges])) if len(f)]
        graph = ripple_graph(pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(), set(ids))
        archived = set(ids[~_live(docs, sup)])
        run.new_events += plan_ripple(triggers, graph, archived, config)


def _write_plan(store, run: _Run) -> list[dict]:
    """Edges, then events (crash points between them); returns the event rows written."""
    store.upsert_edges([e.row(run.now) for e in run.new_edges] + run.settled_rows)
    store.crash_point("consolidate:after:edges")   # test hook (tests/reliability/test_crash_points.py)
    written = append_new_events(store, [e.row(run.now) for e in run.new_events])
    store.crash_point("consolidate:after:events")
    return written


def _lifecycle_phase(store, run: _Run, report: ConsolidationReport, sup: Supersession, written: list[dict],
                     config: ConsolidationConfig) -> None:
    """Lifecycle moves from memory strength (with this run's events), written with the changed
    ``superseded_at`` fields."""
    docs, ids = run.docs, run.docs.ids
    events = pd.concat([run.events, rows_frame(written)], ignore_index=True) if written else run.events
    moves = plan_moves(docs, aggregate_events(events, ids, run.now_us), sup.superseded_now, run.now_us, config)
    write_moves(store, events, moves, now=run.now, actor="consolidation",
                superseded={ids[i]: from_us(int(sup.superseded_us[i])) if sup.superseded_us[i] != NO_END else None
                            for i in sup.changed})
    for key, value in count_moves(moves).items():
        setattr(report, key, value)


def write_moves(store, events: pd.DataFrame, moves, *, now: datetime, actor: str,
                superseded: dict[str, datetime | None] | None = None, query_id: str = "") -> int:
    """LIFECYCLE events for ``moves`` (skipping one already recorded as the document's latest),
    then the ``lifecycle`` (and ``superseded_at``) fields in one commit."""
    superseded = superseded or {}
    with store.write_lock():   # checked and written as one step: no other writer moves these documents meanwhile
        moves = _still_due(store, moves)
        ids = [m.doc_id for m in moves]
        latest = _latest_moves(events_frame(store.events(ids)), ids) if ids else {}
        rows = [e.row(now, actor=actor, query_id=query_id) for e in move_events(moves, latest, now)]
        append_new_events(store, rows)
        store.crash_point("lifecycle:after:events")   # test hook: LIFECYCLE events written, fields not yet
        updates: dict[str, dict] = {d: {"doc_id": d, "superseded_at": t} for d, t in superseded.items()}
        for m in moves:
            updates.setdefault(m.doc_id, {"doc_id": m.doc_id})["lifecycle"] = m.to_state.value
        store.update_doc_fields(list(updates.values()))
    return len(rows)


def _still_due(store, moves: list) -> list:
    """The moves whose document the store still holds in the state its first move starts from
    (another run may have moved it since this one read it)."""
    if not moves:
        return []
    ids = list(dict.fromkeys(m.doc_id for m in moves))
    rows = store.chunks_for_docs(ids, columns=["doc_id", "lifecycle"])
    stored = dict(zip(rows.column("doc_id").to_pylist(), rows.column("lifecycle").to_pylist(), strict=True))
    first: dict[str, str] = {}
    for m in moves:
        first.setdefault(m.doc_id, m.from_state.value)
    return [m for m in moves if stored.get(m.doc_id) == first[m.doc_id]]


def wake_accessed(store, events: pd.DataFrame, states: dict[str, str], *, now: datetime,
                  query_id: str = "", actor: str = "query") -> list:
    """DORMANT -> ACTIVE for accessed documents (``states``: doc_id -> current lifecycle)."""
    moves = wake_on_access(states, reason="accessed")
    if moves:
        write_moves(store, events, moves, now=now, actor=actor, query_id=query_id)
    return moves


# --- store reads and helpers -----------------------------------------------------------------
def _findings(store, docs: Documents, query_side: np.ndarray, old_chain: np.ndarray,
              config: ConsolidationConfig, finder: Finder | None,
              inputs: RunInputs | None = None) -> tuple[ConsolidationPlan | None, Findings]:
    """The finder's plan and findings over the current chunks (none without query documents)."""
    if not query_side.any():
        return None, Findings.empty()
    position = docs.position
    if inputs is not None:   # kept rows, gathered where read (the same values: RowView)
        chunk_doc, texts, vectors, centroids = inputs.chunk_doc, inputs.texts, inputs.vectors, inputs.centroids
    else:
        chunks, vectors = store.current_chunks(("chunk_id", "doc_id", "text"))
        chunk_doc = position.get_indexer(chunks.column("doc_id").to_pylist())
        # chunks of a document committed after ``docs`` was read: its own run consolidates them
        # (position -1 would index the last document read and give it their text)
        known = chunk_doc >= 0
        chunk_doc, vectors = chunk_doc[known], vectors[known]
        texts = np.asarray(chunks.column("text").to_pylist(), dtype=object)[known]
        centroids = vector_sums(chunk_doc, vectors, len(docs))
        centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    doc_types = pd.Series(docs.doc_types)
    plan = ConsolidationPlan(
        ids=docs.ids, doc_types=docs.doc_types, titles=docs.titles, kinds=docs.kinds, sources=docs.sources,
        dated=docs.dated, created=docs.created_us, archived=docs.states == Lifecycle.ARCHIVED.value,
        snapshot=doc_types.isin(config.snapshot_doc_types).to_numpy() | docs.log,
        log=docs.log, old_chain=old_chain, query_side=query_side,
        chunk_doc=chunk_doc, texts=texts, vectors=vectors, centroids=centroids, config=config,
        citation_rows=inputs.citation_rows if inputs is not None else None,
        citation_keys=(dict(zip(inputs.id_like, position.get_indexer(inputs.id_like).tolist(), strict=True)),
                       inputs.title_words) if inputs is not None else None)
    return plan, (finder or local_finder)(plan)


def _stored_events(store) -> pd.DataFrame:
    """The events table, read before this run writes (its own events are added once)."""
    return events_frame(store.events())


def append_new_events(store, rows: list[dict]) -> list[dict]:
    """Append the rows whose event id is not stored yet; returns them."""
    if not rows:
        return []
    twins = {r["event_id"]: contradiction_twin(r) for r in rows if r["event_type"] == EventType.CONTRADICTION.value}
    with store.write_lock():   # the check and the append as one step (a concurrent run plans the same ids)
        have = store.existing_event_ids([r["event_id"] for r in rows] + list(twins.values()))
        kept = []
        for r in rows:
            if r["event_id"] not in have and twins.get(r["event_id"]) not in have:
                kept.append(r)
                have.add(r["event_id"])
        rows = kept
        if rows:
            store.append_events(rows)
    return rows


def _latest_moves(events: pd.DataFrame, doc_ids: list[str]) -> dict[str, tuple[str, str]]:
    """doc_id -> (from, to) of its latest LIFECYCLE event, for the given documents."""
    if not doc_ids or events is None or not len(events):
        return {}
    sub = events[(events["event_type"] == EventType.LIFECYCLE.value) & events["doc_id"].isin(doc_ids)]
    out = {}
    for row in sub.sort_values("at_us", kind="stable").itertuples(index=False):
        detail = event_detail(row.detail)
        out[row.doc_id] = (detail.get("from"), detail.get("to"))
    return out


def _edited(store, docs: Documents, query_side: np.ndarray) -> list[tuple[str, str]]:
    """(doc_id, doc_hash) of query-side documents whose text changed at their latest write."""
    candidates = docs.ids[query_side].tolist()
    if not candidates:
        return []
    ev = store.events(candidates).to_pandas()
    ev = ev[ev["event_type"].isin([EventType.INGEST.value, EventType.UPDATE.value])]
    if not len(ev):
        return []
    last = ev.sort_values("at", kind="stable").groupby("doc_id").tail(1)
    hashes = dict(zip(docs.ids.tolist(), docs.doc_hash.tolist(), strict=True))
    out = []
    for row in last.itertuples(index=False):
        if row.event_type != EventType.UPDATE.value:
            continue
        detail = event_detail(row.detail)
        if int(detail.get("retired", 0)) > 0:
            out.append((row.doc_id, hashes.get(row.doc_id, "")))
    return out

