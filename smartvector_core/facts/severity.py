"""Did a fact change between two versions? (blog, "When the fact changed significantly between
versions").

Replacing "100 requests per minute" with "1,000 requests per minute" is not a wording change.
:func:`conflict_severity` compares the quantities two versions of one document state (one
version chain: one subject, so quantities are paired by kind alone); the winner's score is
raised by ``0.2·severity`` and its confidence lowered by ``0.1·severity`` (constants in
:class:`~smartvector_core.config.temporal.ConflictConfig`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.temporal import DEFAULT_TEMPORAL, ConflictConfig
from .quantities import Quantity, extract_quantities

__all__ = ["Conflict", "QuantityChange", "conflict_severity"]


@dataclass(frozen=True)
class QuantityChange:
    old: Quantity
    new: Quantity
    severity: float


@dataclass(frozen=True)
class Conflict:
    """``severity`` in [0, 1]; ``boost`` to add to the newer version's score; ``pairs`` every
    compared pair, most changed first. (The confidence penalty of a conflict is the answer
    confidence's business: ``CalibrationConfig.conflict_penalty``.)"""

    severity: float
    boost: float
    pairs: tuple[QuantityChange, ...] = ()


def _pair_severity(a: float, b: float) -> float:
    hi, lo = max(abs(a), abs(b)), min(abs(a), abs(b))
    return 0.0 if hi == 0 else 1.0 - lo / hi


def conflict_severity(old_text: str, new_text: str,
                      config: ConflictConfig = DEFAULT_TEMPORAL.conflict) -> Conflict:
    """How much the stated numbers changed between two versions (blog, same section).

    Quantities of the same kind (units normalised: "100 req/min" and "6,000 requests per hour"
    are one kind and value) are paired in order of appearance (the i-th of a kind in the old
    text with the i-th of the new). For a pair ``severity = 1 − min/max`` of the absolute
    values (the middle of a range); the conflict's severity is that of the most-changed pair
    (0 when no kind is shared). ``boost = 0.2·severity``.
    Blog: '100' → '5000' severity 0.980, boost +0.196; '1000' → '500' 0.500;
    '1000' → '1000' 0.0.
    """
    old_q = extract_quantities(old_text if isinstance(old_text, str) else "")
    new_q = extract_quantities(new_text if isinstance(new_text, str) else "")
    by_kind: dict[str, list[Quantity]] = {}
    for q in new_q:
        by_kind.setdefault(q.kind, []).append(q)
    seen: dict[str, int] = {}
    pairs = []
    for q in old_q:
        i = seen.get(q.kind, 0)
        partners = by_kind.get(q.kind, [])
        if i < len(partners):
            pairs.append(QuantityChange(q, partners[i], _pair_severity(q.value, partners[i].value)))
        seen[q.kind] = i + 1
    pairs.sort(key=lambda p: -p.severity)
    severity = pairs[0].severity if pairs else 0.0
    return Conflict(severity, config.boost_per_severity * severity, tuple(pairs))
