"""Operator archive: which documents a person took out of answers, at any ``as_of``.

An archive or unarchive is a LIFECYCLE event (``detail``: ``from``, ``to``, ``reason`` and
``operator: true``) written by :meth:`SmartVector.archive` / :meth:`SmartVector.unarchive`; the
``lifecycle`` field follows it. Nothing is deleted. A document is *archived by an operator at
``as_of``* when its latest operator LIFECYCLE event at or before ``as_of`` moved it to ARCHIVED:
so "what did we answer on 1 March?" still sees a document archived later. Supersession's own
ARCHIVED moves (consolidation) carry no ``operator`` mark: a superseded version keeps its place
in time travel and in the rejection log (``SUPERSEDED_IN_CHAIN``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..models import EventType, Lifecycle, event_detail

OPERATOR_MARK = "operator"   # the detail key that tells a person's move from a planner's


@dataclass(frozen=True)
class ArchiveMark:
    """The operator archive in force for one document: when, by whom, why."""

    doc_id: str
    at_us: int
    actor: str
    reason: str


def operator_moves(events: pd.DataFrame) -> pd.DataFrame:
    """The operator LIFECYCLE events of an events frame (columns as in ``KnowledgeState.events``),
    oldest first, with ``to`` and ``reason`` read from their details."""
    if not len(events):
        return pd.DataFrame(columns=["doc_id", "at_us", "actor", "to", "reason"])
    lifecycle = events[events["event_type"].to_numpy(dtype=object) == EventType.LIFECYCLE.value]
    marked = lifecycle[lifecycle["detail"].astype(str).str.contains(f'"{OPERATOR_MARK}": true', regex=False)]
    details = [event_detail(d) for d in marked["detail"]]
    out = pd.DataFrame({"doc_id": marked["doc_id"].to_numpy(dtype=object),
                        "at_us": marked["at_us"].to_numpy(dtype=np.int64),
                        "actor": marked["actor"].to_numpy(dtype=object),
                        "to": [str(d.get("to", "")) for d in details],
                        "reason": [str(d.get("reason", "")) for d in details]})
    return out.sort_values("at_us", kind="stable", ignore_index=True)


def archived_at(moves: pd.DataFrame, as_of_us: int) -> dict[str, ArchiveMark]:
    """doc_id -> :class:`ArchiveMark` for every document whose latest operator move at or before
    ``as_of_us`` is to ARCHIVED (``moves``: :func:`operator_moves`; ties in time: the
    later-written event wins)."""
    moves = moves[moves["at_us"] <= int(as_of_us)]
    if not len(moves):
        return {}
    moves = moves.sort_values("at_us", kind="stable")
    latest = moves.groupby("doc_id", sort=False).tail(1)
    latest = latest[latest["to"] == Lifecycle.ARCHIVED.value]
    return {d: ArchiveMark(d, int(t), str(a), str(r))
            for d, t, a, r in zip(latest["doc_id"], latest["at_us"], latest["actor"], latest["reason"], strict=True)}
