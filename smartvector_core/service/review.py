"""The review queue: open contradictions, both sides of one, its resolution and the undo of that.

A part of :class:`smartvector_core.service.SmartVector`, over its :class:`.core.ServiceContext`.

A resolution settles the pair (CONTRADICTION_SETTLED reverses its penalty) and records REVIEW
events on both sides. ``keep_src`` / ``keep_dst`` correct the other side; accepting the kept one is
a separate choice (``confirm_kept``), never implied. The verdicts of a resolution carry the query
id ``review:<edge id>``, so :meth:`reopen_contradiction` undoes exactly them: the edge is open
again, its penalty applies again (a CONTRADICTION event of the settled amount) and the next
resolution settles it anew. Nothing is deleted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from ..clock import iso
from ..consolidation.contradictions import settlement_events
from ..errors import InputError
from ..models import EdgeType, EventType, event_detail
from ..store import edge_id as make_edge_id
from .core import ServiceContext, ServicePart
from .feedback import FeedbackService
from .frames import FramesService
from .ingest import IngestService

REOPENED = "reopened"   # the REVIEW event's resolution when an operator undoes one
UNDOABLE = ("keep_both", "keep_src", "keep_dst")   # a supersession is undone by restore, not here


def review_query_id(edge_id: str) -> str:
    """The query id a resolution's verdicts carry (what :meth:`reopen_contradiction` undoes)."""
    return f"review:{edge_id}"


class ReviewService(ServicePart):
    """The review queue's contradictions: both sides, resolution, reopening. A resolution
    records verdicts through ``feedback_service`` and consolidates through ``ingest_service``;
    the edges and documents come from ``frames_service``."""

    RESOLUTIONS = ("keep_both", "keep_src", "keep_dst", "supersede_dst", "supersede_src")

    def __init__(self, ctx: ServiceContext, frames_service: FramesService, feedback_service: FeedbackService,
                 ingest_service: IngestService) -> None:
        super().__init__(ctx)
        self.frames_service = frames_service
        self.feedback_service = feedback_service
        self.ingest_service = ingest_service

    def _contradiction(self, edge_id: str) -> dict[str, Any]:
        edges = self.frames_service.edges_frame()
        match = edges[(edges["edge_id"] == edge_id) & (edges["edge_type"] == EdgeType.CONTRADICTS.value)] \
            if len(edges) else edges
        if not len(match):
            raise InputError(f"no contradiction with edge id {edge_id!r}", field="edge_id")
        return match.iloc[0].to_dict()

    def contradiction_sides(self, edge_id: str, *, as_of: datetime) -> list[dict[str, Any]]:
        """Both sides of a contradiction, first ``src`` then ``dst``: id, title, full text, source,
        trust at ``as_of``, created and valid-from dates (ISO or None), doc type, lifecycle."""
        edge = self._contradiction(edge_id)
        ids = [edge["src"], edge["dst"]]
        docs = self.frames_service.documents_frame(as_of=as_of).set_index("id")
        chunks = self.store.chunks_for_docs(ids).to_pandas().sort_values(["doc_id", "ordinal"])
        texts = chunks.groupby("doc_id")["text"].apply(lambda t: "\n".join(t)).to_dict()

        def when(value) -> str | None:
            return None if value is None or pd.isna(value) else iso(pd.Timestamp(value).to_pydatetime())

        out = []
        for d in ids:
            row = docs.loc[d] if d in docs.index else pd.Series(dtype=object)
            out.append({"id": d, "title": str(row.get("title") or ""), "text": texts.get(d, ""),
                        "source": str(row.get("source") or ""), "trust": float(row.get("trust", np.nan)),
                        "created_at": when(row.get("created_at")), "valid_from": when(row.get("valid_from")),
                        "doc_type": str(row.get("doc_type") or ""), "lifecycle": str(row.get("lifecycle") or "")})
        return out

    def resolve_contradiction(self, edge_id: str, resolution: str, *, now: datetime, actor: str = "operator",
                              confirm_kept: bool = False) -> dict[str, Any]:
        """Close a CONTRADICTS edge of the review queue.

        Every resolution settles the pair: the contradiction penalty is reversed by an appended
        CONTRADICTION_SETTLED event (DESIGN.md "Trust model"; nothing is deleted). Then
        ``keep_both``: both stand; ``keep_src`` / ``keep_dst``: the other side is corrected (which
        ripples to its dependents), and the kept side accepted only with ``confirm_kept``;
        ``supersede_dst`` / ``supersede_src``: a SUPERSEDES edge (origin "review") from the kept
        side, then consolidation archives the other. The edge's status becomes
        ``resolved:<resolution>``; REVIEW events on both sides.
        """
        resolution = str(resolution).strip().lower()
        if resolution not in self.RESOLUTIONS:
            raise InputError(f"expected one of {', '.join(self.RESOLUTIONS)}, found {resolution!r}",
                             field="resolution")
        edge = self._contradiction(edge_id)
        src, dst = edge["src"], edge["dst"]
        self._set_status(edge, f"resolved:{resolution}")
        self.knowledge.record_events([
            {"doc_id": me, "event_type": EventType.REVIEW.value, "at": now, "actor": actor,
             "detail": {"edge_id": edge_id, "resolution": resolution, "other": other, "confirm_kept": confirm_kept}}
            for me, other in ((src, dst), (dst, src))])
        events = self.knowledge.get().events
        generation = self._reopenings(events, edge_id)
        settled = [e.row(now, actor=actor) for e in settlement_events(edge_id, events, f"resolved:{resolution}")]
        for row in settled:   # settled anew after each reopening
            row["event_id"] = f"{row['event_id']}:{generation}" if generation else row["event_id"]
        have = self.store.existing_event_ids([r["event_id"] for r in settled]) if settled else set()
        self.knowledge.record_events([r for r in settled if r["event_id"] not in have])
        out: dict[str, Any] = {"edge_id": edge_id, "resolution": resolution, "src": src, "dst": dst}
        if resolution in ("keep_src", "keep_dst"):
            kept, wrong = (src, dst) if resolution == "keep_src" else (dst, src)
            out["corrected"] = self.feedback_service.feedback(wrong, "correct", now=now, actor=actor, query_id=review_query_id(edge_id))
            if confirm_kept:
                out["accepted"] = self.feedback_service.feedback(kept, "accept", now=now, actor=actor, query_id=review_query_id(edge_id))
        elif resolution.startswith("supersede"):
            newer, older = (src, dst) if resolution == "supersede_dst" else (dst, src)
            self.store.upsert_edges([{"edge_id": make_edge_id(newer, EdgeType.SUPERSEDES.value, older),
                                      "src": newer, "dst": older, "edge_type": EdgeType.SUPERSEDES.value,
                                      "origin": "review", "evidence": f"review of contradiction {edge_id}",
                                      "status": "", "created_at": now}])
            out["consolidation"] = self.ingest_service.consolidate(now=now)
        return out

    def reopen_contradiction(self, edge_id: str, *, now: datetime, actor: str = "operator") -> dict[str, Any]:
        """Undo a ``keep_*`` resolution: the verdicts it recorded are undone (appended
        FEEDBACK_UNDO events), its settled penalty applies again, the edge is open again."""
        edge = self._contradiction(edge_id)
        status = str(edge.get("status") or "")
        resolution = status.removeprefix("resolved:")
        if not status.startswith("resolved:") or resolution not in UNDOABLE:
            raise InputError(f"expected a contradiction resolved by {', '.join(UNDOABLE)}, found status "
                             f"{status or 'open'!r} (a supersession is undone by restore)", field="edge_id")
        events = self.knowledge.get().events
        reviews = events[(events["event_type"] == EventType.REVIEW.value)
                         & events["detail"].astype(str).str.contains(edge_id, regex=False)]
        by = str(reviews.sort_values("at_us")["actor"].iloc[-1]) if len(reviews) else actor
        undone = []
        for doc_id in (edge["src"], edge["dst"]):
            if self.feedback_service.standing_by_document(review_query_id(edge_id), by, [doc_id]).get(doc_id):
                undone.append(self.feedback_service.feedback_undo(doc_id, now=now, query_id=review_query_id(edge_id), actor=by))
        settled = events[(events["event_type"] == EventType.CONTRADICTION_SETTLED.value)
                         & events["detail"].astype(str).str.contains(edge_id, regex=False)]
        latest = settled.sort_values("at_us").groupby("doc_id").tail(1)
        self.knowledge.record_events([
            {"doc_id": d, "event_type": EventType.CONTRADICTION.value, "at": now, "delta": -abs(float(delta)),
             "actor": actor, "detail": {"edge_id": edge_id, "reason": REOPENED}}
            for d, delta in zip(latest["doc_id"], latest["delta"].fillna(0.0), strict=True)] + [
            {"doc_id": me, "event_type": EventType.REVIEW.value, "at": now, "actor": actor,
             "detail": {"edge_id": edge_id, "resolution": REOPENED, "undoes": resolution, "other": other}}
            for me, other in ((edge["src"], edge["dst"]), (edge["dst"], edge["src"]))])
        self._set_status(edge, "open")
        return {"edge_id": edge_id, "reopened": resolution, "undone": undone, "at": iso(now)}

    def _set_status(self, edge: dict[str, Any], status: str) -> None:
        self.store.upsert_edges([{**{k: edge[k] for k in ("edge_id", "src", "dst", "edge_type", "origin",
                                                           "evidence", "created_at")}, "status": status}])

    @staticmethod
    def _reopenings(events: pd.DataFrame, edge_id: str) -> int:
        """How many times ``edge_id`` was reopened (REVIEW events of the ``src`` side, so once each)."""
        reviews = events[events["event_type"] == EventType.REVIEW.value]
        details = [event_detail(d) for d in reviews["detail"]]
        return sum(1 for d in details if d.get("edge_id") == edge_id and d.get("resolution") == REOPENED) // 2


