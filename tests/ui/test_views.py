"""View-model functions of the dashboard (pure: frames in, frames out)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from smartvector_core.errors import InputError
from smartvector_core.ui import views
from tests.conftest import NOW


def test_escape_markdown_keeps_html_literal():
    assert views.escape_markdown("<script>alert(1)</script>") == r"\<script\>alert\(1\)\</script\>"
    assert views.escape_markdown("**bold** [x](y)") == r"\*\*bold\*\* \[x\]\(y\)"


def test_query_choices_name_the_profile_and_open_on_a_query_with_rejections():
    log = pd.DataFrame({"query_id": ["q2", "q1"], "profile": ["naive", "default"], "query": ["rate limits"] * 2,
                        "asked_at": pd.to_datetime(["2026-11-30T12:01Z", "2026-11-30T12:00Z"])})
    rejections = pd.DataFrame({"query_id": ["q1", "q1"], "id": ["a", "b"]})
    labels, first = views.query_choices(log, rejections)
    assert list(labels) == ["q2", "q1"] and first == 1
    assert labels["q1"] == "2026-11-30 12:00 · default · rate limits · 2 rejected"
    assert "naive" in labels["q2"] and labels["q2"].endswith("0 rejected")


def test_flatten_nested_spreads_by_type_into_columns():
    frame = pd.DataFrame([{"variant": "full", "top1": 0.5, "by_type": {"past": {"top1": 0.6, "n": 2}}}])
    flat = views.flatten_nested(frame)
    assert list(flat.columns) == ["variant", "top1", "top1 · past", "n · past"]
    assert not any(isinstance(v, dict) for v in flat.iloc[0])


def test_share_is_one_rounding_for_card_table_and_csv():
    assert views.share(0.73449) == 0.734 and views.share_text(0.73449) == "0.734"
    assert views.share(float("nan")) is None and views.share_text(None) == "—"
    frame = views.results_frame({"results": [{"rank": 1, "id": "a", "confidence": 0.73449, "trust": 0.5}]})
    assert frame.loc[0, "confidence"] == 0.734 and views.to_csv_bytes(frame).decode().count("0.734") == 1


def test_results_frame_puts_the_breakdown_beside_the_score_on_one_bar_scale():
    signals = {"semantic": {"value": 0.8, "weight": 0.5, "contribution": 0.4},
               "temporal": {"value": -0.2, "weight": 0.5, "contribution": -0.1}}
    frame = views.results_frame({"results": [{"rank": 1, "id": "a", "score": 0.3, "confidence": 0.5,
                                              "signals": signals}]})
    assert list(frame.columns[:6]) == ["rank", "id", "title", "score", "semantic_contribution",
                                       "temporal_contribution"]
    assert list(frame.columns[6:8]) == ["confidence", "confidence_tier"]
    assert views.contribution_columns(frame) == (["semantic_contribution", "temporal_contribution"], -0.1, 0.4)
    assert views.contribution_columns(views.results_frame({"results": []})) == ([], 0.0, 1.0)


def test_judged_moment_and_ages_count_from_the_moment_the_question_implies():
    response = {"as_of": "2026-11-30T12:00:00Z",
                "intent": {"judged_at": "2025-03-31T23:59:59Z", "judged_text": "in March 2025"}}
    judged, line = views.judged_moment(response)
    assert judged.year == 2025 and line.startswith("judged at 2025-03-31") and "in March 2025" in line
    assert views.age_text("2025-03-01T23:59:59Z", judged) == "30 days old"
    lines = views.result_card({"rank": 1, "id": "a", "title": "A", "confidence": 0.91234, "confidence_tier": "high",
                               "trust": 0.5, "score": 0.7, "created_at": "2025-03-01T23:59:59Z"}, judged)
    assert "confidence 0.912 (high)" in lines[1] and "trust 0.500" in lines[1] and "30 days old" in lines[2]
    explained = views.result_card({"rank": 1, "id": "a", "confidence": 0.4, "confidence_factors": [
        "a close second answer disagrees", "the question's period is not in this passage"]}, judged)
    assert explained[2] == ("confidence: a close second answer disagrees; the question's period is not in this "
                            "passage") and "at the moment judged" in explained[3]
    period, line = views.judged_moment({"as_of": "2026-11-30T12:00:00Z", "intent": {
        "judged_at": "2026-11-30T12:00:00Z", "time_range": ["2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"],
        "range_text": "in March 2025"}})
    assert (period.year, period.month, period.day) == (2025, 3, 31) and "in March 2025" in line
    now, plain_line = views.judged_moment({"as_of": "2026-11-30T12:00:00Z", "intent": {}})
    assert now.year == 2026 and plain_line == "judged as of 2026-11-30 12:00 UTC"


def test_verdicts_line_keeps_lower_and_higher_is_better_apart():
    line = views.verdicts_line({"n": 12, "ece": 0.05, "brier": 0.1, "auroc": 0.9, "high_precision": None, "high_n": 0})
    assert line == ("12 accept/correct verdicts on logged answers · lower is better: ECE 0.050, Brier 0.100 · "
                    "higher is better: AUROC 0.900, HIGH-tier precision – (0 HIGH)")


def test_passages_group_by_document_in_rank_order():
    results = [{"id": "a", "rank": 1}, {"id": "b", "rank": 2}, {"id": "a", "rank": 3}]
    groups = views.passages_by_document(results)
    assert [(first["id"], [p["rank"] for p in ps]) for first, ps in groups] == [("a", [1, 3]), ("b", [2])]


def test_operator_event_types_leave_access_out():
    assert views.operator_event_types(["ACCESS", "INGEST", "FEEDBACK_UNDO"]) == ["INGEST", "FEEDBACK_UNDO"]


def test_record_from_form_omits_empty_fields_and_derives_a_stable_id():
    rec = views.record_from_form(text="Hello", title="Rate limits v2", supersedes="a, b", authority=0.8)
    assert rec["id"].startswith("rate_limits_v2_") and rec["supersedes"] == ["a", "b"]
    assert rec["authority"] == 0.8 and "created_at" not in rec and "kind" not in rec
    assert views.record_from_form(text="Hello", title="Rate limits v2")["id"] == rec["id"]


def test_validation_preview_lists_every_bad_line():
    records = [{"id": "ok", "text": "fine", "_origin": "f.jsonl:1"},
               {"id": "bad", "text": "", "_origin": "f.jsonl:2"},
               {"id": "bad2", "text": "x", "created_at": "yesterday", "_origin": "f.jsonl:3"}]
    docs, errors = views.validation_preview(records, now=NOW)
    assert list(docs["id"]) == ["ok"]
    assert list(errors["where"]) == ["f.jsonl:2", "f.jsonl:3"]
    assert "created_at" in set(errors["field"])


def test_validation_preview_catches_batch_errors():
    records = [{"id": "a", "text": "x", "_origin": "f:1"}, {"id": "a", "text": "y", "_origin": "f:2"}]
    docs, errors = views.validation_preview(records, now=NOW)
    assert len(errors) == 1 and "duplicate" in errors["message"][0]


def test_read_upload_lists_every_bad_line_without_doubled_words():
    data = (json.dumps({"id": "x", "text": "hi"}) + '\n{"id": "y", "text": "unterminated\n'
            + json.dumps({"id": "z", "text": "ok"}) + "\n[1, 2]\n").encode()
    records, problems = views.read_upload("corpus.jsonl", data, max_file_bytes=10_000, max_line_bytes=10_000)
    assert [r["id"] for r in records] == ["x", "z"] and records[1]["_origin"] == "corpus.jsonl:3"
    assert [p["where"] for p in problems] == ["corpus.jsonl:2", "corpus.jsonl:4"]
    assert "starting at column" in problems[0]["message"] and " at at " not in problems[0]["message"]
    good, none = views.read_upload("notes.md", b"# Title\n\nSome text", max_file_bytes=10_000, max_line_bytes=10_000)
    assert len(good) == 1 and none == []


def test_consolidation_findings_table():
    frame = views.consolidation_findings({"supersessions": 2, "contradictions": 1, "timings": {"x": 1.0}})
    assert frame.to_dict("records") == [{"finding": "documents newly superseded", "count": 2},
                                        {"finding": "new contradictions (review queue)", "count": 1}]


def test_parse_upload_names_the_upload_not_the_temp_file():
    data = (json.dumps({"id": "x", "text": "hi"}) + "\n{not json\n").encode()
    with pytest.raises(InputError) as err:
        views.parse_upload("corpus.jsonl", data, max_file_bytes=10_000, max_line_bytes=10_000)
    assert str(err.value).startswith("corpus.jsonl:2")
    records = views.parse_upload("notes.md", b"# Title\n\nSome text", max_file_bytes=10_000, max_line_bytes=10_000)
    assert records[0]["_origin"].startswith("notes.md")


def test_counts_frame_keeps_the_order_given():
    frame = views.counts_frame({"STATIC": 3, "EVENT": 1}, "kind")
    assert list(frame.columns) == ["kind", "documents"]
    assert list(frame["kind"]) == ["STATIC", "EVENT"] and list(frame["documents"]) == [3, 1]
    assert list(views.counts_frame({}, "kind").columns) == ["kind", "documents"]


def test_grade_counts_always_have_five_grades_in_order():
    counts = views.grade_counts(["A", "A", "F", "C"])
    assert list(counts["grade"]) == ["A", "B", "C", "D", "F"] and list(counts["documents"]) == [2, 0, 1, 0, 1]
    assert list(views.grade_counts(pd.Series([], dtype=object))["documents"]) == [0] * 5


def test_rejection_counts_and_drilldown():
    rej = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "query": ["x", "x", "y"],
                        "asked_at": pd.to_datetime(["2026-01-01", "2026-01-01", "2026-01-02"], utc=True),
                        "id": ["a", "b", "a"], "code": ["EXPIRED_DOC", "NOT_YET_VALID", "EXPIRED_DOC"],
                        "reason": ["r1", "r2", "r3"]})
    counts = views.rejection_counts(rej)
    assert counts.iloc[0].to_dict() == {"code": "EXPIRED_DOC", "rejections": 2, "queries": 2, "documents": 1}
    queries, docs = views.rejection_drilldown(rej, "EXPIRED_DOC")
    assert list(queries["query_id"]) == ["q2", "q1"] and docs.iloc[0]["times"] == 2


def test_csv_and_table_safe():
    frame = pd.DataFrame({"ids": [["a", "b"]], "meta": [{"k": 1}], "title": ["<script>"]})
    safe = views.table_safe(frame)
    assert safe.iloc[0].to_dict() == {"ids": "a, b", "meta": "{'k': 1}", "title": "<script>"}
    assert views.to_csv_bytes(safe).decode().splitlines()[0] == "ids,meta,title"


def test_metrics_and_reliability_bins():
    frame = views.metrics_frame({"profiles": {"naive": {"top1": 0.3, "n": 10, "by_type": {}}}})
    assert frame.loc["naive", "top1"] == 0.3 and "by_type" not in frame.columns
    bins = views.reliability_bins([0.05, 0.15, 0.12, 1.0], [True, False, True, True])
    assert list(bins["bin"]) == [0, 1, 9] and list(bins["count"]) == [1, 2, 1]
    assert bins.loc[1, "accuracy"] == 0.5


def test_node_options_filter_literally_and_cap():
    nodes = pd.DataFrame({"id": [f"d{i}" for i in range(10)], "title": ["Rate (v1)"] * 5 + ["Other"] * 5})
    assert len(views.node_options(nodes)) == 10 and len(views.node_options(nodes, limit=3)) == 3
    assert list(views.node_options(nodes, text="rate (")) == ["d0", "d1", "d2", "d3", "d4"]
    assert views.node_options(nodes, text="d7")["d7"] == "d7 — Other"


def test_demo_contrast_explains_a_rejected_naive_answer():
    from smartvector_core.ui import demo

    naive = {"results": [{"id": "policy_v1", "title": "Limits", "text": "100 a minute", "rank": 1}]}
    default = {"results": [{"id": "policy_v3", "title": "Limits", "text": "1,000 a minute", "rank": 1}],
               "rejections": [{"id": "policy_v1", "code": "SUPERSEDED_IN_CHAIN", "reason": "replaced by policy_v3"}]}
    out = demo.contrast(naive, default)
    assert out["naive"]["id"] == "policy_v1" and out["default"]["id"] == "policy_v3" and not out["same"]
    assert out["why"] == "default rejected policy_v1: SUPERSEDED_IN_CHAIN — replaced by policy_v3"
    assert demo.contrast(default, default)["why"] == "Both profiles give the same answer."
    assert demo.contrast({"abstained": True, "results": []}, default)["naive"] is None


def test_the_abstention_heading_says_why():
    out_of_force = {"abstained": True, "abstain_reason": "nothing about this was in force at 2025-03-31: the "
                    "passages about it were ruled out by time (policy_v1: NOT_YET_VALID)"}
    assert views.abstention_heading(out_of_force) == "Nothing about this was in force at that moment"
    nothing = {"abstained": True, "abstain_reason": "nothing in the store is about the question: best cosine 0.1"}
    assert views.abstention_heading(nothing) == "Nothing relevant in the store"
    assert views.abstention_heading({"abstained": True}) == "Nothing relevant in the store"
