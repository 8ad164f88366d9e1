"""Trust and memory strength (memory/confidence.py): hand-worked values, the as_of contract,
and invariants."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.clock import US_PER_DAY
from smartvector_core.config import DEFAULT_CONFIDENCE
from smartvector_core.errors import InputError
from smartvector_core.memory import (
    NO_ACCESS_US,
    aggregate_events,
    initial_confidence,
    live_trust,
    memory_strength,
)

T0 = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z
DAY = US_PER_DAY


def events(rows):
    return pd.DataFrame(rows, columns=["doc_id", "event_type", "at_us", "delta"])


def confidence_at(ev, as_of, ids=("a",), authority=0.8, half_life=90.0, created=T0):
    """Memory strength counted from ``created`` (the ingest moment here)."""
    ids = np.asarray(ids, dtype=object)
    agg = aggregate_events(ev, ids, as_of)
    return memory_strength(np.full(len(ids), authority), np.full(len(ids), created), half_life, as_of, agg)


def trust_at(ev, as_of, ids=("a",), authority=0.7, superseded=None):
    ids = np.asarray(ids, dtype=object)
    agg = aggregate_events(ev, ids, as_of)
    return live_trust(np.full(len(ids), authority), as_of, agg, superseded)


def test_trust_hand_worked_no_age_loss_for_a_valid_version():
    # C0 0.70 and nothing else: 0.70 on day 0 and ten years later (no age term)
    for days in (0, 90, 3650):
        assert trust_at(events([]), T0 + days * DAY)[0] == pytest.approx(0.70, abs=1e-12)
    # one accept: 0.70 + 0.03 = 0.73; one correct: 0.70 - 0.08 = 0.62, at any age
    accept = events([("a", "FEEDBACK_ACCEPT", T0 + DAY, 0.03)])
    correct = events([("a", "FEEDBACK_CORRECT", T0 + DAY, -0.08)])
    for days in (1, 400, 3650):
        assert trust_at(accept, T0 + days * DAY)[0] == pytest.approx(0.73, abs=1e-12)
        assert trust_at(correct, T0 + days * DAY)[0] == pytest.approx(0.62, abs=1e-12)
    # three accesses: + 0.01 · ln 4 = 0.7138629...; superseded: × 0.5 -> 0.35
    ev = events([("a", "ACCESS", T0 + d * DAY, 0.0) for d in (1, 2, 3)])
    assert trust_at(ev, T0 + 5 * DAY)[0] == pytest.approx(0.70 + 0.01 * math.log(4), abs=1e-12)
    assert trust_at(events([]), T0, superseded=np.array([True]))[0] == pytest.approx(0.35, abs=1e-12)


def test_accept_raises_trust_and_correct_lowers_it():
    base = trust_at(events([]), T0 + DAY)[0]
    up = trust_at(events([("a", "FEEDBACK_ACCEPT", T0, 0.03)]), T0 + DAY)[0]
    down = trust_at(events([("a", "FEEDBACK_CORRECT", T0, -0.08)]), T0 + DAY)[0]
    assert down < base < up


def test_memory_strength_counts_from_ingest_or_last_access_never_created_at():
    # ingested today (T0): full strength, however old the text's created_at
    assert confidence_at(events([]), T0, created=T0)[0] == pytest.approx(0.8)
    # 90 days after ingest with a 90-day half-life: 0.8 / 2 = 0.4
    assert confidence_at(events([]), T0 + 90 * DAY)[0] == pytest.approx(0.4)
    # an access on day 90 restarts the clock: 0.8 + 0.01 · ln 2 on day 90
    ev = events([("a", "ACCESS", T0 + 90 * DAY, 0.0)])
    assert confidence_at(ev, T0 + 90 * DAY)[0] == pytest.approx(0.8 + 0.01 * math.log(2))


def test_hand_worked_value():
    ev = events([
        ("a", "FEEDBACK_ACCEPT", T0 + 1 * DAY, 0.03),
        ("a", "FEEDBACK_CORRECT", T0 + 2 * DAY, -0.08),
        ("a", "ACCESS", T0 + 3 * DAY, 0.0),
        ("a", "ACCESS", T0 + 4 * DAY, 0.0),
        ("a", "ACCESS", T0 + 5 * DAY, 0.0),
        ("a", "RIPPLE", T0 + 6 * DAY, -0.10),
        ("b", "FEEDBACK_ACCEPT", T0 + 1 * DAY, 0.03),   # another document
        ("a", "FEEDBACK_ACCEPT", T0 + 91 * DAY, 0.03),  # after as_of
    ])
    # strength: last access on day 5, so 0.8 · 2^(−85/90); feedback 0.03 − 0.08; access
    # 0.01 · ln(1+3); ripple −0.10. Trust (C0 0.8): the same without the decay.
    expected = 0.8 * 2 ** (-85 / 90) + 0.03 - 0.08 + 0.01 * math.log(4) - 0.10
    assert confidence_at(ev, T0 + 90 * DAY)[0] == pytest.approx(expected, abs=1e-12)
    trust = 0.8 + 0.03 - 0.08 + 0.01 * math.log(4) - 0.10
    assert trust == pytest.approx(0.663862943611)
    assert trust_at(ev, T0 + 90 * DAY, authority=0.8)[0] == pytest.approx(trust, abs=1e-12)


def test_aggregates_fields():
    ev = events([
        ("a", "ACCESS", T0 + 5, 0.0), ("a", "ACCESS", T0 + 9, 0.0), ("a", "ACCESS", T0 + 50, 0.0),
        ("a", "CONTRADICTION", T0, -0.05), ("b", "FEEDBACK_CORRECT", T0, -0.08),
        ("zzz", "ACCESS", T0, 0.0), ("b", "INGEST", T0, 0.7),
    ])
    agg = aggregate_events(ev, np.array(["a", "b", "c"], dtype=object), T0 + 10)
    assert agg.access_count.tolist() == [2, 0, 0]
    assert agg.last_access_us.tolist() == [T0 + 9, NO_ACCESS_US, NO_ACCESS_US]
    assert agg.feedback_sum.tolist() == pytest.approx([0.0, -0.08, 0.0])
    assert agg.penalty_sum.tolist() == pytest.approx([-0.05, 0.0, 0.0])


def test_penalty_always_lowers_whatever_sign_was_written():
    ev = events([("a", "RIPPLE", T0, 0.10), ("a", "CONTRADICTION", T0, -0.05)])
    agg = aggregate_events(ev, ["a"], T0)
    assert agg.penalty_sum[0] == pytest.approx(-0.15)


def test_feedback_does_not_fade_but_strength_does():
    ev = events([("a", "FEEDBACK_ACCEPT", T0, 0.03)])
    for days in (0, 90, 180):
        with_fb = confidence_at(ev, T0 + days * DAY, authority=0.5)[0]
        without = confidence_at(events([]), T0 + days * DAY, authority=0.5)[0]
        assert without == pytest.approx(0.5 * 2 ** (-days / 90))
        assert with_fb - without == pytest.approx(0.03, abs=1e-12)


def test_past_as_of_is_reproducible_after_later_feedback():
    early = events([("a", "ACCESS", T0 + DAY, 0.0)])
    before = confidence_at(early, T0 + 10 * DAY)
    later = pd.concat([early, events([("a", "FEEDBACK_CORRECT", T0 + 20 * DAY, -0.08),
                                      ("a", "ACCESS", T0 + 11 * DAY, 0.0)])])
    assert confidence_at(later, T0 + 10 * DAY).tolist() == before.tolist()
    assert confidence_at(later, T0 + 20 * DAY)[0] < confidence_at(early, T0 + 20 * DAY)[0]


def test_event_at_exactly_as_of_counts():
    ev = events([("a", "FEEDBACK_ACCEPT", T0 + DAY, 0.03)])
    assert aggregate_events(ev, ["a"], T0 + DAY).feedback_sum[0] == pytest.approx(0.03)
    assert aggregate_events(ev, ["a"], T0 + DAY - 1).feedback_sum[0] == 0.0


def test_clamped_to_floor_and_ceiling():
    ev = events([("a", "FEEDBACK_ACCEPT", T0, 0.9), ("b", "FEEDBACK_CORRECT", T0, -5.0)])
    conf = confidence_at(ev, T0, ids=("a", "b"), authority=0.9)
    assert conf.tolist() == [DEFAULT_CONFIDENCE.ceiling, DEFAULT_CONFIDENCE.floor]


def test_future_created_is_not_boosted_and_infinite_half_life_never_decays():
    assert confidence_at(events([]), T0, created=T0 + 5 * DAY)[0] == pytest.approx(0.8)
    assert confidence_at(events([]), T0 + 9999 * DAY, half_life=math.inf)[0] == pytest.approx(0.8)


def test_nan_authority_means_default_and_bad_half_life_raises():
    agg = aggregate_events(None, ["a"], T0)
    conf = memory_strength(np.array([np.nan]), np.array([T0]), 90.0, T0, agg)
    assert conf[0] == pytest.approx(DEFAULT_CONFIDENCE.default_authority)
    assert live_trust(np.array([np.nan]), T0, agg)[0] == pytest.approx(DEFAULT_CONFIDENCE.default_authority)
    with pytest.raises(InputError, match="half-lives"):
        memory_strength(np.array([0.5]), np.array([T0]), 0.0, T0, agg)
    with pytest.raises(InputError, match="as_of_us"):
        memory_strength(np.array([0.5]), np.array([T0]), 90.0, T0 + 1, agg)
    with pytest.raises(InputError, match="as_of_us"):
        live_trust(np.array([0.5]), T0 + 1, agg)


def test_input_errors():
    with pytest.raises(InputError, match="missing"):
        aggregate_events({"doc_id": ["a"], "at_us": [T0]}, ["a"], T0)
    with pytest.raises(InputError, match="unique"):
        aggregate_events(events([]), ["a", "a"], T0)


def test_dict_of_arrays_and_datetime64_times():
    ev = {"doc_id": np.array(["a", "a"], dtype=object), "event_type": np.array(["ACCESS", "ACCESS"]),
          "at_us": np.array(["2026-01-01T00:00", "2026-03-01T00:00"], dtype="datetime64[us]"),
          "delta": np.zeros(2)}
    agg = aggregate_events(ev, ["a"], T0)
    assert agg.access_count[0] == 1 and agg.last_access_us[0] == T0


def test_initial_confidence():
    assert initial_confidence(0.42, "official") == 0.42
    assert initial_confidence(None, " Official ") == 0.90
    assert initial_confidence(float("nan"), "forum") == 0.40
    assert initial_confidence(None, "unknown") == DEFAULT_CONFIDENCE.default_authority
    assert initial_confidence(7.0) == 1.0


def test_aggregate_is_fast_for_1000_docs_and_100k_events():
    rng = np.random.default_rng(0)
    ids = np.array([f"doc-{i:04d}" for i in range(1000)], dtype=object)
    types = np.array(["ACCESS", "FEEDBACK_ACCEPT", "FEEDBACK_CORRECT", "RIPPLE", "INGEST"], dtype=object)
    n = 100_000
    ev = pd.DataFrame({"doc_id": ids[rng.integers(0, 1000, n)], "event_type": types[rng.integers(0, 5, n)],
                       "at_us": T0 + rng.integers(0, 365 * DAY, n), "delta": rng.normal(0, 0.05, n)})
    aggregate_events(ev, ids, T0 + 180 * DAY)  # warm up
    start = time.perf_counter()
    agg = aggregate_events(ev, ids, T0 + 180 * DAY)
    elapsed = time.perf_counter() - start
    mask = (ev.at_us <= T0 + 180 * DAY) & (ev.event_type == "ACCESS")
    expected = ev[mask].groupby("doc_id").size().reindex(ids, fill_value=0).to_numpy()
    assert agg.access_count.tolist() == expected.tolist()
    assert elapsed < 0.5, f"aggregate_events took {elapsed:.3f}s"


_kinds = st.sampled_from(["ACCESS", "FEEDBACK_ACCEPT", "FEEDBACK_CORRECT", "RIPPLE", "CONTRADICTION", "INGEST"])
_event_rows = st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), _kinds,
                                 st.integers(0, 400).map(lambda d: T0 + d * DAY),
                                 st.floats(-1, 1, allow_nan=False)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(rows=_event_rows, authority=st.floats(0, 1), half_life=st.floats(0.5, 5000),
       as_of_days=st.integers(0, 400))
def test_confidence_is_bounded_and_ignores_the_future(rows, authority, half_life, as_of_days):
    ev = events(rows)
    as_of = T0 + as_of_days * DAY
    conf = confidence_at(ev, as_of, ids=("a", "b", "c"), authority=authority, half_life=half_life)
    assert np.all((conf >= DEFAULT_CONFIDENCE.floor) & (conf <= DEFAULT_CONFIDENCE.ceiling))
    past = events([r for r in rows if r[2] <= as_of])
    assert np.allclose(conf, confidence_at(past, as_of, ids=("a", "b", "c"), authority=authority,
                                           half_life=half_life))


@settings(max_examples=100, deadline=None)
@given(rows=_event_rows, d1=st.integers(0, 400), d2=st.integers(0, 400))
def test_without_new_events_strength_only_decays_and_trust_stays(rows, d1, d2):
    early, late = sorted((d1, d2))
    frozen = events([r for r in rows if r[2] <= T0 + early * DAY])
    c_early = confidence_at(frozen, T0 + early * DAY, ids=("a", "b", "c"))
    c_late = confidence_at(frozen, T0 + late * DAY, ids=("a", "b", "c"))
    assert np.all(c_late <= c_early + 1e-12)
    t_early = trust_at(frozen, T0 + early * DAY, ids=("a", "b", "c"))
    assert np.allclose(t_early, trust_at(frozen, T0 + late * DAY, ids=("a", "b", "c")))


@settings(max_examples=100, deadline=None)
@given(rows=_event_rows, extra=st.floats(0.0, 0.5))
def test_an_accept_never_lowers_strength_or_trust(rows, extra):
    as_of = T0 + 400 * DAY
    more_rows = events(rows + [("a", "FEEDBACK_ACCEPT", as_of, extra)])
    base = confidence_at(events(rows), as_of, ids=("a", "b", "c"))
    more = confidence_at(more_rows, as_of, ids=("a", "b", "c"))
    assert np.all(more >= base - 1e-12)
    assert np.all(trust_at(more_rows, as_of, ids=("a", "b", "c"))
                  >= trust_at(events(rows), as_of, ids=("a", "b", "c")) - 1e-12)
