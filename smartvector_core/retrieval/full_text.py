"""The query's full-text (BM25) searches behind one interface (:class:`FullText`), answered by
LanceDB's native index (:class:`LanceFullText`) or by the in-memory copy of it
(:class:`IndexedFullText`, over :class:`.text_index.TextIndex`). Both answer alike: the same
hits, ties broken by chunk id, and the same name matches (tests/retrieval/test_text_index.py).

One query asks two things (:class:`TextSearch`): the question's best ``lexical_pool`` chunks
(with their vectors, so that a hit the vector search missed joins the pool with its cosine),
and, per name of the question (:func:`.lexical.subject_terms`), the pool's chunks that hold
every term of it and its best BM25 among them (the lexical signal's names half). A search is
started before the question is encoded: LanceDB's reads run in the background
(:data:`READS`) while the question is embedded and searched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..clock import to_us
from ..config.query import DEFAULT_SEARCH, SearchConfig
from .text_index import TextIndex

# LanceDB's reads run outside the GIL: the full-text searches of one query run beside the
# question's encoding and beside each other (on real text they cost as much as the vector
# search; run one after another they made the query 1.5-2x the raw search)
READS = ThreadPoolExecutor(max_workers=DEFAULT_SEARCH.max_names + 1, thread_name_prefix="smartvector-read")
COMMON_NAME = object()  # kept for a name with ``name_matches`` matches or more: later questions skip its
#                         store-wide search (it would be cut off anyway) and search the pool only

NamedInPool = list[tuple[set[str], float]]


class TextSearch(Protocol):
    """The full-text searches of one question, under way; ``names``: the question's names searched."""

    names: list[str]

    def best(self) -> pa.Table:
        """The question's best ``lexical_pool`` chunks, best first, ties by chunk id: the asked
        ``columns``, ``vector`` and ``_score`` (BM25, float32)."""

    def named_in_pool(self, pool: Sequence[str]) -> NamedInPool:
        """Per name of the question, the chunks of ``pool`` (chunk ids) that hold every term of
        it, and its weight: the best BM25 among them (0 when none)."""


class FullText(Protocol):
    """A full-text index of the chunks table as one query reads it."""

    def search(self, text: str, names: Sequence[str], as_of, columns: Sequence[str]) -> TextSearch:
        """Start the searches of the question ``text`` and its ``names`` among the chunks that
        exist at ``as_of`` (None: every current chunk); ``columns``: those the best hits carry."""


def _done(value) -> Future:
    done: Future = Future()
    done.set_result(value)
    return done


def _scored(rows: pa.Table | None, scores: np.ndarray, columns) -> pa.Table:
    """``rows`` (None: none) with their BM25 as ``_score`` (float32, as LanceDB gives it)."""
    if rows is None:
        return pa.table({**{c: pa.array([], pa.string()) for c in columns}, "_score": pa.array([], pa.float32())})
    return rows.append_column("_score", pa.array(np.asarray(scores, dtype=np.float32)))


# ------------------------------------------------------------------ LanceDB's index
class LanceFullText:
    """LanceDB's full-text index (``Store.fts_search``). ``known``: the full-text results found
    for earlier questions of the same knowledge state (``QueryCache.full_text``: same table
    versions, so the same answer), kept up to ``config.full_text_cache``: a name's store-wide
    matches, and a question asked before at the same existence bound; ``overfetch``: how many
    rows an unfiltered search reads per row wanted (``Store.search(overfetch=)``)."""

    def __init__(self, store, known: dict | None = None, config: SearchConfig = DEFAULT_SEARCH, *,
                 overfetch: float | None = None) -> None:
        self.store = store
        self.known = {} if known is None else known
        self.config = config
        self.overfetch = overfetch

    def search(self, text: str, names: Sequence[str], as_of, columns: Sequence[str]) -> _LanceSearch:
        bound = None if as_of is None else to_us(as_of)
        asked = ("question", text, bound, tuple(columns))
        # the same question again (a retry, another lexical profile, a batch) reuses its hits
        question = self._known_or_searched(asked, self._best_hits, text, as_of, [*columns, "vector"])
        searches = []
        for name in names:
            key = (name, bound)
            search = None if self.known.get(key) is COMMON_NAME else self._known_or_searched(   # common: in the pool
                key, self.store.fts_search, name, as_of=as_of, limit=self.config.name_matches, require_all=True,
                columns=("chunk_id",), overfetch=self.overfetch)
            searches.append((name, key, search))
        return _LanceSearch(self, question, asked, searches, as_of)

    def _best_hits(self, text: str, as_of, columns) -> pa.Table:
        """LanceDB's best ``lexical_pool`` chunks for ``text``, ties broken by chunk id as the
        in-memory index breaks them (:meth:`.text_index.TextIndex.best`): twice as many are read
        and cut, so that the two answer alike (LanceDB breaks ties arbitrarily)."""
        limit = self.config.lexical_pool
        found = self.store.fts_search(text, as_of=as_of, limit=2 * limit, columns=columns, overfetch=self.overfetch)
        if not found.num_rows:
            return found
        order = pc.sort_indices(found, sort_keys=[("_score", "descending"), ("chunk_id", "ascending")])
        return found.take(order).slice(0, limit)

    def _known_or_searched(self, key: tuple, search: Callable, *args, **kwargs) -> Future:
        """``known[key]`` as a finished future, else ``search(*args, **kwargs)`` started in the background."""
        return _done(self.known[key]) if key in self.known else READS.submit(search, *args, **kwargs)

    def keep(self, key: tuple, result) -> None:
        """Keep a full-text result for later questions (up to ``config.full_text_cache`` of them)."""
        if len(self.known) < self.config.full_text_cache:
            self.known.setdefault(key, result)


class _LanceSearch:
    def __init__(self, index: LanceFullText, question: Future, asked: tuple,
                 names: list[tuple[str, tuple, Future | None]], as_of) -> None:
        self.index, self.question, self.asked, self.searches, self.as_of = index, question, asked, names, as_of
        self.names = [name for name, _, _ in names]

    def best(self) -> pa.Table:
        found = self.question.result()
        self.index.keep(self.asked, found)
        return found

    def named_in_pool(self, pool: Sequence[str]) -> NamedInPool:
        """Read from the store-wide search where it returned every match (BM25 does not depend on
        the prefilter: checked on the real sets, 301 names); a name with ``name_matches`` matches
        or more is searched again within the pool, and remembered as a :data:`COMMON_NAME`, so
        that later questions search only the pool for it."""
        index, pool = self.index, list(pool)
        in_pool = set(pool)
        cap = index.config.name_matches
        out: list[tuple[set[str], float] | Future] = []
        for name, key, search in self.searches:
            named = search.result() if search is not None else None
            if named is not None:
                index.keep(key, COMMON_NAME if named.num_rows >= cap else named)
            if named is None or named.num_rows >= cap:
                out.append(READS.submit(index.store.fts_search, name, as_of=self.as_of, limit=len(pool),
                                        require_all=True, within=pool))
                continue
            hits = [(c, float(s)) for c, s in zip(named.column("chunk_id").to_pylist(),
                                                   named.column("_score").to_pylist(), strict=True) if c in in_pool]
            out.append(({c for c, _ in hits}, max((s for _, s in hits), default=0.0)))
        for i, item in enumerate(out):
            if isinstance(item, Future):
                named = item.result()
                out[i] = (set(named.column("chunk_id").to_pylist()),
                          float(max(named.column("_score").to_pylist(), default=0.0)))
        return out


# ------------------------------------------------------------------ the in-memory copy
class IndexedFullText:
    """The in-memory :class:`.text_index.TextIndex` of the chunks table: the question is searched
    in process; the hits' rows come from the index when it keeps them (texts, vectors), else
    they are read from LanceDB by row id in the background."""

    def __init__(self, store, index: TextIndex, config: SearchConfig = DEFAULT_SEARCH) -> None:
        self.store = store
        self.index = index
        self.config = config

    def search(self, text: str, names: Sequence[str], as_of, columns: Sequence[str]) -> _IndexedSearch:
        return _IndexedSearch(self.index, self._question(text, as_of, columns), list(names))

    def _question(self, text: str, as_of, columns) -> Future:
        index, store = self.index, self.store
        rows, scores = index.search(text, as_of_us=None if as_of is None else to_us(as_of),
                                    limit=self.config.lexical_pool)
        wanted = [*columns, "vector"]
        if not len(rows) or (index.vectors is not None and index.texts is not None):
            return _done(index.table(rows, scores).select([*wanted, "_score"]) if len(rows)
                         else _scored(None, scores, wanted))
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
        return READS.submit(read)


class _IndexedSearch:
    def __init__(self, index: TextIndex, question: Future, names: list[str]) -> None:
        self.index, self.question, self.names = index, question, names

    def best(self) -> pa.Table:
        return self.question.result()

    def named_in_pool(self, pool: Sequence[str]) -> NamedInPool:
        rows = self.index.rows(pool)
        known = rows >= 0
        ids = np.asarray(list(pool), dtype=object)[known]
        out = []
        for name in self.names:
            named, score = self.index.matches(name, rows[known])
            out.append((set(ids[named].tolist()), float(score.max(initial=0.0))))
        return out
