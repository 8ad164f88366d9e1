"""Chart builders, checked by the data of the figures they return."""

from __future__ import annotations

import pandas as pd
import pytest

from smartvector_core.ui import charts

RESULTS = [
    {"rank": 1, "id": "policy_v3", "signals": {"semantic": {"value": 0.8, "weight": 0.35, "contribution": 0.28},
                                               "temporal": {"value": 0.9, "weight": 0.25, "contribution": 0.225}}},
    {"rank": 2, "id": "<b>x</b>", "signals": {"semantic": {"value": 0.6, "weight": 0.35, "contribution": 0.21},
                                              "relational": {"value": 0.5, "weight": 0.15, "contribution": 0.075}}},
]


def test_score_breakdown_one_trace_per_signal_stacked():
    fig = charts.score_breakdown(RESULTS)
    assert [t.name for t in fig.data] == ["semantic", "temporal", "relational"]
    assert fig.layout.barmode == "relative"
    semantic, temporal, relational = fig.data
    assert list(semantic.x) == [0.28, 0.21]
    assert list(temporal.x) == [0.225, 0.0]          # missing signal contributes nothing
    assert list(relational.x) == [0.0, 0.075]
    assert list(semantic.y) == ["1. policy_v3", "2. &lt;b&gt;x&lt;/b&gt;"]   # labels escaped, never HTML
    assert list(semantic.customdata[0]) == [0.8, 0.35]


def test_score_breakdown_empty_is_a_figure_with_a_message():
    fig = charts.score_breakdown([])
    assert len(fig.data) == 0
    assert fig.layout.annotations[0].text == "no results"


def test_count_bars():
    fig = charts.count_bars({"STATIC": 3, "EVENT": 1}, "Kinds")
    assert list(fig.data[0].x) == ["STATIC", "EVENT"] and list(fig.data[0].y) == [3, 1]


def test_knowledge_graph_edges_styled_by_type_and_nodes_sized_by_confidence():
    nodes = pd.DataFrame({"id": ["a", "b", "c"], "title": ["A", "<script>alert(1)</script>", "C"],
                          "confidence": [0.0, 1.0, 0.5], "lifecycle": ["ACTIVE", "ACTIVE", "ARCHIVED"]})
    edges = pd.DataFrame({"src": ["b", "a", "c"], "dst": ["a", "c", "zz"],
                          "edge_type": ["SUPERSEDES", "DEPENDS_ON", "CONTRADICTS"]})
    pos = {"a": (0.0, 0.0), "b": (1.0, 0.0), "c": (0.0, 1.0)}
    fig = charts.knowledge_graph(nodes, edges, pos, color_by="lifecycle", selected="b")
    by_name = {t.name: t for t in fig.data}
    assert by_name["supersedes"].line.dash == "solid"
    assert by_name["depends_on"].line.dash == "dash"
    assert "contradicts" not in by_name                  # its far end has no position
    assert list(by_name["supersedes"].x) == [1.0, 0.0, None]
    active = by_name["ACTIVE"]
    assert list(active.customdata) == ["a", "b"]
    assert list(active.marker.size) == [8.0, 30.0]       # 8 + 22 * confidence
    assert "&lt;script&gt;" in active.hovertext[1] and "<script>" not in active.hovertext[1]
    assert by_name["ARCHIVED"].marker.size[0] == pytest.approx(19.0)
    assert list(by_name["selected"].x) == [1.0]


def test_knowledge_graph_colour_by_kind_gives_one_trace_per_kind():
    nodes = pd.DataFrame({"id": ["a", "b"], "title": ["A", "B"], "confidence": [0.5, 0.5], "kind": ["STATIC", "EVENT"]})
    fig = charts.knowledge_graph(nodes, pd.DataFrame(columns=["src", "dst", "edge_type"]),
                                 {"a": (0, 0), "b": (1, 1)}, color_by="kind")
    assert sorted(t.name for t in fig.data) == ["EVENT", "STATIC"]


def test_grade_histogram_always_has_five_grades_in_order():
    fig = charts.grade_histogram(["A", "A", "F", "C"])
    assert list(fig.data[0].x) == ["A", "B", "C", "D", "F"]
    assert list(fig.data[0].y) == [2, 0, 1, 0, 1]


def test_decay_curves_halve_at_the_half_life():
    fig = charts.decay_curves({"news": 7.0, "policy": 90.0}, horizon_days=90, points=91)
    news, policy = fig.data                               # sorted by half-life
    assert news.name.startswith("news")
    assert news.y[7] == pytest.approx(0.5) and policy.y[90] == pytest.approx(0.5)
    floored = charts.decay_curves({"news": 7.0}, horizon_days=90, points=91, floors={"news": 0.3})
    assert min(floored.data[0].y) == pytest.approx(0.3)


def test_rejections_over_time_stacks_codes_per_day():
    frame = pd.DataFrame({"asked_at": pd.to_datetime(["2026-01-01T10:00Z", "2026-01-01T11:00Z", "2026-01-02T09:00Z"]),
                          "code": ["EXPIRED_DOC", "EXPIRED_DOC", "NOT_YET_VALID"]})
    fig = charts.rejections_over_time(frame)
    totals = {t.name: list(t.y) for t in fig.data}
    assert totals == {"EXPIRED_DOC": [2, 0], "NOT_YET_VALID": [0, 1]}
    assert fig.layout.barmode == "stack"
    assert len(charts.rejections_over_time(frame.iloc[0:0]).data) == 0


def test_confidence_over_time_marks_events_on_the_line():
    hist = pd.DataFrame({"at": pd.to_datetime(["2026-01-01T00:00Z", "2026-01-03T00:00Z"]), "confidence": [0.2, 0.6]})
    events = pd.DataFrame({"at": pd.to_datetime(["2026-01-02T00:00Z"]), "event_type": ["FEEDBACK_ACCEPT"]})
    fig = charts.confidence_over_time(hist, events)
    assert list(fig.data[0].y) == [0.2, 0.6]
    assert fig.data[1].y[0] == pytest.approx(0.4)


def test_evaluation_charts():
    metrics = pd.DataFrame({"top1": [0.3, 0.9], "stale_at_1": [0.4, 0.02], "ece": [0.4, 0.05]},
                           index=["naive", "default"])
    fig = charts.metric_bars(metrics)
    assert [t.name for t in fig.data] == ["naive", "default"] and list(fig.data[1].y) == [0.9, 0.02, 0.05]
    rel = charts.reliability_diagram({"naive": pd.DataFrame({"confidence": [0.1, 0.9], "accuracy": [0.0, 1.0],
                                                             "count": [3, 4]})})
    assert rel.data[0].name == "perfect calibration" and list(rel.data[1].y) == [0.0, 1.0]
    abl = charts.ablation_bars(pd.DataFrame({"variant": ["full", "no ripple"], "top1": [0.9, 0.8]}))
    assert list(abl.data[0].x) == [0.9, 0.8]
    sweep = pd.DataFrame({"semantic": [0.2, 0.2, 0.4, 0.4], "temporal": [0.1, 0.3, 0.1, 0.1],
                          "top1": [0.5, 0.7, 0.6, 0.8]})
    heat = charts.sweep_heatmap(sweep, "semantic", "temporal", "top1")
    assert list(heat.data[0].x) == [0.2, 0.4] and list(heat.data[0].y) == [0.1, 0.3]
    assert heat.data[0].z[0].tolist() == [0.5, 0.7]      # mean over the duplicate grid point
