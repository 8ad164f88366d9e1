"""Version chains and superseded_at, the one definition (memory/chains.py), worked by hand."""

from __future__ import annotations

from datetime import UTC, datetime

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.clock import to_us
from smartvector_core.memory.chains import (
    NO_END,
    NO_START,
    chain_ids,
    chain_labels,
    chain_members,
    effective_us,
    normalise_title,
    superseded_at,
)


def test_never_ends_is_the_largest_int64_and_the_temporal_sentinel():
    from smartvector_core.temporal import NO_END as temporal_no_end

    assert NO_END == np.iinfo(np.int64).max == temporal_no_end


def test_chains_are_components_named_by_smallest_member():
    ids = np.array(["p1", "p2", "p3", "q1", "q2", "x"], dtype=object)
    # p2 -> p1, p3 -> p2, q2 -> q1 (src supersedes dst); x stands alone
    src, dst = [1, 2, 4], [0, 1, 3]
    assert chain_ids(ids, src, dst).tolist() == ["p1", "p1", "p1", "q1", "q1", "x"]
    labels = chain_labels(6, src, dst)
    assert labels[0] == labels[1] == labels[2] != labels[3] == labels[4] != labels[5]
    assert chain_members("p3", ids, src, dst) == ["p1", "p2", "p3"]
    assert chain_members("zz", ids, src, dst) == ["zz"]
    assert chain_ids(np.array(["b", "a"], dtype=object), [], []).tolist() == ["b", "a"]


def test_superseded_at_is_the_earliest_effective_time_of_a_direct_successor():
    # v1 <- v2 (effective 200), v1 <- v3 (300), v2 <- v3: v1 at 200, v2 at 300, v3 never
    eff = np.array([10, 200, 300])
    assert superseded_at(eff, [1, 2, 2], [0, 0, 1]).tolist() == [200, 300, NO_END]
    # only direct successors count: v1 <- v2 <- v3 with v3 effective *before* v2 (back-dated)
    assert superseded_at(np.array([10, 500, 100]), [1, 2], [0, 1]).tolist() == [500, 100, NO_END]
    assert superseded_at(eff, [], []).tolist() == [NO_END] * 3
    with pytest.raises(ValueError, match="as many edge sources"):
        superseded_at(eff, [1], [])


def test_effective_time_is_valid_from_else_created_and_a_date_before_1970_counts():
    moon_landing = to_us(datetime(1969, 7, 20, tzinfo=UTC))   # negative microseconds
    created = np.array([7, 9, 11])
    assert effective_us(np.array([NO_START, 50, moon_landing]), created).tolist() == [7, 50, moon_landing]


def test_every_reader_of_a_version_start_takes_it_from_effective_us(tmp_path):
    """The chain index and consolidation read a pre-1970 ``valid_from`` as the start, as the query's
    period gate does (``windows.in_range``): one rule, whichever path reads the document."""
    import pyarrow as pa

    from smartvector_core.consolidation.documents import Documents
    from smartvector_core.knowledge import DocIndex
    from smartvector_core.memory import KnowledgeGraph
    from smartvector_core.retrieval.windows import in_range
    from smartvector_core.temporal.codes import KIND_VERSIONED

    created = to_us(datetime(2020, 1, 1, tzinfo=UTC))
    start = to_us(datetime(1965, 3, 1, tzinfo=UTC))
    stamp = pa.timestamp("us", tz="UTC")
    table = pa.table({"doc_id": ["charter", "memo"], "created_at": pa.array([created, created], stamp),
                      "valid_from": pa.array([start, None], stamp)})
    index = DocIndex.build(table, pd.DataFrame(columns=["src", "dst", "edge_type", "origin"]),
                           KnowledgeGraph.from_edges(None, []))
    assert index.effective_us.tolist() == [start, created]

    class Rows:   # the fields of a Candidates that in_range reads
        valid_from_us = np.array([start, NO_START])
        created_us = np.array([created, created])
        valid_until_us = np.array([NO_END, NO_END])
        kind = np.array([KIND_VERSIONED, KIND_VERSIONED])
        doc_type = np.array(["policy", "policy"], dtype=object)
        content_start = content_end = None   # no periods named in the text

        def __len__(self):
            return 2

    sixties = (to_us(datetime(1966, 1, 1, tzinfo=UTC)), to_us(datetime(1967, 1, 1, tzinfo=UTC)))
    assert in_range(Rows(), sixties, np.array([NO_END, NO_END])).tolist() == [True, False]
    assert Documents.of(["charter", "memo"], created_us=[created, created],
                        valid_from_us=[start, NO_START]).effective_us.tolist() == [start, created]


def test_normalise_title():
    assert normalise_title("API Rate-Limits ") == "api rate limits"
    assert normalise_title(None) == ""


_edges = st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=20)


@settings(max_examples=150, deadline=None)
@given(edges=_edges, eff=st.lists(st.integers(0, 1000), min_size=8, max_size=8))
def test_chains_match_networkx_components(edges, eff):
    ids = np.array([f"d{i}" for i in range(8)], dtype=object)
    src, dst = [s for s, _ in edges], [d for _, d in edges]
    got = chain_ids(ids, src, dst)
    graph = nx.Graph()
    graph.add_nodes_from(range(8))
    graph.add_edges_from(edges)
    for component in nx.connected_components(graph):
        assert {got[i] for i in component} == {min(ids[i] for i in component)}
    moment = superseded_at(np.array(eff), src, dst)
    for d in range(8):
        preds = [eff[s] for s, t in edges if t == d]
        assert moment[d] == (min(preds) if preds else NO_END)
