"""The review worklist's pure builders and the review flags, on hand-made report rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from smartvector_core.temporal.review import (
    FLAG_CONTESTED,
    FLAG_LOW_TRUST,
    flag_for_review,
    most_urgent_first,
)
from smartvector_core.ui import worklist


def _report() -> pd.DataFrame:
    return pd.DataFrame({
        "id": ["fresh", "forum", "handbook", "old_v1", "stale"],
        "title": ["Fresh", "Forum post", "Handbook", "Old", "Stale news"],
        "live": [True, True, True, False, True],
        "grade": ["A", "A", "B", "F", "F"],
        "freshness": [0.95, 0.946161, 0.8, 0.0, 0.04],
        "advice": ["Current version: serve", "Current version: serve", "Current version: serve",
                   "Archived (superseded by x): nothing to do", "Stale for a news document"],
        "trust": [0.9, 0.0880001, 0.9, 0.5, 0.6],
        "open_contradictions": [[], ["handbook"], ["forum"], [], []],
        "dependents": [2, 0, 0, 0, 0],
        "confirmed_at": pd.to_datetime([None, None, "2026-11-02T10:00:00Z", None, None], utc=True),
        "doc_type": ["policy", "forum", "policy", "policy", "news"],
        "source": ["official", "forum", "official", "official", None],
        "authority": [0.9, 0.3, 0.9, 0.9, np.nan],
        "kind": ["VERSIONED"] * 5, "lifecycle": ["ACTIVE", "ACTIVE", "ACTIVE", "ARCHIVED", "ACTIVE"]})


def test_low_trust_and_open_contradictions_say_so_in_the_grade():
    flagged = flag_for_review(_report()).set_index("id")
    assert flagged.loc["forum", "grade"] == "F" and flagged.loc["forum", "flag"].startswith(FLAG_LOW_TRUST)
    assert "0.088" in flagged.loc["forum", "advice"] and "serve" not in flagged.loc["forum", "advice"]
    assert flagged.loc["handbook", "grade"] == "D" and flagged.loc["handbook", "flag"] == FLAG_CONTESTED
    assert flagged.loc["handbook", "advice"].startswith("Open contradiction with forum")
    assert flagged.loc["fresh", "grade"] == "A" and flagged.loc["fresh", "flag"] == ""
    assert flagged.loc["old_v1", "grade"] == "F" and flagged.loc["old_v1", "flag"] == ""   # not live: untouched


def test_most_urgent_first_puts_live_worst_grades_and_lowest_freshness_first():
    ordered = most_urgent_first(flag_for_review(_report()))
    assert list(ordered["id"]) == ["stale", "forum", "handbook", "fresh", "old_v1"]


def test_worklist_table_is_live_by_default_readable_and_filtered():
    report = most_urgent_first(flag_for_review(_report()))
    table = worklist.worklist_table(report)
    assert list(table["id"]) == ["stale", "forum", "handbook", "fresh"]
    row = table.set_index("id").loc["forum"]
    assert row["trust"] == 0.088 and row["open_contradictions"] == "handbook" and row["last_confirmed"] == "never"
    assert table.set_index("id").loc["handbook", "last_confirmed"] == "2026-11-02"
    assert list(worklist.worklist_table(report, live_only=False)["id"])[-1] == "old_v1"
    assert list(worklist.worklist_table(report, sources=["official"])["id"]) == ["handbook", "fresh"]
    assert list(worklist.worklist_table(report, grades=["F"], doc_types=["news"])["id"]) == ["stale"]
    assert list(worklist.worklist_table(report, text="FORUM")["id"]) == ["forum"]
    assert worklist.worklist_summary(report) == {"documents": 5, "live": 4, "live_f": 2, "flagged": 2}


def test_a_new_version_takes_title_supersedes_and_authority_from_the_one_it_replaces():
    old = _report().set_index("id").loc["handbook"].to_dict() | {"id": "handbook"}
    record = worklist.successor_record(old, "New text.", "handbook_v2", created_at="2026-12-01T00:00:00Z")
    assert record == {"id": "handbook_v2", "text": "New text.", "supersedes": "handbook",
                      "created_at": "2026-12-01T00:00:00Z", "title": "Handbook", "doc_type": "policy",
                      "kind": "VERSIONED", "source": "official", "authority": 0.9}
    assert worklist.next_version_id("policy_v3", {"policy_v4"}) == "policy_v5"
    assert worklist.next_version_id("glossary", set()) == "glossary_v2"
