"""Ripple planner: who is hit when a document is newly superseded or was edited.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``, section 2.4
"RipplePropagator"): :meth:`~smartvector_core.memory.KnowledgeGraph.ripple_plan` lowers the
dependents of each trigger (bounded BFS along depended_by edges, a decaying penalty per hop),
each dependent at most once per trigger, archived documents skipped. Event ids are derived from
(trigger, dependent), so a trigger ripples once however often the run is repeated.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import pandas as pd

from ..config.consolidation import DEFAULT_CONSOLIDATION, ConsolidationConfig
from ..memory import KnowledgeGraph
from ..models import EdgeType, EventType
from .records import Event, stable_id


def ripple_graph(edges: pd.DataFrame, known: Collection[str]) -> KnowledgeGraph:
    """The DEPENDS_ON graph (the only edges a ripple follows) over the ``known`` documents that
    have such an edge in ``edges`` (columns ``src``, ``dst``, ``edge_type``)."""
    if not len(edges):
        edges = pd.DataFrame(columns=["src", "dst", "edge_type"])
    kinds = {t: EdgeType.parse(t, field_name="edge_type") for t in edges["edge_type"].unique()}
    depends = edges["edge_type"].map(kinds).to_numpy(dtype=object) == EdgeType.DEPENDS_ON
    # object columns: pandas' isin of Arrow strings against a large set is ~25x slower
    inside = edges["src"].astype(object).isin(known) & edges["dst"].astype(object).isin(known)
    edges = edges[depends & inside.to_numpy(dtype=bool)]
    return KnowledgeGraph.from_edges(edges, sorted(set(edges["src"]) | set(edges["dst"])))


def plan_ripple(triggers: Iterable[tuple[str, str, str]], graph: KnowledgeGraph, archived: Collection[str],
                config: ConsolidationConfig = DEFAULT_CONSOLIDATION) -> list[Event]:
    """RIPPLE events for ``triggers``: (trigger key, source doc id, reason: "superseded" or
    "edited"). ``archived``: documents neither hit nor traversed."""
    out: list[Event] = []
    for trigger, source, why in triggers:
        if source not in graph.graphs[EdgeType.DEPENDS_ON]:
            continue
        for step in graph.ripple_plan(source, config.ripple.penalty, config.ripple.hop_decay,
                                      config.ripple.max_hops, exclude=archived):
            out.append(Event(stable_id("ripple", trigger, step.doc_id), step.doc_id, EventType.RIPPLE,
                             {"source": source, "reason": why, "hop": step.hop, "via": step.via, "review": True},
                             delta=-step.penalty))
    return out
