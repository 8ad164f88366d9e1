from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.temporal import (
    NO_END,
    freshness_grades,
    freshness_report,
    live_f_share,
    pairing_action,
    pairing_partners,
)
from smartvector_core.temporal.freshness import WRITE_EVENTS, last_confirmations, replacing_versions

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
    assert pairing_partners(np.array([0.3, 0.25]))[0].tolist() == [-1, -1]   # 0.30 < 0.25 + 0.10


def test_partner_is_the_freshest_eligible_of_its_group():
    """The query path's rule (rerank ``_pair``): the partner need not be SOLO, only fresher by
    the gain; it must be eligible (kept) and of the same group (doc type)."""
    d = np.array([0.20, 0.35, 0.40, 0.90])
    partner, gain = pairing_partners(d, groups=np.array(["news", "news", "policy", "news"]))
    assert partner.tolist() == [3, 3, -1, -1]          # the policy has no fresher policy
    assert gain[:2] == pytest.approx([0.70, 0.55])
    partner, _ = pairing_partners(d, groups=np.array(["news", "news", "policy", "news"]),
                                  eligible=np.array([True, True, True, False]))   # the SOLO was rejected
    assert partner.tolist() == [1, -1, -1, -1]         # 0.35 >= 0.20 + 0.10 though 0.35 is itself PAIR
    assert pairing_partners(d, actions=np.array(["SOLO"] * 4))[0].tolist() == [-1] * 4   # not PAIR: no partner


def _docs(**rows) -> pd.DataFrame:
    """One row per keyword: id -> dict of columns (defaults: VERSIONED policy, dated, no window)."""
    base = {"title": "t", "kind": "VERSIONED", "doc_type": "policy", "created_at": A - timedelta(days=700),
            "dated": True, "valid_from": pd.NaT, "valid_until": pd.NaT, "lifecycle": "ACTIVE",
            "ingested_at": A - timedelta(days=30), "confirmed_at": pd.NaT, "superseded_at": pd.NaT,
            "superseded_by": None}
    frame = pd.DataFrame([{"id": name, **{**base, **cols}} for name, cols in rows.items()])
    for col in ("created_at", "valid_from", "valid_until", "ingested_at", "confirmed_at", "superseded_at"):
        frame[col] = pd.to_datetime(frame[col], utc=True)
    return freshness_report(frame, A).set_index("id")


def test_version_in_force_is_graded_by_its_review_clock_not_its_age():
    out = _docs(fresh={}, confirmed={"ingested_at": A - timedelta(days=400), "confirmed_at": A - timedelta(days=10)},
                overdue={"ingested_at": A - timedelta(days=400)}, legal={"doc_type": "legal",
                                                                        "ingested_at": A - timedelta(days=400)})
    # 700 days old, ingested 30 days ago, policy review every 180 days: 0.5 ** (30/180)
    assert out.loc["fresh", "freshness"] == pytest.approx(0.5 ** (30 / 180))
    assert out.loc["fresh", "grade"] == "A" and out.loc["fresh", "graded_by"] == "review"
    assert out.loc["fresh", "review_due"] == A - timedelta(days=30) + timedelta(days=180)
    assert out.loc["fresh", "advice"] == "Current version: serve (next review by 2026-11-12)"
    # an accept 10 days ago restarts the clock
    assert out.loc["confirmed", "freshness"] == pytest.approx(0.5 ** (10 / 180))
    assert out.loc["confirmed", "grade"] == "A"
    # 400 days without a review: 0.5 ** (400/180) = 0.214 -> F, with something to do
    assert out.loc["overdue", "grade"] == "F"
    assert out.loc["overdue", "advice"].startswith("Review overdue since 2025-11-")
    assert "(accept)" in out.loc["overdue", "advice"]
    # legal reviews yearly: 0.5 ** (400/365) = 0.468 -> D
    assert out.loc["legal", "freshness"] == pytest.approx(0.5 ** (400 / 365)) and out.loc["legal", "grade"] == "D"
    assert out["review_interval_days"].tolist() == [180.0, 180.0, 180.0, 365.0]
    assert out["live"].all() and out["in_force"].all()


def test_newest_version_is_never_told_to_check_for_a_newer_one():
    ages = {f"v{d}": {"ingested_at": A - timedelta(days=d)} for d in (0, 60, 150, 250, 1000)}
    out = _docs(**ages)
    assert set(out["grade"]) == {"A", "B", "C", "D", "F"}
    assert not out["advice"].str.contains("newer version").any()


def test_scheduled_successor_is_named_with_its_date():
    out = _docs(v2={"superseded_at": A + timedelta(days=5), "superseded_by": "v3"})
    assert out.loc["v2", "in_force"] and out.loc["v2", "graded_by"] == "review"
    assert out.loc["v2", "advice"] == "In force until v3 takes effect on 2026-06-20: archive it then"


def test_superseded_or_expired_gets_archive_advice():
    out = _docs(v1={"superseded_at": A - timedelta(days=10), "superseded_by": "v3"},
                old={"superseded_at": A - timedelta(days=10), "superseded_by": "v3", "lifecycle": "ARCHIVED"},
                ended={"valid_until": A - timedelta(days=1)},
                notice={"kind": "EVENT", "doc_type": "news", "valid_from": A - timedelta(days=3),
                        "valid_until": A - timedelta(hours=2)})
    assert (out["grade"] == "F").all() and (out["graded_by"] == "archive").all()
    assert not out["in_force"].any() and not out["live"].any()
    assert out.loc["v1", "advice"] == "Archive it: superseded by v3 on 2026-06-05"
    assert out.loc["old", "advice"] == "Archived (superseded by v3 on 2026-06-05): nothing to do"
    assert out.loc["ended", "advice"] == "Archive it: no longer valid since 2026-06-14"
    assert out.loc["notice", "advice"] == "Archive it: its window closed on 2026-06-15 10:00 UTC"


def test_event_is_graded_by_its_window():
    event = {"kind": "EVENT", "doc_type": "breaking_news", "created_at": A - timedelta(days=2),
             "valid_from": A - timedelta(days=2)}
    out = _docs(open={**event, "valid_until": A + timedelta(hours=100)},
                closing={**event, "valid_until": A + timedelta(hours=20)},
                upcoming={**event, "valid_from": A + timedelta(days=3), "valid_until": A + timedelta(days=4)})
    # a two-day-old breaking_news notice decays to 0.25, but its window is open: A
    assert out.loc["open", "decay"] == pytest.approx(0.25)
    assert out["graded_by"].tolist() == ["window"] * 3
    assert out["grade"].tolist() == ["A", "B", "A"]
    assert out.loc["open", "advice"] == "Active until 2026-06-19 16:00 UTC: serve with its window"
    assert out.loc["closing", "advice"] == ("Window closes 2026-06-16 08:00 UTC (in 20 h): confirm it ends then, "
                                            "or extend valid_until")
    assert out.loc["upcoming", "advice"].startswith("Upcoming, from 2026-06-18 12:00 UTC")


def test_static_is_graded_by_its_decay_profile():
    static = {"kind": "STATIC"}
    out = _docs(news={**static, "doc_type": "news", "created_at": A - timedelta(days=30)},
                news_confirmed={**static, "doc_type": "news", "created_at": A - timedelta(days=30),
                                "confirmed_at": A - timedelta(days=1)},
                paper={**static, "doc_type": "research", "created_at": A - timedelta(days=600)},
                theorem={**static, "doc_type": "mathematics", "created_at": A - timedelta(days=365 * 70)},
                handbook={**static, "doc_type": "policy", "created_at": A - timedelta(days=10)},
                undated={**static, "doc_type": None, "dated": False, "created_at": A - timedelta(days=1)})
    assert (out["graded_by"] == "decay").all()
    # 0.5 ** (30/7) = 0.051 -> F; confirmed a day ago: 0.5 ** (1/7) = 0.906 -> A
    assert out.loc["news", "freshness"] == pytest.approx(0.5 ** (30 / 7)) and out.loc["news", "grade"] == "F"
    assert out.loc["news", "advice"] == ("Stale for a news document (30 days old): update it, or archive it "
                                         "if it only records its moment")
    assert out.loc["news_confirmed", "freshness"] == pytest.approx(0.5 ** (1 / 7))
    # research held at its 0.10 floor: D at worst, told to look for newer work
    assert out.loc["paper", "decay"] == pytest.approx(0.10) and out.loc["paper", "grade"] == "D"
    assert out.loc["paper", "advice"].startswith("Held at the research floor (600 days old)")
    assert out.loc["theorem", "grade"] == "A" and out.loc["theorem", "advice"] == "Timeless for its type: serve"
    assert out.loc["handbook", "freshness"] == pytest.approx(0.5 ** (10 / 90))
    assert out.loc["handbook", "advice"] == "Fresh for a policy document: serve (review by 2026-09-03)"
    assert out.loc["undated", "grade"] == "C"
    assert out.loc["undated", "advice"] == "Undated: add created_at so its age can be judged"


def test_every_f_has_an_action():
    out = _docs(a={"ingested_at": A - timedelta(days=2000)},
                b={"kind": "STATIC", "doc_type": "news", "created_at": A - timedelta(days=90)},
                c={"superseded_at": A - timedelta(days=1), "superseded_by": "x"})
    verbs = ("confirm", "update", "archive", "Archive")
    assert all(any(v in text for v in verbs) for text in out.loc[out["grade"] == "F", "advice"])
    assert live_f_share(out.reset_index()) == pytest.approx(1.0)   # a and b are live and F; c is not live


def test_last_confirmations_are_accepts_not_undone_and_writes_on_request():
    us = lambda d: int((A - timedelta(days=d)).timestamp() * 1e6)   # noqa: E731
    events = pd.DataFrame({
        "doc_id": ["p", "p", "p", "q", "q", "q", "r", "r", "r"],
        "event_type": ["INGEST", "FEEDBACK_ACCEPT", "FEEDBACK_CORRECT", "INGEST", "FEEDBACK_ACCEPT",
                       "FEEDBACK_UNDO", "INGEST", "UPDATE", "FEEDBACK_ACCEPT"],
        "at_us": [us(100), us(20), us(5), us(100), us(10), us(9), us(50), us(40), us(-1)],
        "detail": [None, "{}", "{}", None, '{"event_id": "e1"}', '{"undoes": "e1"}', None, None, "{}"],
    })
    # p: the accept 20 days ago (a correction is no confirmation); q: its accept was undone;
    # r: the accept after as_of does not count yet
    assert last_confirmations(events, us(0)) == {"p": us(20)}
    assert last_confirmations(events, us(0), WRITE_EVENTS) == {"p": us(100), "q": us(100), "r": us(40)}
    assert last_confirmations(events.iloc[:0], us(0)) == {}


def test_replacing_versions():
    ids = np.array(["v1", "v2", "v3", "solo"], dtype=object)
    chain = np.array([0, 0, 0, 1])
    effective = np.array([100, 200, 300, 50])
    superseded = np.array([200, 300, NO_END, NO_END])
    assert replacing_versions(ids, chain, effective, superseded, 250).tolist() == ["v2", "v3", None, None]
    assert replacing_versions(ids, chain, effective, superseded, 350).tolist() == ["v3", "v3", None, None]
    # at the very moment v2 takes effect, v1 is replaced by v2 (in force), not by the newest (v3)
    assert replacing_versions(ids, chain, effective, superseded, 200).tolist() == ["v2", "v3", None, None]


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
    # the policy has no ingest time here: its clock starts at created_at (180 days = one interval)
    assert out["freshness"].tolist() == pytest.approx([0.75, 0.5, 0.95, 0.0, 0.5])
    assert out["grade"].tolist() == ["B", "C", "A", "F", "C"]
    assert out["validity_state"].tolist() == ["TEMPORAL", "VALID", "VALID", "EXPIRED", "VALID"]
    assert out["hours_left"].tolist() == [42.0, np.inf, np.inf, 0.0, np.inf]
    assert out["action"].tolist() == ["SOLO", "PAIR", "SOLO", "DROP", "SOLO"]
    assert out["graded_by"].tolist() == ["window", "review", "decay", "archive", "decay"]


@settings(deadline=None)   # a shared, busy machine: no per-example time limit
@given(st.lists(st.floats(0, 1), max_size=40))
def test_actions_and_grades_cover_all(values):
    d = np.array(values, dtype=np.float64)
    assert set(pairing_action(d).tolist()) <= {"SOLO", "PAIR", "DROP"}
    assert set(freshness_grades(d).tolist()) <= set("ABCDF")
    partner, gain = pairing_partners(d)
    assert np.all(gain[partner >= 0] >= 0.10 - 1e-12)
