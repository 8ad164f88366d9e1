"""Contradictions and numeric conflicts among the best kept candidates of one query: the
rerank's demotion of the less trusted side of a contradiction (:func:`demote_contradicted`)
and its boost of a version whose numbers changed against the previous one
(:func:`conflict_boost`). Both read the rerank's :class:`.rerank.Pool` (``cands``, ``chain``,
``trust``) and a mask of the candidates still kept; Python loops run over the 2k best kept
candidates only (k: the results asked for)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..facts import conflict_severity, find_contradiction
from ..facts.rules import NEITHER, less_trusted_side
from ..temporal import DEFAULT_TEMPORAL
from .candidates import stable_top


def best_kept(kept: np.ndarray, score: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` best rows of mask ``kept`` by ``score``, best first (ties: the first row;
    :func:`.candidates.stable_top`)."""
    rows = np.asarray(kept).nonzero()[0]
    return rows[stable_top(score[rows], n)]


@lru_cache(maxsize=64)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(n, 1)`` (the pairs i < j of n rows), kept per n (read-only): 9 µs a call."""
    a, b = np.triu_indices(n, 1)
    a.flags.writeable = b.flags.writeable = False
    return a, b


def demote_contradicted(pool, kept: np.ndarray, score: np.ndarray, k: int, factor: float
                        ) -> tuple[np.ndarray, dict[int, list[str]]]:
    """The query-time side of DESIGN.md "Trust model" (the rule of :mod:`smartvector_core.facts`):
    two kept candidates hold at ``t`` (both passed the validity and supersession gates) and are
    not one version chain; when they contradict (:func:`facts.find_contradiction`: same subject,
    disagreement after unit normalisation or in polarity) only the less trusted side
    (:func:`facts.rules.less_trusted_side`: lower by >= ``TRUST_MARGIN``) is demoted, score ×
    ``factor``. Among the 2k best kept candidates, so it works before the consolidation agent
    has queued the contradiction. Returns (new scores, a note per demoted row)."""
    cands, chain, trust = pool.cands, pool.chain, pool.trust
    notes: dict[int, list[str]] = {}
    top = best_kept(kept, score, 2 * k)
    a, b = _pairs(len(top))
    a, b = top[a], top[b]
    side = less_trusted_side(trust[a], trust[b])
    ask = (chain[a] != chain[b]) & (side != NEITHER)
    out = score.copy()
    demoted: set[int] = set()
    for x, y, s in zip(a[ask].tolist(), b[ask].tolist(), side[ask].tolist(), strict=True):
        low, high = (x, y) if s == 0 else (y, x)
        if low in demoted:
            continue
        found = find_contradiction(cands.text[low], cands.text[high])
        if found is not None:
            demoted.add(low)
            out[low] = score[low] * factor
            notes.setdefault(low, []).append(
                f"contradicted by higher-trust {cands.doc_id[high]} ({found.evidence}): score x{factor}")
    return out, notes


def conflict_boost(pool, kept: np.ndarray, score: np.ndarray, k: int, conflict=DEFAULT_TEMPORAL.conflict
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Numeric conflict with the previous version of the same chain (blog, "When the fact changed
    significantly between versions"): the winner's score rises by 0.2·severity (its confidence
    falls by ``CalibrationConfig.conflict_penalty``·severity, in the answer confidence). Only the
    2k best kept candidates are compared, and of them only those whose chain has another row in
    the pool (a chain of one row has no previous version here). Returns (boosted scores, severity
    per candidate)."""
    cands, chain = pool.cands, pool.chain
    severity = np.zeros(len(score))
    top = best_kept(kept, score, 2 * k)
    ordered = np.sort(chain)
    rows = np.searchsorted(ordered, chain[top], side="right") - np.searchsorted(ordered, chain[top], side="left")
    for i in top[rows > 1].tolist():
        same = np.flatnonzero((chain == chain[i]) & (cands.created_us < cands.created_us[i]))
        if same.size:
            older = same[np.argmax(cands.created_us[same])]
            severity[i] = conflict_severity(cands.text[older], cands.text[i], conflict).severity
    boosted = np.clip(score + conflict.boost_per_severity * severity, 0.0, 1.0)
    return boosted, severity
