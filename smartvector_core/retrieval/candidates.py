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
DOCUMENT_SEARCH_COLUMNS = [c for c in SEARCH_COLUMNS if c not in CHUNK_COLUMNS]


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
        """Search hits (chunks, best first, with ``_distance``) -> one row per document.

        Cosine similarity = 1 − cosine distance. A document keeps its most similar chunk.
        """
        if hits is None or hits.num_rows == 0:
            z = np.zeros(0)
            o = np.zeros(0, dtype=object)
            i = np.zeros(0, dtype=np.int64)
            return cls(o, o, o, o, o, o, np.zeros(0, np.int8), o, o, o, o, o, z, i, np.zeros(0, bool), i, i, i, z)
        similarity = 1.0 - hits.column("_distance").to_numpy().astype(np.float64)
        doc_ids = _objects(hits.column("doc_id"))
        order = np.argsort(-similarity, kind="stable")
        _, first = np.unique(doc_ids[order], return_index=True)
        keep = np.sort(order[first])
        keep = keep[np.argsort(-similarity[keep], kind="stable")]
        hits = hits.take(pa.array(keep))
        kinds = hits.column("kind").to_pylist()
        return cls(
            chunk_id=_objects(hits.column("chunk_id")), doc_id=doc_ids[keep],
            text=_objects(hits.column("text")), title=_objects(hits.column("title")),
            source=_objects(hits.column("source")), doc_type=_objects(hits.column("doc_type")),
            kind=np.array([KIND_CODE.get(k, 0) for k in kinds], dtype=np.int8),
            kind_reason=_objects(hits.column("kind_reason")), version=_objects(hits.column("version")),
            lifecycle=_objects(hits.column("lifecycle")), supersedes=_objects(hits.column("supersedes")),
            depends_on=_objects(hits.column("depends_on")), raw_cosine=similarity[keep],
            created_us=_times(hits.column("created_at"), 0),
            dated=hits.column("dated").fill_null(True).to_numpy(zero_copy_only=False).astype(bool),
            valid_from_us=_times(hits.column("valid_from"), NO_START),
            valid_until_us=_times(hits.column("valid_until"), NO_END),
            superseded_us=_times(hits.column("superseded_at"), NO_END),
            authority=pc.cast(hits.column("authority"), pa.float64()).fill_null(np.nan).to_numpy(),
        )
