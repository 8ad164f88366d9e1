"""Confidence tiers (blog, "When the score looks good but the answer isn't certain")."""

from __future__ import annotations

import numpy as np

from .settings import DEFAULT_TEMPORAL, TierConfig


def confidence_tiers(top_score: np.ndarray, margin_to_runner_up: np.ndarray | None = None,
                     conflict_flags: np.ndarray | bool = False,
                     config: TierConfig = DEFAULT_TEMPORAL.tiers) -> np.ndarray:
    """'HIGH' / 'MEDIUM' / 'LOW' per answer.

    LOW when ``margin < 0.02`` (a close race: blog "0.73 and 0.72") or a conflict is flagged,
    "regardless of the raw score"; otherwise HIGH when ``score >= 0.72``, MEDIUM when
    ``score >= 0.45``, else LOW. Blog: policy_v3 clear winner 0.7485 -> HIGH; policy_v3 with
    a conflict and narrow margin 0.4727 -> LOW; math_theorem 0.6992 -> MEDIUM.
    A NaN margin (no runner-up) is not a close race.
    """
    score = np.asarray(top_score, dtype=np.float64)
    margin = np.full(score.shape, np.inf) if margin_to_runner_up is None else np.asarray(
        margin_to_runner_up, dtype=np.float64)
    close = margin < config.min_margin          # NaN compares False: no runner-up, no race
    risky = close | np.asarray(conflict_flags, dtype=bool)
    tiers = np.where(score >= config.high, "HIGH", np.where(score >= config.medium, "MEDIUM", "LOW"))
    return np.where(risky, "LOW", tiers)
