"""``consolidate --engine ray`` writes exactly what the local engine writes (local Ray, 2 CPUs).

The candidate search is partitioned by (doc type, title prefix) on the *query* side while every
task reads all chunk vectors, so the merged findings, and hence the edges, events and lifecycle
written by the one driver, must equal the local engine's. Slow (Ray start-up) but part of CI.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from smartvector_core.consolidation import merge_findings
from smartvector_core.ingest import read_records
from smartvector_core.scaleout.ray_consolidate import partition_documents
from smartvector_core.service import SmartVector
from smartvector_core.settings import DEMO_CORPUS
from tests.conftest import NOW
from tests.consolidation.helpers import bench_corpus, consolidation_plan, hashing_app

pytestmark = pytest.mark.slow


def _state(app: SmartVector) -> dict:
    edges = sorted((r["src"], r["dst"], r["edge_type"], r["origin"], r["evidence"], r["status"])
                   for r in app.store.edges().to_pylist())
    docs = app.store.documents().to_pylist()
    lifecycle = {r["doc_id"]: (r["lifecycle"], r["superseded_at"]) for r in docs}
    events = sorted(json.dumps({k: (str(v) if k == "at" else v) for k, v in r.items()
                                if k != "event_id" or r["actor"] == "consolidation"}, sort_keys=True, default=str)
                    for r in app.store.events().to_pylist())
    return {"edges": edges, "lifecycle": lifecycle, "events": events}


def _compare(records: list[dict], tmp_path: Path, *, tasks: int | None = None) -> dict:
    local, distributed = hashing_app(tmp_path / "local"), hashing_app(tmp_path / "ray")
    for app in (local, distributed):
        app.ingest_records(records, now=NOW, consolidate=False)
    reports = []
    for when, full in ((NOW, False), (NOW + timedelta(days=1), True)):  # first run, then a full re-run
        a = local.consolidate(now=when, full=full)
        b = distributed.consolidate(now=when, full=full, engine="ray")
        for report in (a, b):
            report.pop("seconds"), report.pop("timings")
        assert a == b
        reports.append(a)
        left, right = _state(local), _state(distributed)
        assert left["edges"] == right["edges"]
        assert left["lifecycle"] == right["lifecycle"]
        assert left["events"] == right["events"]
    return reports[0]


def test_ray_engine_consolidates_the_demo_corpus_like_the_local_engine(ray_cluster, tmp_path):
    report = _compare(read_records(DEMO_CORPUS), tmp_path)
    assert report["examined_pairs"] > 0 and report["activated"] > 0
    assert report["supersessions"] + report["contradictions"] + report["dependencies"] > 0


def test_ray_engine_on_a_corpus_with_many_contradictions_and_versions(ray_cluster, tmp_path):
    report = _compare(bench_corpus(400), tmp_path)
    assert report["contradictions"] > 0 and report["supersessions"] > 0 and report["dependencies"] > 0


def test_any_partition_of_the_query_side_merges_to_the_local_findings(tmp_path):
    """No Ray needed: find_candidates over partitions, merged, equals one pass over everything."""
    from smartvector_core import consolidation as c

    plan = consolidation_plan(tmp_path)
    whole = c.local_finder(plan)
    assert len(whole.chunk_a) and whole.contradictions and whole.citations
    for tasks in (2, 7, 50):
        parts = [c.find_candidates(plan, rows) for rows in partition_documents(plan, tasks)]
        assert sum(len(p) for p in partition_documents(plan, tasks)) == len(plan.ids)
        merged = merge_findings(parts[::-1], plan)  # order of completion does not matter
        assert np.array_equal(merged.chunk_a, whole.chunk_a) and np.array_equal(merged.chunk_b, whole.chunk_b)
        assert np.array_equal(merged.sims, whole.sims)
        assert merged.near_duplicates == whole.near_duplicates
        assert [(a, b, h) for a, b, h in merged.contradictions] == whole.contradictions
        assert merged.citations == whole.citations
