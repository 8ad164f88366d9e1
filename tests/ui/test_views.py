"""View-model functions of the dashboard (pure: frames in, frames out)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from smartvector_core.errors import InputError
from smartvector_core.ui import views
from tests.conftest import NOW


def _docs(n: int = 5) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"d{i}" for i in range(n)], "title": [f"Doc {i}" for i in range(n)],
                         "doc_type": ["policy", "news"] * (n // 2) + ["policy"] * (n % 2),
                         "confidence": [0.5] * n, "lifecycle": ["ACTIVE"] * n})


EDGES = pd.DataFrame({"src": ["d1", "d2"], "dst": ["d0", "d1"], "edge_type": ["SUPERSEDES", "SUPERSEDES"],
                      "status": ["", ""]})


def test_escape_markdown_keeps_html_literal():
    assert views.escape_markdown("<script>alert(1)</script>") == r"\<script\>alert\(1\)\</script\>"
    assert views.escape_markdown("**bold** [x](y)") == r"\*\*bold\*\* \[x\]\(y\)"


def test_graph_view_title_filter_is_literal_and_brings_neighbours():
    nodes, edges = views.graph_view(_docs(), EDGES, title_query="doc 2")
    assert sorted(nodes["id"]) == ["d1", "d2"]            # d2 matches, d1 is its neighbour
    assert len(edges) == 1
    nodes, _ = views.graph_view(_docs(), EDGES, title_query=".*")   # a regex matches nothing
    assert nodes.empty


def test_graph_view_doc_type_filter_and_cap_keeps_best_connected():
    nodes, _ = views.graph_view(_docs(), EDGES, doc_types=["news"], with_neighbours=False)
    assert sorted(nodes["id"]) == ["d1", "d3"]
    nodes, edges = views.graph_view(_docs(), EDGES, max_nodes=1)
    assert list(nodes["id"]) == ["d1"] and edges.empty      # d1 has two relations
    nodes, _ = views.graph_view(_docs(), EDGES, connected_only=True)
    assert sorted(nodes["id"]) == ["d0", "d1", "d2"]


def test_layout_positions_cover_every_node_and_are_deterministic():
    ids = [f"n{i}" for i in range(30)]
    pairs = [(f"n{i}", f"n{i + 1}") for i in range(9)]
    first = views.layout_positions(ids, pairs)
    assert set(first) == set(ids)
    assert first == views.layout_positions(ids, pairs)
    assert views.layout_positions([], []) == {}


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


def test_parse_upload_names_the_upload_not_the_temp_file():
    data = (json.dumps({"id": "x", "text": "hi"}) + "\n{not json\n").encode()
    with pytest.raises(InputError) as err:
        views.parse_upload("corpus.jsonl", data, max_file_bytes=10_000, max_line_bytes=10_000)
    assert str(err.value).startswith("corpus.jsonl:2")
    records = views.parse_upload("notes.md", b"# Title\n\nSome text", max_file_bytes=10_000, max_line_bytes=10_000)
    assert records[0]["_origin"].startswith("notes.md")


def test_freshness_table_filters_and_sorts_freshest_first():
    report = pd.DataFrame({"id": ["a", "b", "c"], "title": ["A", "B", "C"], "kind": ["STATIC"] * 3,
                           "doc_type": ["news", "policy", "news"], "grade": ["F", "A", "B"], "decay": [0.1, 0.9, 0.7]})
    assert list(views.freshness_table(report)["id"]) == ["b", "c", "a"]
    assert list(views.freshness_table(report, doc_types=["news"], grades=["B"])["id"]) == ["c"]


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
