"""Bounds of the scores and of calibration error, with values worked out by hand."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from smartvector_core.retrieval.calibration import expected_calibration_error
from smartvector_core.retrieval.conflicts import conflict_boost


def test_ece_with_one_bin_is_the_gap_between_mean_confidence_and_accuracy():
    # one bin [0, 1]: |accuracy − mean confidence| = |2/4 − (0.9+0.8+0.7+0.6)/4| = |0.5 − 0.75| = 0.25
    assert expected_calibration_error([0.9, 0.8, 0.7, 0.6], [True, False, True, False], n_bins=1) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="n_bins >= 1"):
        expected_calibration_error([0.5], [True], n_bins=0)


def test_conflict_boost_never_lifts_a_score_past_one():
    """Blog, "When the fact changed significantly between versions": the winner's score rises by
    0.2 × severity. 0.95 + 0.2 × severity(100 → 1000 requests, a tenfold change) is clipped to 1."""
    cands = SimpleNamespace(created_us=np.array([1, 2]),
                            text=np.array(["The limit is 100 requests per minute.",
                                           "The limit is 1000 requests per minute."], dtype=object))
    pool = SimpleNamespace(cands=cands, chain=np.array([7, 7]))          # the fields of rerank.Pool it reads
    boosted, severity = conflict_boost(pool, np.ones(2, dtype=bool), np.array([0.5, 0.95]), k=5)
    assert severity[0] == 0 and severity[1] > 0.25          # only the newer version is compared
    assert boosted[1] == 1.0 and boosted[0] == 0.5
