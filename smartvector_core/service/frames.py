"""Audit frames for the pages and the CLI: documents, freshness, events, edges, query log, rejections.

A part of :class:`smartvector_core.service.SmartVector`, over its :class:`.core.ServiceContext`."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from ..clock import from_us, to_us
from ..clock import iso as to_iso
from ..consolidation.contradictions import OPEN_STATUSES
from ..errors import InputError
from ..memory.chains import chain_members
from ..models import EdgeType
from ..temporal.codes import NO_END
from ..temporal.freshness import WRITE_EVENTS, freshness_report, last_confirmations, replacing_versions
from ..temporal.review import flag_for_review, most_urgent_first
from .core import QueryLog, ServiceContext, ServicePart
from .feedback import FeedbackService


class FramesService(ServicePart):
    """Audit frames: documents, version chains, freshness, events, edges, the review queue, the
    query log and its rejections, trust over time. ``log`` is written before each read; trust
    over time is ``feedback_service``'s."""

    def __init__(self, ctx: ServiceContext, log: QueryLog, feedback_service: FeedbackService) -> None:
        super().__init__(ctx)
        self.log = log
        self.feedback_service = feedback_service
        self._freshness_memo: tuple | None = None   # (table versions, as_of µs) -> the last freshness report

    def version_chain(self, doc_id: str) -> list[dict[str, Any]]:
        """Every version in ``doc_id``'s chain (SUPERSEDES edges), oldest -> newest."""
        docs = self.store.documents()
        frame = docs.to_pandas().set_index("doc_id") if docs.num_rows else pd.DataFrame()
        if doc_id not in frame.index:
            raise InputError(f"no document with id {doc_id!r} in the store", field="id")
        edges = self.knowledge.get().edges
        sup = edges[edges["edge_type"] == EdgeType.SUPERSEDES.value] if len(edges) else pd.DataFrame(
            columns=["src", "dst"])
        sup = sup[sup["src"].isin(frame.index) & sup["dst"].isin(frame.index)]
        position = pd.Index(frame.index)
        members = chain_members(doc_id, frame.index.to_numpy(dtype=object),
                                position.get_indexer(sup["src"]), position.get_indexer(sup["dst"]))
        pairs = list(zip(sup["src"], sup["dst"], strict=True))

        def when(value) -> str | None:
            return None if value is None or pd.isna(value) else to_iso(value.to_pydatetime())

        out = []
        for d in members:
            row = frame.loc[d]
            out.append({"id": d, "title": row["title"], "version": row["version"],
                        "created_at": when(row["created_at"]), "valid_from": when(row["valid_from"]),
                        "valid_until": when(row["valid_until"]), "superseded_at": when(row["superseded_at"]),
                        "lifecycle": row["lifecycle"], "kind": row["kind"],
                        "supersedes": sorted(b for a, b in pairs if a == d),
                        "superseded_by": sorted(a for a, b in pairs if b == d)})
        return sorted(out, key=lambda r: (r["created_at"] or "", r["id"]))

    # ------------------------------------------------------------------------------ frames
    def documents_frame(self, *, as_of: datetime) -> pd.DataFrame:
        """One row per document version with its ``trust`` at ``as_of`` (the same value as a
        result's ``trust``). The documents come from the knowledge state (read once per table
        version), not from a new store read."""
        self.log.settle()
        state = self.knowledge.get()
        docs = state.docs if state.docs is not None else self.store.documents()
        if not docs.num_rows:
            return pd.DataFrame(columns=["id", "title", "kind", "doc_type", "lifecycle", "trust"])
        frame = docs.to_pandas().rename(columns={"doc_id": "id"}).drop(columns=["ordinal", "chunk_id"])
        # the frame holds each document's authority already: trust straight from the state
        # (trust_of would read the documents again and go through a dict per id)
        frame["trust"] = state.trust(frame["id"].to_numpy(dtype=object), frame["authority"].to_numpy(float),
                                     to_us(as_of))
        return frame

    def freshness(self, *, as_of: datetime) -> pd.DataFrame:
        """The freshness report at ``as_of``: one row per document version with its grade (review
        urgency) and advice (:func:`temporal.freshness.freshness_report`), its trust, open
        contradictions (the other sides' ids) and dependents (how many documents depend on it),
        flagged and ordered most urgent first (:mod:`temporal.review`). What ``freshness --json``
        prints and the Freshness page shows. Supersession comes from the knowledge index's version
        chains; the review clock from INGEST / UPDATE events and accepts not undone, up to ``as_of``.

        Kept for the last (table versions, ``as_of``) asked: a page shown again, or by another
        session at the same moment, costs no new report until a table changes (any write, an
        accept or an access event included). Callers get a shallow copy (copy-on-write)."""
        self.log.settle()
        key = (self.knowledge.versions(), to_us(as_of))
        memo = self._freshness_memo
        if memo is not None and memo[0] == key:
            return memo[1].copy(deep=False)
        report = self._freshness_report(as_of)
        self._freshness_memo = (key, report)
        return report.copy(deep=False)

    def _freshness_report(self, as_of: datetime) -> pd.DataFrame:
        docs = self.documents_frame(as_of=as_of)
        if not len(docs):
            return freshness_report(docs.assign(created_at=pd.NaT, dated=False, valid_from=pd.NaT,
                                                valid_until=pd.NaT), as_of)
        as_of_us = to_us(as_of)
        state = self.knowledge.get()
        index = state.doc_index()
        pos = index.lookup(docs["id"].to_numpy(dtype=object))
        known = pos >= 0
        at = np.maximum(pos, 0)
        chain = np.where(known, index.chain[at], -1 - np.arange(len(docs)))
        superseded_us = np.where(known, index.superseded_us[at], NO_END)
        effective = np.where(known, index.effective_us[at], NO_END)
        never = superseded_us == NO_END
        docs["superseded_at"] = pd.Series(pd.to_datetime(np.where(never, 0, superseded_us), unit="us", utc=True),
                                          index=docs.index).where(~never)
        docs["superseded_by"] = replacing_versions(docs["id"].to_numpy(dtype=object), chain, effective,
                                                   superseded_us, as_of_us)
        written = pd.to_datetime(_per_id(docs["id"], last_confirmations(state.events, as_of_us, WRITE_EVENTS)),
                                 unit="us", utc=True)
        docs["ingested_at"] = written.fillna(pd.to_datetime(docs["ingested_at"], utc=True))
        docs["confirmed_at"] = pd.to_datetime(_per_id(docs["id"], last_confirmations(state.events, as_of_us)),
                                              unit="us", utc=True)
        docs["open_contradictions"], docs["dependents"] = _relations_per_id(docs["id"], state.edges)
        return most_urgent_first(flag_for_review(freshness_report(docs, as_of)))

    def events_frame(self, doc_id: str | None = None) -> pd.DataFrame:
        self.log.settle()
        events = self.store.events([doc_id] if doc_id else None).to_pandas()
        return events.sort_values("at", ascending=False, ignore_index=True) if len(events) else events

    def edges_frame(self) -> pd.DataFrame:
        return self.store.edges().to_pandas()

    def review_queue(self) -> pd.DataFrame:
        """Open contradictions awaiting an operator's decision."""
        edges = self.edges_frame()
        if not len(edges):
            return edges
        mask = (edges["edge_type"] == EdgeType.CONTRADICTS.value) & (edges["status"].isin(list(OPEN_STATUSES)))
        return edges[mask].reset_index(drop=True)

    def query_log(self) -> pd.DataFrame:
        self.log.settle()
        log = self.store.queries().to_pandas()
        return log.sort_values("asked_at", ascending=False, ignore_index=True) if len(log) else log

    def rejections_frame(self) -> pd.DataFrame:
        """One row per rejection of every logged query: query_id, asked_at, id, code, reason.

        The rejected ids and their codes are the query log's ``rejection_ids`` /
        ``rejection_codes`` columns (written by :meth:`.core.QueryLog.log_query`); the logged response adds
        each rejection's reason (and chunk_id) at the same position."""
        self.log.settle()
        rows = []
        for rec in self.store.queries().to_pylist():
            details = json.loads(rec["response"] or "{}").get("rejections", [])
            ids, codes = rec["rejection_ids"] or [], rec["rejection_codes"] or []
            for i, (doc_id, code) in enumerate(zip(ids, codes, strict=True)):
                extra = details[i] if i < len(details) and details[i].get("id") == doc_id else {}
                rows.append({"query_id": rec["query_id"], "query": rec["query"], "profile": rec["profile"],
                             "asked_at": rec["asked_at"], "as_of": rec["as_of"], **extra,
                             "id": doc_id, "code": code, "reason": extra.get("reason", "")})
        return pd.DataFrame(rows, columns=["query_id", "query", "profile", "asked_at", "as_of", "id", "code",
                                           "reason"] if not rows else None)

    def trust_history(self, doc_id: str, *, until: datetime, points: int = 60) -> pd.DataFrame:
        """Trust of ``doc_id`` over time (columns ``at``, ``trust``), evaluated at its events and
        evenly in between."""
        self.log.settle()
        docs = self.store.chunks_for_docs([doc_id])
        if not docs.num_rows:
            raise InputError(f"no document with id {doc_id!r} in the store", field="id")
        start = to_us(docs.column("created_at")[0].as_py())
        end = to_us(until)
        events = self.knowledge.get().events
        times = set(np.linspace(start, max(start, end), points).astype(np.int64).tolist())
        times.update(int(t) for t in events.loc[events["doc_id"] == doc_id, "at_us"] if start <= t <= end)
        ordered = sorted(times)
        values = self.feedback_service.trust_at([doc_id], ordered)
        return pd.DataFrame({"at": [from_us(t) for t in ordered], "trust": [v[doc_id] for v in values]})


def _per_id(ids: pd.Series, values: dict) -> pd.Series:
    """``ids.map(values)`` (NaN where absent; an empty mapping gives float64, as ``map`` does) as
    one hash lookup: ``map`` walks an Arrow string column in Python, one ``dict.get`` a row."""
    mapper = pd.Series(values, dtype=None if values else np.float64)
    return pd.Series(mapper.reindex(ids.to_numpy(dtype=object)).to_numpy(), index=ids.index)


def _relations_per_id(ids: pd.Series, edges: pd.DataFrame) -> tuple[list[list[str]], np.ndarray]:
    """Per id: the other sides of its open CONTRADICTS edges (sorted ids), and how many
    documents depend on it (DEPENDS_ON edges into it)."""
    others: dict[str, set[str]] = {}
    dependents = pd.Series(dtype=np.int64)
    if len(edges):
        kind = edges["edge_type"].to_numpy(dtype=object)
        status = edges["status"].fillna("").to_numpy(dtype=object) if "status" in edges else np.full(len(edges), "")
        open_pairs = edges[(kind == EdgeType.CONTRADICTS.value) & np.isin(status, ("", "open"))]
        for a, b in zip(open_pairs["src"], open_pairs["dst"], strict=True):
            others.setdefault(a, set()).add(b)
            others.setdefault(b, set()).add(a)
        dependents = edges.loc[kind == EdgeType.DEPENDS_ON.value, "dst"].value_counts()
    keys = ids.to_numpy(dtype=object)
    counts = dependents.reindex(keys).fillna(0).to_numpy(dtype=np.int64)
    return [sorted(others.get(k, ())) for k in keys], counts
