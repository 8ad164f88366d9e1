"""What the planners of a consolidation run return, and the run's report (its configuration:
:mod:`smartvector_core.config.consolidation`).

Each planner is a pure function of arrays (:class:`~.documents.Documents`) that returns plain
records: :class:`Edge` (an inferred edge to upsert) and :class:`Event` (an event to append).
Only :mod:`.runner` writes them. Event ids are derived from what an event records
(:func:`stable_id`), so writing the same plan twice writes nothing new.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ..models import EdgeType, EventType
from ..store import edge_id


def stable_id(*parts: str) -> str:
    """A deterministic event id for what an event records (idempotent rewrites)."""
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=12).hexdigest()


@dataclass(frozen=True)
class Edge:
    """An inferred edge: ``src`` ``edge_type`` ``dst``, with its evidence."""

    src: str
    dst: str
    edge_type: EdgeType
    evidence: str
    status: str = ""

    @property
    def edge_id(self) -> str:
        return edge_id(self.src, self.edge_type.value, self.dst)

    def row(self, now: datetime) -> dict[str, Any]:
        return {"edge_id": self.edge_id, "src": self.src, "dst": self.dst, "edge_type": self.edge_type.value,
                "origin": "inferred", "evidence": self.evidence, "status": self.status, "created_at": now}


@dataclass(frozen=True)
class Event:
    """An event of the run (CONTRADICTION, RIPPLE, LIFECYCLE) with its stable id."""

    event_id: str
    doc_id: str
    event_type: EventType
    detail: dict
    delta: float = 0.0

    def row(self, now: datetime, *, actor: str = "consolidation", query_id: str = "") -> dict[str, Any]:
        out = {"event_id": self.event_id, "doc_id": self.doc_id, "event_type": self.event_type.value, "at": now,
               "actor": actor, "detail": self.detail}
        if self.event_type == EventType.LIFECYCLE:
            out["query_id"] = query_id
        else:
            out["delta"] = self.delta
        return out


@dataclass
class ConsolidationReport:
    supersessions: int = 0      # documents newly superseded (explicit or implicit)
    contradictions: int = 0     # new CONTRADICTS edges (review queue)
    dependencies: int = 0       # new inferred DEPENDS_ON edges + declared ones of newly consolidated docs
    archived: int = 0
    dormant: int = 0
    activated: int = 0          # moves to ACTIVE (consolidated or woken)
    inferred_supersedes: int = 0
    inferred_depends_on: int = 0
    rippled: int = 0            # RIPPLE events written
    examined_pairs: int = 0     # distinct document pairs looked at
    query_documents: int = 0
    documents: int = 0
    chunks: int = 0
    full: bool = False
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["seconds"] = round(self.seconds, 4)
        out["timings"] = {k: round(v, 4) for k, v in self.timings.items()}
        return out
