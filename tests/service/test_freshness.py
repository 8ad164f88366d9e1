"""SmartVector.freshness on the demo corpus: grades are review urgency (DESIGN.md "Trust model")."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from smartvector_core.settings import DEMO_CORPUS
from smartvector_core.temporal import live_f_share

# the demo's natural time: two days after its newest document (announcement_today, 29 Nov 2026)
DEMO_NOW = datetime(2026, 12, 1, tzinfo=UTC)
ACTIONS = ("confirm", "update", "archive", "Archive", "add created_at", "extend")


@pytest.fixture
def demo(real_app):
    real_app.ingest_paths([DEMO_CORPUS], now=DEMO_NOW)      # consolidates at ingest
    return real_app


def test_demo_corpus_f_share_and_actionable_advice(demo):
    report = demo.freshness(as_of=DEMO_NOW)
    live = report[report["live"]]
    assert len(live) >= 40
    assert live_f_share(report) <= 0.15                     # issue 13: at most 15% of live documents F
    assert all(any(a in text for a in ACTIONS) for text in live.loc[live["grade"] == "F", "advice"])
    rows = report.set_index("id")
    # the current policy is the newest of its chain: graded by its review clock, never "newer version"
    assert rows.loc["policy_v3", "graded_by"] == "review" and rows.loc["policy_v3", "grade"] == "A"
    assert not report["advice"].str.contains("newer version").any()
    # a two-day-old active announcement is graded by its window, not by breaking-news decay
    assert rows.loc["announcement_today", "graded_by"] == "window"
    assert rows.loc["announcement_today", "grade"] in ("A", "B")
    # superseded versions get archive advice and are not live
    assert not rows.loc["policy_v1", "live"] and "superseded by policy_v3" in rows.loc["policy_v1", "advice"]


def test_an_accept_restarts_the_review_clock(demo):
    later = DEMO_NOW + timedelta(days=400)                  # 400 days without review: 0.5 ** (400/180) -> F
    assert demo.freshness(as_of=later).set_index("id").loc["policy_v3", "grade"] == "F"
    demo.feedback("policy_v3", "accept", now=later - timedelta(days=1))
    row = demo.freshness(as_of=later).set_index("id").loc["policy_v3"]
    assert row["grade"] == "A" and row["freshness"] == pytest.approx(0.5 ** (1 / 180))
    # the past is reproduced: before the accept, the grade was what it was
    assert demo.freshness(as_of=later - timedelta(days=2)).set_index("id").loc["policy_v3", "grade"] == "F"


def test_the_report_is_kept_per_table_version_and_moment(demo, monkeypatch):
    import smartvector_core.service.frames as frames

    built = []
    real = frames.freshness_report
    monkeypatch.setattr(frames, "freshness_report", lambda docs, as_of: built.append(as_of) or real(docs, as_of))
    first = demo.freshness(as_of=DEMO_NOW)
    first["grade"] = "X"                                     # a caller's edit stays in its copy
    again = demo.freshness(as_of=DEMO_NOW)
    assert len(built) == 1 and "X" not in set(again["grade"])
    demo.freshness(as_of=DEMO_NOW + timedelta(minutes=1))   # another moment: a new report
    demo.feedback("policy_v3", "accept", now=DEMO_NOW)       # a write: a new report at the same moment
    demo.freshness(as_of=DEMO_NOW)
    assert len(built) == 3


def test_cli_freshness_json_is_the_service_report(cli, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "v1", "title": "Limits", "kind": "VERSIONED", "doc_type": "policy", "text": "Limit is 100 a minute.",
         "created_at": "2025-01-01T00:00:00Z"},
        {"id": "v2", "title": "Limits", "kind": "VERSIONED", "doc_type": "policy", "text": "Limit is 500 a minute.",
         "created_at": "2026-01-01T00:00:00Z", "supersedes": "v1"}]), encoding="utf-8")
    assert cli("ingest", str(corpus))[0] == 0
    code, out, err = cli("freshness", "--json", "--as-of", "2026-06-01T00:00:00Z")
    assert code == 0, err
    report = json.loads(out)
    rows = {r["id"]: r for r in report["documents"]}
    assert rows["v1"]["graded_by"] == "archive" and rows["v1"]["superseded_by"] == "v2"
    assert rows["v2"]["graded_by"] == "review" and rows["v2"]["live"] is True
    assert report["live"] == 1 and report["live_f_share"] == 0.0
