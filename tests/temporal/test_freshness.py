from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.temporal import (
    advice,
    freshness_grades,
    freshness_report,
    pairing_action,
    pairing_partners,
)

A = datetime(2026, 6, 15, 12, tzinfo=UTC)


def test_grades_cutoffs():
    got = freshness_grades(np.array([1.0, 0.85, 0.8499, 0.70, 0.5, 0.3, 0.2999, 0.0]))
    assert got.tolist() == ["A", "A", "B", "B", "C", "D", "F", "F"]


def test_blog_pairing_examples():
    decay = np.array([0.100, 0.351, 0.891])
    assert pairing_action(decay).tolist() == ["DROP", "PAIR", "SOLO"]
    partner, gain = pairing_partners(decay)
    assert partner.tolist() == [-1, 2, -1]
    assert gain[1] == pytest.approx(0.540)


def test_pair_partner_not_found():
    partner, gain = pairing_partners(np.array([0.45, 0.52]))       # gain 0.07 < 0.10
    assert partner.tolist() == [-1, -1] and gain.tolist() == [0.0, 0.0]
    assert pairing_partners(np.array([0.3, 0.2]))[0].tolist() == [-1, -1]   # no SOLO at all


@pytest.mark.parametrize(("args", "text"), [
    (("EVENT", "A", "TEMPORAL", 42.0), "Verify before serving, window closes soon"),
    (("EVENT", "A", "TEMPORAL", 200.0), "Active event: serve with its window"),
    (("EVENT", "F", "VALID", float("inf")), "Old event: treat as history"),
    (("VERSIONED", "D", "VALID", None), "Check for a newer version"),
    (("VERSIONED", "A", "VALID", None), "Current version: serve"),
    (("STATIC", "F", "VALID", None), "May have been superseded"),
    (("STATIC", "B", "VALID", None), "Timeless fact: serve"),
    (("VERSIONED", "A", "EXPIRED", 0.0), "Expired: do not serve"),
    (("STATIC", "A", "NOT_YET_VALID", None), "Not yet in effect: do not serve before valid_from"),
])
def test_advice(args, text):
    assert advice(*args) == text


def test_report_hand_worked():
    docs = pd.DataFrame({
        "id": ["event", "policy", "theorem", "expired", "undated"],
        "title": ["Maintenance", "Rate limits v2", "Pythagoras", "Rate limits v1", "Notes"],
        "kind": ["EVENT", "VERSIONED", "STATIC", None, "STATIC"],
        "doc_type": ["breaking_news", "policy", "mathematics", "research", None],
        "created_at": [A - timedelta(hours=6), A - timedelta(days=180), A - timedelta(days=365 * 70),
                       A - timedelta(days=600), pd.NaT],
        "dated": [True, True, True, True, False],
        "valid_from": [A - timedelta(hours=6), pd.NaT, None, None, None],
        "valid_until": [A + timedelta(hours=42), None, None, A - timedelta(days=1), None],
    })
    out = freshness_report(docs, A)
    assert list(docs.columns) == list(out.columns[:8])
    assert out["age_days"].tolist()[:2] == pytest.approx([0.25, 180.0])
    assert np.isnan(out["age_days"].iloc[4])
    assert out["half_life_days"].tolist() == [1.0, 90.0, 36500.0, 180.0, 365.0]
    # 0.5**0.25, 0.5**2, floor 0.95, 0.5**(600/180)=0.099 < research/STATIC floor 0.10, undated 0.5
    assert out["decay"].tolist() == pytest.approx([0.5 ** 0.25, 0.25, 0.95, 0.10, 0.5])
    assert out["grade"].tolist() == ["B", "F", "A", "F", "C"]
    assert out["validity_state"].tolist() == ["TEMPORAL", "VALID", "VALID", "EXPIRED", "VALID"]
    assert out["hours_left"].tolist() == [42.0, np.inf, np.inf, 0.0, np.inf]
    assert out["action"].tolist() == ["SOLO", "PAIR", "SOLO", "DROP", "SOLO"]
    assert out["advice"].tolist() == ["Verify before serving, window closes soon", "Check for a newer version",
                                      "Timeless fact: serve", "Expired: do not serve", "Timeless fact: serve"]


def test_report_empty():
    cols = ["id", "title", "kind", "doc_type", "created_at", "dated", "valid_from", "valid_until"]
    out = freshness_report(pd.DataFrame({c: [] for c in cols}), A)
    assert len(out) == 0 and "advice" in out.columns


@given(st.lists(st.floats(0, 1), max_size=40))
def test_actions_and_grades_cover_all(values):
    d = np.array(values, dtype=np.float64)
    assert set(pairing_action(d).tolist()) <= {"SOLO", "PAIR", "DROP"}
    assert set(freshness_grades(d).tolist()) <= set("ABCDF")
    partner, gain = pairing_partners(d)
    assert np.all(gain[partner >= 0] >= 0.10 - 1e-12)
