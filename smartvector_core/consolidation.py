"""The consolidation agent: supersession, contradictions, dependencies, ripple and lifecycle.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``, section 2.2 stage 2
"Consolidation": a background agent detects contradictions, builds dependency edges,
recomputes confidence and promotes vectors to ACTIVE; section 2.4 "RipplePropagator").
The decisions are the pure functions of :mod:`smartvector_core.memory`; this module finds the
candidates on the store and writes the outcome as edges, events and lifecycle fields.

**Candidate pairs, never all pairs.** For each current chunk of a document on the *query side*
(by default the UNCONSOLIDATED ones: new or edited since the last run; ``full=True``: all),
its top-``neighbours`` most similar current chunks are found from the stored vectors: a
vectorised numpy top-m over blocks of rows while the store holds at most ``exact_limit``
chunks (exact, ~0.25 ms per query row at 10k chunks), LanceDB's batched vector search (which
uses the table's vector index when one exists) above that. Only these pairs are examined.
Candidates are re-ranked by exact float64 cosine (ties by row), so a query row's neighbours do
not depend on which rows were searched with it.

**Two engines, one writer.** The pure part (neighbour pairs, the near-duplicate test,
``find_contradiction``, the citation scan) is :func:`find_candidates` over a slice of query
documents; :func:`merge_findings` combines slices deterministically. The local engine runs one
slice in-process; ``engine="ray"`` (:mod:`smartvector_core.scaleout.ray_consolidate`) runs
partitions as Ray tasks. Everything below (decisions and writes) runs once, in the driver.

What a run does, in order (each step idempotent; a second run with nothing new writes nothing):

1. **Implicit supersession** (explicit SUPERSEDES edges come from ingest). The newer of two
   documents supersedes the older when both are dated, of the same kind and not EVENT, and
   either (a) their normalised titles are equal and they are VERSIONED, or they are STATIC and
   near-duplicates (centroid cosine >= ``near_duplicate``): two reference pages that share a
   title but say different things are not versions of each other; or (b) they are
   near-duplicates from the same source whose titles do not differ (a near-duplicate from
   another source that changes a number is a *contradiction*, not a new version). Same-title
   versions are chained consecutively by ``created_at`` (v1 <- v2 <- v3). Written as an
   inferred SUPERSEDES edge with evidence ("same title 'X', newer created_at ...").
2. **Contradictions** (``memory.find_contradiction``: numbers with units, negation) on the
   neighbour pairs with similarity >= ``contradiction_min_similarity`` between live documents
   that are not in one version chain: a CONTRADICTS edge with status "open" and its evidence
   goes to the review queue, and both sides get a CONTRADICTION event of
   ``contradiction_delta``. A contradiction never archives or invalidates anything. Two
   point-in-time reports (``snapshot_doc_types``: news, report, release notes) written on
   different days are not compared: they describe different moments.
3. **Dependencies**: declared ones come from ingest; a DEPENDS_ON edge is inferred when a
   document's text cites another's id (ids with a digit or one of ``_-.:/``, matched as a whole
   token, case-sensitively: a bare word like "refunds" is never taken for an id) or its exact
   title (two words or more, case-insensitive, whole words; a title names its newest version).
   One token pass per text against one index of all ids and titles.
4. **Supersession applied**: ``superseded_at`` of each superseded document = the earliest
   effective time (``valid_from``, else ``created_at``) of its direct successors.
5. **Ripple**: when a document is newly superseded, or was edited (re-ingested with changed
   text), ``KnowledgeGraph.ripple_plan`` lowers its dependents (RIPPLE events, each dependent
   at most once per trigger, archived documents skipped).
6. **Lifecycle**: ``memory.plan_lifecycle`` over every document with its live confidence at
   ``now``: UNCONSOLIDATED -> ACTIVE, superseded -> ARCHIVED, confidence < 0.15 without access
   for 30 days -> DORMANT, and back. Each move is a LIFECYCLE event; the ``lifecycle`` and
   ``superseded_at`` fields are written in one commit.

**DORMANT stays searchable** (our decision): a dormant document is not filtered out of search;
it ranks lower through its low confidence, and a query that matches it well still returns it.
That access wakes it (:func:`wake_accessed`: an ACCESS event, then LIFECYCLE DORMANT -> ACTIVE).

**Crash safety**: writes go edges -> events -> fields. Event ids are derived from what they
record (trigger, document), and a move whose LIFECYCLE event is already the document's latest
is not written twice, so rerunning after a crash converges to the uninterrupted result.
The store is tagged ``pre-consolidate`` (one rolling tag) before each run.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .clock import US_PER_DAY, from_us, iso, to_us
from .config import DEFAULT_CONFIDENCE, decay_profile
from .knowledge import IMPLICIT_CHAIN_AUTHORITY_GAP
from .memory import (
    DEFAULT_LIFECYCLE,
    DEFAULT_RIPPLE,
    KnowledgeGraph,
    LifecycleConfig,
    ParsedText,
    RippleConfig,
    aggregate_events,
    contradictions_between,
    live_confidence,
    parse_text,
    plan_lifecycle,
    wake_on_access,
)
from .models import DocumentKind, EdgeType, EventType, Lifecycle

CONSOLIDATE_TAG = "pre-consolidate"
_NOT_SUPERSEDED = np.iinfo(np.int64).max


@dataclass(frozen=True)
class ConsolidationConfig:
    """Constants of the agent (ours; the paper gives none)."""

    neighbours: int = 8                     # m: neighbours per query chunk
    near_duplicate: float = 0.92            # centroid cosine of a near-duplicate document
    contradiction_min_similarity: float = 0.5
    contradiction_delta: float = -0.05      # CONTRADICTION event on each side
    exact_limit: int = 20_000               # numpy top-m up to this many chunks, LanceDB above
    block_rows: int = 1024
    min_title_words: int = 2
    # point-in-time reports: two of them written on different days describe different moments
    # ("attrition 15% in 2025" vs "21% in 2026"), so they are never taken to contradict each other
    snapshot_doc_types: tuple[str, ...] = ("breaking_news", "news", "report", "release_notes")
    ripple: RippleConfig = DEFAULT_RIPPLE
    lifecycle: LifecycleConfig = DEFAULT_LIFECYCLE
    tag: str = CONSOLIDATE_TAG


DEFAULT_CONSOLIDATION = ConsolidationConfig()


@dataclass
class ConsolidationReport:
    supersessions: int = 0      # documents newly superseded (explicit or implicit)
    contradictions: int = 0     # new CONTRADICTS edges (review queue)
    dependencies: int = 0       # new inferred DEPENDS_ON edges + declared ones of newly consolidated docs
    archived: int = 0
    dormant: int = 0
    activated: int = 0          # moves to ACTIVE (consolidated or woken)
    inferred_supersedes: int = 0
    inferred_depends_on: int = 0
    rippled: int = 0            # RIPPLE events written
    examined_pairs: int = 0     # distinct document pairs looked at
    query_documents: int = 0
    documents: int = 0
    chunks: int = 0
    full: bool = False
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["seconds"] = round(self.seconds, 4)
        out["timings"] = {k: round(v, 4) for k, v in self.timings.items()}
        return out


def stable_id(*parts: str) -> str:
    """A deterministic event id for what an event records (idempotent rewrites)."""
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=12).hexdigest()


_TITLE_NORM = re.compile(r"[^a-z0-9]+")
_WORDS = re.compile(r"[a-z0-9]+")
_ID_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/-]*")
_ID_LIKE = re.compile(r"[0-9_.:/-]")


def normalise_title(title: str | None) -> str:
    """Lower-case, punctuation to single spaces: 'API Rate-Limits' -> 'api rate limits'."""
    return _TITLE_NORM.sub(" ", (title or "").lower()).strip()


def _us(column: pa.ChunkedArray, fill: int) -> np.ndarray:
    return pc.cast(column, pa.int64()).fill_null(fill).to_numpy().astype(np.int64, copy=False)


# --- neighbours ------------------------------------------------------------------------------
def top_neighbours(queries: np.ndarray, base: np.ndarray, m: int, block_rows: int = 1024
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact top-``m`` rows of ``base`` for each row of ``queries`` by dot product (vectors
    unit-norm: cosine), in blocks: (query_row, base_row, similarity), best first within a row
    (ties: lower base row first).

    Per block, ``np.partition`` finds each row's m-th largest score and one comparison keeps the
    rows at or above it: about 6× faster than ``argpartition`` over 10k columns, and exact."""
    m = min(m, len(base))
    if m == 0 or len(queries) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    rows, cols, sims = [], [], []
    n = len(base)
    for start in range(0, len(queries), block_rows):
        scores = queries[start:start + block_rows] @ base.T
        kth = np.partition(scores, n - m, axis=1)[:, n - m] if m < n else scores.min(axis=1)
        r, c = np.nonzero(scores >= kth[:, None])
        v = scores[r, c]
        order = np.lexsort((c, -v, r))
        r, c, v = r[order], c[order], v[order]
        counts = np.bincount(r, minlength=len(scores))
        keep = np.arange(len(r)) - np.repeat(np.cumsum(counts) - counts, counts) < m   # ties past m
        rows.append(r[keep] + start)
        cols.append(c[keep])
        sims.append(v[keep].astype(np.float64))
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(sims)


NEIGHBOUR_MARGIN = 4  # extra candidates per query row before the exact (float64) re-ranking


@dataclass
class ConsolidationPlan:
    """What every findings task reads (read-only): per document (``n``) and per current chunk."""

    ids: np.ndarray          # doc ids (object)
    doc_types: np.ndarray
    titles: np.ndarray       # normalised titles
    kinds: np.ndarray
    sources: np.ndarray
    dated: np.ndarray
    created: np.ndarray      # created_at, us
    archived: np.ndarray     # lifecycle ARCHIVED before this run
    snapshot: np.ndarray     # doc_type in config.snapshot_doc_types
    old_chain: np.ndarray    # version chain before this run (smallest id of its SUPERSEDES component)
    query_side: np.ndarray
    chunk_doc: np.ndarray    # chunk row -> document row
    texts: np.ndarray        # chunk texts
    vectors: np.ndarray      # (chunks, dim) float32, unit-norm
    centroids: np.ndarray    # (n, dim) float32, unit-norm
    config: ConsolidationConfig


@dataclass
class Findings:
    """The pure part of a run for some query documents; :func:`merge_findings` combines parts.

    ``chunk_a < chunk_b``: distinct-document neighbour chunk pairs, ordered by (-sims, a, b);
    ``near_duplicates``: (x < y, centroid cosine) document pairs that pass the implicit
    supersession test of near-duplicates; ``contradictions``: (chunk a, chunk b, hit), the first
    hit of each document pair in pair order; ``citations``: (citing doc, "id", cited doc, evidence)
    or (citing doc, "title", title words, evidence), resolved by the driver (the newest live
    document of a title depends on this run's supersessions)."""

    chunk_a: np.ndarray
    chunk_b: np.ndarray
    sims: np.ndarray
    near_duplicates: list[tuple[int, int, float]]
    contradictions: list[tuple[int, int, object]]
    citations: set[tuple]

    @classmethod
    def empty(cls) -> Findings:
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), [], [], set())


def _cosines(matrix: np.ndarray, a, b, block: int = 4_096) -> np.ndarray:
    """Exact cosine of rows ``a[i]``, ``b[i]`` (float64, symmetric, independent of batching).

    Small blocks and a fused row-wise dot product (einsum) keep the float64 copies in cache:
    15× faster than whole-array products at 40k pairs, same values to 1e-12."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    out = np.zeros(len(a))
    for start in range(0, len(a), block):
        x = matrix[a[start:start + block]].astype(np.float64)
        y = matrix[b[start:start + block]].astype(np.float64)
        out[start:start + block] = np.einsum("ij,ij->i", x, y)
    return out


def _neighbour_pairs(plan: ConsolidationPlan, query_rows: np.ndarray, search
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Neighbour chunk pairs (row a, row b, exact cosine) of ``query_rows``, a != b.

    Exact search (numpy, or always when ``search`` is None) takes ``m + NEIGHBOUR_MARGIN``
    candidates per row from the float32 product, then keeps the top ``m`` by (float64 cosine,
    row): the result of a row does not depend on which other rows were searched with it, so
    any partition of the query rows finds the same pairs. Above ``exact_limit`` chunks the
    local engine uses ``search`` (LanceDB, index when present)."""
    config, vectors = plan.config, plan.vectors
    m = config.neighbours + 1  # a chunk is its own nearest neighbour
    if len(query_rows) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    exact = search is None or len(vectors) <= config.exact_limit
    if exact:
        qi, b, _ = top_neighbours(vectors[query_rows], vectors, m + NEIGHBOUR_MARGIN, config.block_rows)
    else:
        qi, b = search(vectors[query_rows], m)
    a = query_rows[qi]
    sim = _cosines(vectors, a, b)
    if exact:
        order = np.lexsort((b, -sim, a))
        a, b, sim = a[order], b[order], sim[order]
        starts = np.r_[0, np.flatnonzero(np.diff(a)) + 1]
        rank = np.arange(len(a)) - np.repeat(starts, np.diff(np.r_[starts, len(a)]))
        keep = rank < m
        a, b, sim = a[keep], b[keep], sim[keep]
    keep = a != b
    return a[keep], b[keep], sim[keep]


def find_candidates(plan: ConsolidationPlan, doc_rows=None, search=None) -> Findings:
    """The pure, expensive part of a run for the query documents among ``doc_rows`` (all: None):
    their chunks' neighbour pairs (against every current chunk), the near-duplicate supersession
    test, ``find_contradiction`` on the pairs, and the citation scan of these documents' texts.
    Runs anywhere (a Ray task gets ``plan`` from the object store); writes nothing."""
    config, chunk_doc, n = plan.config, plan.chunk_doc, len(plan.ids)
    mine = np.ones(n, bool) if doc_rows is None else np.isin(np.arange(n), np.asarray(doc_rows, np.int64))
    in_slice = mine[chunk_doc]
    query_rows = np.flatnonzero(in_slice & plan.query_side[chunk_doc])
    a, b, sim = _neighbour_pairs(plan, query_rows, search)
    # unordered, distinct documents, each chunk pair once, by (-similarity, a, b)
    da, db = chunk_doc[a], chunk_doc[b]
    keep = da != db
    a, b, sim = a[keep], b[keep], sim[keep]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    _, first = np.unique(lo.astype(np.int64) * len(chunk_doc) + hi, return_index=True)
    lo, hi, sim = lo[first], hi[first], sim[first]
    order = np.lexsort((hi, lo, -sim))
    chunk_a, chunk_b, sims = lo[order], hi[order], sim[order]
    doc_a, doc_b = chunk_doc[chunk_a], chunk_doc[chunk_b]

    # implicit supersession of near-duplicates (static test; chains are checked by the driver)
    near: list[tuple[int, int, float]] = []
    if len(doc_a):
        x_all, y_all = np.minimum(doc_a, doc_b), np.maximum(doc_a, doc_b)
        _, first = np.unique(x_all.astype(np.int64) * n + y_all, return_index=True)
        x, y = x_all[first], y_all[first]
        cos = _cosines(plan.centroids, x, y)
        titles, kinds, created = plan.titles, plan.kinds, plan.created
        ok = ((cos >= config.near_duplicate) & plan.dated[x] & plan.dated[y] & (kinds[x] == kinds[y])
              & (kinds[x] != DocumentKind.EVENT.value) & (created[x] != created[y])
              & (plan.sources[x] == plan.sources[y])
              & ((titles[x] == titles[y]) | (titles[x] == "") | (titles[y] == "")))
        near = [(int(p), int(q), float(c)) for p, q, c in zip(x[ok], y[ok], cos[ok], strict=True)]

    # contradictions: the first hit of each document pair (this run's chains and liveness are
    # applied by the driver; pairs in one old chain or with an archived side never qualify)
    created = plan.created
    ok = ((sims >= config.contradiction_min_similarity) & (plan.old_chain[doc_a] != plan.old_chain[doc_b])
          & ~plan.archived[doc_a] & ~plan.archived[doc_b]
          & ~(plan.snapshot[doc_a] & plan.snapshot[doc_b]
              & (created[doc_a] // US_PER_DAY != created[doc_b] // US_PER_DAY))
          ) if len(doc_a) else np.zeros(0, bool)
    found: set[int] = set()
    contradictions: list[tuple[int, int, object]] = []
    parsed: dict[int, ParsedText] = {}   # each chunk's text is parsed once, not once per pair

    def parse(row: int) -> ParsedText:
        if row not in parsed:
            parsed[row] = parse_text(plan.texts[row] or "")
        return parsed[row]

    for ca, cb in zip(chunk_a[ok].tolist(), chunk_b[ok].tolist(), strict=True):
        x, y = int(chunk_doc[ca]), int(chunk_doc[cb])
        key = min(x, y) * n + max(x, y)
        if key in found:
            continue
        hits = contradictions_between(parse(ca), parse(cb))
        if not hits:
            continue
        found.add(key)
        contradictions.append((ca, cb, hits[0]))

    citations = _citation_hits(plan, np.flatnonzero(in_slice)) if plan.query_side.any() else set()
    return Findings(chunk_a, chunk_b, sims, near, contradictions, citations)


def merge_findings(parts, plan: ConsolidationPlan) -> Findings:
    """Combine the findings of disjoint query slices into what one pass over all of them finds:
    pairs by (-similarity, a, b), near-duplicates by (x, y), per document pair the first
    contradiction hit in pair order, the union of citations. Independent of the parts' order."""
    parts = list(parts)
    if not parts:
        return Findings.empty()
    chunks = max(1, len(plan.chunk_doc))
    a = np.concatenate([p.chunk_a for p in parts]).astype(np.int64)
    b = np.concatenate([p.chunk_b for p in parts]).astype(np.int64)
    sim = np.concatenate([np.asarray(p.sims, np.float64) for p in parts])
    _, first = np.unique(a * chunks + b, return_index=True)  # a pair's cosine is the same in every part
    a, b, sim = a[first], b[first], sim[first]
    order = np.lexsort((b, a, -sim))
    a, b, sim = a[order], b[order], sim[order]
    rank = {int(k): r for r, k in enumerate(a * chunks + b)}
    near = sorted({(x, y): c for p in parts for x, y, c in p.near_duplicates}.items())
    n = len(plan.ids)
    best: dict[int, tuple[int, int, int, object]] = {}
    for p in parts:
        for ca, cb, hit in p.contradictions:
            x, y = int(plan.chunk_doc[ca]), int(plan.chunk_doc[cb])
            key, r = min(x, y) * n + max(x, y), rank[ca * chunks + cb]
            if key not in best or r < best[key][0]:
                best[key] = (r, ca, cb, hit)
    contradictions = [(ca, cb, hit) for _, ca, cb, hit in sorted(best.values(), key=lambda t: t[0])]
    citations = set().union(*(p.citations for p in parts))
    return Findings(a, b, sim, [(x, y, c) for (x, y), c in near], contradictions, citations)


def local_finder(plan: ConsolidationPlan, search=None) -> Findings:
    """The local engine: every query document in this process, one part."""
    return merge_findings([find_candidates(plan, None, search)], plan)


# --- the run ------------------------------------------------------------------------------
def consolidate(store, knowledge_state, *, now: datetime, config: ConsolidationConfig = DEFAULT_CONSOLIDATION,
                full: bool = False, finder=None) -> ConsolidationReport:
    """Run the agent once at ``now`` (see the module docstring); returns what it did.

    ``finder``: ``(plan, search) -> Findings`` computes the pure, expensive part (neighbour
    pairs and the per-pair checks) for every query document; None runs
    :func:`find_candidates` over all of them in this process (the local engine),
    :func:`smartvector_core.scaleout.ray_consolidate.ray_finder` runs it as Ray tasks.
    The writes below are the same for both.

    ``knowledge_state``: a current :class:`~smartvector_core.knowledge.KnowledgeState` whose
    ``events`` are used for live confidence; None reads the events table (all that is needed).
    """
    t_start = time.perf_counter()
    report = ConsolidationReport(full=full)
    timings = report.timings
    now_us = to_us(now)
    store.tag(config.tag)
    docs = store.documents()
    report.documents = docs.num_rows
    if docs.num_rows == 0:
        report.seconds = time.perf_counter() - t_start
        return report
    ids = np.asarray(docs.column("doc_id").to_pylist(), dtype=object)
    n = len(ids)
    position = pd.Index(ids)
    states = np.asarray(docs.column("lifecycle").to_pylist(), dtype=object)
    kinds = np.asarray(docs.column("kind").to_pylist(), dtype=object)
    titles = np.asarray([normalise_title(t) for t in docs.column("title").to_pylist()], dtype=object)
    sources = np.asarray([(s or "").strip().lower() for s in docs.column("source").to_pylist()], dtype=object)
    dated = np.asarray(docs.column("dated").fill_null(True).to_pylist(), dtype=bool)
    authority = np.asarray(docs.column("authority").to_numpy(zero_copy_only=False), dtype=np.float64)
    authority = np.where(np.isnan(authority), DEFAULT_CONFIDENCE.default_authority, authority)
    created = _us(docs.column("created_at"), 0)
    valid_from = _us(docs.column("valid_from"), -1)
    effective = np.where(valid_from >= 0, valid_from, created)
    old_superseded = _us(docs.column("superseded_at"), _NOT_SUPERSEDED)
    query_side = np.ones(n, bool) if full else states == Lifecycle.UNCONSOLIDATED.value
    report.query_documents = int(query_side.sum())

    if knowledge_state is not None:
        events = knowledge_state.events
    else:  # read before this run writes: its own events are added below, once
        from .knowledge import _events_frame

        events = _events_frame(store.events())
    edges = store.edges().to_pandas()
    existing_ids = set(edges["edge_id"]) if len(edges) else set()
    live_edges = edges[edges["status"].fillna("") != "rejected"] if len(edges) else edges
    # SUPERSEDES among known documents, as a plain digraph over the documents that have one
    # (the full KnowledgeGraph is built only when a ripple needs it: cheap at 10k documents)
    sup_graph = nx.DiGraph()
    if len(live_edges):
        sup = live_edges[(live_edges["edge_type"] == EdgeType.SUPERSEDES.value)
                         & live_edges["src"].isin(position) & live_edges["dst"].isin(position)]
        sup_graph.add_edges_from(zip(sup["src"], sup["dst"], strict=True))
    new_edges: list[dict] = []
    new_events: list[dict] = []

    def add_edge(src: str, dst: str, etype: EdgeType, evidence: str, status: str = "") -> bool:
        eid = _edge_id(src, etype, dst)
        if eid in existing_ids:
            return False
        existing_ids.add(eid)
        new_edges.append({"edge_id": eid, "src": src, "dst": dst, "edge_type": etype.value,
                          "origin": "inferred", "evidence": evidence, "status": status, "created_at": now})
        if etype == EdgeType.SUPERSEDES:
            sup_graph.add_edge(src, dst)
        return True

    # --- neighbour pairs and per-pair checks (query side only; pure: local or Ray) ----
    t0 = time.perf_counter()
    chunk_doc = np.zeros(0, np.int64)
    centroids = np.zeros((0, store.dim), np.float32)
    findings = Findings.empty()
    if query_side.any():
        chunks, vectors = store.current_chunks(("chunk_id", "doc_id", "text"))
        report.chunks = chunks.num_rows
        chunk_doc = position.get_indexer(chunks.column("doc_id").to_pylist())
        texts = np.asarray(chunks.column("text").to_pylist(), dtype=object)
        centroids = np.zeros((n, vectors.shape[1]), np.float32)
        np.add.at(centroids, chunk_doc, vectors)
        centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
        old_chain = ids.copy()  # version chains before this run: never compared for contradictions
        members = [(d, min(c)) for c in nx.weakly_connected_components(sup_graph) for d in c]
        if members:
            old_chain[position.get_indexer([d for d, _ in members])] = [c for _, c in members]
        doc_types = np.asarray(docs.column("doc_type").to_pylist(), dtype=object)
        snapshot = pd.Series(doc_types).isin(config.snapshot_doc_types).to_numpy()
        plan = ConsolidationPlan(
            ids=ids, doc_types=doc_types, titles=titles, kinds=kinds, sources=sources, dated=dated, created=created,
            archived=states == Lifecycle.ARCHIVED.value, snapshot=snapshot, old_chain=old_chain,
            query_side=query_side, chunk_doc=chunk_doc, texts=texts, vectors=vectors, centroids=centroids,
            config=config)
        chunk_index = pd.Index(chunks.column("chunk_id").to_pylist())

        def search(queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
            qi, found_ids, _ = store.nearest_chunks(queries, k)
            b = chunk_index.get_indexer(found_ids)
            return qi[b >= 0], b[b >= 0]

        findings = (finder or local_finder)(plan, search)
        doc_a, doc_b = chunk_doc[findings.chunk_a], chunk_doc[findings.chunk_b]
        report.examined_pairs = int(len(np.unique(np.minimum(doc_a, doc_b).astype(np.int64) * n
                                                  + np.maximum(doc_a, doc_b))))
    timings["neighbours"] = time.perf_counter() - t0

    # --- 1. implicit supersession ------------------------------------------------------
    t0 = time.perf_counter()
    candidates: list[tuple[int, int, str]] = []  # (older, newer, evidence)
    versionable = dated & (kinds != DocumentKind.EVENT.value) & (titles != "")
    versionable &= pd.Series(titles).isin(set(titles[versionable & query_side])).to_numpy()
    groups = pd.Series(np.flatnonzero(versionable)).groupby(titles[versionable]).agg(list)
    for title, members in groups.items():
        if len(members) < 2:
            continue
        for kind in (DocumentKind.VERSIONED.value, DocumentKind.STATIC.value):
            same = [i for i in members if kinds[i] == kind]
            if same:   # versions share an author's standing: a far less trusted namesake is not one
                top = max(authority[i] for i in same)
                same = [i for i in same if top - authority[i] <= IMPLICIT_CHAIN_AUTHORITY_GAP]
            same = sorted(same, key=lambda i: (created[i], ids[i]))
            for older, newer in zip(same, same[1:], strict=False):
                if created[newer] <= created[older]:
                    continue
                if kind == DocumentKind.STATIC.value:
                    cos = _cosines(centroids, [older], [newer])[0] if len(centroids) else 0.0
                    if cos < config.near_duplicate:
                        continue
                candidates.append((older, newer, f"same title '{title}', newer created_at "
                                   f"({iso(from_us(int(created[newer])))} > {iso(from_us(int(created[older])))})"))
    for x, y, c in findings.near_duplicates:  # ascending (x, y): the pair checks ran in the finder
        older, newer = (x, y) if created[x] < created[y] else (y, x)
        candidates.append((older, newer, f"near-duplicate text (cosine {c:.3f}), same source, newer "
                           f"created_at ({iso(from_us(int(created[newer])))})"))
    candidates.sort(key=lambda t: (created[t[1]], -created[t[0]]))
    for older, newer, evidence in candidates:
        o, w = ids[older], ids[newer]
        if _path(sup_graph, w, o) or _path(sup_graph, o, w):
            continue
        if add_edge(w, o, EdgeType.SUPERSEDES, evidence):
            report.inferred_supersedes += 1
    timings["supersession"] = time.perf_counter() - t0

    # --- supersession applied ----------------------------------------------------------
    # superseded_at = earliest effective time of a direct successor (KnowledgeGraph.superseded_at)
    new_superseded = old_superseded.copy()
    if sup_graph.number_of_edges():
        src_i, dst_i = (position.get_indexer(list(col)) for col in zip(*sup_graph.edges(), strict=True))
        moment = np.full(n, _NOT_SUPERSEDED, dtype=np.int64)
        np.minimum.at(moment, dst_i, effective[src_i])
        new_superseded[dst_i] = moment[dst_i]
    newly_superseded = np.flatnonzero((old_superseded == _NOT_SUPERSEDED) & (new_superseded != _NOT_SUPERSEDED))
    changed_superseded = np.flatnonzero(new_superseded != old_superseded)
    report.supersessions = len(newly_superseded)
    superseded_now = new_superseded <= now_us
    chain = ids.copy()  # version chains: components of SUPERSEDES, named by their smallest id
    members = [(d, min(c)) for c in nx.weakly_connected_components(sup_graph) for d in c]
    if members:
        chain[position.get_indexer([d for d, _ in members])] = [c for _, c in members]

    # --- 2. contradictions -------------------------------------------------------------
    t0 = time.perf_counter()
    live = ~superseded_now & (states != Lifecycle.ARCHIVED.value)
    # findings.contradictions: the first hit of each document pair, in pair order; the checks
    # that depend on this run's supersessions (one version chain, live) are applied here
    for ca, cb, hit in findings.contradictions:
        x, y = int(chunk_doc[ca]), int(chunk_doc[cb])
        if chain[x] == chain[y] or not (live[x] and live[y]):
            continue
        src, dst = (x, y) if (created[x], ids[x]) >= (created[y], ids[y]) else (y, x)
        evidence = f"{hit.kind}: {hit.evidence} | {ids[src]}: '{hit.excerpt_a if src == x else hit.excerpt_b}'" \
                   f" | {ids[dst]}: '{hit.excerpt_b if src == x else hit.excerpt_a}'"
        eid = _edge_id(ids[src], EdgeType.CONTRADICTS, ids[dst])
        reverse = _edge_id(ids[dst], EdgeType.CONTRADICTS, ids[src])
        if reverse in existing_ids:
            eid = reverse
        elif add_edge(ids[src], ids[dst], EdgeType.CONTRADICTS, evidence, status="open"):
            report.contradictions += 1
        for me, other in ((src, dst), (dst, src)):
            new_events.append({"event_id": stable_id("contradiction", eid, ids[me]), "doc_id": ids[me],
                               "event_type": EventType.CONTRADICTION.value, "at": now,
                               "delta": -abs(config.contradiction_delta), "actor": "consolidation",
                               "detail": {"edge_id": eid, "other": ids[other], "evidence": hit.evidence,
                                          "kind": hit.kind}})
    timings["contradictions"] = time.perf_counter() - t0

    # --- 3. dependencies ---------------------------------------------------------------
    t0 = time.perf_counter()
    if query_side.any():
        for citing, cited, how in _resolve_citations(findings.citations, titles, created, live, config):
            if citing == cited or (titles[citing] and titles[citing] == titles[cited]) \
                    or chain[citing] == chain[cited]:
                continue
            if add_edge(ids[citing], ids[cited], EdgeType.DEPENDS_ON, how):
                report.inferred_depends_on += 1
        fresh = set(ids[query_side & (states == Lifecycle.UNCONSOLIDATED.value)])
        report.dependencies = report.inferred_depends_on + (int(
            ((live_edges["edge_type"] == EdgeType.DEPENDS_ON.value) & (live_edges["origin"] == "declared")
             & live_edges["src"].isin(fresh) & live_edges["dst"].isin(position)).sum()) if len(live_edges) else 0)
    timings["dependencies"] = time.perf_counter() - t0

    # --- 5. ripple ---------------------------------------------------------------------
    t0 = time.perf_counter()
    archived = set(ids[(states == Lifecycle.ARCHIVED.value) | superseded_now])
    triggers = [(f"superseded:{ids[i]}", ids[i], "superseded") for i in newly_superseded if superseded_now[i]]
    triggers += [(f"edit:{d}:{h}", d, "edited") for d, h in _edited(store, docs, query_side)]
    graph = _ripple_graph(live_edges, new_edges, position) if triggers else None
    for trigger, source, why in triggers:
        if source not in graph.graphs[EdgeType.DEPENDS_ON]:
            continue
        for step in graph.ripple_plan(source, config.ripple.penalty, config.ripple.hop_decay,
                                      config.ripple.max_hops, exclude=archived):
            new_events.append({"event_id": stable_id("ripple", trigger, step.doc_id), "doc_id": step.doc_id,
                               "event_type": EventType.RIPPLE.value, "at": now, "delta": -step.penalty,
                               "actor": "consolidation",
                               "detail": {"source": source, "reason": why, "hop": step.hop, "via": step.via,
                                          "review": True}})
    timings["ripple"] = time.perf_counter() - t0

    # --- writes: edges, then events ----------------------------------------------------
    store.upsert_edges(new_edges)
    if new_events:
        have = store.existing_event_ids([e["event_id"] for e in new_events])
        new_events = [e for e in new_events if e["event_id"] not in have]
        store.append_events(new_events)
    report.rippled = sum(e["event_type"] == EventType.RIPPLE.value for e in new_events)

    # --- 6. lifecycle ------------------------------------------------------------------
    t0 = time.perf_counter()
    if new_events:
        events = pd.concat([events, _frame(new_events)], ignore_index=True)
    agg = aggregate_events(events, ids, now_us)
    authority = docs.column("authority").to_numpy(zero_copy_only=False).astype(np.float64)
    half = np.asarray([decay_profile(t).half_life_days for t in docs.column("doc_type").to_pylist()])
    conf = live_confidence(authority, created, half, now_us, agg)
    moves: list = []
    current = states.copy()
    for _ in range(3):  # to a fixpoint: a new, long-idle, low-confidence doc goes U -> A -> D now
        step = plan_lifecycle(ids, current, conf, agg.last_access_us, superseded_now, now_us,
                              config.lifecycle.idle_days, created_us=created,
                              dormancy_threshold=config.lifecycle.dormancy_threshold)
        if not step:
            break
        moves += step
        current[position.get_indexer([m.doc_id for m in step])] = [m.to_state.value for m in step]
    write_moves(store, events, moves, now=now, actor="consolidation",
                superseded={ids[i]: from_us(int(new_superseded[i])) if new_superseded[i] != _NOT_SUPERSEDED
                            else None for i in changed_superseded})
    for move in moves:
        if move.to_state == Lifecycle.ARCHIVED:
            report.archived += 1
        elif move.to_state == Lifecycle.DORMANT:
            report.dormant += 1
        elif move.to_state == Lifecycle.ACTIVE:
            report.activated += 1
    timings["lifecycle"] = time.perf_counter() - t0
    report.seconds = time.perf_counter() - t_start
    return report


def write_moves(store, events: pd.DataFrame, moves, *, now: datetime, actor: str,
                superseded: dict[str, datetime | None] | None = None, query_id: str = "") -> int:
    """LIFECYCLE events for ``moves`` (skipping one already recorded as the document's latest),
    then the ``lifecycle`` (and ``superseded_at``) fields in one commit."""
    superseded = superseded or {}
    latest = _latest_moves(events, [m.doc_id for m in moves])
    rows = [{"event_id": stable_id("lifecycle", m.doc_id, m.from_state.value, m.to_state.value, str(to_us(now))),
             "doc_id": m.doc_id, "event_type": EventType.LIFECYCLE.value, "at": now, "actor": actor,
             "query_id": query_id, "detail": {"from": m.from_state.value, "to": m.to_state.value,
                                              "reason": m.reason}}
            for m in moves if latest.get(m.doc_id) != (m.from_state.value, m.to_state.value)]
    if rows:
        have = store.existing_event_ids([r["event_id"] for r in rows])
        store.append_events([r for r in rows if r["event_id"] not in have])
    updates: dict[str, dict] = {d: {"doc_id": d, "superseded_at": t} for d, t in superseded.items()}
    for m in moves:
        updates.setdefault(m.doc_id, {"doc_id": m.doc_id})["lifecycle"] = m.to_state.value
    store.update_doc_fields(list(updates.values()))
    return len(rows)


def wake_accessed(store, events: pd.DataFrame, states: dict[str, str], *, now: datetime,
                  query_id: str = "", actor: str = "query") -> list:
    """DORMANT -> ACTIVE for accessed documents (``states``: doc_id -> current lifecycle)."""
    moves = wake_on_access(states, reason="accessed")
    if moves:
        write_moves(store, events, moves, now=now, actor=actor, query_id=query_id)
    return moves


# --- helpers -------------------------------------------------------------------------------
def _edge_id(src: str, etype: EdgeType, dst: str) -> str:
    from .store import edge_id

    return edge_id(src, etype.value, dst)


def _path(graph, a: str, b: str) -> bool:
    return a in graph and b in graph and nx.has_path(graph, a, b)


def _ripple_graph(live_edges: pd.DataFrame, new_edges: list[dict], position: pd.Index) -> KnowledgeGraph:
    """The relations graph over the documents that have an edge (old and new ones)."""
    frames = [f for f in (live_edges, pd.DataFrame(new_edges)) if len(f)]
    edges = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["src", "dst", "edge_type"])
    edges = edges[edges["src"].isin(position) & edges["dst"].isin(position)]
    return KnowledgeGraph.from_edges(edges, sorted(set(edges["src"]) | set(edges["dst"])))


def _frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame({
        "doc_id": [r["doc_id"] for r in rows], "event_type": [r["event_type"] for r in rows],
        "at_us": np.array([to_us(r["at"]) for r in rows], dtype=np.int64),
        "delta": np.array([float(r.get("delta", 0.0)) for r in rows]),
        "query_id": [r.get("query_id", "") for r in rows], "actor": [r.get("actor", "") for r in rows],
        "detail": [r.get("detail", "") for r in rows]})


def _latest_moves(events: pd.DataFrame, doc_ids: list[str]) -> dict[str, tuple[str, str]]:
    """doc_id -> (from, to) of its latest LIFECYCLE event, for the given documents."""
    if not doc_ids or events is None or not len(events):
        return {}
    sub = events[(events["event_type"] == EventType.LIFECYCLE.value) & events["doc_id"].isin(doc_ids)]
    out = {}
    for row in sub.sort_values("at_us", kind="stable").itertuples(index=False):
        detail = row.detail if isinstance(row.detail, dict) else json.loads(row.detail or "{}")
        out[row.doc_id] = (detail.get("from"), detail.get("to"))
    return out


def _edited(store, docs: pa.Table, query_side: np.ndarray) -> list[tuple[str, str]]:
    """(doc_id, doc_hash) of query-side documents whose text changed at their latest write."""
    candidates = [d for d, q in zip(docs.column("doc_id").to_pylist(), query_side, strict=True) if q]
    if not candidates:
        return []
    ev = store.events(candidates).to_pandas()
    ev = ev[ev["event_type"].isin([EventType.INGEST.value, EventType.UPDATE.value])]
    if not len(ev):
        return []
    last = ev.sort_values("at", kind="stable").groupby("doc_id").tail(1)
    hashes = dict(zip(docs.column("doc_id").to_pylist(), docs.column("doc_hash").to_pylist(), strict=True))
    out = []
    for row in last.itertuples(index=False):
        if row.event_type != EventType.UPDATE.value:
            continue
        detail = json.loads(row.detail or "{}")
        if int(detail.get("retired", 0)) > 0:
            out.append((row.doc_id, hashes.get(row.doc_id, "")))
    return out


def _title_keys(titles, min_words: int) -> set[tuple[str, ...]]:
    return {words for words in (tuple(t.split()) for t in titles) if len(words) >= min_words}


def _resolve_citations(hits, titles, created, live, config) -> list[tuple[int, int, str]]:
    """(citing doc, cited doc, evidence), sorted: a cited title names its newest document
    (live ones first), which depends on this run's supersessions (hence resolved here)."""
    newest: dict[tuple[str, ...], int] = {}
    for i, title in enumerate(titles):
        words = tuple(title.split())
        if len(words) < config.min_title_words:
            continue
        j = newest.get(words)
        if j is None or (live[i], created[i]) > (live[j], created[j]):
            newest[words] = i
    return sorted({(citing, key if kind == "id" else newest[key], how) for citing, kind, key, how in hits})


def _citation_hits(plan: ConsolidationPlan, rows: np.ndarray) -> set[tuple]:
    """Citations in the chunk texts ``rows`` that name another document's id or title.
    Query-side texts are scanned for every id and title; the other texts only for the ids and
    titles of query-side documents (what is new to them), and only those texts that contain a
    probe substring of one (one C-speed search over the joined texts per new key)."""
    ids, titles, query_side, chunk_doc, texts = plan.ids, plan.titles, plan.query_side, plan.chunk_doc, plan.texts
    id_index: dict[str, int] = {str(d): i for i, d in enumerate(ids)
                                if len(str(d)) >= 3 and _ID_LIKE.search(str(d))}
    title_keys = _title_keys(titles, plan.config.min_title_words)
    first_words = {words[0] for words in title_keys}
    lengths = sorted({len(words) for words in title_keys})  # few: one set look-up per length and position
    new_ids = {d for d, i in id_index.items() if query_side[i]}
    new_titles = {tuple(titles[i].split()) for i in np.flatnonzero(query_side)} & title_keys
    out: set[tuple] = set()

    def scan(row: int, everything: bool) -> None:
        text, citing = texts[row], int(chunk_doc[row])
        for token in set(_ID_TOKEN.findall(text)):
            token = token.rstrip(".:/-")
            i = id_index.get(token)
            if i is not None and (everything or token in new_ids):
                out.add((citing, "id", i, f"text cites id '{token}'"))
        words = _WORDS.findall(text.lower())
        hits = first_words.intersection(words)
        for pos, word in enumerate(words):
            if word not in hits:
                continue
            for length in lengths:
                title = tuple(words[pos:pos + length])
                if title in title_keys and (everything or title in new_titles):
                    out.add((citing, "title", title, f"text cites title '{' '.join(title)}'"))

    rows = np.asarray(rows, np.int64)
    on_query_side = query_side[chunk_doc[rows]]
    for row in rows[on_query_side]:
        scan(int(row), True)
    others = rows[~on_query_side]
    if len(others) and (new_ids or new_titles):
        if len(new_ids) + len(new_titles) > 500:  # many new keys: scan every text
            candidates = set(others.tolist())
        else:
            joined = "\x00".join(texts[others])
            lowered = joined.lower()
            starts = np.cumsum([0] + [len(t) + 1 for t in texts[others]])
            candidates = set()
            probes = [(joined, key) for key in new_ids] + [(lowered, max(t, key=len)) for t in new_titles]
            for haystack, probe in probes:
                at = haystack.find(probe)
                while at >= 0:
                    candidates.add(int(others[np.searchsorted(starts, at, side="right") - 1]))
                    at = haystack.find(probe, at + 1)
        for row in sorted(candidates):
            scan(row, False)
    return out
