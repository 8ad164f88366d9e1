"""Review interval per doc type (config/temporal.py ``REVIEW_INTERVAL_DAYS``), the table that
grades a version in force: documented values, case and unknown types, empty input (issue 20:
a one-day change of a documented interval and an empty input were not noticed)."""

import numpy as np

from smartvector_core.config.temporal import DEFAULT_TEMPORAL, FreshnessConfig

DOCUMENTED = {"breaking_news": 7.0, "news": 30.0, "policy": 180.0, "runbook": 180.0, "release_notes": 180.0,
              "research": 365.0, "legal": 365.0, "report": 365.0, "reference": 730.0, "mathematics": 3650.0}


def test_documented_intervals_and_the_default():
    config = DEFAULT_TEMPORAL.freshness
    assert config.review_intervals(list(DOCUMENTED)).tolist() == list(DOCUMENTED.values())
    assert config.review_intervals(["POLICY ", "unknown", None, ""]).tolist() == [180.0, 365.0, 365.0, 365.0]


def test_empty_input_gives_an_empty_array():
    out = FreshnessConfig().review_intervals([])
    assert isinstance(out, np.ndarray) and out.shape == (0,)
