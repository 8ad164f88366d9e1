"""Who pays for a contradiction, and when two documents hold at the same time.

DESIGN.md, "Trust model": a contradiction needs statements "that hold at the same time
(overlapping validity, neither superseded, not one version chain)"; "only the less trusted
side is penalised, and a supersession or an operator's resolution settles the pair". One rule
for the consolidation agent (CONTRADICTION events) and the query-time demotion of
:mod:`smartvector_core.retrieval.rerank`, as vectorised functions.

``TRUST_MARGIN`` (ours, 0.2, the margin the query-time demotion already used): a side is
*less trusted* when its trust is lower than the other's by at least the margin. Between two
sides of about equal trust nobody is penalised: the pair goes to the review queue and an
operator decides.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NEITHER", "TRUST_MARGIN", "concurrent", "less_trusted_side"]

TRUST_MARGIN = 0.2
NEITHER = -1


def less_trusted_side(trust_a, trust_b, margin: float = TRUST_MARGIN) -> np.ndarray:
    """Per pair: 0 when side a is the less trusted (trust_a ≤ trust_b − margin), 1 when side b
    is, :data:`NEITHER` (−1) when they are within ``margin`` of each other.

    >>> less_trusted_side([0.3, 0.9, 0.8], [0.9, 0.3, 0.7]).tolist()
    [0, 1, -1]
    """
    a, b = np.asarray(trust_a, dtype=np.float64), np.asarray(trust_b, dtype=np.float64)
    eps = 1e-9   # 0.9 − 0.7 is 0.2 in decimal, not in binary
    return np.where(a <= b - margin + eps, 0, np.where(b <= a - margin + eps, 1, NEITHER))


def concurrent(start_a, end_a, start_b, end_b) -> np.ndarray:
    """Do the validity windows ``[start, end)`` overlap (µs; ``end`` = the earlier of
    ``valid_until`` and ``superseded_at``)?  ``max(start) < min(end)``."""
    return np.maximum(np.asarray(start_a), np.asarray(start_b)) < np.minimum(np.asarray(end_a), np.asarray(end_b))
