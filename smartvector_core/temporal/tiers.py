"""Confidence tiers (blog, "When the score looks good but the answer isn't certain").

Tiers are thresholds on the answer confidence and nothing else, so a higher confidence never
gets a lower tier (DESIGN.md "Trust model"). The blog's other rule, "a close race or
contradiction drops the result to LOW regardless of the raw score", lives in the confidence
itself (:func:`smartvector_core.retrieval.calibration.certainty`): a narrow margin over a
disagreeing result and a flagged conflict both lower the confidence, and the tier follows.
"""

from __future__ import annotations

import numpy as np

from ..config.temporal import DEFAULT_TEMPORAL, TierConfig


def confidence_tiers(confidence: np.ndarray, config: TierConfig = DEFAULT_TEMPORAL.tiers) -> np.ndarray:
    """'HIGH' when ``confidence >= 0.90``, 'MEDIUM' when ``>= 0.45``, else 'LOW' (NaN: LOW).

    The confidence is a calibrated probability, so HIGH means "right at least 9 times in 10"
    (the blog's HIGH at 0.72 was a threshold on an uncalibrated score: its policy_v3 at 0.7485
    is MEDIUM here; math_theorem 0.6992 MEDIUM in both). Policy_v3 with a conflict and a narrow
    margin -> LOW. In the blog that
    last one kept 0.4727 and was forced LOW; here the conflict and the race lower the
    confidence itself: score 0.80 (after the conflict boost), margin 0.01, severity 0.98,
    trust 0.85 give certainty 0.80 · 0.5 · 0.925 − 0.098 = 0.272 -> LOW
    (tests/temporal/test_tiers.py).
    """
    c = np.asarray(confidence, dtype=np.float64)
    return np.where(c >= config.high, "HIGH", np.where(c >= config.medium, "MEDIUM", "LOW"))
