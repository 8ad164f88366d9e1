"""Distributed consolidation: the pure, expensive part of a run as Ray tasks, one writer.

``consolidate --engine ray`` (``SmartVector.consolidate(engine="ray")``)::

    driver: plan (documents, current chunks, vectors, centroids)   -> ray.put once
    tasks:  find_candidates(plan, documents of one partition)       neighbour pairs of the
            partition's query chunks against *every* chunk vector, the near-duplicate
            supersession test, facts.contradictions_between, the citation scan of its texts
    driver: merge_findings (sorted by stable keys) -> the local engine's decisions and writes

Partitions are groups of documents by ``(doc_type, normalised title prefix)``, cut into about
``4 x CPUs`` tasks of similar chunk counts. Partitioning only the *query side* while every task
reads the whole vector matrix (and all chunk texts) from the object store means no pair the
local engine examines can fall between partitions: each query chunk's neighbours are searched
exactly over all chunks, and the per-pair results are canonical (exact float64 cosine, ties by
row), so the merged findings equal the local engine's and the writes (same code, one writer)
are identical. Above ``ConsolidationConfig.exact_limit`` chunks both engines search the same
inverted lists (:func:`~smartvector_core.consolidation.neighbours.neighbour_index`, built once in
the driver and shipped with the plan), so they still agree.
"""

from __future__ import annotations

import numpy as np

from ..consolidation import ConsolidationPlan, Findings, find_candidates, merge_findings
from ..consolidation.neighbours import exact_search, neighbour_index
from .ray_ingest import ensure_ray

TITLE_PREFIX = 4       # characters of the normalised title in the partition key
TASKS_PER_CPU = 4


def partition_documents(plan: ConsolidationPlan, tasks: int) -> list[np.ndarray]:
    """Document rows grouped by (doc_type, title prefix), the sorted keys cut into at most
    ``tasks`` contiguous groups of similar chunk counts (query chunks weigh the most)."""
    n = len(plan.ids)
    keys = [(str(plan.doc_types[i] or ""), plan.titles[i][:TITLE_PREFIX]) for i in range(n)]
    weight = np.bincount(plan.chunk_doc, minlength=n).astype(np.float64)
    weight = np.where(plan.query_side, weight * 8.0, weight) + 1.0  # neighbour search is the cost
    groups: dict[tuple[str, str], list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    ordered = sorted(groups)
    total = float(sum(weight[groups[k]].sum() for k in ordered))
    target = total / max(1, tasks)
    out: list[list[int]] = [[]]
    acc = 0.0
    for key in ordered:
        if acc >= target and len(out) < tasks:
            out.append([])
            acc = 0.0
        out[-1].extend(groups[key])
        acc += float(weight[groups[key]].sum())
    return [np.asarray(sorted(rows), np.int64) for rows in out if rows]


def ray_finder(tasks: int | None = None):
    """A ``finder`` for :func:`smartvector_core.consolidation.consolidate` that runs
    :func:`find_candidates` over the partitions as Ray tasks and merges the results."""

    def finder(plan: ConsolidationPlan) -> Findings:
        import ray

        ensure_ray()
        if not exact_search(plan):
            neighbour_index(plan)   # once, here: every task reads the same lists
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        parts = partition_documents(plan, tasks or TASKS_PER_CPU * cpus)
        # only partitions with query documents have work; the others still scan their texts for
        # citations of the new documents (cheap), in the same tasks
        ref = ray.put(plan)
        remote = ray.remote(num_cpus=1)(find_candidates)
        results = ray.get([remote.remote(ref, rows) for rows in parts])
        return merge_findings(results, plan)  # independent of task completion order

    return finder
