import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.clock import US_PER_DAY
from smartvector_core.temporal import (
    decay_scores,
    encode_kinds,
    floors_for,
    half_lives_for,
    recency_scores,
    temporal_weights_for,
)

NOW = 20_000 * US_PER_DAY


def ago(days):
    return NOW - int(days * US_PER_DAY)


def test_decay_hand_worked():
    created = np.array([ago(90), ago(180), ago(180), ago(-5), ago(0), ago(1000), ago(1000)])
    floors = np.array([0.0, 0.0, 0.3, 0.0, 0.0, 0.0, 0.95])
    dated = np.array([True, True, True, True, True, False, False])
    got = decay_scores(created, NOW, 90.0, floors, dated)
    assert got == pytest.approx([0.5, 0.25, 0.3, 1.0, 1.0, 0.5, 0.95])


def test_decay_blog_profiles():
    # breaking news one day old: half-life 1 d -> 0.5; a theorem 70 years old keeps its floor
    hl = half_lives_for(["breaking_news", "mathematics"])
    floors = floors_for(["breaking_news", "mathematics"], encode_kinds(["EVENT", "STATIC"]))
    got = decay_scores(np.array([ago(1), ago(70 * 365)]), NOW, hl, floors)
    assert got == pytest.approx([0.5, 0.95])


def test_recency_ranks():
    assert recency_scores(np.array([ago(3), ago(2), ago(1)])) == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert recency_scores(np.array([ago(1)])) == pytest.approx([1.0])
    ties = np.array([ago(5), ago(5), ago(1)])
    assert recency_scores(ties) == pytest.approx([2 / 3, 2 / 3, 1.0])
    assert recency_scores(ties, ties="average") == pytest.approx([0.5, 0.5, 1.0])
    assert recency_scores(np.array([ago(1), ago(1)])) == pytest.approx([1.0, 1.0])
    got = recency_scores(np.array([ago(9), ago(1), ago(0)]), np.array([True, True, False]))
    assert got == pytest.approx([0.5, 1.0, 0.5])
    assert recency_scores(np.array([], dtype=np.int64)).size == 0
    with pytest.raises(ValueError, match="max, average"):
        recency_scores(np.array([1]), ties="min")


def test_profile_lookups_vectorised():
    types = np.array(["news", "Policy", None, "unknown", "mathematics", "news"], dtype=object)
    assert half_lives_for(types).tolist() == [7.0, 90.0, 365.0, 365.0, 36500.0, 7.0]
    assert temporal_weights_for(types).tolist() == [0.55, 0.45, 0.30, 0.30, 0.01, 0.55]
    kinds = encode_kinds(["STATIC", "STATIC", "STATIC", "EVENT", "STATIC", "STATIC"])
    assert floors_for(types, kinds).tolist() == [0.0, 0.0, 0.20, 0.0, 0.95, 0.0]
    assert floors_for(["reference", "reference"], np.array([0, 1])).tolist() == [0.70, 0.0]
    assert half_lives_for([]).size == 0


times = st.integers(-(10 ** 15), 10 ** 15)


@given(st.lists(st.tuples(times, st.booleans()), min_size=1, max_size=50),
       st.floats(0.01, 1e5), st.floats(0, 1))
def test_scores_bounded(rows, half_life, floor):
    created = np.array([r[0] for r in rows], dtype=np.int64)
    dated = np.array([r[1] for r in rows])
    d = decay_scores(created, 0, half_life, floor, dated)
    r = recency_scores(created, dated)
    for x in (d, r):
        assert np.all((x >= 0) & (x <= 1))
    assert np.all(d >= floor - 1e-12)
    assert np.all(r[dated] > 0)


@given(st.lists(times, min_size=1, max_size=60))
def test_recency_monotone_in_created_time(values):
    created = np.array(values, dtype=np.int64)
    for ties in ("max", "average"):
        r = recency_scores(created, ties=ties)
        order = np.argsort(created, kind="stable")
        assert np.all(np.diff(r[order]) >= 0)
        same = created[:, None] == created[None, :]
        assert np.all((r[:, None] == r[None, :])[same])
    assert recency_scores(created).max() == 1.0


def test_profile_arrays_read_missing_doc_types_as_the_default_and_normalise_names():
    import numpy as np
    import pandas as pd

    from smartvector_core.config import DEFAULT_DOC_TYPE
    from smartvector_core.temporal.decay import profile_arrays

    raw = np.array(["News", None, float("nan"), pd.NA, " News ", "", "policy"], dtype=object)
    same = np.array(["news", DEFAULT_DOC_TYPE, DEFAULT_DOC_TYPE, DEFAULT_DOC_TYPE, "news", DEFAULT_DOC_TYPE,
                     "policy"], dtype=object)
    kinds = np.array([0, 1, 2, 0, 1, 2, 0], dtype=np.int8)
    for got, want in zip(profile_arrays(raw, kinds), profile_arrays(same, kinds), strict=True):
        np.testing.assert_array_equal(got, want)
