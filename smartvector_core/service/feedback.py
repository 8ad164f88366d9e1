"""Feedback: verdicts, their undo, ripple, trust at a moment.

A part of :class:`smartvector_core.service.SmartVector`, over its :class:`.core.ServiceContext`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from ..clock import from_us, iso, to_us
from ..config import DEFAULT_CONFIDENCE
from ..errors import InputError
from ..ingest.validate import clean_id
from ..models import EventType, event_detail, verdict_key, without_undone
from .core import QueryLog, ServiceContext, ServicePart


def _feedback_keys(doc_id: str, query_id: str, actor: str) -> tuple[str, str, str]:
    """The document id, query id and actor of a verdict, each by :func:`clean_id` (NFC, no
    control characters; an empty query id stays empty)."""
    return (clean_id(doc_id, field="id"), clean_id(query_id, field="query_id", max_chars=200) if query_id else "",
            clean_id(actor, field="actor", max_chars=200))


class FeedbackService(ServicePart):
    """Operators' verdicts, their undo, the ripple of a correction, trust at a moment; ``log``
    is written before trust is read."""

    def __init__(self, ctx: ServiceContext, log: QueryLog) -> None:
        super().__init__(ctx)
        self.log = log

    # ---------------------------------------------------------------------------- feedback
    def feedback(self, doc_id: str, verdict: str, *, now: datetime, query_id: str = "",
                 actor: str = "operator") -> dict[str, Any]:
        """Record accept/correct on a document version; a correction ripples to its dependents.

        Atomic across processes: the standing verdict, the "before" value, the write and the
        "after" value are read and written under the store's write lock, so concurrent feedback
        commands each report the change their own event made (docs/RELIABILITY.md). The log is
        held first (:meth:`QueryLog.held`: the lock order every writer keeps).
        """
        doc_id, query_id, actor = _feedback_keys(doc_id, query_id, actor)
        with self.log.held(), self.store.write_lock():
            return self._record_feedback(doc_id, verdict, now=now, query_id=query_id, actor=actor)

    def _record_feedback(self, doc_id: str, verdict: str, *, now: datetime, query_id: str = "",
                         actor: str = "operator") -> dict[str, Any]:
        """:meth:`feedback`, with the locks held."""
        verdict = str(verdict).strip().lower()
        if verdict not in ("accept", "correct"):
            raise InputError(f"expected accept or correct, found {verdict!r}", field="verdict")
        if not self.store.chunks_for_docs([doc_id]).num_rows:
            raise InputError(f"no document with id {doc_id!r} in the store", field="id")
        before = self.trust_of([doc_id], as_of=now)[doc_id]
        standing = self.standing_by_document(query_id, actor, [doc_id]).get(doc_id)
        if standing is not None and standing["verdict"] == verdict:   # idempotent per (query, document, actor)
            return {"id": doc_id, "verdict": verdict, "trust_before": before, "trust_after": before,
                    "rippled": [], "query_id": query_id, "recorded": False, "replaced": None}
        rows = self._undo_rows(doc_id, standing, now, query_id, actor) if standing else []   # a changed mind: undo, then record
        delta = DEFAULT_CONFIDENCE.accept_delta if verdict == "accept" else DEFAULT_CONFIDENCE.correct_delta
        etype = EventType.FEEDBACK_ACCEPT if verdict == "accept" else EventType.FEEDBACK_CORRECT
        event_id = os.urandom(12).hex()
        rows += [{"event_id": event_id, "doc_id": doc_id, "event_type": etype.value, "at": now, "delta": delta,
                  "query_id": query_id, "actor": actor, "detail": {"verdict": verdict, "event_id": event_id}}]
        ripple = self.ripple_preview(doc_id, as_of=now) if verdict == "correct" else []
        rows += [{"doc_id": step["doc_id"], "event_type": EventType.RIPPLE.value, "at": now,
                  "delta": -step["penalty"], "query_id": query_id, "actor": actor,
                  "detail": {"source": doc_id, "hop": step["hop"], "via": step["via"], "verdict_event": event_id}}
                 for step in ripple]
        self.knowledge.record_events(rows)
        self.store.crash_point("feedback:after:events")   # test hook: a re-run is idempotent
        after = self.trust_of([doc_id], as_of=now)[doc_id]
        return {"id": doc_id, "verdict": verdict, "trust_before": before, "trust_after": after,
                "rippled": ripple, "query_id": query_id, "recorded": True,
                "replaced": standing["verdict"] if standing else None}

    # Feedback is idempotent per (query id, document, actor): the same verdict again writes nothing,
    # the other verdict first undoes the standing one. An undo is an appended FEEDBACK_UNDO event whose
    # delta is minus what the verdict added (and one per rippled document, +|penalty|): the history keeps
    # every verdict, and the confidence at any moment in between is reproduced as it was.
    def feedback_undo(self, doc_id: str, *, now: datetime, query_id: str = "",
                      actor: str = "operator") -> dict[str, Any]:
        """Reverse the verdict that (``query_id``, ``doc_id``, ``actor``) holds now; never deletes."""
        doc_id, query_id, actor = _feedback_keys(doc_id, query_id, actor)
        if not self.store.chunks_for_docs([doc_id]).num_rows:
            raise InputError(f"no document with id {doc_id!r} in the store", field="id")
        standing = self.standing_by_document(query_id, actor, [doc_id]).get(doc_id)
        if standing is None:
            raise InputError(f"no verdict of {actor!r} on {doc_id!r} for query {query_id!r} to undo", field="id")
        before = self.trust_of([doc_id], as_of=now)[doc_id]
        rows = self._undo_rows(doc_id, standing, now, query_id, actor)
        self.knowledge.record_events(rows)
        after = self.trust_of([doc_id], as_of=now)[doc_id]
        return {"id": doc_id, "undone": standing["verdict"], "trust_before": before,
                "trust_after": after, "ripple_reversed": len(rows) - 1, "query_id": query_id}

    def verdict_history(self, doc_id: str, actor: str = "operator") -> list[dict[str, Any]]:
        """Every verdict ``actor`` holds now on ``doc_id``, one per query (the query id, ``verdict``,
        ``at`` ISO), newest first: what an undo of an earlier question names."""
        events = self.knowledge.get().events
        if not len(events):
            return []
        mine = events[(events["doc_id"] == doc_id) & (events["actor"].fillna("") == actor)
                      & events["event_type"].isin([EventType.FEEDBACK_ACCEPT.value, EventType.FEEDBACK_CORRECT.value])]
        out = []
        for query_id in dict.fromkeys(mine["query_id"].fillna("")):
            standing = self.standing_by_document(query_id, actor, [doc_id]).get(doc_id)
            if standing:
                out.append({"query_id": query_id, "verdict": standing["verdict"], "at_us": standing["at_us"]})
        out.sort(key=lambda v: v["at_us"], reverse=True)
        return [{"query_id": v["query_id"], "verdict": v["verdict"], "at": iso(from_us(v["at_us"]))} for v in out]

    def standing_verdicts(self, query_id: str, actor: str = "operator") -> dict[str, str]:
        """doc id -> "accept" / "correct": the verdicts ``actor`` holds now on ``query_id``'s answers."""
        return {d: v["verdict"] for d, v in self.standing_by_document(query_id, actor).items()}

    def standing_by_document(self, query_id: str, actor: str,
                           doc_ids: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        """Per document, the latest accept/correct event of (query_id, actor) that no FEEDBACK_UNDO
        reversed: ``{"verdict", "event_id", "delta", "at_us"}`` (from the cached event frame). No
        settling: verdicts are written at once; only query-log and ACCESS rows wait in the buffer."""
        events = self.knowledge.get().events
        if not len(events):
            return {}
        kinds = {EventType.FEEDBACK_ACCEPT.value: "accept", EventType.FEEDBACK_CORRECT.value: "correct"}
        mask = ((events["query_id"].fillna("") == query_id) & (events["actor"].fillna("") == actor)
                & events["event_type"].isin([*kinds, EventType.FEEDBACK_UNDO.value]))
        if doc_ids is not None:
            mask &= events["doc_id"].isin(list(doc_ids))
        mine = events[mask].sort_values("at_us", kind="stable")
        standing = without_undone(mine[mine["event_type"].isin(list(kinds))], mine)
        out = {}
        for row in standing.itertuples(index=False):   # oldest first: the latest one stays
            out[row.doc_id] = {"verdict": kinds[row.event_type], "event_id": verdict_key(row.detail, row.doc_id, row.at_us),
                               "delta": float(row.delta or 0.0), "at_us": int(row.at_us)}
        return out

    def _undo_rows(self, doc_id: str, standing: dict[str, Any], now: datetime, query_id: str,
                   actor: str) -> list[dict[str, Any]]:
        """FEEDBACK_UNDO rows reversing ``standing`` and the RIPPLE rows written with it."""
        events = self.knowledge.get().events
        ripple = events[(events["event_type"] == EventType.RIPPLE.value) & (events["at_us"] == standing["at_us"])
                        & (events["query_id"].fillna("") == query_id) & (events["actor"].fillna("") == actor)]
        rows = [{"doc_id": doc_id, "event_type": EventType.FEEDBACK_UNDO.value, "at": now,
                 "delta": -standing["delta"], "query_id": query_id, "actor": actor, "detail": {"undoes": standing["event_id"],
                                                                      "verdict": standing["verdict"]}}]
        for row in ripple.itertuples(index=False):
            detail = event_detail(row.detail)
            if detail.get("verdict_event", standing["event_id"]) == standing["event_id"] \
                    and detail.get("source") == doc_id:
                rows.append({"doc_id": row.doc_id, "event_type": EventType.FEEDBACK_UNDO.value, "at": now,
                             "delta": abs(float(row.delta or 0.0)), "query_id": query_id, "actor": actor,
                             "detail": {"undoes_ripple_of": standing["event_id"], "source": doc_id}})
        return rows

    def ripple_preview(self, doc_id: str, *, as_of: datetime | None = None) -> list[dict[str, Any]]:
        """The documents a correction of ``doc_id`` at ``as_of`` would reach, with hop and penalty:
        the rule consolidation's ripple follows (the service's ``EngineConfig.consolidation.ripple``;
        dependents that are not live then, superseded or ARCHIVED, are neither hit nor traversed:
        :meth:`KnowledgeState.not_live`; ``as_of`` None: every scheduled successor counted)."""
        state = self.knowledge.get()
        graph = state.graph
        if doc_id not in graph.doc_ids:
            return []
        ripple = self.config.consolidation.ripple
        exclude = state.not_live(None if as_of is None else to_us(as_of)) - {doc_id}
        return [{"doc_id": s.doc_id, "hop": s.hop, "penalty": s.penalty, "via": s.via}
                for s in graph.ripple_plan(doc_id, ripple.penalty, ripple.hop_decay, ripple.max_hops,
                                           exclude=exclude)]

    def trust_of(self, doc_ids: Sequence[str], *, as_of: datetime) -> dict[str, float]:
        """Trust at ``as_of`` of each document: the value every result's ``trust`` shows
        (:meth:`KnowledgeState.trust`, DESIGN.md "Trust model")."""
        return self.trust_at(doc_ids, [to_us(as_of)])[0]

    def trust_at(self, doc_ids: Sequence[str], times_us: Sequence[int]) -> list[dict[str, float]]:
        """Trust of ``doc_ids`` at each moment of ``times_us`` (documents read once)."""
        self.log.settle()
        state = self.knowledge.get()
        docs = state.docs if state.docs is not None else self.store.documents()
        frame = docs.select(["doc_id", "authority"]).to_pandas().set_index("doc_id") if docs.num_rows \
            else pd.DataFrame()
        unique = list(dict.fromkeys(doc_ids))
        ids = [d for d, known in zip(unique, pd.Index(unique, dtype=object).isin(frame.index), strict=True) if known]
        if not ids:
            return [{} for _ in times_us]
        authority = frame.loc[ids, "authority"].to_numpy(float)
        id_array = np.asarray(ids, dtype=object)
        out = []
        for t in times_us:
            values = state.trust(id_array, authority, int(t))
            out.append(dict(zip(ids, map(float, values), strict=True)))
        return out
