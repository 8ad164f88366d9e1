"""The candidate set of one query as column arrays (one row per document: its best chunk).

Everything the signals need is here as numpy arrays, so scoring is vectorised. Times are int64
microseconds UTC; a missing ``valid_from`` is ``NO_START``, a missing ``valid_until`` or
``superseded_at`` is ``NO_END``. Similarity is converted from LanceDB's cosine distance in
exactly one place (:func:`Candidates.from_search`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..models import DocumentKind

NO_START = np.iinfo(np.int64).min
NO_END = np.iinfo(np.int64).max
KIND_CODE = {DocumentKind.STATIC.value: 0, DocumentKind.VERSIONED.value: 1, DocumentKind.EVENT.value: 2}
KIND_NAMES = np.array([DocumentKind.STATIC, DocumentKind.VERSIONED, DocumentKind.EVENT], dtype=object)

SEARCH_COLUMNS = ["chunk_id", "doc_id", "text", "title", "source", "created_at", "dated", "valid_from",
                  "valid_until", "kind", "kind_reason", "doc_type", "version", "supersedes", "depends_on",
                  "authority", "lifecycle", "superseded_at"]
CHUNK_COLUMNS = ["chunk_id", "doc_id", "text"]   # the rest are document-level (same on every chunk)


def _times(column: pa.ChunkedArray, fill: int) -> np.ndarray:
    ints = pc.cast(column, pa.int64())
    return ints.fill_null(fill).to_numpy().astype(np.int64, copy=False)


def _objects(column: pa.ChunkedArray) -> np.ndarray:
    return np.asarray(column.to_pylist(), dtype=object)


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

    def __len__(self) -> int:
        return len(self.doc_id)

    def take(self, index: np.ndarray) -> Candidates:
        return Candidates(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @classmethod
    def empty(cls) -> Candidates:
        return cls.from_search(None)

    @classmethod
    def from_search(cls, hits: pa.Table | None) -> Candidates:
        """Search hits (chunks, best first, with ``_distance`` and every ``SEARCH_COLUMNS``) ->
        one row per document.

        Cosine similarity = 1 − cosine distance. A document keeps its most similar chunk.
        """
        if hits is None or hits.num_rows == 0:
            z = np.zeros(0)
            o = np.zeros(0, dtype=object)
            i = np.zeros(0, dtype=np.int64)
            return cls(o, o, o, o, o, o, np.zeros(0, np.int8), o, o, o, o, o, z, i, np.zeros(0, bool), i, i, i, z)
        similarity, doc_ids, keep = _best_chunk_per_document(hits)
        hits = hits.take(pa.array(keep))
        return cls(chunk_id=_objects(hits.column("chunk_id")), doc_id=doc_ids[keep], text=_objects(hits.column("text")),
                   raw_cosine=similarity[keep], **document_fields(hits))

    @classmethod
    def from_chunk_hits(cls, hits: pa.Table, fields_by_doc: dict[str, np.ndarray], positions) -> Candidates | None:
        """Hits holding only ``CHUNK_COLUMNS`` and ``_distance`` -> one row per document, the
        document-level fields taken from ``fields_by_doc`` (:func:`document_fields` of every
        document) at ``positions(doc_ids)``; None when a hit's document is not among them."""
        if hits.num_rows == 0:
            return cls.from_search(None)
        similarity, doc_ids, keep = _best_chunk_per_document(hits)
        at = positions(doc_ids[keep])
        if (at < 0).any():
            return None
        rows = pa.array(keep)
        return cls(chunk_id=_objects(hits.column("chunk_id").take(rows)), doc_id=doc_ids[keep],
                   text=_objects(hits.column("text").take(rows)), raw_cosine=similarity[keep],
                   **{name: values[at] for name, values in fields_by_doc.items()})


def _best_chunk_per_document(hits: pa.Table) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(similarity of every hit, doc id of every hit, rows kept): each document's most similar
    chunk, most similar first (ties: search order)."""
    similarity = 1.0 - hits.column("_distance").to_numpy().astype(np.float64)
    doc_ids = _objects(hits.column("doc_id"))
    order = np.argsort(-similarity, kind="stable")
    _, first = np.unique(doc_ids[order], return_index=True)
    keep = np.sort(order[first])
    return similarity, doc_ids, keep[np.argsort(-similarity[keep], kind="stable")]


def document_fields(rows: pa.Table) -> dict[str, np.ndarray]:
    """The document-level :class:`Candidates` fields of chunk-table ``rows``, as arrays in row order."""
    kinds = rows.column("kind").to_pylist()
    return dict(
        title=_objects(rows.column("title")), source=_objects(rows.column("source")),
        doc_type=_objects(rows.column("doc_type")),
        kind=np.array([KIND_CODE.get(k, 0) for k in kinds], dtype=np.int8),
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
