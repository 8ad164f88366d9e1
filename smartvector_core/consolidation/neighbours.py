"""The pure, expensive part of a run: neighbour pairs and the per-pair checks.

**Candidate pairs, never all pairs.** For each current chunk of a document on the *query side*
(by default the UNCONSOLIDATED ones: new or edited since the last run; ``full=True``: all),
its top-``neighbours`` most similar current chunks are found from the stored vectors (already
in memory: no store read per query or pair), so a run examines at most
``chunks x neighbours`` chunk pairs:

- up to ``exact_limit`` chunks, or when the query side is a small share of them (an
  incremental run, :func:`exact_search`), exactly: a vectorised numpy top-m over blocks of rows
  (:func:`top_neighbours`; ~0.25 ms per query row at 10k chunks, but quadratic in the chunks);
- above it, from inverted lists (IVF, :func:`build_index` / :func:`ivf_neighbours`): the chunk
  vectors are cut into ``chunks / ivf_list_size`` lists by spherical k-means, and a query row
  scores only the members of its ``ivf_probes`` nearest lists (about ``ivf_probes x
  ivf_list_size`` rows, whatever the store's size), so the search grows linearly with the
  chunks but for the k-means assignment (``chunks x lists`` dot products, small). Approximate:
  a true neighbour in a list that is not probed is missed (recall of the exact top-13 at 10k
  chunks: 0.998 on MiniLM vectors, 0.83 on the benchmark's near-identical hashing vectors;
  pairs of cosine >= 0.9: >= 0.99 on both; docs/PERF.md "Consolidation at 100k chunks").

Candidates are re-ranked by exact float64 cosine (ties by row), so a query row's neighbours do
not depend on which rows were searched with it (the lists are built once from every vector).

**Two engines, one writer.** :func:`find_candidates` over a slice of query documents gives the
neighbour pairs, the near-duplicate test, the contradiction hits (the facts rule) and the
citation scan; :func:`merge_findings` combines slices deterministically. The local engine runs
one slice in-process; ``engine="ray"`` (:mod:`smartvector_core.scaleout.ray_consolidate`) runs
partitions as Ray tasks. The planners and the writes run once, in the driver (:mod:`.runner`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..clock import US_PER_DAY
from ..config.consolidation import ConsolidationConfig
from ..facts import ParsedText, contradictions_between, parse_text
from ..models import DocumentKind

_WORDS = re.compile(r"[a-z0-9]+")
_ID_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/-]*")
_ID_LIKE = re.compile(r"[0-9_.:/-]")


def top_neighbours(queries: np.ndarray, base: np.ndarray, m: int, block_rows: int = 1024
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact top-``m`` rows of ``base`` for each row of ``queries`` by dot product (vectors
    unit-norm: cosine), in blocks: (query_row, base_row, similarity), best first within a row
    (ties: lower base row first).

    Per block, ``np.partition`` finds each row's m-th largest score and one comparison keeps the
    rows at or above it: exact, and faster than ``argpartition`` (docs/PERF.md).

    ``base`` may be a :class:`.incremental.RowView` (a warm cache's kept matrix): the product
    runs over its whole matrix in place, the slots it does not hold score -inf, and each column
    is named by its row (``row_of``), so ties break by row as over the gathered matrix."""
    m = min(m, len(base))
    if m == 0 or len(queries) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    rows, cols, sims = [], [], []
    row_of = getattr(base, "row_of", None)
    matrix = base.data if row_of is not None else base
    n = len(matrix)
    for start in range(0, len(queries), block_rows):
        scores = queries[start:start + block_rows] @ matrix.T
        if row_of is not None:
            scores[:, row_of < 0] = -np.inf
        kth = np.partition(scores, n - m, axis=1)[:, n - m] if m < n else scores.min(axis=1)
        r, c = np.nonzero(scores >= kth[:, None])
        v = scores[r, c]
        if row_of is not None:
            c = row_of[c]
        order = np.lexsort((c, -v, r))
        r, c, v = r[order], c[order], v[order]
        counts = np.bincount(r, minlength=len(scores))
        keep = np.arange(len(r)) - np.repeat(np.cumsum(counts) - counts, counts) < m   # ties past m
        rows.append(r[keep] + start)
        cols.append(c[keep])
        sims.append(v[keep].astype(np.float64))
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(sims)


@dataclass(frozen=True)
class NeighbourIndex:
    """Inverted lists over the chunk vectors: list ``c`` holds ``rows[bounds[c]:bounds[c+1]]``
    (the rows whose nearest k-means centroid is ``c``); ``probes[r]``: the lists row ``r``
    searches, nearest centroid first (``probes[r, 0]`` is its own list)."""

    rows: np.ndarray
    bounds: np.ndarray
    probes: np.ndarray


def _nearest_lists(vectors: np.ndarray, centroids: np.ndarray, p: int, block_rows: int = 4096) -> np.ndarray:
    """Each row's ``p`` nearest centroids by dot product, nearest first (ties: lower list)."""
    out = []
    for start in range(0, len(vectors), block_rows):
        scores = vectors[start:start + block_rows] @ centroids.T
        if p == 1:    # argmax: the first of equal maxima, the lower list
            out.append(np.argmax(scores, axis=1)[:, None])
            continue
        near = np.argpartition(-scores, p - 1, axis=1)[:, :p] if p < len(centroids) \
            else np.broadcast_to(np.arange(len(centroids)), scores.shape)
        order = np.lexsort((near, -np.take_along_axis(scores, near, 1)), axis=1)
        out.append(np.take_along_axis(near, order, 1))
    return np.concatenate(out) if out else np.zeros((0, p), np.int64)


def build_index(vectors: np.ndarray, list_size: int, probes: int, *, iterations: int = 4,
                sample_per_list: int = 16, seed: int = 0) -> NeighbourIndex:
    """Inverted lists for :func:`ivf_neighbours` over unit-norm ``vectors``: spherical k-means
    (Lloyd's algorithm, centroid = normalised mean of its rows) with ``L = ceil(n / list_size)``
    centroids, trained for ``iterations`` on a seeded sample of ``sample_per_list x L`` rows
    (initial centroids: a seeded sample of those), then every row assigned to its nearest
    centroid and given its ``probes`` nearest lists. Deterministic: the same vectors give the
    same lists in every process (a Ray task rebuilds exactly the driver's).

    Cost: ``(iterations x sample_per_list + 1) x n x L`` dot products, quadratic in ``n`` but
    small: ``65 n² / list_size`` (3.6 s CPU at 100k chunks, the search of all rows 4.2 s),
    against ``n²`` for the exact search. The 4 iterations on 16 rows a list (ours) find lists
    as good for the search as 6 on 32 (recall 0.997 on the 10k MiniLM vectors, 0.80 against
    0.81 on the hashing ones) at 60% of the cost."""
    n = len(vectors)
    lists = max(1, -(-n // max(1, list_size)))
    rng = np.random.default_rng(seed)
    sample = vectors[np.sort(rng.choice(n, min(n, sample_per_list * lists), replace=False))]
    centroids = sample[np.sort(rng.choice(len(sample), lists, replace=False))].copy()
    for _ in range(iterations if lists > 1 else 0):
        assign = _nearest_lists(sample, centroids, 1)[:, 0]
        counts = np.bincount(assign, minlength=lists)
        filled = counts > 0
        sums = np.add.reduceat(sample[np.argsort(assign, kind="stable")], (np.cumsum(counts) - counts)[filled])
        centroids[filled] = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    near = _nearest_lists(vectors, centroids, min(probes, lists))
    counts = np.bincount(near[:, 0], minlength=lists)
    return NeighbourIndex(np.argsort(near[:, 0], kind="stable"), np.r_[0, np.cumsum(counts)], near)


def ivf_neighbours(index: NeighbourIndex, vectors: np.ndarray, query_rows: np.ndarray, m: int,
                   block_rows: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """Approximate top-``m`` rows of ``vectors`` for each of ``query_rows`` (query row index,
    base row), by dot product over the members of the query row's probed lists only.

    Per block of query rows and per probed list: one matrix product (the block's rows that
    probe the list against its members) and each row's best ``m`` members; then each row's best
    ``m`` over its lists. Unordered within a row; ties at the m-th may fall either way (the
    caller takes a margin and re-ranks exactly)."""
    query_rows = np.asarray(query_rows, np.int64)
    p = index.probes.shape[1]
    rows_out, cols_out = [], []
    for start in range(0, len(query_rows), block_rows):
        block = query_rows[start:start + block_rows]
        probed = index.probes[block].ravel()          # slot s: query s // p, its (s % p)-th list
        order = np.argsort(probed, kind="stable")
        cuts = np.searchsorted(probed[order], np.arange(len(index.bounds)))
        cols = np.full((len(block), p * m), -1, np.int64)
        scores = np.full((len(block), p * m), -np.inf, np.float32)
        for c in np.unique(probed):
            members = index.rows[index.bounds[c]:index.bounds[c + 1]]
            if not len(members):
                continue
            q, j = np.divmod(order[cuts[c]:cuts[c + 1]], p)
            s = vectors[block[q]] @ vectors[members].T
            k = min(m, len(members))
            top = np.argpartition(-s, k - 1, axis=1)[:, :k] if k < len(members) \
                else np.broadcast_to(np.arange(k), s.shape)
            at = j[:, None] * m + np.arange(k)
            cols[q[:, None], at] = members[top]
            scores[q[:, None], at] = np.take_along_axis(s, top, 1)
        k = min(m, p * m)
        best = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < p * m \
            else np.broadcast_to(np.arange(k), scores.shape)
        found = np.take_along_axis(cols, best, 1)
        qi = np.broadcast_to(np.arange(start, start + len(block))[:, None], found.shape)
        rows_out.append(qi[found >= 0])
        cols_out.append(found[found >= 0])
    if not rows_out:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(rows_out), np.concatenate(cols_out)


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
    snapshot: np.ndarray     # doc_type in config.snapshot_doc_types, or a log record
    log: np.ndarray          # records of their own moment (temporal.kinds.is_log_record)
    old_chain: np.ndarray    # version chain before this run (smallest id of its SUPERSEDES component)
    query_side: np.ndarray
    chunk_doc: np.ndarray    # chunk row -> document row
    texts: np.ndarray        # chunk texts
    vectors: np.ndarray      # (chunks, dim) float32, unit-norm
    centroids: np.ndarray    # (n, dim) float32, unit-norm
    config: ConsolidationConfig
    index: NeighbourIndex | None = None   # inverted lists above exact_limit (neighbour_index)
    # (ids, titles) -> chunk rows whose text may cite one of them (a superset), or None: search the
    # texts (:class:`.incremental.ConsolidationCache` keeps an index of them)
    citation_rows: object = None
    # (citable id -> document row, every title's words), kept by the caller, or None: computed here
    citation_keys: tuple | None = None


def neighbour_index(plan: ConsolidationPlan) -> NeighbourIndex:
    """The plan's inverted lists (:func:`build_index` with the config's ``ivf_*`` constants),
    built on first use and kept in the plan (build it before shipping the plan to Ray tasks,
    or each task rebuilds the same lists)."""
    if plan.index is None:
        config = plan.config
        plan.index = build_index(np.asarray(plan.vectors), config.ivf_list_size, config.ivf_probes)
    return plan.index


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


def cosines(matrix: np.ndarray, a, b, block: int = 4_096) -> np.ndarray:
    """Exact cosine of rows ``a[i]``, ``b[i]`` (float64, symmetric, independent of batching).

    Small blocks and a fused row-wise dot product (einsum) keep the float64 copies in cache
    (faster than whole-array products, same values to 1e-12: docs/PERF.md)."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    out = np.zeros(len(a))
    for start in range(0, len(a), block):
        x = matrix[a[start:start + block]].astype(np.float64)
        y = matrix[b[start:start + block]].astype(np.float64)
        out[start:start + block] = np.einsum("ij,ij->i", x, y)
    return out


EXACT_BLOCK_SCORES = 1 << 25   # float32 scores of one block of the exact search (128 MB)


def exact_search(plan: ConsolidationPlan) -> bool:
    """Exact search for this plan's query side: a store of at most ``exact_limit`` chunks, or
    query-side chunks at most ``exact_query_share`` of all chunks (an incremental run). Building
    the lists costs about ``n² / 32`` dot products (:func:`build_index`, 64 rows a list), the
    exact search ``q x n``: exact is the cheaper below ``q = n / 32``. Decided on the whole plan
    (not a Ray task's slice), so every task searches the same way."""
    chunks, config = len(plan.vectors), plan.config
    return chunks <= config.exact_limit or plan.query_side[plan.chunk_doc].sum() <= config.exact_query_share * chunks


def _neighbour_pairs(plan: ConsolidationPlan, query_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Neighbour chunk pairs (row a, row b, exact cosine) of ``query_rows``, a != b.

    The search (exact up to ``exact_limit`` chunks, inverted lists above) takes ``m +
    NEIGHBOUR_MARGIN`` candidates per row from the float32 products, then keeps the top ``m``
    by (float64 cosine, row): the result of a row does not depend on which other rows were
    searched with it, so any partition of the query rows finds the same pairs."""
    config, vectors = plan.config, plan.vectors
    m = config.neighbours + 1  # a chunk is its own nearest neighbour
    if len(query_rows) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    if exact_search(plan):
        block = max(1, min(config.block_rows, EXACT_BLOCK_SCORES // len(getattr(vectors, "data", vectors))))
        qi, b, _ = top_neighbours(vectors[query_rows], vectors, m + NEIGHBOUR_MARGIN, block)
    else:
        vectors = np.asarray(vectors)   # a RowView gathered once: the lists read every row
        qi, b = ivf_neighbours(neighbour_index(plan), vectors, query_rows, m + NEIGHBOUR_MARGIN)
    a = query_rows[qi]
    sim = cosines(vectors, a, b)
    order = np.lexsort((b, -sim, a))
    a, b, sim = a[order], b[order], sim[order]
    starts = np.r_[0, np.flatnonzero(np.diff(a)) + 1]
    rank = np.arange(len(a)) - np.repeat(starts, np.diff(np.r_[starts, len(a)]))
    keep = (rank < m) & (a != b)
    return a[keep], b[keep], sim[keep]


def find_candidates(plan: ConsolidationPlan, doc_rows=None) -> Findings:
    """The pure, expensive part of a run for the query documents among ``doc_rows`` (all: None):
    their chunks' neighbour pairs (against every current chunk), the near-duplicate supersession
    test, ``facts.contradictions_between`` on the pairs, and the citation scan of these documents' texts.
    Runs anywhere (a Ray task gets ``plan`` from the object store); writes nothing."""
    config, chunk_doc, n = plan.config, plan.chunk_doc, len(plan.ids)
    mine = np.ones(n, bool) if doc_rows is None else np.isin(np.arange(n), np.asarray(doc_rows, np.int64))
    in_slice = mine[chunk_doc]
    query_rows = np.flatnonzero(in_slice & plan.query_side[chunk_doc])
    a, b, sim = _neighbour_pairs(plan, query_rows)
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
        cos = cosines(plan.centroids, x, y)
        titles, kinds, created = plan.titles, plan.kinds, plan.created
        ok = ((cos >= config.near_duplicate) & plan.dated[x] & plan.dated[y] & (kinds[x] == kinds[y])
              & (kinds[x] != DocumentKind.EVENT.value) & (created[x] != created[y])
              & (plan.sources[x] == plan.sources[y]) & ~plan.log[x] & ~plan.log[y]
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
    # each chunk's text is parsed once, not once per pair
    parsed: dict[int, ParsedText] = {}

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


def local_finder(plan: ConsolidationPlan) -> Findings:
    """The local engine: every query document in this process, one part."""
    return merge_findings([find_candidates(plan, None)], plan)


def citable_id(doc_id: str) -> bool:
    """Whether a text can cite ``doc_id`` as an id: 3 characters or more, with a digit or one of
    ``_.:/-`` (a bare word like "refunds" is never taken for an id)."""
    return len(doc_id) >= 3 and _ID_LIKE.search(doc_id) is not None


def _title_keys(titles, min_words: int) -> set[tuple[str, ...]]:
    return {words for words in (tuple(t.split()) for t in titles) if len(words) >= min_words}


def _citation_hits(plan: ConsolidationPlan, rows: np.ndarray) -> set[tuple]:
    """Citations in the chunk texts ``rows`` that name another document's id or title.
    Query-side texts are scanned for every id and title; the other texts only for the ids and
    titles of query-side documents (what is new to them), and only those texts that contain a
    probe substring of one (one C-speed search over the joined texts per new key), or, where the
    plan has ``citation_rows`` (a warm :class:`.incremental.ConsolidationCache`), the texts its
    index names (each holding the id as a token, or every word of the title)."""
    ids, titles, query_side, chunk_doc, texts = plan.ids, plan.titles, plan.query_side, plan.chunk_doc, plan.texts
    min_words = plan.config.min_title_words
    if plan.citation_keys is not None:   # kept by the caller: (citable id -> row, each title's words)
        id_index, words_of = plan.citation_keys
        title_keys = {words for words in words_of if len(words) >= min_words}
    else:
        id_index = {str(d): i for i, d in enumerate(ids) if citable_id(str(d))}
        title_keys = _title_keys(titles, min_words)
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
        if plan.citation_rows is not None:
            found = np.asarray(plan.citation_rows(new_ids, new_titles), np.int64)
            among = np.zeros(len(texts), bool)
            among[others] = True
            candidates = set(found[among[found]].tolist())
        elif len(new_ids) + len(new_titles) > 500:  # many new keys: scan every text
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
