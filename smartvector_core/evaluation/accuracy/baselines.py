"""Baseline rankers from the literature and from popular RAG frameworks, re-implemented in numpy.

These are the comparison points for ``bench``; none of them knows about validity windows,
versions or authority. We re-implement them from their published definitions so the project
does not depend on those frameworks; each docstring states the formula and where it is from.

- :func:`rrf_fuse` — reciprocal rank fusion, Cormack, Clarke & Büttcher, "Reciprocal Rank
  Fusion outperforms Condorcet and individual Rank Learning Methods", SIGIR 2009.
- :func:`langchain_time_weighted` — LangChain ``TimeWeightedVectorStoreRetriever``
  (``langchain/retrievers/time_weighted_retriever.py``, ``_get_combined_score``).
- :func:`fixed_recency` — LlamaIndex ``FixedRecencyPostprocessor``
  (``llama_index/core/postprocessor/node_recency.py``).
- :func:`llamaindex_time_weighted` — LlamaIndex ``TimeWeightedPostprocessor`` (same file).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import InputError

#: RRF's k constant (Cormack et al. 2009 found k = 60 works well; ranx, Elastic and others use it).
RRF_K = 60
#: LangChain TimeWeightedVectorStoreRetriever default ``decay_rate``.
LANGCHAIN_DECAY_RATE = 0.01
#: LlamaIndex TimeWeightedPostprocessor default ``time_decay``.
LLAMAINDEX_TIME_DECAY = 0.99
#: LlamaIndex FixedRecencyPostprocessor / TimeWeightedPostprocessor default ``top_k``.
LLAMAINDEX_TOP_K = 1


def rrf_fuse(rankings: Sequence[Sequence[str]], k: float = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal rank fusion of several rankings (Cormack et al., SIGIR 2009).

        RRF(d) = Σ_r 1 / (k + rank_r(d)),   rank_r(d) 1-based; rankings without d add nothing.

    Returns ``(id, score)`` best first; ties are broken by id so the output is deterministic.
    An id repeated inside one ranking counts at its first (best) rank only.
    """
    if k < 0:
        raise InputError(f"expected k >= 0, found {k}", field="k")
    scores: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for rank, doc_id in enumerate(ranking, start=1):
            if doc_id in seen:
                continue
            seen.add(doc_id)
            scores[doc_id] = scores.get(doc_id, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def langchain_time_weighted(similarity: np.ndarray | Sequence[float],
                            hours_since_last_access: np.ndarray | Sequence[float],
                            decay_rate: float = LANGCHAIN_DECAY_RATE) -> np.ndarray:
    """LangChain ``TimeWeightedVectorStoreRetriever`` combined score, element-wise.

        score = similarity + (1 − decay_rate) ** hours_since_last_access

    LangChain measures hours since the document was last *retrieved* (``last_accessed_at``,
    set to the creation time on insert and refreshed on every retrieval); a benchmark that
    does not simulate access passes hours since ``created_at``. With the default
    ``decay_rate`` 0.01 the recency term halves about every 69 hours.
    """
    if not 0.0 <= decay_rate <= 1.0:
        raise InputError(f"expected decay_rate in [0, 1], found {decay_rate}", field="decay_rate")
    sim = np.asarray(similarity, dtype=np.float64)
    hours = np.asarray(hours_since_last_access, dtype=np.float64)
    return sim + np.power(1.0 - decay_rate, hours)


def fixed_recency(dates: np.ndarray | Sequence, top_k: int = LLAMAINDEX_TOP_K) -> np.ndarray:
    """LlamaIndex ``FixedRecencyPostprocessor``: keep the ``top_k`` newest candidates.

    Returns the indices into ``dates`` of the kept candidates, newest first. Dates may be
    ``datetime64``, datetimes or numbers (e.g. epoch microseconds). LlamaIndex sorts with
    ``np.flip(dates.argsort())``, so among equal dates the later input position comes first;
    we keep that order (stable sort, then flip). Similarity plays no part: this is the
    "newest wins" baseline. LlamaIndex's default ``top_k`` is 1.
    """
    if top_k < 1:
        raise InputError(f"expected top_k >= 1, found {top_k}", field="top_k")
    arr = np.asarray(dates)
    if arr.dtype == object:
        arr = arr.astype("datetime64[us]")
    order = np.flip(np.argsort(arr, kind="stable"))
    return order[:top_k]


def llamaindex_time_weighted(similarity: np.ndarray | Sequence[float | None],
                             hours_passed: np.ndarray | Sequence[float],
                             time_decay: float = LLAMAINDEX_TIME_DECAY,
                             top_k: int = LLAMAINDEX_TOP_K) -> tuple[np.ndarray, np.ndarray]:
    """LlamaIndex ``TimeWeightedPostprocessor``: rerank by similarity plus a recency term.

        score = similarity + (1 − time_decay) ** hours_passed

    exactly as LlamaIndex writes it (``time_similarity = (1 - self.time_decay) ** hours_passed``,
    ``hours_passed = (now - last_accessed) / 3600``). Note the base is ``1 − time_decay``: with
    the default ``time_decay`` 0.99 the term is 0.01 ** hours, i.e. 1 for a document accessed
    this instant and ~0 an hour later. LlamaIndex reads a node's score as ``score or 1.0``, so
    a missing (None/NaN here) *or zero* similarity counts as 1.0; we keep that quirk.
    A document never accessed counts as accessed now (hours_passed 0).

    Returns ``(indices, scores)`` of the ``top_k`` best candidates, best first (stable on ties).
    """
    if top_k < 1:
        raise InputError(f"expected top_k >= 1, found {top_k}", field="top_k")
    sim = np.array([np.nan if s is None else s for s in np.asarray(similarity, dtype=object)],
                   dtype=np.float64)
    sim = np.where(np.isnan(sim) | (sim == 0.0), 1.0, sim)
    hours = np.nan_to_num(np.asarray(hours_passed, dtype=np.float64), nan=0.0)
    scores = sim + np.power(1.0 - time_decay, hours)
    order = np.argsort(-scores, kind="stable")[:top_k]
    return order, scores[order]
