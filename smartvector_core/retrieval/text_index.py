"""The full-text (BM25) searches of a query, answered in process.

Each LanceDB full-text query costs about 4 ms of CPU whatever it returns (planning, the index
read, the take of the rows); the lexical signal made one for the question and one per name, so
on real text they cost as much as the vector search. :class:`TextIndex` is an in-memory copy of
that index over the chunks table, built once per chunks-table version: the question's best
chunks and every name's matches in the pool are then a few numpy operations.

It reproduces LanceDB's index exactly (``lancedb.index.FTS`` defaults, checked against LanceDB
in tests/retrieval/test_text_index.py: the same scores on every question of the real sets, the
same matches for every name):

- analysis: tantivy's, :func:`smartvector_core.words.analyse` (the engine's one tokenizer);
- scoring (BM25, Robertson–Spärck Jones IDF, Lucene's form)::

      score(q, d) = Σ_{t in q} idf(t) · (k1 + 1) · tf(t, d) / (tf(t, d) + k1 · (1 − b + b · |d| / avgdl))
      idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

  with ``k1 = 1.2``, ``b = 0.75``, ``N`` and ``avgdl`` over every row of the table (retired
  versions included: LanceDB indexes them too; a search filters them out afterwards).

Ties are broken by chunk id (LanceDB breaks them arbitrarily; the pipeline sorts its results the
same way, so both answer alike). Rows written since LanceDB last indexed are scored by
LanceDB with its older statistics; here every row counts: the two differ only until the next
index rebuild, and only in the last digits of a score.

The same copy answers the vector search's other reads. LanceDB reads every projected column of
a hit at random (at 1M chunks the top-75 search takes 10 ms returning row ids and distances,
20 ms returning ``chunk_id``, ``doc_id``, ``text`` and the existence columns), so the query asks
LanceDB for ``_rowid`` and ``_distance`` only, and :meth:`TextIndex.hit_rows` finds each hit's
chunk id, document, text and existence here. A LanceDB row id names a (fragment, offset) pair and
fragment ids are never reused, so a row id read from any later table version names either the
row this copy holds, unchanged, or one it does not know (then the query reads LanceDB's columns).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..store_schema import CONTENT_TIME_COLUMNS, vector_matrix
from ..words import analyse, terms_of

K1 = 1.2                 # BM25 term-frequency saturation (LanceDB's)
B = 0.75                 # BM25 length normalisation (LanceDB's)
BUILD_BATCH = 65_536     # ours: distinct texts analysed at a time while the index is built (bounds its memory)
MEMORY_ROWS = 50_000     # ours: up to this many rows the index also keeps each chunk's vector
#                          (50k x 384-d: 77 MB), so a lexical hit needs no LanceDB read
TEXT_MEMORY_BYTES = 1 << 30   # ours: the distinct texts are kept while they take at most 1 GiB (a
#                               million distinct 1 kB chunks); beyond it the query reads texts from LanceDB

def _content_spans(rows: pa.Table) -> dict[str, pa.Array]:
    """The content-time list columns of the rows, when read (``TextIndex.content_start`` / ``_end``)."""
    if not all(name in rows.column_names for name in CONTENT_TIME_COLUMNS):
        return {}
    return {"content_start": rows.column(CONTENT_TIME_COLUMNS[0]).combine_chunks(),
            "content_end": rows.column(CONTENT_TIME_COLUMNS[1]).combine_chunks()}


@dataclass
class TextIndex:
    """BM25 postings of every distinct text of the chunks table, with what a search filters
    (per row: current, created) and returns (per row: the chunk id, its document, its text and
    LanceDB's row id; the vector in a small store).

    Rows with the same text share their postings: a versioned corpus repeats most passages from
    one version to the next (the real sets: 1,805 distinct texts among 3,784 chunks), so the
    index is built and searched per distinct text, and the statistics count rows, as LanceDB's
    do (``N`` rows, a term's document frequency in rows, the average length over rows). Each
    posting keeps its text (int32) and BM25's term-frequency part (float32), so a term's score
    in a text is one product with its IDF. Chunk ids stay an Arrow array, found by their 64-bit
    hash (``hash`` of the id in this process, checked against the id)."""

    chunk_id: pa.Array              # per row
    current: np.ndarray             # per row: the chunk is current (not a retired version)
    created_us: np.ndarray          # per row: when its document was created
    row_text: np.ndarray            # per row: its distinct text (int32)
    text_starts: np.ndarray         # per text: where its rows start in ``text_rows`` (and, at [t + 1], end)
    text_rows: np.ndarray           # rows grouped by text, ascending within a text
    terms: dict[str, int]           # term -> id
    idf: np.ndarray                 # per term: ln(1 + (N − df + 0.5) / (df + 0.5)), df in rows
    starts: np.ndarray              # per term: where its postings start (and, at [id + 1], end)
    post_text: np.ndarray           # postings: text (int32), by term then text
    post_weight: np.ndarray         # postings: (k1 + 1)·tf / (tf + k1·(1 − b + b·|d|/avgdl)) (float32)
    id_hash: np.ndarray             # hash of each row's chunk id, sorted
    id_row: np.ndarray              # the row of each of them
    id_rank: np.ndarray             # per row: its chunk id's place in id order (ties are broken by it)
    row_doc: np.ndarray             # per row: its document, a place in ``doc_ids`` (int32)
    doc_ids: pa.Array               # the distinct document ids
    row_id: np.ndarray              # per row: LanceDB's ``_rowid`` (the table version's)
    row_id_order: np.ndarray        # rows by ``row_id``
    texts: pa.Array | None = None   # the distinct texts, while they fit TEXT_MEMORY_BYTES
    vectors: np.ndarray | None = None   # rows <= MEMORY_ROWS: per row, its vector (rows x dim float32)
    content_start: pa.Array | None = None   # per row: the periods its text names (store_schema.content_spans)
    content_end: pa.Array | None = None

    @classmethod
    def build(cls, rows: pa.Table) -> TextIndex:
        """From every row of the chunks table: ``chunk_id``, ``doc_id``, ``text``, ``current``,
        ``created_at``, ``_rowid`` (and ``vector``, kept when there are at most ``MEMORY_ROWS``).
        The distinct texts are analysed ``BUILD_BATCH`` at a time, so the tokens of the whole
        table are never held at once."""
        n = rows.num_rows
        encoded = pc.dictionary_encode(rows.column("text").combine_chunks().fill_null(""))
        row_text = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
        texts = encoded.dictionary
        copies = np.bincount(row_text, minlength=len(texts)).astype(np.float64)   # rows per text
        terms: dict[str, int] = {}
        post_term, post_text, post_tf = [], [], []
        length = np.zeros(len(texts), dtype=np.float64)
        for start in range(0, len(texts), BUILD_BATCH):
            batch = texts.slice(start, BUILD_BATCH)
            size = len(batch)
            owner, entry, vocabulary = analyse(batch)
            term_of = np.array([-1 if t is None else terms.setdefault(t, len(terms)) for t in vocabulary], np.int64)
            term = term_of[entry] if len(entry) else np.zeros(0, dtype=np.int64)
            counted = term >= 0
            term, owner = term[counted], owner[counted]
            length[start:start + size] = np.bincount(owner, minlength=size)
            pairs, tf = np.unique(term * size + owner, return_counts=True)     # by term, then text
            t, x = np.divmod(pairs, size)
            post_term.append(t.astype(np.int32))
            post_text.append((x + start).astype(np.int32))
            post_tf.append(tf.astype(np.float32))
        term = np.concatenate(post_term) if post_term else np.zeros(0, dtype=np.int32)
        by_term = np.argsort(term, kind="stable")          # stable: texts stay ascending within a term
        term = term[by_term]
        text_of = np.concatenate(post_text)[by_term] if post_text else np.zeros(0, dtype=np.int32)
        tf = np.concatenate(post_tf)[by_term] if post_tf else np.zeros(0, dtype=np.float32)
        df = np.bincount(term, weights=copies[text_of], minlength=len(terms))          # in rows
        norm = K1 * (1.0 - B + B * length / max(float(copies @ length) / n if n else 1.0, 1e-12))
        chunk_id = rows.column("chunk_id").combine_chunks()
        id_hash = np.concatenate([np.fromiter(map(hash, chunk_id.slice(i, BUILD_BATCH).to_pylist()), np.int64)
                                  for i in range(0, n, BUILD_BATCH)]) if n else np.zeros(0, dtype=np.int64)
        id_row = np.argsort(id_hash, kind="stable")
        id_rank = np.empty(n, dtype=np.int64)
        id_rank[pc.sort_indices(chunk_id).to_numpy()] = np.arange(n)
        docs = pc.dictionary_encode(rows.column("doc_id").combine_chunks())
        row_id = rows.column("_rowid").to_numpy()
        return cls(
            chunk_id=chunk_id,
            current=rows.column("current").fill_null(False).to_numpy(zero_copy_only=False).astype(bool),
            created_us=pc.cast(rows.column("created_at"), pa.int64()).fill_null(0).to_numpy(zero_copy_only=False),
            row_text=row_text, text_starts=np.r_[0, np.cumsum(copies)].astype(np.int64),
            text_rows=np.argsort(row_text, kind="stable").astype(np.int32),
            terms=terms, idf=np.log1p((n - df + 0.5) / (df + 0.5)),
            starts=np.searchsorted(term, np.arange(len(terms) + 1)), post_text=text_of,
            post_weight=((K1 + 1.0) * tf / (tf + norm[text_of])).astype(np.float32),
            id_hash=id_hash[id_row], id_row=id_row.astype(np.int64), id_rank=id_rank,
            row_doc=docs.indices.to_numpy(zero_copy_only=False).astype(np.int32), doc_ids=docs.dictionary,
            row_id=row_id, row_id_order=np.argsort(row_id, kind="stable"),
            texts=texts if texts.nbytes <= TEXT_MEMORY_BYTES else None,
            vectors=vector_matrix(rows.column("vector")) if n <= MEMORY_ROWS and "vector" in rows.column_names else None,
            **_content_spans(rows))

    @classmethod
    def from_store(cls, store) -> TextIndex:
        """Built from the store's chunks table as it is now."""
        small = store.count_rows("chunks") <= MEMORY_ROWS
        return cls.build(store.chunk_rows(["chunk_id", "doc_id", "text", "current", "created_at",
                                           *CONTENT_TIME_COLUMNS, *(["vector"] if small else [])]))

    def __len__(self) -> int:
        return len(self.chunk_id)

    def ids(self, rows: np.ndarray) -> list[str]:
        """The chunk ids of ``rows``."""
        return self.chunk_id.take(pa.array(np.asarray(rows, dtype=np.int64))).to_pylist()

    def rows(self, chunk_ids) -> np.ndarray:
        """The rows of ``chunk_ids`` (-1 where unknown)."""
        ids = list(chunk_ids)
        wanted = np.fromiter(map(hash, ids), np.int64, count=len(ids))
        at = np.minimum(np.searchsorted(self.id_hash, wanted), max(len(self.id_hash) - 1, 0))
        if not len(self.id_hash):
            return np.full(len(ids), -1, dtype=np.int64)
        rows = np.where(self.id_hash[at] == wanted, self.id_row[at], -1)
        found = rows >= 0
        if found.any():   # a hash is not an id: check each found row's id (a collision is unknown)
            same = np.array([a == b for a, b in zip(self.ids(rows[found]), np.asarray(ids, dtype=object)[found],
                                                     strict=True)])
            rows[np.flatnonzero(found)[~same]] = -1
        return rows

    def hit_rows(self, row_ids: np.ndarray) -> np.ndarray:
        """The rows of LanceDB row ids (``_rowid``) of any table version (-1: a row written
        since this index was built; module docstring)."""
        wanted = np.asarray(row_ids, dtype=self.row_id.dtype)
        if not len(self.row_id):
            return np.full(len(wanted), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.row_id, wanted, sorter=self.row_id_order), len(self.row_id) - 1)
        rows = self.row_id_order[at]
        return np.where(self.row_id[rows] == wanted, rows, -1)

    def columns(self, rows: np.ndarray) -> dict[str, pa.Array]:
        """``chunk_id``, ``doc_id``, ``text`` and the content-time spans of ``rows`` (the index
        keeps the texts: ``texts``)."""
        take = pa.array(np.asarray(rows, dtype=np.int64))
        out = {"chunk_id": self.chunk_id.take(take),
               "doc_id": self.doc_ids.take(pa.array(self.row_doc[rows])),
               "text": self.texts.take(pa.array(self.row_text[rows]))}
        if self.content_start is not None and self.content_end is not None:
            out[CONTENT_TIME_COLUMNS[0]] = self.content_start.take(take)
            out[CONTENT_TIME_COLUMNS[1]] = self.content_end.take(take)
        return out

    def table(self, rows: np.ndarray, scores: np.ndarray) -> pa.Table:
        """``rows`` as LanceDB returns them (``chunk_id``, ``doc_id``, ``text``, ``vector``) with
        ``scores`` as ``_score``, from what the index keeps (it must keep them: ``texts``, ``vectors``)."""
        vectors = self.vectors[rows]
        return pa.table({
            **self.columns(rows),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), vectors.shape[1]),
            "_score": pa.array(np.asarray(scores, dtype=np.float32))})

    def _postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """(texts holding ``term``, its BM25 weight in each of them)."""
        t = self.terms.get(term)
        if t is None:
            return np.zeros(0, dtype=np.int32), np.zeros(0)
        lo, hi = self.starts[t], self.starts[t + 1]
        return self.post_text[lo:hi], self.idf[t] * self.post_weight[lo:hi]

    def existing(self, rows: np.ndarray, as_of_us: int | None) -> np.ndarray:
        """Which of ``rows`` a search at ``as_of`` may return: current, created by then
        (``Store.search``'s condition; None: no time bound)."""
        ok = self.current[rows]
        return ok if as_of_us is None else ok & (self.created_us[rows] <= as_of_us)

    def search(self, text: str, *, as_of_us: int | None, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """The best ``limit`` existing rows for ``text`` (any of its terms: LanceDB's OR
        ``MatchQuery``): (rows, BM25 scores), best first, ties by chunk id. Texts are scored; the
        rows read are those of the best texts, as many texts as hold ``limit`` existing rows."""
        found = [self._postings(t) for t in terms_of(text)]
        if not found or not any(len(x) for x, _ in found):
            return np.zeros(0, dtype=np.intp), np.zeros(0)
        score = np.bincount(np.concatenate([x for x, _ in found]), weights=np.concatenate([w for _, w in found]),
                            minlength=len(self.text_starts) - 1)
        scored = np.flatnonzero(score)
        wanted = limit
        while True:   # the best texts (ties included) until they hold ``limit`` existing rows
            if wanted >= len(scored):
                texts = scored
            else:
                cut = np.partition(score[scored], len(scored) - wanted)[len(scored) - wanted]
                texts = scored[score[scored] >= cut]   # every other text scores below each of these
            lo, hi = self.text_starts[texts], self.text_starts[texts + 1]
            counts = hi - lo
            within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
            rows = self.text_rows[np.repeat(lo, counts) + within]
            keep = self.existing(rows, as_of_us)
            if keep.sum() >= limit or len(texts) == len(scored):
                return self.best(rows[keep], np.repeat(score[texts], counts)[keep], limit)
            wanted *= 4

    def best(self, rows: np.ndarray, scores: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``limit`` best of ``rows`` by ``scores``, best first, ties by chunk id."""
        if len(rows) > limit:   # every row tied with the limit-th stays in the running
            cut = np.partition(scores, len(scores) - limit)[len(scores) - limit]
            rows, scores = rows[scores >= cut], scores[scores >= cut]
        order = np.lexsort((self.id_rank[rows], -scores))[:limit]
        return rows[order].astype(np.intp), scores[order]

    def matches(self, name: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each of ``rows``: whether it holds every term of ``name`` (LanceDB's AND
        ``MatchQuery``), and its BM25 for ``name`` (0 where it does not)."""
        texts = self.row_text[np.asarray(rows, dtype=np.int64)]
        named = np.ones(len(texts), dtype=bool)
        score = np.zeros(len(texts))
        terms = terms_of(name)
        if not terms:
            return np.zeros(len(texts), dtype=bool), score
        for term in terms:
            holders, weight = self._postings(term)
            if not len(holders):
                return np.zeros(len(texts), dtype=bool), np.zeros(len(texts))
            at = np.minimum(np.searchsorted(holders, texts), len(holders) - 1)   # postings are sorted by text
            hit = holders[at] == texts
            named &= hit
            score += np.where(hit, weight[at], 0.0)
        return named, np.where(named, score, 0.0)
