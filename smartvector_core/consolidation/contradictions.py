"""Contradictions planner: which contradiction hits become review-queue edges and penalties, and
which queued ones a supersession has settled.

The finder (:func:`~.neighbours.find_candidates`) runs the facts rule
(:func:`smartvector_core.facts.contradictions_between`: same subject, disagreement after unit
normalisation or in polarity) on neighbour pairs with similarity >= ``contradiction_min_similarity``
(two point-in-time reports of different days are never compared: they describe different
moments). This planner applies the *same time* part of DESIGN.md "Trust model": both documents
live (not superseded, not archived), not in one version chain, and validity windows that overlap
(:func:`~smartvector_core.facts.rules.concurrent`, window = effective start to ``until_us``: the
runner passes each document's ``valid_until``, ``superseded_at`` when none is given; a superseded
document is not live, so it is never compared). Each remaining pair gives a CONTRADICTS edge with status
"open" and its evidence (newer side as ``src``; an existing edge either way is reused) and one
CONTRADICTION event of ``contradiction_delta`` on the **less trusted side only**
(:func:`~smartvector_core.facts.rules.less_trusted_side`: trust lower by >= ``TRUST_MARGIN``;
sides of about equal trust are left to the operator). A contradiction never archives or
invalidates anything.

:func:`plan_settlements`: an open CONTRADICTS edge whose sides are now one version chain, or one
of which is superseded or archived, is settled: its status becomes ``settled:superseded`` and
each CONTRADICTION penalty of the edge is reversed by an appended CONTRADICTION_SETTLED event
(+|delta|; nothing is deleted). An operator's resolution settles a pair the same way
(:func:`settlement_events`, called by ``SmartVector.resolve_contradiction``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..config.consolidation import DEFAULT_CONSOLIDATION, ConsolidationConfig
from ..facts.rules import NEITHER, concurrent, less_trusted_side
from ..models import EdgeType, EventType, event_detail
from .documents import Documents
from .records import Edge, Event, stable_id

OPEN_STATUSES = ("", "open")   # a CONTRADICTS edge awaiting review (the review queue); else resolved:* or settled:*


def plan_contradictions(docs: Documents, hits: list[tuple[int, int, object]], chain: np.ndarray,
                        live: np.ndarray, known_edge_ids: set[str],
                        config: ConsolidationConfig = DEFAULT_CONSOLIDATION, *, trust: np.ndarray | None = None,
                        until_us: np.ndarray | None = None) -> tuple[list[Edge], list[Event]]:
    """(new CONTRADICTS edges, CONTRADICTION events) for ``hits``: (doc row x, doc row y, hit),
    one per document pair, where ``hit`` has ``kind``, ``evidence``, ``excerpt_a`` (x's side) and
    ``excerpt_b``. ``chain``: chain id per document after this run's supersessions; ``live``:
    neither superseded nor archived; ``trust``: each document's trust before this run (None: its
    authority); ``until_us``: end of each document's validity (None: ``superseded_us``)."""
    ids, created = docs.ids, docs.created_us
    trust = docs.authority if trust is None else np.asarray(trust, dtype=np.float64)
    until = docs.superseded_us if until_us is None else np.asarray(until_us)
    edges: list[Edge] = []
    events: list[Event] = []
    seen = set(known_edge_ids)
    for x, y, hit in hits:
        if chain[x] == chain[y] or not (live[x] and live[y]) \
                or not concurrent(docs.effective_us[x], until[x], docs.effective_us[y], until[y]):
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
        for me, other in penalised_sides(src, dst, trust):
            events.append(Event(stable_id("contradiction", eid, ids[me]), ids[me], EventType.CONTRADICTION,
                                {"edge_id": eid, "other": ids[other], "evidence": hit.evidence, "kind": hit.kind},
                                delta=-abs(config.contradiction_delta)))
    return edges, events


def contradiction_twin(row: dict) -> str:
    """The event id that the penalty of the same CONTRADICTS edge would carry on its other side.
    Which side is less trusted can change between two runs that read the store at different
    moments; one edge penalises one side at most, so a run that finds either id stored writes
    none (exactly-once audit beside a concurrent run)."""
    detail = event_detail(row["detail"])
    return stable_id("contradiction", str(detail.get("edge_id", "")), str(detail.get("other", "")))


def penalised_sides(src: int, dst: int, trust: np.ndarray) -> list[tuple[int, int]]:
    """(penalised row, other row) of a contradiction: the less trusted side only, none when the
    two are within ``TRUST_MARGIN`` of each other (DESIGN.md "Trust model")."""
    side = int(less_trusted_side(trust[src], trust[dst]))
    if side == NEITHER:
        return []
    return [(src, dst)] if side == 0 else [(dst, src)]


def settlement_events(edge_id: str, events: pd.DataFrame, reason: str) -> list[Event]:
    """CONTRADICTION_SETTLED events that reverse each CONTRADICTION penalty of ``edge_id`` in
    ``events`` (columns ``doc_id``, ``event_type``, ``delta``, ``detail``): +|delta| on the
    penalised document, id derived from (edge, document), so settling twice writes nothing new."""
    return _settled(edge_id, _penalties_by_edge(events, {edge_id}).get(edge_id, []), reason)


def _settled(edge_id: str, penalties: list[tuple[str, float]], reason: str) -> list[Event]:
    """:func:`settlement_events` from the edge's penalties ((document, delta), in event order):
    one event per penalised document, its first penalty's delta."""
    out = {}
    for doc_id, delta in penalties:
        if doc_id not in out:
            out[doc_id] = Event(stable_id("contradiction-settled", edge_id, doc_id), doc_id,
                                EventType.CONTRADICTION_SETTLED, {"edge_id": edge_id, "reason": reason},
                                delta=abs(float(np.nan_to_num(delta))))
    return list(out.values())


def plan_settlements(docs: Documents, edges: pd.DataFrame, events: pd.DataFrame, chain: np.ndarray,
                     live: np.ndarray) -> tuple[list[dict], list[Event]]:
    """(edge rows with status ``settled:superseded``, CONTRADICTION_SETTLED events) for the open
    CONTRADICTS edges whose pair a supersession settled: one version chain now, or a side
    superseded or archived (not ``live``). Edge rows keep every stored field but the status."""
    if edges is None or not len(edges):
        return [], []
    open_ = edges[(edges["edge_type"] == EdgeType.CONTRADICTS.value) & edges["status"].fillna("").isin(OPEN_STATUSES)]
    if not len(open_):
        return [], []
    x, y = docs.position.get_indexer(open_["src"]), docs.position.get_indexer(open_["dst"])
    known = (x >= 0) & (y >= 0)
    x, y = np.where(known, x, 0), np.where(known, y, 0)
    settled = open_[known & ~((chain[x] != chain[y]) & live[x] & live[y])]
    penalties = _penalties_by_edge(events, set(settled["edge_id"]))
    rows, out = [], []
    for edge in settled.to_dict("records"):
        rows.append({**edge, "status": "settled:superseded"})
        out += _settled(edge["edge_id"], penalties.get(edge["edge_id"], []), "superseded")
    return rows, out


def _penalties_by_edge(events: pd.DataFrame, edge_ids: set[str]) -> dict[str, list[tuple[str, float]]]:
    """The CONTRADICTION penalties ((document, delta), in event order) of each of ``edge_ids``:
    one pass over the events, not one per settled edge."""
    if events is None or not len(events) or not edge_ids:
        return {}
    mine = events[events["event_type"] == EventType.CONTRADICTION.value]
    at: dict[str, list[tuple[str, float]]] = {}
    for doc_id, delta, detail in zip(mine["doc_id"], mine["delta"], mine["detail"], strict=True):
        edge_id = event_detail(detail).get("edge_id")
        if edge_id in edge_ids:
            at.setdefault(edge_id, []).append((doc_id, delta))
    return at
