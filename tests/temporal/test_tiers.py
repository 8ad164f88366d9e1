"""Tiers are thresholds on the answer confidence only (DESIGN.md "Trust model")."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.config.temporal import TierConfig
from smartvector_core.retrieval.calibration import certainty
from smartvector_core.temporal import confidence_tiers

RANK = {"LOW": 0, "MEDIUM": 1, "HIGH": 2}


def test_blog_examples():
    # blog: policy_v3 clear winner 0.7485 -> HIGH, math_theorem 0.6992 -> MEDIUM, on an uncalibrated
    # score; here HIGH is a calibrated probability >= 0.9, so both are MEDIUM
    assert confidence_tiers(np.array([0.7485, 0.6992, 0.9])).tolist() == ["MEDIUM", "MEDIUM", "HIGH"]
    # blog: policy_v3 with a conflict and a narrow margin -> LOW. The conflict and the race now
    # lower the confidence itself: 0.80 · min(g(0.01), 0.5) · (0.5 + 0.5 · 0.85) − 0.1 · 0.98
    x = certainty(np.array([0.80]), np.array([0.01]), np.array([0.85]), True, np.array([0.98]))
    assert x[0] == pytest.approx(0.80 * 0.5 * 0.925 - 0.098)
    assert x[0] == pytest.approx(0.272)
    assert confidence_tiers(x).tolist() == ["LOW"]


def test_thresholds():
    assert confidence_tiers(np.array([0.44, 0.45, 0.899, 0.90, np.nan])).tolist() == ["LOW", "MEDIUM", "MEDIUM", "HIGH",
                                                                                       "LOW"]
    assert confidence_tiers(np.array([0.6]), config=TierConfig(high=0.5)).tolist() == ["HIGH"]


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_a_higher_confidence_never_gets_a_lower_tier(values):
    c = np.array(values)
    tiers = np.array([RANK[t] for t in confidence_tiers(c)])
    order = np.argsort(c, kind="stable")
    assert np.all(np.diff(tiers[order]) >= 0)
