"""Relations graph: ripple (bounded BFS, once per node), relational signal."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.errors import InputError
from smartvector_core.memory import KnowledgeGraph, RippleConfig, RippleStep

DEP, SUP, CON = "DEPENDS_ON", "SUPERSEDES", "CONTRADICTS"


def graph(edges, ids, **kw):
    return KnowledgeGraph.from_edges(pd.DataFrame(edges, columns=["src", "dst", "edge_type"]), ids, **kw)


def test_diamond_hits_bottom_once_at_shortest_hop():
    # B and C depend on A; D depends on both B and C. Correcting A: B, C at hop 1, D once at hop 2.
    g = graph([("B", "A", DEP), ("C", "A", DEP), ("D", "B", DEP), ("D", "C", DEP)], "ABCD")
    plan = g.ripple_plan("A")
    assert plan == [RippleStep("B", 1, 0.10, "A"), RippleStep("C", 1, 0.10, "A"),
                    RippleStep("D", 2, 0.05, "B")]


def test_penalty_decays_per_hop_and_stops_at_max_hops():
    chain = [(f"n{i + 1}", f"n{i}", DEP) for i in range(5)]  # n1 depends on n0, n2 on n1 ...
    g = graph(chain, [f"n{i}" for i in range(6)])
    plan = g.ripple_plan("n0", penalty=0.2, hop_decay=0.5, max_hops=3)
    assert [(s.doc_id, s.hop) for s in plan] == [("n1", 1), ("n2", 2), ("n3", 3)]
    assert [s.penalty for s in plan] == pytest.approx([0.2, 0.1, 0.05])
    assert g.ripple_plan("n0", max_hops=0) == []
    assert [s.doc_id for s in g.ripple_plan("n0")] == ["n1", "n2"]  # default: 2 hops


def test_ripple_follows_depended_by_not_depends_on():
    g = graph([("A", "B", DEP)], "AB")  # A depends on B
    assert [s.doc_id for s in g.ripple_plan("B")] == ["A"]
    assert g.ripple_plan("A") == []  # correcting A does not hit what A relies on


def test_cycle_is_safe_and_start_never_hit():
    g = graph([("A", "B", DEP), ("B", "A", DEP), ("C", "B", DEP)], "ABC")
    plan = g.ripple_plan("A", max_hops=10)
    assert [s.doc_id for s in plan] == ["B", "C"]


def test_exclude_is_neither_hit_nor_traversed():
    g = graph([("B", "A", DEP), ("C", "B", DEP)], "ABC")
    assert g.ripple_plan("A", exclude={"B"}) == []


def test_dependents_for_the_ui():
    g = graph([("B", "A", DEP), ("C", "B", DEP), ("D", "C", DEP)], "ABCD")
    assert g.dependents("A", hops=2) == {"B": 1, "C": 2}
    assert g.dependents("A", hops=5) == {"B": 1, "C": 2, "D": 3}
    with pytest.raises(InputError):
        g.dependents("A", hops=-1)


def test_unknown_start_and_bad_config_raise():
    g = graph([], "A")
    with pytest.raises(InputError, match="'Z'"):
        g.ripple_plan("Z")
    with pytest.raises(InputError, match="hop_decay"):
        RippleConfig(hop_decay=1.5)
    with pytest.raises(InputError, match="penalty"):
        g.ripple_plan("A", penalty=-0.1)


def test_edges_to_unknown_docs_self_loops_and_future_edges_are_dropped():
    edges = pd.DataFrame({"src": ["A", "A", "B"], "dst": ["Z", "A", "A"], "edge_type": [DEP, DEP, DEP],
                          "created_at_us": [0, 0, 500]})
    g = KnowledgeGraph.from_edges(edges, "AB", as_of_us=100)
    assert g.dropped_edges == 2
    assert g.ripple_plan("A") == []
    assert KnowledgeGraph.from_edges(edges, "AB").ripple_plan("A") == [RippleStep("B", 1, 0.10, "A")]
    assert KnowledgeGraph.from_edges(None, "AB").dropped_edges == 0


def test_bad_edge_type_lists_valid_values():
    with pytest.raises(InputError, match="DEPENDS_ON"):
        graph([("A", "B", "LIKES")], "AB")


def test_relational_importance_hand_worked():
    # hub H linked to 3 live docs and 1 archived one; a CONTRADICTS edge earns nothing
    edges = [("a", "H", DEP), ("b", "H", DEP), ("H", "c", SUP), ("old", "H", DEP), ("H", "a", DEP),
             ("e", "H", CON)]
    ids = ["H", "a", "b", "c", "old", "e"]
    g = graph(edges, ids)
    live = np.array([True, True, True, True, False, True])
    assert g.live_degree(ids, live).tolist() == [3, 1, 1, 1, 1, 0]
    expected = [math.log(4) / math.log(11), math.log(2) / math.log(11), math.log(2) / math.log(11),
                math.log(2) / math.log(11), math.log(2) / math.log(11), 0.0]
    assert g.relational_importance(ids, live) == pytest.approx(expected)


def test_relational_importance_saturates_at_one():
    ids = ["hub"] + [f"s{i}" for i in range(15)]
    g = graph([(f"s{i}", "hub", DEP) for i in range(15)], ids)
    score = g.relational_importance(ids, np.ones(len(ids), dtype=bool))
    assert score[0] == 1.0 and score[1] == pytest.approx(math.log(2) / math.log(11))


_ids = [f"d{i}" for i in range(8)]
_edges = st.lists(st.tuples(st.sampled_from(_ids), st.sampled_from(_ids), st.sampled_from([DEP, SUP, CON])),
                  max_size=30)


@settings(max_examples=200, deadline=None)
@given(edges=_edges, start=st.sampled_from(_ids), max_hops=st.integers(0, 5),
       live=st.lists(st.booleans(), min_size=8, max_size=8))
def test_graph_invariants(edges, start, max_hops, live):
    g = graph(edges, _ids)
    plan = g.ripple_plan(start, max_hops=max_hops)
    hit = [s.doc_id for s in plan]
    assert start not in hit and len(hit) == len(set(hit))
    assert all(1 <= s.hop <= max_hops and s.penalty == pytest.approx(0.1 * 0.5 ** (s.hop - 1)) for s in plan)
    # the hop is the shortest path along depended_by edges (reverse DEPENDS_ON)
    reverse = nx.DiGraph([(d, s) for s, d, t in edges if t == DEP and s != d])
    reverse.add_nodes_from(_ids)
    lengths = nx.single_source_shortest_path_length(reverse, start, cutoff=max_hops)
    assert {s.doc_id: s.hop for s in plan} == {d: h for d, h in lengths.items() if d != start}
    score = g.relational_importance(_ids, np.array(live))
    assert np.all((score >= 0) & (score <= 1))
