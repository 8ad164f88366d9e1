"""The sorted event index gives the same per-document sums as memory.aggregate_events."""

import numpy as np
import pandas as pd
import pytest

from smartvector_core.event_index import EventIndex, aggregate_tail, combine
from smartvector_core.memory import aggregate_events

TYPES = ["ACCESS", "FEEDBACK_ACCEPT", "FEEDBACK_CORRECT", "RIPPLE", "CONTRADICTION", "INGEST"]


def _events(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    delta = rng.uniform(-0.1, 0.1, n)
    delta[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({"doc_id": np.array([f"d{i}" for i in rng.integers(0, 40, n)], dtype=object),
                         "event_type": np.array(TYPES, dtype=object)[rng.integers(0, len(TYPES), n)],
                         "at_us": rng.integers(0, 1000, n).astype(np.int64), "delta": delta})


@pytest.mark.parametrize("ripple", [True, False])
@pytest.mark.parametrize("as_of", [-1, 0, 500, 999, 5000])
def test_index_matches_aggregate_events(ripple, as_of):
    events = _events(600, seed=as_of + 2)
    ids = np.array([f"d{i}" for i in range(0, 50, 3)], dtype=object)   # some never seen
    expected = aggregate_events(events if ripple else events[events["event_type"] != "RIPPLE"], ids, as_of)
    got = EventIndex.build(events.iloc[:450]).aggregate(ids, as_of, ripple=ripple)
    got = combine(got, aggregate_tail(events, 450, ids, as_of, ripple=ripple))
    np.testing.assert_allclose(got.feedback_sum, expected.feedback_sum, atol=1e-12)
    np.testing.assert_allclose(got.penalty_sum, expected.penalty_sum, atol=1e-12)
    np.testing.assert_array_equal(got.access_count, expected.access_count)
    np.testing.assert_array_equal(got.last_access_us, expected.last_access_us)


def test_empty_events():
    agg = EventIndex.build(_events(0, 1)).aggregate(np.array(["a"], dtype=object), 10)
    assert agg.access_count.tolist() == [0] and agg.feedback_sum.tolist() == [0.0]
