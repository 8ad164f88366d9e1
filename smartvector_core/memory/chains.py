"""Version chains and ``superseded_at``: the one definition that the knowledge state
(:class:`~smartvector_core.knowledge.DocIndex`), the relations graph, consolidation and the
dashboard all use.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``, section 2.1
"relational awareness": a ``supersedes`` edge links a version to the one it replaces) and the
temporal layer (``seeds/temporal-rag-blog.txt``, "deduplicating by version chain":
``policy_v2 — superseded by v3 → removed``).

Definitions (arrays over documents, rows ``0..n-1``; an edge ``src -> dst`` means *src
supersedes dst*, src being the newer version):

- **effective time** of a version: its ``valid_from`` when set, else its ``created_at``
  (:func:`effective_us`);
- **version chain**: a connected component of SUPERSEDES edges, either direction
  (:func:`chain_labels`); its id is its lexicographically smallest member (:func:`chain_ids`),
  deterministic and stable when a newer version joins; a document without edges is its own
  chain. Only edges make chains: a shared title alone does not (consolidation infers an edge
  when it finds evidence of a replacement, and writes that evidence on the edge);
- **superseded_at** of a document: the earliest effective time of a *direct* successor (the
  ``src`` of an edge into it), :data:`NO_END` when it has none (:func:`superseded_at`). A
  document is superseded at ``as_of`` when ``superseded_at <= as_of``.

:data:`NO_END` ("never ends") and :data:`NO_START` (no ``valid_from``) are the temporal layer's
sentinels (:mod:`..temporal.codes`), re-exported here so chain code needs one import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ..temporal.codes import NO_END, NO_START

__all__ = ["NO_END", "NO_START", "chain_ids", "chain_labels", "chain_members", "effective_us", "normalise_title",
           "superseded_at"]

_TITLE_NORM = re.compile(r"[^a-z0-9]+")


def normalise_title(title: str | None) -> str:
    """Lower-case, punctuation to single spaces: 'API Rate-Limits' -> 'api rate limits'."""
    return _TITLE_NORM.sub(" ", (title or "").lower()).strip()


def effective_us(valid_from_us: np.ndarray, created_us: np.ndarray) -> np.ndarray:
    """When each version takes effect: ``valid_from`` where set (any value but :data:`NO_START`,
    so a date before 1970 counts), else ``created_at``. The one definition of a version's start:
    chains, supersession, contradiction windows and the query's time gates all use it."""
    valid_from = np.asarray(valid_from_us, dtype=np.int64)
    return np.where(valid_from != NO_START, valid_from, np.asarray(created_us, dtype=np.int64)).astype(np.int64)


def _rows(src: Iterable[int], dst: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(list(src) if not isinstance(src, np.ndarray) else src, dtype=np.int64).reshape(-1)
    d = np.asarray(list(dst) if not isinstance(dst, np.ndarray) else dst, dtype=np.int64).reshape(-1)
    if s.shape != d.shape:
        raise ValueError(f"expected as many edge sources as targets, found {len(s)} and {len(d)}")
    return s, d


def chain_labels(n: int, src: Iterable[int], dst: Iterable[int]) -> np.ndarray:
    """Component label per document (int64, 0-based) of the undirected SUPERSEDES graph over
    rows ``src[i] -> dst[i]``; rows without edges get a label of their own."""
    s, d = _rows(src, dst)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    adjacency = coo_matrix((np.ones(s.size), (s, d)), shape=(n, n))
    _, labels = connected_components(adjacency, directed=False)
    return labels.astype(np.int64)


def chain_ids(ids: np.ndarray, src: Iterable[int], dst: Iterable[int]) -> np.ndarray:
    """Chain id per document: the smallest doc id of its chain (object array)."""
    ids = np.asarray(ids, dtype=object)
    labels = chain_labels(len(ids), src, dst)
    if not len(ids):
        return ids.copy()
    order = np.lexsort((ids.astype(str), labels))          # smallest id first within a label
    first = order[np.r_[True, labels[order][1:] != labels[order][:-1]]]
    smallest = np.empty(labels.max() + 1, dtype=object)
    smallest[labels[first]] = ids[first]
    return smallest[labels]


def superseded_at(effective: np.ndarray, src: Iterable[int], dst: Iterable[int]) -> np.ndarray:
    """superseded_at[d] = min over edges s -> d of effective[s]; :data:`NO_END` without one.

    Worked example (tests/memory/test_chains.py): v1 <- v2 (effective 200), v1 <- v3 (300),
    v2 <- v3: v1 at 200, v2 at 300, v3 never.
    """
    eff = np.asarray(effective, dtype=np.int64)
    s, d = _rows(src, dst)
    out = np.full(len(eff), NO_END, dtype=np.int64)
    np.minimum.at(out, d, eff[s])
    return out


def chain_members(doc_id: str, ids: np.ndarray, src: Iterable[int], dst: Iterable[int]) -> list[str]:
    """The doc ids of ``doc_id``'s chain (itself included), sorted; ``[doc_id]`` when unknown."""
    ids = np.asarray(ids, dtype=object)
    hit = np.flatnonzero(ids == doc_id)
    if not len(hit):
        return [doc_id]
    labels = chain_labels(len(ids), src, dst)
    return sorted(ids[labels == labels[hit[0]]].tolist())
