"""Chart builders, checked by the data of the figures they return."""

from __future__ import annotations

import pandas as pd
import pytest

from smartvector_core.ui import charts, graph_views

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


def _graph():
    nodes = pd.DataFrame({"id": ["a", "b", "c"], "title": ["A", "<script>alert(1)</script>", "C"],
                          "trust": [0.0, 1.0, 0.5], "lifecycle": ["ACTIVE", "ACTIVE", "ARCHIVED"]})
    edges = pd.DataFrame({"src": ["b", "a", "c"], "dst": ["a", "c", "zz"],
                          "edge_type": ["SUPERSEDES", "DEPENDS_ON", "CONTRADICTS"],
                          "origin": ["declared", "inferred", "inferred"], "evidence": ["v2 replaces v1", "cites <c>", ""],
                          "status": ["", "", "open"]})
    pos = {"a": (0.0, 0.0), "b": (3.0, 0.0), "c": (0.0, -1.0)}
    return nodes, edges, pos


def test_knowledge_graph_directed_edges_with_arrowheads_and_hover():
    nodes, edges, pos = _graph()
    fig = charts.knowledge_graph(nodes, edges, pos, labels={"a": "A", "b": "B (v2)", "c": "C"})
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers" and t.x[0] is not None}
    legend = [t.name for t in fig.data if t.showlegend is not False and t.x[0] is None]
    assert legend == ["depends on →", "supersedes →", "ACTIVE", "ARCHIVED"]
    sup = lines["supersedes →"]
    assert sup.line.dash == "solid" and sup.marker.symbol == "arrow" and sup.marker.angleref == "previous"
    assert sup.x[0] == 3.0 and sup.x[1] == pytest.approx(0.42) and sup.x[2] is None   # b -> a, tip short of a
    assert list(sup.marker.size) == [0.0, 11.0, 0.0]                  # one arrowhead, at the dst end
    assert lines["depends on →"].line.dash == "dash"
    assert "contradicts →" not in lines                                # its far end has no position
    hover = next(t for t in fig.data if t.name == "supersedes details").hovertext[0]
    assert "<b>B (v2)</b> supersedes <b>A</b>" in hover
    assert "origin: declared" in hover and "evidence: v2 replaces v1" in hover and "status: in force" in hover
    dep_hover = next(t for t in fig.data if t.name == "depends_on details").hovertext[0]
    assert "origin: inferred" in dep_hover and "cites &lt;c&gt;" in dep_hover


def test_contradictions_have_no_arrow_labels_wrap_whole_and_hover_is_dark_on_white():
    nodes, edges, pos = _graph()
    pos = {**pos, "d": (3.0, -1.0)}
    nodes = pd.concat([nodes, pd.DataFrame({"id": ["d"], "title": ["Forum: how long do refunds really take"],
                                            "trust": [0.1], "lifecycle": ["ACTIVE"]})], ignore_index=True)
    edges = pd.concat([edges, pd.DataFrame({"src": ["d"], "dst": ["a"], "edge_type": ["CONTRADICTS"]})],
                      ignore_index=True)
    fig = charts.knowledge_graph(nodes, edges, pos, labels={"d": "Forum: how long do refunds really take"})
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers" and t.x[0] is not None}
    contra = lines["contradicts"]
    assert set(contra.marker.size) == {0.0} and contra.x[1] == 0.0     # no arrowhead, drawn end to end
    legend = [t.name for t in fig.data if t.showlegend is not False and t.x[0] is None]
    assert "contradicts" in legend and "contradicts →" not in legend
    node = next(t for t in fig.data if t.mode == "markers+text" and "d" in list(t.customdata))
    label = list(node.text)[list(node.customdata).index("d")]
    assert label.replace("<br>", " ") == "Forum: how long do refunds really take" and "<br>" in label
    assert fig.layout.hoverlabel.bgcolor == "#FFFFFF" and fig.layout.hoverlabel.font.color == "#111111"


def test_knowledge_graph_nodes_labelled_sized_by_trust_and_escaped():
    nodes, edges, pos = _graph()
    fig = charts.knowledge_graph(nodes, edges, pos, labels={"a": "A", "b": "<b>B</b>", "c": "C"})
    active = next(t for t in fig.data if t.name == "ACTIVE" and t.mode == "markers+text")
    assert list(active.customdata) == ["a", "b"]
    assert list(active.text) == ["A", "&lt;b&gt;B&lt;/b&gt;"]         # labels are literal text
    assert list(active.marker.size) == [8.0, 22.0]                    # 8 + 14 * trust
    assert active.marker.color == charts.LIFECYCLE_COLORS["ACTIVE"]
    assert "&lt;script&gt;" in active.hovertext[1] and "<script>" not in active.hovertext[1]
    assert "trust 1.000" in active.hovertext[1]
    assert fig.layout.legend.groupclick == "togglegroup"


def test_knowledge_graph_focus_fades_the_rest_and_rings_the_selected():
    nodes, edges, pos = _graph()
    fig = charts.knowledge_graph(nodes, edges, pos, selected="b", focus=["a", "b"])
    active = next(t for t in fig.data if t.name == "ACTIVE" and t.mode == "markers+text")
    archived = next(t for t in fig.data if t.name == "ARCHIVED" and t.mode == "markers+text")
    assert list(active.marker.opacity) == [1.0, 1.0] and list(archived.marker.opacity) == [0.2]
    assert list(archived.text) == [""]                                # faded nodes lose their label
    faded = [t for t in fig.data if t.mode == "lines+markers" and t.opacity == pytest.approx(0.18)]
    assert [t.name for t in faded] == ["depends on →"]                # a -> c leaves the focus
    assert list(next(t for t in fig.data if t.name == "selected").x) == [3.0]


def test_knowledge_graph_colour_by_kind_gives_one_trace_per_kind():
    nodes = pd.DataFrame({"id": ["a", "b"], "title": ["A", "B"], "trust": [0.5, 0.5], "kind": ["STATIC", "EVENT"]})
    fig = charts.knowledge_graph(nodes, pd.DataFrame(columns=["src", "dst", "edge_type"]),
                                 {"a": (0, 0), "b": (1, 1)}, color_by="kind")
    drawn = [t for t in fig.data if t.mode == "markers+text"]
    assert sorted(t.name for t in drawn) == ["EVENT", "STATIC"]
    assert {t.name: t.marker.color for t in drawn} == {"EVENT": charts.KIND_COLORS["EVENT"],
                                                        "STATIC": charts.KIND_COLORS["STATIC"]}


def test_knowledge_graph_stays_quick_and_labelled_with_400_nodes():
    import time


    ids = [f"doc_{i:04d}" for i in range(400)]
    nodes = pd.DataFrame({"id": ids, "title": [f"Policy {i // 4}" for i in range(400)], "trust": 0.5,
                          "lifecycle": "ACTIVE", "version": [f"v{i % 4 + 1}" for i in range(400)],
                          "created_at": pd.date_range("2024-01-01", periods=400, freq="D", tz="UTC")})
    edges = pd.DataFrame({"src": ids[1:], "dst": ids[:-1], "edge_type": "SUPERSEDES"})
    edges = edges[[i % 4 != 0 for i in range(1, 400)]]
    pos = graph_views.graph_layout(nodes["id"], nodes["created_at"].astype("int64"),
                                   list(zip(edges["src"], edges["dst"], edges["edge_type"], strict=True)))
    start = time.perf_counter()
    fig = charts.knowledge_graph(nodes, edges, pos, labels=graph_views.short_labels(nodes))
    assert time.perf_counter() - start < 3.0
    text = [x for t in fig.data if t.mode == "markers+text" for x in t.text]
    assert len(text) == 400 and len(set(text)) == 400                 # every node labelled, no two alike
    assert 420 <= fig.layout.height <= 2600


def test_decay_curves_halve_at_the_half_life():
    fig = charts.decay_curves({"news": 7.0, "policy": 90.0}, horizon_days=90, points=91)
    news, policy = fig.data                               # sorted by half-life
    assert news.name.startswith("news")
    assert news.y[7] == pytest.approx(0.5) and policy.y[90] == pytest.approx(0.5)
    many = charts.decay_curves({f"type{i}": float(i + 1) for i in range(13)})
    assert len({t.line.color for t in many.data}) == 13              # no two doc types share a colour
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


def test_trust_over_time_marks_events_on_the_line_and_opens_on_the_latest_changes():
    at = pd.to_datetime(["2024-01-01T00:00Z", "2026-01-01T00:00Z", "2026-01-03T00:00Z"])
    hist = pd.DataFrame({"at": at, "trust": [0.1, 0.2, 0.6]})
    events = pd.DataFrame({"at": pd.to_datetime(["2026-01-02T00:00Z", "2024-06-01T00:00Z"]),
                           "event_type": ["FEEDBACK_ACCEPT", "ACCESS"]})
    fig = charts.trust_over_time(hist, events)
    assert list(fig.data[0].y) == [0.1, 0.2, 0.6] and fig.data[0].line.shape == "hv"   # steps, not slopes
    assert fig.data[1].y[0] == pytest.approx(0.2)            # on the step: trust holds until the next point
    start, end = (pd.Timestamp(x) for x in fig.layout.xaxis.range)
    assert pd.Timestamp("2025-12-31T00:00Z") <= start < pd.Timestamp("2026-01-02T00:00Z")   # not two years wide
    assert end >= pd.Timestamp("2026-01-03T00:00Z")
    assert [b.label for b in fig.layout.xaxis.rangeselector.buttons] == ["1w", "1m", "1y", "all"]


def test_evaluation_charts():
    metrics = pd.DataFrame({"top1": [0.3, 0.9], "stale_at_1": [0.4, 0.02], "ece": [0.4, 0.05]},
                           index=["naive", "default"])
    fig = charts.metric_bars(metrics)
    # two panels, never mixed: higher is better (left), lower is better (right); a trace per panel
    assert [t.name for t in fig.data] == ["naive", "naive", "default", "default"]
    assert list(fig.data[2].x) == ["top1"] and list(fig.data[2].y) == [0.9]
    assert list(fig.data[3].x) == ["stale_at_1", "ece"] and list(fig.data[3].y) == [0.02, 0.05]
    assert fig.data[2].xaxis == "x" and fig.data[3].xaxis == "x2"
    # answer containment shows where a profile has it, and is left out where none has (no answers)
    with_answers = metrics.assign(answer_containment_at_5=[0.5, 0.8])
    assert list(charts.metric_bars(with_answers).data[2].x) == ["top1", "answer_containment_at_5"]
    assert list(charts.metric_bars(metrics.assign(answer_containment_at_5=[None, None])).data[2].x) == ["top1"]
    # one colour per profile, whatever the order or the chart
    flipped = charts.metric_bars(metrics.iloc[::-1])
    assert {t.name: t.marker.color for t in fig.data} == {t.name: t.marker.color for t in flipped.data}
    rel = charts.reliability_diagram({"naive": pd.DataFrame({"confidence": [0.1, 0.9], "accuracy": [0.0, 1.0],
                                                             "count": [3, 4]})})
    assert rel.data[0].name == "perfect calibration" and list(rel.data[1].y) == [0.0, 1.0]
    assert rel.data[1].marker.color == fig.data[0].marker.color == charts.profile_color("naive")
    abl = charts.ablation_bars(pd.DataFrame({"variant": ["full", "no ripple"], "top1": [0.9, 0.8]}))
    assert list(abl.data[0].x) == [0.9, 0.8]
    sweep = pd.DataFrame({"semantic": [0.2, 0.2, 0.4, 0.4], "temporal": [0.1, 0.3, 0.1, 0.1],
                          "top1": [0.5, 0.7, 0.6, 0.8]})
    heat = charts.sweep_heatmap(sweep, "semantic", "temporal", "top1")
    assert list(heat.data[0].x) == [0.2, 0.4] and list(heat.data[0].y) == [0.1, 0.3]
    assert heat.data[0].z[0].tolist() == [0.5, 0.7]      # mean over the duplicate grid point
