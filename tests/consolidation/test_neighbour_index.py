"""Neighbour search above ``exact_limit``: inverted lists (issue 18, consolidation at 100k chunks).

The lists must partition the chunks, be rebuilt identically, find the exact neighbours when every
list is probed, keep a high recall with the default constants on clustered vectors, and give a
consolidation run the exact search's results where they probe everything."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from smartvector_core import consolidation as c
from smartvector_core.consolidation.neighbours import (
    build_index,
    ivf_neighbours,
    neighbour_index,
    top_neighbours,
)
from smartvector_core.service import SmartVector
from tests.conftest import NOW
from tests.consolidation.helpers import bench_corpus, consolidation_plan, hashing_app


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _clustered(n: int = 3000, dim: int = 48, seed: int = 11) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((60, dim))
    return _unit(centres[rng.integers(0, 60, n)] + 0.35 * rng.standard_normal((n, dim)))


def _sets(rows, cols, n):
    out = [set() for _ in range(n)]
    for r, col in zip(rows.tolist(), cols.tolist(), strict=True):
        out[r].add(col)
    return out


def test_lists_partition_the_rows_and_are_rebuilt_identically():
    vectors = _clustered()
    index = build_index(vectors, 64, 5)
    assert sorted(index.rows.tolist()) == list(range(len(vectors)))
    assert len(index.bounds) == -(-len(vectors) // 64) + 1 and index.bounds[-1] == len(vectors)
    own = np.empty(len(vectors), np.int64)
    for list_id in range(len(index.bounds) - 1):
        own[index.rows[index.bounds[list_id]:index.bounds[list_id + 1]]] = list_id
    assert np.array_equal(own, index.probes[:, 0])                     # each row's first probe is its list
    assert index.probes.shape == (len(vectors), 5) and all(len(set(p)) == 5 for p in index.probes.tolist())
    again = build_index(vectors.copy(), 64, 5)
    assert all(np.array_equal(getattr(index, f), getattr(again, f)) for f in ("rows", "bounds", "probes"))


def test_probing_every_list_is_the_exact_search():
    vectors = _clustered(800, 32)
    index = build_index(vectors, 50, 10_000)                            # 16 lists, all probed
    qi, cols = ivf_neighbours(index, vectors, np.arange(800), 7, block_rows=300)
    r, b, _ = top_neighbours(vectors, vectors, 7)
    assert _sets(qi, cols, 800) == _sets(r, b, 800)


def test_default_lists_keep_the_recall_and_do_not_depend_on_the_query_blocks():
    vectors = _clustered(6000)
    config = c.DEFAULT_CONSOLIDATION
    index = build_index(vectors, config.ivf_list_size, config.ivf_probes)
    qi, cols = ivf_neighbours(index, vectors, np.arange(6000), 13)
    r, b, _ = top_neighbours(vectors, vectors, 13)
    got, exact = _sets(qi, cols, 6000), _sets(r, b, 6000)
    recall = np.mean([len(g & e) / 13 for g, e in zip(got, exact, strict=True)])
    assert recall >= 0.97
    part_q, part_c = ivf_neighbours(index, vectors, np.arange(3000, 6000), 13, block_rows=777)
    assert _sets(part_q, part_c, 3000) == got[3000:]


def _summary(app: SmartVector):
    edges = sorted((r["src"], r["dst"], r["edge_type"], r["evidence"], r["status"]) for r in app.store.edges().to_pylist())
    docs = sorted((r["doc_id"], r["lifecycle"], str(r["superseded_at"])) for r in app.store.documents().to_pylist())
    return edges, docs


def test_a_run_on_the_lists_equals_the_exact_run_when_every_list_is_probed(tmp_path):
    records = bench_corpus(300)
    exact, lists = hashing_app(tmp_path / "exact"), hashing_app(tmp_path / "lists")
    for app in (exact, lists):
        app.ingest_records(records, now=NOW, consolidate=False)
    config = c.DEFAULT_CONSOLIDATION
    a = c.consolidate(exact.store, None, now=NOW, config=config).to_dict()
    b = c.consolidate(lists.store, None, now=NOW,
                      config=replace(config, exact_limit=0, ivf_list_size=40, ivf_probes=1_000)).to_dict()
    assert a["contradictions"] > 0 and a["supersessions"] > 0
    for key in ("examined_pairs", "supersessions", "contradictions", "dependencies", "archived", "dormant"):
        assert a[key] == b[key], key
    assert _summary(exact) == _summary(lists)


def test_partitions_merge_to_one_pass_on_the_lists(tmp_path):
    """Above exact_limit too, any split of the query side finds what one pass finds (Ray)."""
    from smartvector_core.scaleout.ray_consolidate import partition_documents

    plan = consolidation_plan(tmp_path, config=replace(c.DEFAULT_CONSOLIDATION, exact_limit=0, ivf_list_size=16,
                                                       ivf_probes=3))
    assert plan.index is not None and plan.index.probes.shape[1] == 3    # the lists were used
    whole = c.local_finder(plan)
    fresh = replace(plan, index=None)                                    # a task that rebuilds the lists
    parts = [c.find_candidates(fresh if i % 2 else plan, rows)
             for i, rows in enumerate(partition_documents(plan, 7))]
    merged = c.merge_findings(parts[::-1], plan)
    assert np.array_equal(merged.chunk_a, whole.chunk_a) and np.array_equal(merged.chunk_b, whole.chunk_b)
    assert merged.near_duplicates == whole.near_duplicates and merged.contradictions == whole.contradictions
    assert neighbour_index(fresh) is fresh.index


def test_an_incremental_run_searches_exactly(tmp_path):
    """A query side of at most exact_query_share of the chunks costs less exactly than the lists."""
    from smartvector_core.consolidation.neighbours import exact_search

    app = hashing_app(tmp_path / "store")
    records = bench_corpus(300)
    app.ingest_records(records[:290], now=NOW, consolidate=False)
    config = replace(c.DEFAULT_CONSOLIDATION, exact_limit=0, ivf_list_size=16, ivf_probes=3)
    plans = []

    def finder(plan):
        plans.append(plan)
        return c.local_finder(plan)

    c.consolidate(app.store, None, now=NOW, config=config, finder=finder)
    app.ingest_records(records[290:], now=NOW, consolidate=False)            # 10 new of 300: 1/30
    c.consolidate(app.store, None, now=NOW, config=replace(config, exact_query_share=0.05), finder=finder)
    first, incremental = plans
    assert not exact_search(first) and first.index is not None
    assert exact_search(incremental) and incremental.index is None
    assert not exact_search(replace(incremental, config=replace(config, exact_query_share=0.01)))
