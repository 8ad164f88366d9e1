"""Document-level arrays over the whole store: version chains, supersession, relational importance
and stale dependencies (:class:`DocIndex`), built from the documents and their edges."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..memory import KnowledgeGraph
from ..memory.chains import NO_END, NO_START, chain_labels, effective_us, superseded_at
from ..models import EdgeType


def edge_rows(edges: pd.DataFrame, edge_type: EdgeType, position: pd.Index,
              with_inferred: bool) -> tuple[np.ndarray, np.ndarray]:
    """Row positions (src, dst) of the ``edge_type`` edges between known documents
    (declared ones only unless ``with_inferred``)."""
    if not len(edges):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    picked = edges[edges["edge_type"] == edge_type.value]
    if not with_inferred:
        picked = picked[picked["origin"] == "declared"]
    s = position.get_indexer(picked["src"].to_numpy())
    d = position.get_indexer(picked["dst"].to_numpy())
    ok = (s >= 0) & (d >= 0)
    return s[ok], d[ok]


@dataclass
class DocIndex:
    """Document-level arrays over the whole store, for version chains and supersession.

    ``effective_us``: when a version takes effect (``valid_from``, else ``created_at``).
    ``chain``: version-chain label: connected components of SUPERSEDES edges (declared, plus
    inferred ones when ``with_inferred``); ``superseded_us``: the earliest effective time of a
    direct successor (NO_END: never). Both as defined once in :mod:`smartvector_core.memory.chains`.
    ``relational``: the paper's relational importance counting neighbours that are the newest
    version of their chain (0 where no edges).
    """

    ids: np.ndarray
    position: pd.Index
    effective_us: np.ndarray
    chain: np.ndarray
    superseded_us: np.ndarray
    relational: np.ndarray
    dependency_stale_us: np.ndarray   # when the first document this one relies on was superseded
    _where: dict | None = field(default=None, repr=False)

    @classmethod
    def build(cls, docs: pa.Table, edges: pd.DataFrame, graph: KnowledgeGraph, *,
              with_inferred: bool = True) -> DocIndex:
        n = docs.num_rows
        ids = np.asarray(docs.column("doc_id").to_pylist(), dtype=object)
        position = pd.Index(ids)
        created = pc.cast(docs.column("created_at"), pa.int64()).to_numpy(zero_copy_only=False)
        valid_from = pc.cast(docs.column("valid_from"), pa.int64()).fill_null(NO_START).to_numpy()
        effective = effective_us(valid_from, created)
        s, d = edge_rows(edges, EdgeType.SUPERSEDES, position, with_inferred)
        labels = chain_labels(n, s, d)
        superseded = superseded_at(effective, s, d)
        newest = superseded == NO_END   # no successor at all (time-free: the index serves every as_of)
        relational = np.zeros(n)
        if graph.doc_ids:
            linked = np.asarray(graph.doc_ids, dtype=object)
            at = position.get_indexer(linked)
            relational[at] = graph.relational_importance(linked, newest[at])
        dependency_stale = np.full(n, NO_END, dtype=np.int64)
        s, d = edge_rows(edges, EdgeType.DEPENDS_ON, position, with_inferred)
        np.minimum.at(dependency_stale, s, superseded[d])
        return cls(ids, position, effective, labels, superseded, relational, dependency_stale)

    def lookup(self, doc_ids: np.ndarray) -> np.ndarray:
        """Positions of ``doc_ids`` in the index (-1 where unknown): one dict probe per id."""
        if self._where is None:
            self._where = {d: i for i, d in enumerate(self.ids.tolist())}
        ids = np.asarray(doc_ids, dtype=object).reshape(-1)
        return np.fromiter(map(self._where.get, ids.tolist(), repeat(-1)), dtype=np.intp, count=len(ids))
