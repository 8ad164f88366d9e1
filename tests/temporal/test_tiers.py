import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.temporal import confidence_tiers
from smartvector_core.temporal.settings import TierConfig


def test_blog_examples():
    got = confidence_tiers(np.array([0.7485, 0.4727, 0.6992]), np.array([0.20, 0.01, 0.15]),
                           np.array([False, True, False]))
    assert got.tolist() == ["HIGH", "LOW", "MEDIUM"]


def test_close_race_or_conflict_is_low_regardless_of_score():
    assert confidence_tiers(np.array([0.73]), np.array([0.01])).tolist() == ["LOW"]
    assert confidence_tiers(np.array([0.99]), np.array([0.5]), np.array([True])).tolist() == ["LOW"]
    assert confidence_tiers(np.array([0.99, 0.5]), np.array([np.nan, 0.02])).tolist() == ["HIGH", "MEDIUM"]
    assert confidence_tiers(np.array([0.44, 0.45, 0.72])).tolist() == ["LOW", "MEDIUM", "HIGH"]
    assert confidence_tiers(np.array([0.6]), config=TierConfig(high=0.5)).tolist() == ["HIGH"]


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.booleans()), max_size=20))
def test_conflict_never_raises_the_tier(rows):
    score = np.array([r[0] for r in rows])
    margin = np.array([r[1] for r in rows])
    rank = {"LOW": 0, "MEDIUM": 1, "HIGH": 2}
    plain = [rank[t] for t in confidence_tiers(score, margin)]
    flagged = [rank[t] for t in confidence_tiers(score, margin, np.array([r[2] for r in rows], dtype=bool))]
    assert all(f <= p for f, p in zip(flagged, plain, strict=True))
