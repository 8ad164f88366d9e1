"""The Knowledge Graph's view models: filters, the layout by time, labels, the focus set."""

from __future__ import annotations

import pandas as pd

from smartvector_core.ui import graph_views, views


def _docs(n: int = 5) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"d{i}" for i in range(n)], "title": [f"Doc {i}" for i in range(n)],
                         "doc_type": ["policy", "news"] * (n // 2) + ["policy"] * (n % 2),
                         "confidence": [0.5] * n, "lifecycle": ["ACTIVE"] * n})


EDGES = pd.DataFrame({"src": ["d1", "d2"], "dst": ["d0", "d1"], "edge_type": ["SUPERSEDES", "SUPERSEDES"],
                      "status": ["", ""]})


def test_graph_view_title_filter_is_literal_and_brings_neighbours():
    nodes, edges = graph_views.graph_view(_docs(), EDGES, title_query="doc 2")
    assert sorted(nodes["id"]) == ["d1", "d2"]            # d2 matches, d1 is its neighbour
    assert len(edges) == 1
    nodes, _ = graph_views.graph_view(_docs(), EDGES, title_query=".*")   # a regex matches nothing
    assert nodes.empty


def test_graph_view_doc_type_filter_and_cap_keeps_best_connected():
    nodes, _ = graph_views.graph_view(_docs(), EDGES, doc_types=["news"], with_neighbours=False)
    assert sorted(nodes["id"]) == ["d1", "d3"]
    nodes, edges = graph_views.graph_view(_docs(), EDGES, max_nodes=1)
    assert list(nodes["id"]) == ["d1"] and edges.empty      # d1 has two relations
    nodes, _ = graph_views.graph_view(_docs(), EDGES, connected_only=True)
    assert sorted(nodes["id"]) == ["d0", "d1", "d2"]


def test_graph_layout_runs_version_chains_left_to_right_by_time():
    ids = ["v3", "v1", "v2", "dep", "alone"]
    times = [30, 10, 20, 15, 5]
    edges = [("v2", "v1", "SUPERSEDES"), ("v3", "v2", "SUPERSEDES"), ("dep", "v1", "DEPENDS_ON")]
    pos = graph_views.graph_layout(ids, times, edges)
    assert set(pos) == set(ids)
    assert pos["v1"][0] < pos["v2"][0] < pos["v3"][0]                      # oldest left
    assert pos["v1"][1] == pos["v2"][1] == pos["v3"][1]                     # one chain, one row
    assert pos["dep"][1] < pos["v1"][1]                                     # its own row, same block
    assert pos["alone"][1] < pos["dep"][1]                                  # isolated ones below
    assert len(set(pos.values())) == len(ids)                               # nothing overlaps
    assert pos == graph_views.graph_layout(ids, times, edges) and graph_views.graph_layout([], [], []) == {}


def test_short_labels_cut_titles_and_tell_collisions_apart():
    nodes = pd.DataFrame({"id": ["p1", "p2", "x", "y"], "title": ["Rate limit policy", "Rate limit policy",
                                                                 "A very long title about many things", ""],
                          "version": ["v1", "v2", "", ""]})
    labels = graph_views.short_labels(nodes, limit=18)
    assert labels["p1"] != labels["p2"] and labels["p1"].endswith("v1") and labels["p2"].endswith("v2")
    assert labels["x"] == "A very long title…" and labels["y"] == "y"
    assert all(len(v) <= 18 for v in labels.values())
    same = pd.DataFrame({"id": ["a_1", "a_2"], "title": ["Same", "Same"], "version": ["v1", "v1"]})
    assert len(set(graph_views.short_labels(same).values())) == 2


def test_focus_set_is_the_node_its_chain_and_its_ripple():
    assert graph_views.focus_set(None, ["a"], ["b"]) == []
    assert graph_views.focus_set("b", ["a", "b", "c"], ["d", "a"]) == ["b", "a", "c", "d"]


def test_focus_brings_contradictions_and_filters_the_relations():
    edges = pd.DataFrame({"src": ["a", "c", "x"], "dst": ["b", "a", "y"],
                          "edge_type": ["SUPERSEDES", "CONTRADICTS", "DEPENDS_ON"]})
    others = graph_views.contradicting("a", edges)
    assert others == ["c"]
    focus = graph_views.focus_set("a", ["a", "b"], [], others)
    assert focus == ["a", "b", "c"]
    assert list(graph_views.relations_in_focus(edges, focus)["src"]) == ["a", "c"]
    assert len(graph_views.relations_in_focus(edges, [])) == 3


def test_document_details_read_as_text():
    from datetime import UTC, datetime

    row = pd.Series({"id": "p", "created_at": pd.Timestamp("2026-01-02T03:04:05Z"), "valid_until": pd.NaT,
                     "supersedes": [], "depends_on": ["a", "b"], "authority": 0.899999976158,
                     "metadata": '{"owner": "team", "cycle": 90}', "dated": True, "vector": [0.1] * 3,
                     "ingested_at": datetime(2026, 1, 3, tzinfo=UTC)})
    details = dict(zip(*views.document_details(row).T.values, strict=True))
    assert details == {"id": "p", "created_at": "2026-01-02 03:04 UTC", "valid_until": "—", "supersedes": "—",
                       "depends_on": "a, b", "authority": "0.9", "metadata": "owner: team; cycle: 90",
                       "dated": "yes", "ingested_at": "2026-01-03 00:00 UTC"}
