"""One query, end to end: intent -> embed once -> prefiltered search -> gates -> signals ->
profile score -> chains, pairing, tiers -> results with their explanation.

Nothing here reads the clock: ``as_of`` is the moment the question is asked; a date named in
the question ("as of March 2025") moves the moment of judgement ``t`` but not what existed.
Logging (query log, access events) is the service's job; this module only computes.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..clock import from_us, iso, to_us
from ..config import DEFAULT_ENGINE, EngineConfig
from ..config.query import DEFAULT_ABSTENTION, DEFAULT_SEARCH, AbstentionConfig, SearchConfig
from ..errors import InputError
from ..knowledge import KnowledgeState
from ..models import (
    Action,
    ConfidenceTier,
    DocumentKind,
    QueryResponse,
    Rejection,
    RejectionCode,
    Result,
    Signal,
    ValidityState,
)
from ..store import cosine_distance, first_existing, overfetched, vector_matrix
from ..temporal import (
    STATE_TEMPORAL,
    STATE_VALID,
    confidence_tiers,
    parse_intent,
    remaining_window_hours,
)
from ..temporal.codes import state_names
from . import calibration
from .candidates import (
    CHUNK_COLUMNS,
    KIND_NAMES,
    PASSAGES_PER_DOCUMENT,
    SEARCH_COLUMNS,
    Candidates,
    first_per_document,
    relevant_passages,
    select_passages,
)
from .lexical import lexical_signal, subject_terms
from .profiles import Profile, get_profile
from .query_cache import Knots, QueryCache
from .rerank import CODES, Ranked, age_days, rerank
from .text_index import TextIndex

GROUP_BY = ("chunk", "document")
# LanceDB's reads run outside the GIL: the full-text searches of one query run beside the
# question's encoding and beside each other (issue 18: on real text they cost as much as the
# vector search; run one after another they made the query 1.5-2x the raw search)
_READS = ThreadPoolExecutor(max_workers=DEFAULT_SEARCH.max_names + 1, thread_name_prefix="smartvector-read")
COMMON_NAME = object()  # kept for a name with ``name_matches`` matches or more: later questions skip its
#                         store-wide search (it would be cut off anyway) and search the pool only


@dataclass
class QueryRequest:
    text: str
    as_of: datetime
    profile: Profile
    k: int = 5
    query_id: str = ""
    group_by: str = "chunk"               # chunk: up to k passages; document: one per document
    per_document: int = PASSAGES_PER_DOCUMENT   # most passages of one document (chunk mode)
    config: EngineConfig = DEFAULT_ENGINE      # every threshold the query reads (config/engine.py)

    def __post_init__(self) -> None:
        if self.group_by not in GROUP_BY:
            raise InputError(f"unknown group-by {self.group_by!r}: expected one of {', '.join(GROUP_BY)}",
                             field="group_by")
        if self.per_document < 1:
            raise InputError(f"expected per-document >= 1, found {self.per_document}", field="per_document")

    @property
    def passages_per_document(self) -> int:
        return 1 if self.group_by == "document" else self.per_document


def new_query_id() -> str:
    return uuid.uuid4().hex[:12]


def retrieve(store, query_vector: np.ndarray | Callable[[], np.ndarray], as_of: datetime, k: int,
             cache: QueryCache | None = None, text: str | None = None, config: SearchConfig = DEFAULT_SEARCH
             ) -> Candidates:
    """Top chunks that existed at ``as_of``, one row per chunk (passage). ``query_vector``: the
    question's embedding, or a function that makes it (then the full-text search runs while
    the question is encoded).

    With ``text``, LanceDB's full-text (BM25) index is searched too: its best
    ``config.lexical_pool`` chunks join the pool (their cosine computed from their stored vectors)
    and every passage carries its lexical signal (:mod:`.lexical`: the question's BM25 and the
    share of the question's names it contains).

    With ``cache`` (the :class:`.query_cache.QueryCache` of the store's knowledge state) LanceDB
    returns only the chunk's own columns and the document-level fields come from the cache,
    which holds them already; when ``as_of`` is at or after the newest document the state knows,
    LanceDB's prefilter also leaves out the (then always true) existence bound. A hit on a
    document the state does not know (written since it was loaded) falls back to the plain
    search. Same candidates either way (tested); measured at 100k chunks, the search costs
    about 40% less. Once the cache's in-memory copy of the chunks table is built
    (:class:`.text_index.TextIndex`), LanceDB returns only the hits' row ids and distances and the
    copy gives their chunk ids, documents and texts (:func:`_indexed_vector_hits`: at 1M chunks
    the search takes 10 ms instead of 20).
    """
    pool = max(config.candidate_pool, config.candidate_pool_per_k * k)
    fields = cache.document_fields() if cache is not None else None
    if fields is not None:
        index = cache.knowledge.doc_index()
        bound = as_of if to_us(as_of) < int(fields["created_us"].max()) else None
        overfetch = search_overfetch(cache.existing_share(None if bound is None else to_us(bound)), config)
        chunks = cache.text_index()
        found = _text_searches(store, text, bound, CHUNK_COLUMNS, cache.full_text, overfetch=overfetch,
                               index=chunks, config=config)
        query_vector = query_vector() if callable(query_vector) else query_vector
        hits = _indexed_vector_hits(store, chunks, query_vector, bound, pool, overfetch)
        if hits is None:
            hits = store.search(query_vector, as_of=bound, limit=pool, columns=CHUNK_COLUMNS, overfetch=overfetch)
        hits, lexical = _with_lexical(store, hits, found, query_vector, bound, CHUNK_COLUMNS)
        cands = Candidates.from_chunk_hits(hits, fields, index.lookup, lexical)
        if cands is not None:
            return cands
    found = _text_searches(store, text, as_of, SEARCH_COLUMNS, config=config)
    query_vector = query_vector() if callable(query_vector) else query_vector
    hits = store.search(query_vector, as_of=as_of, limit=pool, columns=SEARCH_COLUMNS)
    hits, lexical = _with_lexical(store, hits, found, query_vector, as_of, SEARCH_COLUMNS)
    return Candidates.from_search(hits, lexical)


def _indexed_vector_hits(store, index: TextIndex | None, vector: np.ndarray, as_of, limit: int,
                         overfetch: float | None) -> pa.Table | None:
    """``store.search(vector, as_of=as_of, limit=limit, columns=CHUNK_COLUMNS, overfetch=overfetch)``
    with LanceDB reading no column of the hits: its unfiltered search returns row ids and
    distances (:meth:`Store.search_row_ids`), and the in-memory ``index`` holds each hit's chunk
    id, document, text and existence (:meth:`.text_index.TextIndex.hit_rows`). The same rows in
    the same order (tested). Where too few of the hits exist at ``as_of``, LanceDB's prefiltered
    search answers (as in :meth:`Store.search`). None where it cannot answer: no index yet or no
    texts kept, or a hit written since the index was built."""
    if index is None or index.texts is None or overfetch is None:
        return None
    n = overfetched(limit, overfetch)
    found = store.search_row_ids(vector, n)
    rows = index.hit_rows(found.column("_rowid").to_numpy())
    if (rows < 0).any():
        return None
    keep = first_existing(index.existing(rows, None if as_of is None else to_us(as_of)), limit, n)
    if keep is None:
        return store.search(vector, as_of=as_of, limit=limit, columns=CHUNK_COLUMNS)
    return pa.table({**index.columns(rows[keep]), "_distance": found.column("_distance").take(pa.array(keep))})


def search_overfetch(share: float, config: SearchConfig = DEFAULT_SEARCH) -> float | None:
    """How many rows an unfiltered search reads per row wanted when a ``share`` of the table's
    rows exists at the moment asked (:meth:`.query_cache.QueryCache.existing_share`): ``margin / share``
    (``config.postfilter_margin``: the margin covers the estimate's error), 1 when every row exists (nothing is estimated
    then: at 1M chunks the ANN search re-ranks 180 rows instead of 225, ~1 ms less); None (use
    the prefilter) when fewer than ``config.postfilter_min_share`` exist."""
    if share >= 1.0:
        return 1.0
    return config.postfilter_margin / share if share >= config.postfilter_min_share else None


@dataclass
class _TextSearches:
    """The full-text searches of one question: answered by the in-memory ``index`` when there
    is one, else LanceDB's, under way in the background (:data:`_READS`)."""

    question: Future                      # its best ``lexical_pool`` chunks, with their vectors
    names: list[tuple[str, tuple, Future | None]]   # per name: its key and the chunks naming it (up to
    #                                     ``name_matches``; None: a COMMON_NAME, searched within the pool only)
    known: dict                           # full-text results per question and name key, kept for later questions
    asked: tuple = ()                     # the question's key in ``known``
    index: TextIndex | None = None        # the in-memory index (names are then matched in the pool by it)
    config: SearchConfig = DEFAULT_SEARCH


def _text_searches(store, text: str | None, as_of, columns, known: dict | None = None, *,
                   overfetch: float | None = None, index: TextIndex | None = None,
                   config: SearchConfig = DEFAULT_SEARCH) -> _TextSearches | None:
    """Start the question's full-text searches (None without text). They need neither the
    question's vector nor the pool, so they run while the question is encoded and searched.
    With ``index`` (:class:`.text_index.TextIndex`) the question is searched in process and
    names are matched later, in the pool. Else LanceDB's index is searched; ``known``: the
    full-text results found for earlier questions of the same knowledge state
    (``QueryCache.full_text``: same table versions, so the same answer): a name's
    store-wide matches, and a question asked before at the same existence bound."""
    if text is None:
        return None
    names = subject_terms(text)[:config.max_names]
    if index is not None:
        return _TextSearches(_indexed_question(store, index, text, as_of, columns, config.lexical_pool),
                             [(name, (), None) for name in names], {}, index=index, config=config)
    known = {} if known is None else known
    asked = ("question", text, None if as_of is None else to_us(as_of), tuple(columns))
    # the same question again (a retry, another lexical profile, a batch) reuses its hits
    question = _known_or_searched(known, asked, _best_text_hits, store, text, as_of, [*columns, "vector"],
                                  overfetch, config.lexical_pool)
    searches = _TextSearches(question, [], known, asked, config=config)
    for name in names:
        key = (name, None if as_of is None else to_us(as_of))
        search = None if known.get(key) is COMMON_NAME else _known_or_searched(   # common: searched in the pool
            known, key, store.fts_search, name, as_of=as_of, limit=config.name_matches, require_all=True,
            columns=("chunk_id",), overfetch=overfetch)
        searches.names.append((name, key, search))
    return searches


def _best_text_hits(store, text: str, as_of, columns, overfetch: float | None, limit: int) -> pa.Table:
    """LanceDB's best ``limit`` chunks for ``text``, ties broken by chunk id as the
    in-memory index breaks them (:meth:`.text_index.TextIndex.best`): twice as many are read
    and cut, so that the two answer alike (LanceDB breaks ties arbitrarily)."""
    found = store.fts_search(text, as_of=as_of, limit=2 * limit, columns=columns, overfetch=overfetch)
    if not found.num_rows:
        return found
    order = pc.sort_indices(found, sort_keys=[("_score", "descending"), ("chunk_id", "ascending")])
    return found.take(order).slice(0, limit)


def _indexed_question(store, index: TextIndex, text: str, as_of, columns,
                      limit: int = DEFAULT_SEARCH.lexical_pool) -> Future:
    """The question's best ``limit`` chunks from the in-memory ``index``, in the shape
    of :func:`_best_text_hits` (``columns``, ``vector``, ``_score``): their rows from the index
    when it keeps them, else read from LanceDB in the background."""
    rows, scores = index.search(text, as_of_us=None if as_of is None else to_us(as_of), limit=limit)
    wanted = [*columns, "vector"]
    done: Future = Future()
    if not len(rows) or (index.vectors is not None and index.texts is not None):
        done.set_result(index.table(rows, scores).select([*wanted, "_score"]) if len(rows)
                        else _scored(None, scores, wanted))
        return done
    ids = index.ids(rows)
    read_columns = ["chunk_id", "vector"] if index.texts is not None else wanted   # the rest: from the index

    def read() -> pa.Table:   # by row id (cheaper), checked by chunk id
        try:
            got = store.chunks_by_row_id(index.row_id[rows], read_columns)
        except Exception:  # noqa: BLE001 - a row id gone with a newer table version
            got = None
        if got is None or set(got.column("chunk_id").to_pylist()) != set(ids):
            got = store.chunks_by_id(ids, read_columns)
        at = {c: i for i, c in enumerate(got.column("chunk_id").to_pylist())}
        keep = [j for j, c in enumerate(ids) if c in at]
        got = got.take(pa.array([at[ids[j]] for j in keep], pa.int64()))
        if index.texts is not None:
            got = pa.table({**index.columns(rows[keep]), "vector": got.column("vector")}).select(wanted)
        return _scored(got, scores[keep], wanted)
    return _READS.submit(read)


def _scored(rows: pa.Table | None, scores: np.ndarray, columns) -> pa.Table:
    """``rows`` (None: none) with their BM25 as ``_score`` (float32, as LanceDB gives it)."""
    if rows is None:
        return pa.table({**{c: pa.array([], pa.string()) for c in columns}, "_score": pa.array([], pa.float32())})
    return rows.append_column("_score", pa.array(np.asarray(scores, dtype=np.float32)))


def _known_or_searched(known: dict, key: tuple, search: Callable, *args, **kwargs) -> Future:
    """``known[key]`` as a finished future, else ``search(*args, **kwargs)`` started in the background."""
    if key in known:
        done: Future = Future()
        done.set_result(known[key])
        return done
    return _READS.submit(search, *args, **kwargs)


def _keep(known: dict, key: tuple, result, limit: int) -> None:
    """Keep a full-text result for later questions of the same knowledge state (up to ``limit`` of them)."""
    if len(known) < limit:
        known.setdefault(key, result)


def _named_in_pool(store, searches: _TextSearches, pool: list[str], as_of) -> list[tuple[set[str], float]]:
    """Per name of the question, the pool's chunks that name it and its weight, the best BM25
    among them (:func:`lexical.lexical_signal`). Read from the store-wide search where it
    returned every match (BM25 does not depend on the prefilter: checked on the real sets, 301
    names); a name with ``config.name_matches`` matches or more is searched again within the pool, and
    remembered as a :data:`COMMON_NAME`, so that later questions search only the pool for it."""
    if searches.index is not None:
        return _matched_in_pool(searches.index, [name for name, _, _ in searches.names], pool)
    in_pool = set(pool)
    cap = searches.config.name_matches
    out: list[tuple[set[str], float] | Future] = []
    for name, key, search in searches.names:
        named = search.result() if search is not None else None
        if named is not None:
            _keep(searches.known, key, COMMON_NAME if named.num_rows >= cap else named, searches.config.full_text_cache)
        if named is None or named.num_rows >= cap:
            out.append(_READS.submit(store.fts_search, name, as_of=as_of, limit=len(pool), require_all=True,
                                     within=pool))
            continue
        hits = [(c, float(s)) for c, s in zip(named.column("chunk_id").to_pylist(), named.column("_score").to_pylist(),
                                               strict=True) if c in in_pool]
        out.append(({c for c, _ in hits}, max((s for _, s in hits), default=0.0)))
    for i, item in enumerate(out):
        if isinstance(item, Future):
            named = item.result()
            out[i] = (set(named.column("chunk_id").to_pylist()),
                      float(max(named.column("_score").to_pylist(), default=0.0)))
    return out


def _matched_in_pool(index: TextIndex, names: list[str], pool: list[str]) -> list[tuple[set[str], float]]:
    """:func:`_named_in_pool` from the in-memory ``index``: per name, the pool's chunks holding
    every term of it, and its best BM25 among them."""
    rows = index.rows(pool)
    known = rows >= 0
    ids = np.asarray(pool, dtype=object)[known]
    out = []
    for name in names:
        named, score = index.matches(name, rows[known])
        out.append((set(ids[named].tolist()), float(score.max(initial=0.0))))
    return out


def _with_lexical(store, hits: pa.Table, searches: _TextSearches | None, query_vector: np.ndarray,
                  as_of, columns) -> tuple[pa.Table, dict[str, float] | None]:
    """The vector ``hits`` plus the full-text hits they lack (``_distance`` = 1 − cosine of the
    stored vector), and the lexical signal of the pool's chunks (:func:`lexical.lexical_signal`:
    the question's BM25, and which chunks of the pool name each name of the question,
    :func:`_named_in_pool`); ``searches``: :func:`_text_searches`; ``(hits, None)`` without text."""
    if searches is None:
        return hits, None
    found = searches.question.result()
    _keep(searches.known, searches.asked, found, searches.config.full_text_cache)
    new = ~pc.is_in(found.column("chunk_id"), value_set=hits.column("chunk_id").combine_chunks()).to_numpy(
        zero_copy_only=False) if found.num_rows else np.zeros(0, dtype=bool)
    if new.any():
        extra = found.filter(pa.array(new))
        vectors = vector_matrix(extra.column("vector")).astype(np.float64)
        q = np.asarray(query_vector, dtype=np.float64)
        cosine = vectors @ q / np.maximum(np.linalg.norm(vectors, axis=1) * np.linalg.norm(q), 1e-12)
        extra = extra.select(list(columns)).append_column("_distance", cosine_distance(cosine))
        hits = pa.concat_tables([hits.select([*columns, "_distance"]), extra.cast(hits.select(
            [*columns, "_distance"]).schema)])
    bm25 = dict(zip(found.column("chunk_id").to_pylist(), map(float, found.column("_score").to_pylist()),
                    strict=True))
    pool = list(dict.fromkeys(hits.column("chunk_id").to_pylist()))
    return hits, lexical_signal(bm25, _named_in_pool(store, searches, pool, as_of))


def start_encoding(embedder, text: str) -> Future:
    """The question's embedding, made in the background (the caller meanwhile checks its
    knowledge state and searches the text index): a future of (vector, milliseconds taken)."""
    def encode() -> tuple[np.ndarray, float]:
        t0 = time.perf_counter()
        return embedder.encode([text])[0], (time.perf_counter() - t0) * 1000
    return _READS.submit(encode)


def run_query(store, embedder, request: QueryRequest, *, cache: QueryCache,
              vector: np.ndarray | Future | None = None) -> QueryResponse:
    """Answer one query; ``cache`` is the query cache of the store's knowledge state
    (:class:`.query_cache.QueryCache`); ``vector`` the
    question's embedding if already computed, or being computed (:func:`start_encoding`); else
    it is embedded here, once."""
    profile = get_profile(request.profile)
    timings: dict[str, float] = {"embed": 0.0}
    waited_ms = 0.0   # what retrieve spent waiting for the embedding (not searching)

    def encode() -> np.ndarray:   # called by retrieve once the full-text search is under way
        nonlocal waited_ms
        t0 = time.perf_counter()
        if isinstance(vector, Future):
            encoded, timings["embed"] = vector.result()
        else:
            encoded = embedder.encode([request.text])[0]
            timings["embed"] = (time.perf_counter() - t0) * 1000
        waited_ms = (time.perf_counter() - t0) * 1000
        return encoded

    t1 = time.perf_counter()
    # the full-text searches feed only the lexical signal: a profile that does not weigh it
    # (naive, temporal, smartvector) does not pay for them
    cands = retrieve(store, vector if isinstance(vector, np.ndarray) else encode, request.as_of, request.k,
                     cache, text=request.text if profile.lexical_weight > 0 else None,
                     config=request.config.search)
    timings["search"] = (time.perf_counter() - t1) * 1000 - waited_ms
    t2 = time.perf_counter()
    response = answer(cands, request, profile, cache.knowledge, knots=cache.calibration_knots(profile.name))
    timings["rerank"] = (time.perf_counter() - t2) * 1000
    response.timings_ms = timings
    return response


def answer(cands: Candidates, request: QueryRequest, profile: Profile, knowledge: KnowledgeState, *,
           knots: Knots | None = None) -> QueryResponse:
    """Rerank ``cands`` and build the explained response (the part measured by ``rerank_1000_ms``);
    ``knots``: the store's calibration of the profile (None: the shipped prior)."""
    as_of_us = to_us(request.as_of)
    config = request.config
    intent = parse_intent(request.text, request.as_of, config.temporal.intent) if profile.use_intent else None
    t_us = as_of_us
    if intent is not None and intent.judged_at is not None:
        t_us = min(as_of_us, to_us(intent.judged_at))
    ranked = rerank(cands, profile, t_us=t_us, intent=intent, knowledge=knowledge,
                    k=request.k, scoring=config.scoring, temporal=config.temporal)
    abstain_reason = abstention(cands, request.text, config.abstention)
    results = build_results(cands, ranked, profile, request.k, t_us, knots=knots,
                            abstained=abstain_reason is not None, per_document=request.passages_per_document,
                            config=config)
    rejections = build_rejections(cands, ranked, t_us, limit=max(25, 3 * request.k), config=config)
    intent_dict = intent.to_dict() if intent is not None else {}
    intent_dict["judged_at"] = iso(from_us(t_us))
    if ranked.range_ignored:
        intent_dict["range_ignored"] = "no relevant document falls in the named period: answered without it"
    return QueryResponse(query_id=request.query_id or new_query_id(), query=request.text,
                         as_of=iso(request.as_of), profile=profile.name, results=results,
                         rejections=rejections, intent=intent_dict, abstained=abstain_reason is not None,
                         abstain_reason=abstain_reason)


def abstention(cands: Candidates, question: str, config: AbstentionConfig = DEFAULT_ABSTENTION) -> str | None:
    """Why nothing in the store answers ``question`` (None: something does), judged on every
    candidate that existed at ``as_of`` before any gate: the best raw cosine, and whether the
    question's words occur in the best candidates (:func:`calibration.abstains`; the words are
    only read when the best cosine leaves it open, :func:`calibration.support_decides`)."""
    if not len(cands):
        return "nothing in the store existed at this moment"
    best = np.argsort(-cands.raw_cosine, kind="stable")[:config.support_pool]
    best_cosine = float(cands.raw_cosine[best[0]])
    support = 0.0                # read only where the cosine alone does not decide
    if calibration.support_decides(best_cosine, config):
        titles = pa.array(cands.title, pa.large_string()).fill_null("")
        texts = pc.binary_join_element_wise(titles, pa.array(cands.text, pa.large_string()),
                                            pa.scalar(" ", pa.large_string()))
        support = calibration.lexical_support(question, texts.take(pa.array(best)), texts, config.generic_share)
    return calibration.abstains(best_cosine, support, config)


def build_results(cands: Candidates, ranked: Ranked, profile: Profile, k: int, t_us: int, *,
                  knots: Knots | None = None, abstained: bool = False, per_document: int = PASSAGES_PER_DOCUMENT,
                  config: EngineConfig = DEFAULT_ENGINE) -> list[Result]:
    """The top ``k`` kept rows as explained results. ``confidence`` is the calibrated
    probability of :mod:`.calibration` (certainty from score, margin over the best disagreeing
    candidate among all kept ones, trust, validity and conflict; the store's refit of the
    profile's knots, ``knots``, when it has operator verdicts, else the shipped prior), capped at
    ``config.abstention.cap`` when the answer abstains; tiers are thresholds on it. The rows are up to
    ``k`` passages, at most ``per_document`` of one document, grouped under their document
    (:func:`candidates.select_passages`)."""
    top = select_passages(cands.doc_code, ranked.order, k, per_document,
                          relevant_passages(cands.doc_code, cands.raw_cosine))
    if not len(top):
        return []
    kept = ranked.order
    groups = np.where(ranked.chain[kept] >= 0, ranked.chain[kept], -1 - cands.doc_code[kept])
    at = np.empty(len(cands), dtype=np.intp)
    at[kept] = np.arange(len(kept))
    margins = calibration.disagreeing_margins(ranked.score[kept].astype(np.float64), groups)[at[top]]
    scores = ranked.score[top].astype(np.float64)
    contributions = ranked.signals.contributions()
    severity = ranked.severity[top] if ranked.severity is not None else np.zeros(len(top))
    boost = config.temporal.conflict.boost_per_severity * severity if profile.conflict_boost else np.zeros(len(top))
    penalty = config.calibration.conflict_penalty
    conflict_notes = [f"fact changed against the previous version: severity {sv:.3f} (score +{b:.3f}; "
                      f"confidence lowered: a conflict counts as a race with no margin, and -{penalty * sv:.3f})"
                      if sv > 0 else None for sv, b in zip(severity, boost, strict=True)]
    trust = ranked.trust[top]
    current = np.isin(ranked.states[top], (STATE_VALID, STATE_TEMPORAL))
    x = calibration.certainty(scores, margins, trust, current, severity, config.calibration)
    probability = calibration.calibrate(profile.name, x, knots, raw_scores=scores)
    if abstained:
        probability = np.minimum(probability, config.abstention.cap)
    tiers = confidence_tiers(probability, config.temporal.tiers)
    behind = _why_rank_one_is_not_highest(probability, trust, current, severity)
    states = state_names(ranked.states[top])
    hours_left = remaining_window_hours(cands.valid_until_us[top], t_us)
    out: list[Result] = []
    for j, i in enumerate(top):
        signals = {name: Signal(float(ranked.signals.values[name][i]), float(ranked.signals.weights[name][i]),
                                float(contributions[name][i])) for name in ranked.signals.values}
        reasons = _reasons(cands, ranked, i, t_us, hours_left[j], profile, config.scoring)
        if conflict_notes[j]:
            reasons.append(conflict_notes[j])
        if j == 0 and behind:
            reasons.append(behind)
        partner = int(ranked.partner[i])
        action = Action(str(ranked.action[i]))
        if action is Action.PAIR and partner >= 0:
            reasons.append(f"weak alone (decay {ranked.decay[i]:.3f}): pair with {cands.doc_id[partner]} "
                           f"(gain +{ranked.decay[partner] - ranked.decay[i]:.3f})")
        out.append(Result(
            id=cands.doc_id[i], chunk_id=cands.chunk_id[i], text=cands.text[i], rank=j + 1,
            score=float(scores[j]), confidence=float(probability[j]), trust=float(trust[j]), certainty=float(x[j]),
            confidence_tier=ConfidenceTier(str(tiers[j])), validity_state=ValidityState(str(states[j])),
            kind=DocumentKind(KIND_NAMES[cands.kind[i]]), signals=signals, reasons=reasons,
            title=cands.title[i], doc_type=cands.doc_type[i], action=action, lifecycle=cands.lifecycle[i],
            created_at=iso(from_us(int(cands.created_us[i]))),
            paired_with=cands.doc_id[partner] if partner >= 0 else None))
    return out


def _why_rank_one_is_not_highest(probability: np.ndarray, trust: np.ndarray, current: np.ndarray,
                                 severity: np.ndarray) -> str | None:
    """The reason rank 1 carries less confidence than a later rank (None when it does not)."""
    if len(probability) < 2 or probability[0] >= probability[1:].max():
        return None
    j = int(np.argmax(probability[1:])) + 1
    if severity[0] > severity[j]:
        why = f"its fact changed against the previous version (severity {severity[0]:.3f})"
    elif not current[0] and current[j]:
        why = "it is not in force at this moment"
    else:
        why = f"its trust {trust[0]:.2f} is below rank {j + 1}'s {trust[j]:.2f}"
    return f"ranked first by score, but its confidence is below rank {j + 1}'s: {why}"


def _reasons(cands: Candidates, ranked: Ranked, i: int, t_us: int, hours_left: float, profile: Profile,
             scoring) -> list[str]:
    kind = KIND_NAMES[cands.kind[i]].value
    reasons = [f"{kind} ({cands.kind_reason[i] or 'declared'}); cosine {cands.raw_cosine[i]:.3f}"]
    if ranked.states[i] == STATE_TEMPORAL:
        reasons.append(f"active EVENT window ({hours_left:.0f}h remaining)")
    if cands.dated[i]:
        reasons.append(f"age {age_days(int(cands.created_us[i]), t_us):.0f} d, decay {ranked.decay[i]:.3f} "
                       f"({cands.doc_type[i]} profile)")
    else:
        reasons.append("undated: neutral freshness (decay 0.5)")
    if profile.chains:
        code = cands.doc_code
        others = sorted(set(cands.doc_id[(ranked.chain == ranked.chain[i]) & (code != code[i])].tolist()))
        if others:
            reasons.append("chosen from its version chain over " + ", ".join(map(str, others[:4])))
    if (ranked.states[i] == STATE_TEMPORAL and profile.scorer != "cosine"
            and cands.raw_cosine[i] < scoring.event_relevance_floor):
        reasons.append(f"EVENT signal present but low query relevance (raw sim {cands.raw_cosine[i]:.3f} < "
                       f"{scoring.event_relevance_floor}): temporal boost withheld")
    reasons.extend(ranked.notes.get(int(i), []))
    return reasons


def build_rejections(cands: Candidates, ranked: Ranked, t_us: int, *, limit: int,
                     config: EngineConfig = DEFAULT_ENGINE) -> list[Rejection]:
    """One rejection per document none of whose passages was kept (its most similar passage's
    code and chunk), most similar first."""
    rejected = ranked.rejected()
    code = cands.doc_code
    has_kept = np.zeros(int(code.max()) + 1 if len(code) else 0, dtype=bool)   # per document code
    has_kept[code[ranked.order]] = True
    rejected = rejected[~has_kept[code[rejected]]]
    rejected = first_per_document(cands.doc_code, rejected[np.argsort(-cands.raw_cosine[rejected], kind="stable")])
    rejected = rejected[:limit]
    at = iso(from_us(t_us))
    return [Rejection(id=cands.doc_id[i], code=CODES[ranked.reject_code[i]],
                      reason=_rejection_reason(cands, ranked, int(i), at, config), chunk_id=cands.chunk_id[i])
            for i in rejected]


def _rejection_reason(cands: Candidates, ranked: Ranked, i: int, at: str, config: EngineConfig) -> str:
    code = CODES[ranked.reject_code[i]]
    if code in (RejectionCode.EXPIRED_VERSIONED_DOC, RejectionCode.HARD_EXPIRED_EVENT, RejectionCode.EXPIRED_DOC):
        return f"valid_until {iso(from_us(int(cands.valid_until_us[i])))} is not after {at}: no longer true"
    if code is RejectionCode.NOT_YET_VALID:
        return f"not yet true at {at} (created or valid from a later date)"
    if code is RejectionCode.SUPERSEDED_IN_CHAIN:
        return f"a newer version of the same document was in force at {at}"
    if code is RejectionCode.BELOW_RELEVANCE_GATE:
        return f"raw cosine {cands.raw_cosine[i]:.3f} below the relevance gate {config.scoring.relevance_gate}"
    if code is RejectionCode.OUT_OF_TIME_RANGE:
        return "outside the time range named in the question"
    if code is RejectionCode.STALE_STATIC_DOC:
        return f"decay {ranked.decay[i]:.3f} below {config.temporal.freshness.drop_below}: too stale to retrieve"
    if code is RejectionCode.PAIR_PARTNER_NOT_FOUND:
        return f"decay {ranked.decay[i]:.3f}: weak alone and no fresher source of the same type"
    if code is RejectionCode.VERSION_MISMATCH:
        return "the question names another version of this document"
    return code.value
