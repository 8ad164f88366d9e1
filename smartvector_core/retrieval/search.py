"""The search stage: the question's candidates at ``as_of``, from the vector index and the
full-text index (:mod:`.full_text`), one row per passage (:class:`.candidates.Candidates`).

Nothing here reads the clock: ``as_of`` is the moment the question is asked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from datetime import datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.expr import col

from ..clock import to_us
from ..config.query import DEFAULT_SEARCH, SearchConfig
from ..store import cosine_distance, first_existing, overfetched, vector_matrix
from ..temporal.version_words import asks_version, version_named
from .candidates import CHUNK_COLUMNS, SEARCH_COLUMNS, Candidates, Lexical
from .full_text import READS, FullText, IndexedFullText, LanceFullText, TextSearch
from .lexical import (
    lexical_signal,
    named_in_titles,
    subject_terms,
    subject_titles,
    uncased_terms,
    written_as_one,
    written_whole,
)
from .query_cache import QueryCache
from .text_index import TextIndex


def retrieve(store, query_vector: np.ndarray | Callable[[], np.ndarray], as_of: datetime, k: int,
             cache: QueryCache | None = None, text: str | None = None, config: SearchConfig = DEFAULT_SEARCH
             ) -> Candidates:
    """Top chunks that existed at ``as_of``, one row per chunk (passage). ``query_vector``: the
    question's embedding, or a function that makes it (then the full-text search runs while
    the question is encoded).

    With ``text``, the full-text (BM25) index is searched too (:func:`full_text_index`): its best
    ``config.lexical_pool`` chunks join the pool (their cosine computed from their stored
    vectors) and every passage carries its lexical signal (:mod:`.lexical`: the question's BM25
    and the share of the question's names it contains).

    With ``cache`` (the :class:`.query_cache.QueryCache` of the store's knowledge state) LanceDB
    returns only the chunk's own columns and the document-level fields come from the cache,
    which holds them already; when ``as_of`` is at or after the newest document the state knows,
    LanceDB's prefilter also leaves out the (then always true) existence bound. A hit on a
    document the state does not know (written since it was loaded) falls back to the plain
    search. Same candidates either way (tested), at a lower cost (docs/PERF.md, "Figures behind
    design choices"). Once the cache's in-memory copy of the chunks table is built
    (:class:`.text_index.TextIndex`), LanceDB returns only the hits' row ids and distances and the
    copy gives their chunk ids, documents and texts (:func:`indexed_vector_hits`).
    """
    pool = max(config.candidate_pool, config.candidate_pool_per_k * k)
    fields = cache.document_fields() if cache is not None else None
    if fields is not None:
        index = cache.knowledge.doc_index()
        bound = as_of if to_us(as_of) < int(fields["created_us"].max()) else None
        overfetch = search_overfetch(cache.existing_share(None if bound is None else to_us(bound)), config)
        chunks = cache.text_index()
        found = _start(full_text_index(store, chunks, cache.full_text, config, overfetch=overfetch), text, bound,
                       CHUNK_COLUMNS, config)
        query_vector = query_vector() if callable(query_vector) else query_vector
        hits = indexed_vector_hits(store, chunks, query_vector, bound, pool, overfetch)
        if hits is None:
            hits = store.search(query_vector, as_of=bound, limit=pool, columns=CHUNK_COLUMNS, overfetch=overfetch)
        hits = with_live(store, hits, query_vector, cache.knowledge, as_of, bound, CHUNK_COLUMNS, config, chunks)
        hits = with_named_version(store, hits, query_vector, text, bound, CHUNK_COLUMNS, config)
        hits, lexical = with_lexical(hits, found, query_vector, CHUNK_COLUMNS, asks_version(text or ""),
                                     documents=lambda docs: _known(fields, index.lookup(docs)))
        cands = Candidates.from_chunk_hits(hits, fields, index.lookup, lexical)
        if cands is not None:
            return cands
    found = _start(LanceFullText(store, config=config), text, as_of, SEARCH_COLUMNS, config)
    query_vector = query_vector() if callable(query_vector) else query_vector
    hits = store.search(query_vector, as_of=as_of, limit=pool, columns=SEARCH_COLUMNS)
    hits = with_named_version(store, hits, query_vector, text, as_of, SEARCH_COLUMNS, config)
    hits, lexical = with_lexical(hits, found, query_vector, SEARCH_COLUMNS, asks_version(text or ""))
    return Candidates.from_search(hits, lexical)


def _pool_titles(hits: pa.Table, chunk_ids: list[str], pool: list[str],
                 documents: Callable[[np.ndarray], tuple[list, list]] | None) -> list | None:
    """The title that names the subject of each ``pool`` chunk (:func:`lexical.subject_titles`),
    from ``documents`` (document ids -> their titles and doc types) or the hits' own columns;
    None when neither gives titles."""
    if documents is None and not {"title", "doc_type"} <= set(hits.column_names):
        return None
    row = {c: i for i, c in enumerate(chunk_ids)}   # any row of a chunk: its document's fields
    at = pa.array([row[c] for c in pool], pa.int64())
    if documents is not None:
        return subject_titles(*documents(hits.column("doc_id").take(at).to_numpy(zero_copy_only=False)))
    return subject_titles(hits.column("title").take(at).to_pylist(), hits.column("doc_type").take(at).to_pylist())


def _known(fields: dict[str, np.ndarray], at: np.ndarray) -> tuple[list, list]:
    """(titles, doc types) of the documents at ``at`` in ``fields``, None where ``at`` is -1
    (a document the knowledge state does not know)."""
    unknown = at < 0
    return tuple(np.where(unknown, None, fields[name][at]).tolist() for name in ("title", "doc_type"))


def full_text_index(store, chunks: TextIndex | None, known: dict | None = None,
                    config: SearchConfig = DEFAULT_SEARCH, *, overfetch: float | None = None) -> FullText:
    """The full-text index a query reads: the in-memory copy of the chunks table once it is built
    (``chunks``, :meth:`.query_cache.QueryCache.text_index`; :class:`.full_text.IndexedFullText`),
    else LanceDB's (:class:`.full_text.LanceFullText`, keeping its results in ``known``,
    ``QueryCache.full_text``, for later questions)."""
    if chunks is not None:
        return IndexedFullText(store, chunks, config)
    return LanceFullText(store, known, config, overfetch=overfetch)


def _start(index: FullText, text: str | None, as_of, columns, config: SearchConfig) -> TextSearch | None:
    """The question's full-text searches, started (None without text): the question and its first
    ``config.max_names`` names (:func:`.lexical.subject_terms`), or in a question without case its
    first ``config.max_terms`` content words (:func:`.lexical.uncased_terms`)."""
    if text is None:
        return None
    cap = config.max_terms if uncased_terms(text) else config.max_names
    return index.search(text, subject_terms(text)[:cap], as_of, columns)


def indexed_vector_hits(store, index: TextIndex | None, vector: np.ndarray, as_of, limit: int,
                        overfetch: float | None) -> pa.Table | None:
    """``store.search(vector, as_of=as_of, limit=limit, columns=CHUNK_COLUMNS, overfetch=overfetch)``
    from the in-memory ``index`` where it keeps the vectors (a store of up to ``MEMORY_ROWS``
    rows: :meth:`.text_index.TextIndex.nearest`, exact, no LanceDB call), else with LanceDB
    reading no column of the hits: its unfiltered search returns row ids and distances
    (:meth:`Store.search_row_ids`), and ``index`` holds each hit's chunk id, document, text and
    existence (:meth:`.text_index.TextIndex.hit_rows`). The same rows in the same order (tested;
    exact ties may fall in another order than LanceDB's, distances agree to ~2e-7). Where too few of the
    hits exist at ``as_of``, LanceDB's prefiltered search answers (as in :meth:`Store.search`).
    None where it cannot answer: no index yet or no texts kept, or a hit written since the
    index was built."""
    if index is None or index.texts is None:
        return None
    near = index.nearest(vector, limit, None if as_of is None else to_us(as_of))
    if near is not None:
        return index.hit_table(*near)
    if overfetch is None:
        return None
    n = overfetched(limit, overfetch)
    found = store.search_row_ids(vector, n)
    rows, distance = index.hit_rows(found.column("_rowid").to_numpy()), found.column("_distance").to_numpy()
    if (rows < 0).any():
        return None
    keep = first_existing(index.existing(rows, None if as_of is None else to_us(as_of)), limit, n)
    if keep is None:
        return store.search(vector, as_of=as_of, limit=limit, columns=CHUNK_COLUMNS)
    return index.hit_table(rows[keep], np.asarray(distance)[keep])


def search_overfetch(share: float, config: SearchConfig = DEFAULT_SEARCH) -> float | None:
    """How many rows an unfiltered search reads per row wanted when a ``share`` of the table's
    rows exists at the moment asked (:meth:`.query_cache.QueryCache.existing_share`): ``margin / share``
    (``config.postfilter_margin``: the margin covers the estimate's error), 1 when every row
    exists (nothing is estimated then: at 1M chunks the ANN search re-ranks 180 rows instead of
    225, ~1 ms less); None (use the prefilter) when fewer than ``config.postfilter_min_share`` exist."""
    if share >= 1.0:
        return 1.0
    return config.postfilter_margin / share if share >= config.postfilter_min_share else None


def with_live(store, hits: pa.Table, query_vector: np.ndarray, knowledge, as_of: datetime, bound, columns,
              config: SearchConfig = DEFAULT_SEARCH, index: TextIndex | None = None) -> pa.Table:
    """The vector ``hits`` plus, where fewer than ``config.live_pool_share`` of them are chunks of
    documents in force at ``as_of`` (:meth:`.knowledge.KnowledgeState.superseded_at`: no newer
    version of their chain has taken effect), the nearest chunks of the other documents, as many as
    the pool lacks for that share. A page released nine times fills a pool of 60 with nine copies of
    each passage near the question; the rerank then rejects eight of every nine
    (``SUPERSEDED_IN_CHAIN``) and has too few passages of the version in force left to fill k
    (the Flask documentation set: 26 of 66 questions got fewer than 5). Nothing leaves the pool, so
    a question about the past still finds the versions then in force. Only when the rule applies:
    one exact search of the in-memory copy of the chunks table where it keeps the vectors
    (``index``: :meth:`.text_index.TextIndex.nearest`), else one prefiltered LanceDB search
    (``bound``: the existence bound the pool was searched with)."""
    if config.live_pool_share <= 0 or not hits.num_rows:
        return hits
    docs = hits.column("doc_id").to_numpy(zero_copy_only=False).astype(object)
    replaced = knowledge.superseded_at(docs, to_us(as_of))
    wanted = int(np.ceil(config.live_pool_share * len(docs))) - int((~replaced).sum())
    if wanted <= 0:
        return hits
    gone = sorted(set(docs[replaced].tolist()))
    near = None if index is None or index.texts is None else index.nearest(
        query_vector, wanted, None if bound is None else to_us(bound), excluded_docs=gone)
    found = index.hit_table(*near) if near is not None else store.search(
        query_vector, as_of=bound, limit=wanted, columns=list(columns), extra=~col("doc_id").isin(gone))
    return _with_new(hits, found, columns)


def with_named_version(store, hits: pa.Table, query_vector: np.ndarray, text: str | None, as_of, columns,
                       config: SearchConfig = DEFAULT_SEARCH) -> pa.Table:
    """The vector ``hits`` plus the nearest ``config.version_pool`` chunks, not among them, of the
    documents declaring the version the question names (:func:`.version_words.version_named`:
    "Click 8.1.4", "between 2.0.0 and 3.1.0" names 3.1.0; the ``version`` field equal to it, with
    or without a leading ``v``). A changelog of forty releases that all speak of one option fills
    the pool with the others ("What did Click 8.1.4 change about multiple=True for flag
    options?": 8.1.4's entry on it was in neither the vector nor the full-text pool), and the
    release asked can only win (:func:`.rerank.version_matches`) if it is there. A question
    asking *which* version did something names none. One prefiltered LanceDB search, only when a
    version is named."""
    version, _ = version_named(text or "")
    if version is None or config.version_pool <= 0:
        return hits
    labels = sorted({version, f"v{version}", f"V{version}"})
    found = store.search(query_vector, as_of=as_of, limit=config.version_pool, columns=list(columns),
                         extra=col("version").isin(labels))
    return _with_new(hits, found, columns)


def _with_new(hits: pa.Table, found: pa.Table, columns) -> pa.Table:
    """``hits`` and then the rows of ``found`` whose chunks are not among them."""
    new = _absent(found, hits)
    return _appended(hits, found.filter(pa.array(new)), columns) if new.any() else hits


def _absent(found: pa.Table, hits: pa.Table) -> np.ndarray:
    """Per row of ``found``: its chunk is not among ``hits``."""
    if not found.num_rows:
        return np.zeros(0, dtype=bool)
    return ~pc.is_in(found.column("chunk_id"), value_set=hits.column("chunk_id").combine_chunks()).to_numpy(
        zero_copy_only=False)


def _appended(hits: pa.Table, extra: pa.Table, columns) -> pa.Table:
    """``hits`` and then ``extra`` (both with ``columns`` and ``_distance``), in ``hits``' schema."""
    schema = hits.select([*columns, "_distance"]).schema
    return pa.concat_tables([hits.select([*columns, "_distance"]), extra.select([*columns, "_distance"]).cast(schema)])


def with_lexical(hits: pa.Table, search: TextSearch | None, query_vector: np.ndarray,
                 columns, plain: bool = False, documents: Callable[[np.ndarray], tuple[list, list]] | None = None
                 ) -> tuple[pa.Table, Lexical | None]:
    """The vector ``hits`` plus the full-text hits they lack (``_distance`` = 1 − cosine of the
    stored vector), and the lexical signal of the pool's chunks (:func:`lexical.lexical_signal`:
    the question's BM25, and which chunks of the pool name each name of the question,
    :meth:`.full_text.TextSearch.named_in_pool`, an identifier only where the text writes it whole,
    :func:`lexical.written_whole`, each name weighed by how well it separates the pool,
    :func:`lexical.separation`; ``plain``: the BM25 half also for a question that names
    nothing, :func:`lexical.lexical_signal`); ``(hits, None)`` without a ``search``.
    A chunk whose document's title holds a name names it too (:func:`lexical.named_in_titles`,
    a headline excepted: :func:`lexical.subject_titles`): titles and doc types come from
    ``documents`` (document ids -> their titles and doc types), else from the hits' columns.
    The signal comes with the names each chunk holds (:class:`.candidates.Lexical`), for its
    reasons."""
    if search is None:
        return hits, None
    found = search.best()
    new = _absent(found, hits)
    if new.any():
        extra = found.filter(pa.array(new))
        vectors = vector_matrix(extra.column("vector")).astype(np.float64)
        q = np.asarray(query_vector, dtype=np.float64)
        cosine = vectors @ q / np.maximum(np.linalg.norm(vectors, axis=1) * np.linalg.norm(q), 1e-12)
        hits = _appended(hits, extra.select(list(columns)).append_column("_distance", cosine_distance(cosine)), columns)
    bm25 = dict(zip(found.column("chunk_id").to_pylist(), map(float, found.column("_score").to_pylist()),
                    strict=True))
    chunk_ids = hits.column("chunk_id").to_pylist()
    pool = list(dict.fromkeys(chunk_ids))
    named = search.named_in_pool(pool)
    whole = written_whole(search.names, dict(zip(chunk_ids, hits.column("text").to_pylist(), strict=True))) \
        if any(written_as_one(n) for n in search.names) else [None] * len(named)
    named = [(chunks if w is None else chunks & w, weight) for (chunks, weight), w in zip(named, whole, strict=True)]
    titles = _pool_titles(hits, chunk_ids, pool, documents) if search.names else None
    titled = named_in_titles(search.names, pool, titles) if titles is not None else [set() for _ in named]
    held: dict[str, tuple[list[str], list[str]]] = {}
    for name, (in_text, _), in_title in zip(search.names, named, titled, strict=True):
        for chunk in in_text:
            held.setdefault(chunk, ([], []))[0].append(name)
        for chunk in in_title - in_text:
            held.setdefault(chunk, ([], []))[1].append(name)
    named = [(chunks | extra, weight) for (chunks, weight), extra in zip(named, titled, strict=True)]
    return hits, Lexical(lexical_signal(bm25, named, pool_size=len(pool), plain=plain), held)


def start_encoding(embedder, text: str) -> Future:
    """The question's embedding, made in the background (the caller meanwhile checks its
    knowledge state and searches the text index): a future of (vector, milliseconds taken)."""
    def encode() -> tuple[np.ndarray, float]:
        t0 = time.perf_counter()
        return embedder.encode([text])[0], (time.perf_counter() - t0) * 1000
    return READS.submit(encode)
