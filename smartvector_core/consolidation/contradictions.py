"""Contradictions planner: which contradiction hits become review-queue edges and penalties.

The finder (:func:`~.neighbours.find_candidates`) runs the facts rule on neighbour pairs with
similarity >= ``contradiction_min_similarity`` (two point-in-time reports of different days are
never compared: they describe different moments). This planner applies what depends on this
run's supersessions: both documents live (not superseded, not archived) and not in one version
chain. Each remaining pair gives a CONTRADICTS edge with status "open" and its evidence (newer
side as ``src``; an existing edge either way is reused) and CONTRADICTION events of
``contradiction_delta``. A contradiction never archives or invalidates anything.
"""

from __future__ import annotations

import numpy as np

from ..models import EdgeType, EventType
from .documents import Documents
from .records import DEFAULT_CONSOLIDATION, ConsolidationConfig, Edge, Event, stable_id


def plan_contradictions(docs: Documents, hits: list[tuple[int, int, object]], chain: np.ndarray,
                        live: np.ndarray, known_edge_ids: set[str],
                        config: ConsolidationConfig = DEFAULT_CONSOLIDATION) -> tuple[list[Edge], list[Event]]:
    """(new CONTRADICTS edges, CONTRADICTION events) for ``hits``: (doc row x, doc row y, hit),
    one per document pair, where ``hit`` has ``kind``, ``evidence``, ``excerpt_a`` (x's side) and
    ``excerpt_b``. ``chain``: chain id per document after this run's supersessions; ``live``:
    neither superseded nor archived."""
    ids, created = docs.ids, docs.created_us
    edges: list[Edge] = []
    events: list[Event] = []
    seen = set(known_edge_ids)
    for x, y, hit in hits:
        if chain[x] == chain[y] or not (live[x] and live[y]):
            continue
        src, dst = (x, y) if (created[x], ids[x]) >= (created[y], ids[y]) else (y, x)
        evidence = f"{hit.kind}: {hit.evidence} | {ids[src]}: '{hit.excerpt_a if src == x else hit.excerpt_b}'" \
                   f" | {ids[dst]}: '{hit.excerpt_b if src == x else hit.excerpt_a}'"
        edge = Edge(ids[src], ids[dst], EdgeType.CONTRADICTS, evidence, status="open")
        eid = edge.edge_id
        reverse = Edge(ids[dst], ids[src], EdgeType.CONTRADICTS, "").edge_id
        if reverse in seen:
            eid = reverse
        elif eid not in seen:
            seen.add(eid)
            edges.append(edge)
        for me, other in penalised_sides(src, dst):
            events.append(Event(stable_id("contradiction", eid, ids[me]), ids[me], EventType.CONTRADICTION,
                                {"edge_id": eid, "other": ids[other], "evidence": hit.evidence, "kind": hit.kind},
                                delta=-abs(config.contradiction_delta)))
    return edges, events


def penalised_sides(src: int, dst: int) -> list[tuple[int, int]]:
    """(penalised row, other row) of a contradiction: both sides (issue 13 item 3 moves this to
    the less-trusted side only; the facts owner writes that rule here)."""
    return [(src, dst), (dst, src)]
