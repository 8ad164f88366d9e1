"""The candidate set of one query as column arrays: one row per retrieved chunk (a *passage*),
most similar first, with its document's fields repeated on each of its rows.

Gates, version chains and rejections are decided per document (every document-level field is
the same on all rows of a document, and :func:`first_per_document` picks a document's best
row); scores are per passage, so several passages of one document can be returned
(:func:`select_passages`). Everything the signals need is here as numpy arrays, so scoring is
vectorised. Times are int64
microseconds UTC; a missing ``valid_from`` is ``NO_START``, a missing ``valid_until`` or
``superseded_at`` is ``NO_END``. Similarity is converted from LanceDB's cosine distance in
exactly one place (:func:`Candidates.from_search`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..store import cosine_similarity
from ..store.schema import CONTENT_TIME_COLUMNS
from ..temporal.codes import KIND_CODES, KIND_STATIC, NO_END, NO_START
from ..temporal.kinds import is_release_type, release_series

KIND_CODE = {kind.value: code for kind, code in KIND_CODES.items()}   # kind name -> code (temporal.codes)
KIND_NAMES = np.array(sorted(KIND_CODES, key=KIND_CODES.get), dtype=object)   # code -> DocumentKind

SEARCH_COLUMNS = ["chunk_id", "doc_id", "text", "title", "source", "created_at", "dated", "valid_from",
                  "valid_until", "kind", "kind_reason", "doc_type", "version", "supersedes", "depends_on",
                  "authority", "lifecycle", "superseded_at", *CONTENT_TIME_COLUMNS]
# the rest are document-level (same on every chunk)
CHUNK_COLUMNS = ["chunk_id", "doc_id", "text", *CONTENT_TIME_COLUMNS]
PASSAGES_PER_DOCUMENT = 3   # most passages of one document in a result list (configurable)


def _times(column: pa.ChunkedArray, fill: int) -> np.ndarray:
    ints = pc.cast(column, pa.int64())
    return ints.fill_null(fill).to_numpy().astype(np.int64, copy=False)


def _objects(column: pa.ChunkedArray) -> np.ndarray:
    return np.asarray(column.to_pylist(), dtype=object)


class Lexical(NamedTuple):
    """What the full-text searches give each chunk of the pool: its lexical signal
    (:func:`.lexical.lexical_signal`), and the names of the question it holds, those its text
    holds and those only its document's title holds (:func:`.lexical.named_in_titles`)."""

    signal: dict[str, float]
    names: dict[str, tuple[list[str], list[str]]]


@dataclass
class Candidates:
    chunk_id: np.ndarray
    doc_id: np.ndarray
    text: np.ndarray
    title: np.ndarray
    source: np.ndarray
    doc_type: np.ndarray
    kind: np.ndarray          # int8 codes, see KIND_CODE
    kind_reason: np.ndarray
    version: np.ndarray
    lifecycle: np.ndarray
    supersedes: np.ndarray    # object array of lists
    depends_on: np.ndarray
    raw_cosine: np.ndarray    # float64 in [-1, 1]
    created_us: np.ndarray
    dated: np.ndarray
    valid_from_us: np.ndarray
    valid_until_us: np.ndarray
    superseded_us: np.ndarray
    authority: np.ndarray     # float64, NaN where the record gave none
    lexical: np.ndarray | None = None   # BM25 of the passage / best BM25 of the query, in [0, 1]
    # per passage, the question's names (those its text holds, those only its title holds): Lexical.names
    lexical_names: np.ndarray | None = None
    # the periods each passage's text names (store.schema.content_spans): Arrow list arrays
    content_start: pa.Array | None = None
    content_end: pa.Array | None = None

    def __len__(self) -> int:
        return len(self.doc_id)

    def take(self, index: np.ndarray) -> Candidates:
        def pick(values):
            if values is None:
                return None
            if isinstance(values, pa.Array):
                return values.take(pa.array(np.arange(len(self))[index]))
            return values[index]
        return Candidates(**{f.name: pick(getattr(self, f.name)) for f in fields(self)})

    @cached_property
    def doc_code(self) -> np.ndarray:
        """One integer per row naming its document (same id, same code), for vectorised
        per-document work: ``np.isin`` or ``np.unique`` over the object-array ids costs one
        Python string comparison per pair (docs/PERF.md, "Figures behind design choices")."""
        return np.unique(self.doc_id, return_inverse=True)[1].reshape(-1).astype(np.intp)

    @cached_property
    def release_series(self) -> np.ndarray:
        """Per row its release series (:func:`temporal.kinds.release_series`), "" for any other
        document: the doc types are tested once each (a pool holds a few), and only release
        records' titles are read. Worked out once per query and shared by the rules that read it
        (:mod:`.releases`)."""
        types = self.doc_type.tolist()
        release = {t for t in set(types) if is_release_type(t)}
        series = np.full(len(types), "", dtype=object)
        if release:
            for i, t in enumerate(types):
                if t in release:
                    series[i] = release_series(t, self.title[i])
        return series

    @cached_property
    def title_text(self) -> list[str]:
        """``title + " " + text`` per row, a missing title or text read as "": the text the
        confidence features and abstention read words from, built once per query and shared by
        them (:mod:`.confidence`), so each reads the same strings."""
        return [f"{title or ''} {text or ''}" for title, text in zip(self.title, self.text, strict=True)]

    def lexical_signal(self) -> np.ndarray:
        """The lexical (BM25) signal per passage; zeros when no full-text search was run."""
        return np.zeros(len(self)) if self.lexical is None else self.lexical

    @classmethod
    def empty(cls) -> Candidates:
        return cls.from_search(None)

    @classmethod
    def from_search(cls, hits: pa.Table | None, lexical: Lexical | None = None) -> Candidates:
        """Search hits (chunks, with ``_distance`` and every ``SEARCH_COLUMNS``) -> one row per
        chunk, most similar first (ties: search order).

        Cosine similarity = 1 − cosine distance. ``lexical``: the chunks' lexical signal and
        names (:class:`Lexical`); chunks absent from it get 0 and none.
        """
        if hits is None or hits.num_rows == 0:
            z = np.zeros(0)
            o = np.zeros(0, dtype=object)
            i = np.zeros(0, dtype=np.int64)
            return cls(o, o, o, o, o, o, np.zeros(0, np.int8), o, o, o, o, o, z, i, np.zeros(0, bool), i, i, i, z,
                       None if lexical is None else z, None if lexical is None else o)
        similarity, doc_ids, keep = _passages(hits)
        hits = hits.take(pa.array(keep))
        chunk_ids = _objects(hits.column("chunk_id"))
        return cls(chunk_id=chunk_ids, doc_id=doc_ids[keep], text=_objects(hits.column("text")),
                   raw_cosine=similarity[keep], **_lexical(chunk_ids, lexical), **document_fields(hits),
                   **_spans(hits))

    @classmethod
    def from_chunk_hits(cls, hits: pa.Table, fields_by_doc: dict[str, np.ndarray], positions,
                        lexical: Lexical | None = None) -> Candidates | None:
        """Hits holding only ``CHUNK_COLUMNS`` and ``_distance`` -> one row per chunk, the
        document-level fields taken from ``fields_by_doc`` (:func:`document_fields` of every
        document) at ``positions(doc_ids)``; None when a hit's document is not among them."""
        if hits.num_rows == 0:
            return cls.from_search(None, lexical)
        similarity, doc_ids, keep = _passages(hits)
        at = positions(doc_ids[keep])
        if (at < 0).any():
            return None
        rows = pa.array(keep)
        chunk_ids = _objects(hits.column("chunk_id").take(rows))
        return cls(chunk_id=chunk_ids, doc_id=doc_ids[keep], text=_objects(hits.column("text").take(rows)),
                   raw_cosine=similarity[keep], **_lexical(chunk_ids, lexical),
                   **{name: values[at] for name, values in fields_by_doc.items()}, **_spans(hits.take(rows)))


def _passages(hits: pa.Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(similarity of every hit, doc id of every hit, rows kept): each chunk once (a chunk id
    repeated by a merged pool keeps its first row), most similar first (ties: search order)."""
    similarity = cosine_similarity(hits)
    doc_ids = _objects(hits.column("doc_id"))
    _, first = np.unique(_objects(hits.column("chunk_id")), return_index=True)
    keep = np.sort(first)
    return similarity, doc_ids, keep[np.argsort(-similarity[keep], kind="stable")]


def _spans(hits: pa.Table) -> dict[str, pa.Array | None]:
    """The content-time list columns of ``hits`` (None when the hits do not carry them)."""
    if not all(name in hits.column_names for name in CONTENT_TIME_COLUMNS):
        return {"content_start": None, "content_end": None}
    start, end = (hits.column(name).combine_chunks() for name in CONTENT_TIME_COLUMNS)
    return {"content_start": start, "content_end": end}


def _lexical(chunk_ids: np.ndarray, lexical: Lexical | None) -> dict[str, np.ndarray | None]:
    """The ``lexical`` and ``lexical_names`` columns of ``chunk_ids`` (None without a search)."""
    if lexical is None:
        return {"lexical": None, "lexical_names": None}
    signal, names = lexical
    ids = chunk_ids.tolist()
    held = np.empty(len(ids), dtype=object)
    held[:] = [names.get(c) for c in ids]
    return {"lexical": np.fromiter((signal.get(c, 0.0) for c in ids), dtype=np.float64, count=len(ids)),
            "lexical_names": held}


EXTRA_PASSAGE_MIN_SIMILARITY = 0.8   # ours: a second passage shows when its cosine is >= 0.8 x its document's best


def relevant_passages(doc_id: np.ndarray, raw_cosine: np.ndarray,
                      min_share: float = EXTRA_PASSAGE_MIN_SIMILARITY) -> np.ndarray:
    """Per row, whether the passage is about the question as much as its document is:
    ``cos >= min_share · max cos of its document's passages`` (ours: "several chunks of that
    version when relevant"; a chunk that only passes the relevance gate does not ride
    along with a good one)."""
    if not len(doc_id):
        return np.zeros(0, dtype=bool)
    integer = np.issubdtype(np.asarray(doc_id).dtype, np.integer)   # codes already (Candidates.doc_code)
    inverse = np.asarray(doc_id) if integer else np.unique(doc_id, return_inverse=True)[1].reshape(-1)
    best = np.full(inverse.max() + 1, -np.inf)
    np.maximum.at(best, inverse, raw_cosine)
    return raw_cosine >= min_share * best[inverse]


def stable_top(values: np.ndarray, n: int) -> np.ndarray:
    """Positions of the ``n`` largest ``values``, largest first, ties by position: what
    ``np.argsort(-values, kind="stable")[:n]`` gives, with only the values at or above the
    ``n``-th largest sorted (``np.partition`` finds it; values already in order: the first n; a
    NaN anywhere: the full sort)."""
    values = np.asarray(values)
    if 0 < n < len(values) and values.dtype.kind == "f" and not np.isnan(values).any():
        if (values[:-1] >= values[1:]).all():        # already best first (a search's cosines)
            return np.arange(n)
        negated = -values
        at = (negated <= np.partition(negated, n - 1)[n - 1]).nonzero()[0]
        return at[np.argsort(negated[at], kind="stable")][:n]
    return np.argsort(-values, kind="stable")[:n]


def first_per_document(doc_id: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The first of ``rows`` (indices, in the caller's order) of each document, in that order."""
    rows = np.asarray(rows, dtype=np.intp)
    if not rows.size:
        return rows
    codes = doc_id[rows]
    if codes.dtype.kind in "iu" and codes.min() >= 0:     # document codes: each one's first row, O(n)
        first = np.full(int(codes.max()) + 1, len(rows), dtype=np.intp)
        at = np.arange(len(rows))
        np.minimum.at(first, codes, at)
        return rows[first[codes] == at]
    _, first = np.unique(codes, return_index=True)
    return rows[np.sort(first)]


def select_passages(doc_id: np.ndarray, order: np.ndarray, k: int, per_document: int,
                    relevant: np.ndarray | None = None) -> np.ndarray:
    """Up to ``k`` passages from ``order`` (row indices, best first), at most ``per_document``
    of one document, grouped under their document: documents in the order of their best
    passage, a document's passages best first. The set is the ``k`` best passages under the cap.
    ``relevant`` (per row): whether a passage other than its document's best may be shown in
    that place; where the relevant passages are fewer than ``k``, the best of the others fill the
    remaining places after them, still at most ``per_document`` of one document (k means k
    passages: a reader handed the results gets k where the pool has them, and no weak passage
    rides ahead of a better document's).

    One pass down ``order`` that stops at the ``k``-th passage: it reads a handful of rows where a
    vectorised rank would sort the whole pool (1,000 candidates, k = 5: docs/PERF.md)."""
    order = np.asarray(order, dtype=np.intp)
    if not order.size or k < 1:
        return order[:0]
    cap = max(1, per_document)
    shown = None if relevant is None else np.asarray(relevant, dtype=bool)
    seen: dict = {}                      # passages of each document met so far (after the filter)
    groups: dict = {}                    # document -> its chosen positions, documents by first choice
    held: list[int] = []                 # positions the filter held back, best first
    chosen = 0
    for j, row in enumerate(order.tolist()):
        d = doc_id[row]
        met = seen.get(d, 0)
        if met and shown is not None and not shown[row]:   # neither its document's best nor relevant
            held.append(j)
            continue
        seen[d] = met + 1
        if met >= cap:
            continue
        groups.setdefault(d, []).append(j)
        chosen += 1
        if chosen == k:
            break
    picked = [j for rows in groups.values() for j in rows]
    taken = {d: len(rows) for d, rows in groups.items()} if chosen < k else {}
    for j in held if chosen < k else ():               # the whole pool was read: fill from what was held
        d = doc_id[order[j]]
        if taken.get(d, 0) < cap:
            taken[d] = taken.get(d, 0) + 1
            picked.append(j)
            chosen += 1
            if chosen == k:
                break
    return order[picked]


def document_fields(rows: pa.Table) -> dict[str, np.ndarray]:
    """The document-level :class:`Candidates` fields of chunk-table ``rows``, as arrays in row order."""
    kinds = rows.column("kind").to_pylist()
    return dict(
        title=_objects(rows.column("title")), source=_objects(rows.column("source")),
        doc_type=_objects(rows.column("doc_type")),
        kind=np.array([KIND_CODE.get(k, KIND_STATIC) for k in kinds], dtype=np.int8),
        kind_reason=_objects(rows.column("kind_reason")), version=_objects(rows.column("version")),
        lifecycle=_objects(rows.column("lifecycle")), supersedes=_objects(rows.column("supersedes")),
        depends_on=_objects(rows.column("depends_on")),
        created_us=_times(rows.column("created_at"), 0),
        dated=rows.column("dated").fill_null(True).to_numpy(zero_copy_only=False).astype(bool),
        valid_from_us=_times(rows.column("valid_from"), NO_START),
        valid_until_us=_times(rows.column("valid_until"), NO_END),
        superseded_us=_times(rows.column("superseded_at"), NO_END),
        authority=pc.cast(rows.column("authority"), pa.float64()).fill_null(np.nan).to_numpy(),
    )


# what document_fields reads, and the document id: a row equal in all of them has equal fields
FIELD_COLUMNS = ("doc_id", "title", "source", "doc_type", "kind", "kind_reason", "version", "lifecycle",
                 "supersedes", "depends_on", "created_at", "dated", "valid_from", "valid_until",
                 "superseded_at", "authority")


def _same_rows(a: pa.ChunkedArray, b: pa.ChunkedArray) -> np.ndarray:
    """Per row: ``a`` and ``b`` hold the same value (both null counts as the same; lists are
    compared joined; NaN is never the same: such a row is just built again)."""
    if pa.types.is_list(a.type):
        a, b = pc.binary_join(a, "\x1f"), pc.binary_join(b, "\x1f")
    same = pc.or_(pc.fill_null(pc.equal(a, b), False), pc.and_(pc.is_null(a), pc.is_null(b)))
    return same.to_numpy(zero_copy_only=False).astype(bool)


def document_fields_after(rows: pa.Table, before: pa.Table, before_fields: dict[str, np.ndarray]
                          ) -> dict[str, np.ndarray]:
    """:func:`document_fields` of ``rows``, reusing ``before_fields`` (those of ``before``) for
    each row of the common prefix that is equal in every :data:`FIELD_COLUMNS` column; the
    other rows are built. A state after a write holds the documents before it in the same order
    and the new ones after them (``ConsolidationCache.documents``), so an append builds a few
    rows instead of all (~0.1–0.4 s at 100k documents); more than half changed: built whole."""
    n, m = rows.num_rows, min(rows.num_rows, before.num_rows)
    if m == 0 or any(name not in rows.column_names or name not in before.column_names for name in FIELD_COLUMNS):
        return document_fields(rows)
    head, old = rows.slice(0, m), before.slice(0, m)
    same = np.ones(m, bool)
    for name in FIELD_COLUMNS:
        same &= _same_rows(head.column(name), old.column(name))
    redo = np.concatenate([np.flatnonzero(~same), np.arange(m, n)])
    if len(redo) > n // 2:
        return document_fields(rows)
    fresh = document_fields(rows.take(pa.array(redo))) if len(redo) else None
    if fresh is not None and any(v.shape[1:] != before_fields[k].shape[1:] for k, v in fresh.items()):
        return document_fields(rows)   # lists all of one length make a 2-D object array (_objects)
    out = {}
    for name, values in before_fields.items():
        column = np.empty((n, *values.shape[1:]), dtype=values.dtype)
        column[:m] = values[:m]
        if fresh is not None:
            column[redo] = fresh[name]
        out[name] = column
    return out
