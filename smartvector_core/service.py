"""The service layer: what the CLI and the dashboard pages call. No Streamlit here.

:class:`SmartVector` owns one store and one embedder. Every method that depends on time takes
``as_of`` / ``now`` explicitly; the callers (CLI, pages) read the clock.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .clock import from_us, parse_time, to_us
from .clock import iso as to_iso
from .config import DEFAULT_CONFIDENCE
from .consolidation import DEFAULT_CONSOLIDATION, wake_accessed
from .consolidation import consolidate as run_consolidation
from .consolidation.contradictions import settlement_events
from .embedding import check_encoder
from .errors import InputError, OperatorTokenError
from .ingest import IngestReport, ingest_documents, read_records, validate_records
from .ingest.parse import _decode, _read_bytes, parse_jsonl
from .ingest.pipeline import prepare_documents
from .ingest.validate import record_warnings
from .knowledge import KnowledgeCache
from .memory.chains import chain_members
from .models import EdgeType, EventType, QueryResponse, event_detail, verdict_key
from .retrieval import QueryRequest, get_profile, run_query
from .retrieval.calibration import expected_calibration_error, refit_knots, reliability_bins
from .retrieval.candidates import PASSAGES_PER_DOCUMENT
from .settings import DEMO_CORPUS, Settings, load_settings, token_allows
from .store import Store
from .store import edge_id as make_edge_id
from .temporal.codes import NO_END
from .temporal.freshness import WRITE_EVENTS, freshness_report, last_confirmations, replacing_versions


@dataclass
class QuerySpec:
    """One line of a queries file (CONTRACT.md)."""

    id: str
    text: str
    as_of: datetime
    relevant: list[str]
    stale: list[str]
    extra: dict[str, Any]


QUERY_FIELDS = {"id", "text", "as_of", "relevant", "stale"}
PRE_INGEST_TAG = "pre-ingest"  # rolling tag: the store as it was before the latest bulk ingest
PRE_INGEST_TAG_MIN_DOCS = 50  # an ingest call of at least this many documents is "bulk"
RESTORE_DETAIL_IDS = 1_000  # a RESTORE event lists at most this many removed / returned ids
MAX_K = 1_000  # the most results one query may ask for (the candidate pool is 12·k)
RETENTION_DAYS = 7.0  # maintain(): versions older than this are cleaned up (tagged ones kept)
MAX_RETENTION_DAYS = 36_500  # a century: larger ages overflow a timedelta (and keep everything anyway)


def read_queries(path: str | Path, *, now: datetime, warn: Callable[[str], None] | None = None) -> list[QuerySpec]:
    """Read a queries JSONL file; unknown fields are kept in ``extra`` (with one warning)."""
    path = Path(path)
    text = _decode(_read_bytes(path, 50 * 1024 * 1024), str(path))
    specs: list[QuerySpec] = []
    seen: set[str] = set()
    unknown: set[str] = set()
    for record in parse_jsonl(text, str(path), max_line_bytes=5 * 1024 * 1024):
        origin = record.pop("_origin")
        file, _, line = origin.rpartition(":")
        where = {"file": file, "line": int(line)}
        qtext = record.get("text")
        if not isinstance(qtext, str) or not qtext.strip():
            raise InputError("missing or empty: every query needs its text", field="text", **where)
        qid = record.get("id")
        qid = str(qid) if qid not in (None, "") else f"q{len(specs) + 1}"
        if qid in seen:
            raise InputError(f"duplicate query id {qid!r}", field="id", **where)
        seen.add(qid)
        as_of = now
        if record.get("as_of") not in (None, ""):
            try:
                as_of = parse_time(record["as_of"], field="as_of")
            except InputError as exc:
                raise InputError(exc.message, field="as_of", **where) from None
        labels = {}
        for name in ("relevant", "stale"):
            value = record.get(name) or []
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InputError(f"expected a list of document ids, found {value!r}", field=name, **where)
            labels[name] = value
        extra = {k: v for k, v in record.items() if k not in QUERY_FIELDS}
        unknown.update(extra)
        specs.append(QuerySpec(qid, qtext.strip(), as_of, labels["relevant"], labels["stale"], extra))
    if not specs:   # as for a corpus file (ingest/parse.py): an empty file is a mistake, not zero questions
        raise InputError("no queries: the file is empty or holds only blank lines", file=str(path))
    if unknown and warn:
        warn(f"{path}: fields not used for querying, kept as labels: {', '.join(sorted(unknown))}")
    return specs


class SmartVector:
    """One knowledge base: a store, its embedder, and the operations on them."""

    def __init__(self, settings: Settings | None = None, *, embedder=None) -> None:
        self.settings = settings or load_settings()
        self._embedder = embedder
        self._store: Store | None = None
        self._knowledge: KnowledgeCache | None = None
        self._pending_queries: list[dict[str, Any]] = []
        self._pending_events: list[dict[str, Any]] = []
        self.batching = False
        self._batch_state = None
        self._log_lock = threading.RLock()   # pending lists, their writes and the knowledge reads
        self._log_wake: threading.Event | None = None
        self._log_delay_s = 0.0
        self._encoder_checked = False

    @property
    def embedder(self):
        if self._embedder is None:
            from .embedding import get_embedder

            self._embedder = get_embedder(self.settings.model_name)
        return self._embedder

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.settings, self.embedder.dim)
        return self._store

    @property
    def knowledge(self) -> KnowledgeCache:
        if self._knowledge is None:
            self._knowledge = KnowledgeCache(self.store)
        return self._knowledge

    # ------------------------------------------------------------------------------ ingest
    def load_records(self, paths: Iterable[str | Path]) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        for path in paths:
            records.extend(read_records(path, max_file_bytes=self.settings.max_file_bytes,
                                        max_line_bytes=self.settings.max_line_bytes))
        return records

    def ingest_records(self, records: Sequence[dict[str, Any]], *, now: datetime,
                       progress: Callable[[int, int], None] | None = None, actor: str = "cli",
                       consolidate: bool = True) -> IngestReport:
        """Validate every record, then write them (nothing is written if any record is bad).

        With ``consolidate`` (the default), an incremental consolidation runs right after the
        write when documents were added or changed; its counts are ``report.consolidation``.
        """
        docs = validate_records(records, ingest_time=now, known_supersedes=self._stored_supersedes)
        prepared = prepare_documents(docs)   # every document storable, before the first write
        warnings = record_warnings(docs) + self._unknown_references(docs)
        if len(docs) >= PRE_INGEST_TAG_MIN_DOCS:
            self.store.tag(PRE_INGEST_TAG)  # rolling restore point before a bulk ingest
        report = ingest_documents(self.store, self.embedder, docs, now=now, progress=progress, actor=actor,
                                  prepared=prepared)
        report.warnings.extend(warnings)
        # also when a killed run left documents unconsolidated: a re-run converges
        wanted = consolidate and (report.added or report.updated or self._has_unconsolidated())
        report.consolidation = self.consolidate(now=now) if wanted else None
        return report

    def _stored_supersedes(self, skip: set) -> dict[str, tuple[str, ...]]:
        """Declared SUPERSEDES of the store (src -> dsts), minus the ids being re-ingested."""
        edges = self.store.edges()
        out: dict[str, list[str]] = {}
        if edges.num_rows:
            for src, dst, etype, origin in zip(*(edges.column(c).to_pylist()
                                                 for c in ("src", "dst", "edge_type", "origin")), strict=True):
                if etype == EdgeType.SUPERSEDES.value and origin == "declared" and src not in skip:
                    out.setdefault(src, []).append(dst)
        return {k: tuple(v) for k, v in out.items()}

    def _unknown_references(self, docs) -> list[str]:
        """One warning per ``depends_on`` id that is neither in the call nor in the store (the edge
        is kept and resolves when that document arrives)."""
        ids = {d.id for d in docs}
        wanted = sorted({t for d in docs for t in d.depends_on if t not in ids})
        if not wanted:
            return []
        found = set(self.store.chunks_for_docs(wanted).column("doc_id").to_pylist())
        return [f"{d.origin}: depends_on: {t!r} is not in the store yet (kept; resolved when it arrives)"
                for d in docs for t in d.depends_on if t in set(wanted) - found]

    def _has_unconsolidated(self) -> bool:
        docs = self.store.documents()
        return bool(docs.num_rows) and "UNCONSOLIDATED" in set(docs.column("lifecycle").to_pylist())

    def ingest_paths(self, paths: Iterable[str | Path], *, now: datetime, **kwargs) -> IngestReport:
        return self.ingest_records(self.load_records(paths), now=now, **kwargs)

    # ------------------------------------------------------------------------------- query
    def query(self, text: str, *, as_of: datetime, profile: str = "default", k: int = 5,
              query_id: str = "", log: bool = True, asked_at: datetime | None = None,
              vector=None, group_by: str = "chunk", per_document: int = PASSAGES_PER_DOCUMENT) -> QueryResponse:
        """Answer ``text`` as of ``as_of``: up to ``k`` passages, at most ``per_document`` of one
        document, grouped under their document (``group_by="document"``: one per document).

        ``asked_at`` (default ``as_of``) is when the question was really asked: the query log and
        the access events carry it, so asking about a past moment never rewrites that past's
        confidence. ``vector``: the question's embedding when the caller encoded it already.
        """
        if not text or not text.strip():
            raise InputError("empty: the query needs some text", field="query")
        if not 1 <= k <= MAX_K:
            raise InputError(f"expected a whole number from 1 to {MAX_K}, found {k}", field="--k")
        request = QueryRequest(text.strip(), as_of, get_profile(profile), k, query_id, group_by, per_document)
        self._check_encoder()
        state = self._state_for_query()
        if state.calibration is None:
            self._fit_store_calibration(state)
        response = run_query(self.store, self.embedder, request, knowledge=state, vector=vector)
        if log:
            self._log_query(response, now=asked_at or as_of)
        return response

    def _check_encoder(self) -> None:
        """A question is compared with the store's vectors only if one encoder made both
        (:func:`embedding.check_encoder`); checked at this instance's first query (reading the
        record costs a schema read, ~0.5 ms)."""
        if not self._encoder_checked:
            stored = self.store.encoder()
            check_encoder(stored, getattr(self.embedder, "encoder_id", stored), self.store.uri)
            self._encoder_checked = True

    def _state_for_query(self):
        """The knowledge state a query reads. In batch mode (``batching``) every query of the
        batch reads one snapshot taken at its first query: the batch is consistent and
        reproducible, and no query pays the per-table version checks; ``flush`` ends it."""
        with self._log_lock:   # never half-way through a background write of our own
            if not self.batching:
                return self.knowledge.get()
            if self._batch_state is None:
                self._batch_state = self.knowledge.get()
            return self._batch_state

    def _log_query(self, response: QueryResponse, *, now: datetime) -> None:
        """Append the query to the log and one ACCESS event per returned document.

        Written at once, except in batch mode (``flush`` writes the batch) and once
        :meth:`write_log_in_background` was called (a writer thread writes it shortly after)."""
        row = {
            "query_id": response.query_id, "query": response.query, "profile": response.profile,
            "as_of": parse_time(response.as_of), "asked_at": now,
            "result_ids": [r.id for r in response.results],
            "rejection_ids": [r.id for r in response.rejections],
            "rejection_codes": [r.code.value for r in response.rejections],
            "response": json.dumps(response.to_dict(), ensure_ascii=False, default=str)}
        events = [{"doc_id": r.id, "event_type": EventType.ACCESS.value, "at": now, "query_id": response.query_id,
                   "actor": "query", "detail": {"rank": r.rank}} for r in response.results]
        with self._log_lock:
            self._pending_queries.append(row)
            self._pending_events.extend(events)
        if self._log_wake is not None:
            self._log_wake.set()
        elif not self.batching:
            self.flush()

    def write_log_in_background(self, delay_s: float = 0.3) -> None:
        """From now on a daemon thread writes the query log and access events, ``delay_s`` after
        a query (queries asked meanwhile go in the same commits), instead of the query waiting
        for two LanceDB commits. None is lost: every read of the log, events or confidence in
        this class flushes first, and so does interpreter exit (``atexit``). Idempotent."""
        with self._log_lock:
            if self._log_wake is not None:
                return
            self._log_delay_s = float(delay_s)
            self._log_wake = threading.Event()
        threading.Thread(target=self._log_writer, name="smartvector-log-writer", daemon=True).start()
        atexit.register(self.flush)

    def _log_writer(self) -> None:
        wake = self._log_wake
        while True:
            wake.wait()
            wake.clear()
            if self._log_delay_s:
                threading.Event().wait(self._log_delay_s)   # gather the queries of one page run
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - the rows stay pending; the next flush retries them
                wake.set()
                threading.Event().wait(1.0)

    def _settle(self) -> None:
        """Before a read: write what the background writer has not written yet, so every page
        sees each query it asked (a no-op without :meth:`write_log_in_background`)."""
        if self._log_wake is not None and (self._pending_queries or self._pending_events):
            self.flush()

    def flush(self) -> None:
        """Write buffered query-log rows and access events (one commit each); ends a batch's
        knowledge snapshot. Thread-safe; rows of a failed write stay pending for the next flush."""
        with self._log_lock:
            self._batch_state = None
            if self._pending_queries:
                self.store.log_queries(self._pending_queries)
                self._pending_queries = []
            if self._pending_events:
                pending = self._pending_events
                accessed = [e for e in pending if e["event_type"] == EventType.ACCESS.value]
                self.knowledge.record_events(pending)
                self._pending_events = []
                if accessed:
                    self._wake_dormant(accessed)

    def load_demo(self, *, now: datetime, if_empty: bool = True) -> IngestReport | None:
        """Load the demo corpus (only into an empty store when ``if_empty``)."""
        if if_empty and self.store.count_chunks() > 0:
            return None
        return self.ingest_paths([DEMO_CORPUS], now=now, actor="demo")

    # ---------------------------------------------------------------------------- feedback
    def feedback(self, doc_id: str, verdict: str, *, now: datetime, query_id: str = "",
                 actor: str = "operator") -> dict[str, Any]:
        """Record accept/correct on a document version; a correction ripples to its dependents.

        Atomic across processes: the standing verdict, the "before" value, the write and the
        "after" value are read and written under the store's write lock, so concurrent feedback
        commands each report the change their own event made (docs/RELIABILITY.md). The page's
        log lock is taken first (the background log writer takes it before the store lock too).
        """
        with self._log_lock, self.store.write_lock():
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
        standing = self._standing_verdicts(query_id, actor, [doc_id]).get(doc_id)
        if standing is not None and standing["verdict"] == verdict:   # idempotent per (query, document, actor)
            return {"id": doc_id, "verdict": verdict, "trust_before": before, "trust_after": before,
                    "rippled": [], "query_id": query_id, "recorded": False, "replaced": None}
        rows = self._undo_rows(doc_id, standing, now, query_id, actor) if standing else []   # a changed mind: undo, then record
        delta = DEFAULT_CONFIDENCE.accept_delta if verdict == "accept" else DEFAULT_CONFIDENCE.correct_delta
        etype = EventType.FEEDBACK_ACCEPT if verdict == "accept" else EventType.FEEDBACK_CORRECT
        event_id = os.urandom(12).hex()
        rows += [{"event_id": event_id, "doc_id": doc_id, "event_type": etype.value, "at": now, "delta": delta,
                  "query_id": query_id, "actor": actor, "detail": {"verdict": verdict, "event_id": event_id}}]
        ripple = self.ripple_preview(doc_id) if verdict == "correct" else []
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
        if not self.store.chunks_for_docs([doc_id]).num_rows:
            raise InputError(f"no document with id {doc_id!r} in the store", field="id")
        standing = self._standing_verdicts(query_id, actor, [doc_id]).get(doc_id)
        if standing is None:
            raise InputError(f"no verdict of {actor!r} on {doc_id!r} for query {query_id!r} to undo", field="id")
        before = self.trust_of([doc_id], as_of=now)[doc_id]
        rows = self._undo_rows(doc_id, standing, now, query_id, actor)
        self.knowledge.record_events(rows)
        after = self.trust_of([doc_id], as_of=now)[doc_id]
        return {"id": doc_id, "undone": standing["verdict"], "trust_before": before,
                "trust_after": after, "ripple_reversed": len(rows) - 1, "query_id": query_id}

    def standing_verdicts(self, query_id: str, actor: str = "operator") -> dict[str, str]:
        """doc id -> "accept" / "correct": the verdicts ``actor`` holds now on ``query_id``'s answers."""
        return {d: v["verdict"] for d, v in self._standing_verdicts(query_id, actor).items()}

    def _standing_verdicts(self, query_id: str, actor: str,
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
        undone, verdicts = set(), {}
        for row in mine.itertuples(index=False):
            detail = event_detail(row.detail)
            if row.event_type == EventType.FEEDBACK_UNDO.value:
                undone.add(detail.get("undoes"))
            else:
                event_id = detail.get("event_id") or f"{row.doc_id}@{row.at_us}"   # verdicts older than undo
                verdicts.setdefault(row.doc_id, []).append(
                    {"verdict": kinds[row.event_type], "event_id": event_id, "delta": float(row.delta or 0.0),
                     "at_us": int(row.at_us)})
        out = {}
        for doc, items in verdicts.items():
            live = [v for v in items if v["event_id"] not in undone]
            if live:
                out[doc] = live[-1]
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

    def ripple_preview(self, doc_id: str) -> list[dict[str, Any]]:
        """The documents a correction of ``doc_id`` would reach, with hop and penalty."""
        graph = self.knowledge.get().graph
        if doc_id not in graph.doc_ids:
            return []
        return [{"doc_id": s.doc_id, "hop": s.hop, "penalty": s.penalty, "via": s.via}
                for s in graph.ripple_plan(doc_id)]

    def trust_of(self, doc_ids: Sequence[str], *, as_of: datetime) -> dict[str, float]:
        """Trust at ``as_of`` of each document: the value every result's ``trust`` shows
        (:meth:`KnowledgeState.trust`, DESIGN.md "Trust model")."""
        return self._trust_at(doc_ids, [to_us(as_of)])[0]

    def _trust_at(self, doc_ids: Sequence[str], times_us: Sequence[int]) -> list[dict[str, float]]:
        """Trust of ``doc_ids`` at each moment of ``times_us`` (documents read once)."""
        self._settle()
        state = self.knowledge.get()
        docs = state.docs if state.docs is not None else self.store.documents()
        frame = docs.to_pandas().set_index("doc_id") if docs.num_rows else pd.DataFrame()
        ids = [d for d in dict.fromkeys(doc_ids) if d in frame.index]
        if not ids:
            return [{} for _ in times_us]
        authority = frame.loc[ids, "authority"].to_numpy(float)
        id_array = np.asarray(ids, dtype=object)
        out = []
        for t in times_us:
            values = state.trust(id_array, authority, int(t))
            out.append(dict(zip(ids, map(float, values), strict=True)))
        return out

    # ------------------------------------------------------------------------- consolidation
    def consolidate(self, *, now: datetime, full: bool = False, config=None, engine: str = "local") -> dict[str, Any]:
        """Run the consolidation agent (see :mod:`smartvector_core.consolidation`).

        Incremental by default: only UNCONSOLIDATED documents (new or edited) are compared with
        their neighbours; ``full`` re-examines everything. Returns the run's counts
        (``supersessions, contradictions, dependencies, archived, dormant`` and more).
        ``engine="ray"``: the candidate search and per-pair checks run as Ray tasks
        (:mod:`smartvector_core.scaleout.ray_consolidate`); same result, writes from here.
        """
        if engine not in ("local", "ray"):
            raise ValueError(f"unknown consolidation engine {engine!r} (local or ray)")
        finder = None
        if engine == "ray":
            from .scaleout.ray_consolidate import ray_finder

            finder = ray_finder()
        # only the events are needed: skip the knowledge cache's full reload (graph, documents)
        report = run_consolidation(self.store, None, now=now, full=full, config=config or DEFAULT_CONSOLIDATION,
                                   finder=finder)
        return report.to_dict()

    def _wake_dormant(self, access_events: list[dict[str, Any]]) -> None:
        """DORMANT -> ACTIVE for accessed documents (a dormant document stays searchable)."""
        ids = list(dict.fromkeys(e["doc_id"] for e in access_events))
        state = self.knowledge.get()  # cached: its documents carry the lifecycle (no store read)
        docs = getattr(state, "docs", None)
        rows = docs.filter(pc.is_in(docs.column("doc_id"), value_set=pa.array(ids))) if docs is not None \
            else self.store.chunks_for_docs(ids)
        states = dict(zip(rows.column("doc_id").to_pylist(), rows.column("lifecycle").to_pylist(), strict=True))
        sleeping = {d: s for d, s in states.items() if s == "DORMANT"}
        if sleeping:
            last = access_events[-1]
            wake_accessed(self.store, state.events, sleeping, now=last["at"],
                          query_id=last.get("query_id", ""))

    def record_access(self, doc_ids: Sequence[str], *, now: datetime, query_id: str = "",
                      actor: str = "operator") -> None:
        """ACCESS events for ``doc_ids`` (e.g. opened in the dashboard); wakes dormant ones."""
        rows = [{"doc_id": d, "event_type": EventType.ACCESS.value, "at": now, "query_id": query_id,
                 "actor": actor, "detail": {}} for d in dict.fromkeys(doc_ids)]
        self.knowledge.record_events(rows)
        self._wake_dormant(rows)

    RESOLUTIONS = ("keep_both", "keep_src", "keep_dst", "supersede_dst", "supersede_src")

    def resolve_contradiction(self, edge_id: str, resolution: str, *, now: datetime,
                              actor: str = "operator") -> dict[str, Any]:
        """Close a CONTRADICTS edge of the review queue.

        Every resolution settles the pair: the contradiction penalty is reversed by an appended
        CONTRADICTION_SETTLED event (DESIGN.md "Trust model"; nothing is deleted). Then
        ``keep_both``: both stand; ``keep_src`` / ``keep_dst``: the kept side is accepted and the
        other corrected (which ripples to its dependents); ``supersede_dst`` / ``supersede_src``: a
        SUPERSEDES edge (origin "review") from the kept side, then consolidation archives the
        other. The edge's status becomes ``resolved:<resolution>``; REVIEW events on both sides.
        """
        resolution = str(resolution).strip().lower()
        if resolution not in self.RESOLUTIONS:
            raise InputError(f"expected one of {', '.join(self.RESOLUTIONS)}, found {resolution!r}",
                             field="resolution")
        edges = self.edges_frame()
        match = edges[(edges["edge_id"] == edge_id) & (edges["edge_type"] == EdgeType.CONTRADICTS.value)] \
            if len(edges) else edges
        if not len(match):
            raise InputError(f"no contradiction with edge id {edge_id!r}", field="edge_id")
        edge = match.iloc[0].to_dict()
        src, dst = edge["src"], edge["dst"]
        edge.update(status=f"resolved:{resolution}")
        self.store.upsert_edges([{k: edge[k] for k in ("edge_id", "src", "dst", "edge_type", "origin",
                                                        "evidence", "status", "created_at")}])
        self.knowledge.record_events([
            {"doc_id": me, "event_type": EventType.REVIEW.value, "at": now, "actor": actor,
             "detail": {"edge_id": edge_id, "resolution": resolution, "other": other}}
            for me, other in ((src, dst), (dst, src))])
        settled = [e.row(now, actor=actor) for e in
                   settlement_events(edge_id, self.knowledge.get().events, f"resolved:{resolution}")]
        have = self.store.existing_event_ids([r["event_id"] for r in settled]) if settled else set()
        self.knowledge.record_events([r for r in settled if r["event_id"] not in have])
        out: dict[str, Any] = {"edge_id": edge_id, "resolution": resolution, "src": src, "dst": dst}
        if resolution in ("keep_src", "keep_dst"):
            kept, wrong = (src, dst) if resolution == "keep_src" else (dst, src)
            out["accepted"] = self.feedback(kept, "accept", now=now, actor=actor)
            out["corrected"] = self.feedback(wrong, "correct", now=now, actor=actor)
        elif resolution.startswith("supersede"):
            newer, older = (src, dst) if resolution == "supersede_dst" else (dst, src)
            self.store.upsert_edges([{"edge_id": make_edge_id(newer, EdgeType.SUPERSEDES.value, older),
                                      "src": newer, "dst": older, "edge_type": EdgeType.SUPERSEDES.value,
                                      "origin": "review", "evidence": f"review of contradiction {edge_id}",
                                      "status": "", "created_at": now}])
            out["consolidation"] = self.consolidate(now=now)
        return out

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
        result's ``trust``)."""
        docs = self.store.documents()
        if not docs.num_rows:
            return pd.DataFrame(columns=["id", "title", "kind", "doc_type", "lifecycle", "trust"])
        frame = docs.to_pandas().rename(columns={"doc_id": "id"}).drop(columns=["ordinal", "chunk_id"])
        trust = self.trust_of(frame["id"].tolist(), as_of=as_of)
        frame["trust"] = frame["id"].map(trust)
        return frame

    def freshness(self, *, as_of: datetime) -> pd.DataFrame:
        """The freshness report at ``as_of``: one row per document version with its grade (review
        urgency) and advice (:func:`temporal.freshness.freshness_report`). What ``freshness --json``
        prints and the Freshness page shows. Supersession comes from the knowledge index's version
        chains; the review clock from INGEST / UPDATE events and accepts not undone, up to ``as_of``."""
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
        written = pd.to_datetime(docs["id"].map(last_confirmations(state.events, as_of_us, WRITE_EVENTS)),
                                 unit="us", utc=True)
        docs["ingested_at"] = written.fillna(pd.to_datetime(docs["ingested_at"], utc=True))
        docs["confirmed_at"] = pd.to_datetime(docs["id"].map(last_confirmations(state.events, as_of_us)),
                                              unit="us", utc=True)
        return freshness_report(docs, as_of)

    def events_frame(self, doc_id: str | None = None) -> pd.DataFrame:
        self._settle()
        events = self.store.events([doc_id] if doc_id else None).to_pandas()
        return events.sort_values("at", ascending=False, ignore_index=True) if len(events) else events

    def edges_frame(self) -> pd.DataFrame:
        return self.store.edges().to_pandas()

    def feedback_certainty_pairs(self) -> dict[str, tuple[list[float], list[bool]]]:
        """Per profile, (certainty of the answer as it was scored, accepted?) for every FEEDBACK
        event tied to a logged query: the operators' verdicts as calibration data.

        The certainty is the one the logged result carries (``certainty``: what calibration
        mapped to its confidence); results logged before it was recorded are left out.
        """
        pairs: dict[str, tuple[list[float], list[bool]]] = {}
        for profile, response, doc_id, accepted in self._verdicts():
            hit = next((r for r in response.get("results", []) if r.get("id") == doc_id), None)
            if hit is None or hit.get("certainty") is None:
                continue
            x, right = pairs.setdefault(profile, ([], []))
            x.append(float(hit["certainty"]))
            right.append(accepted)
        return pairs

    def store_calibration(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per profile, this store's calibration knots: the shipped prior refitted on its
        operators' verdicts (:func:`retrieval.calibration.refit_knots`); profiles without
        verdicts are absent (they use the prior). Cached on the knowledge state until its
        events change; every query reads it (``KnowledgeState.calibration_knots``)."""
        return self._fit_store_calibration(self.knowledge.get())

    def _fit_store_calibration(self, state) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        if state.calibration is None:
            events = state.events
            asked = events["event_type"].isin([EventType.FEEDBACK_ACCEPT.value, EventType.FEEDBACK_CORRECT.value]) \
                & (events["query_id"].fillna("") != "")
            pairs = self.feedback_certainty_pairs() if bool(asked.any()) else {}
            state.calibration = {name: refit_knots(name, np.array(x), np.array(y, dtype=float))
                                 for name, (x, y) in pairs.items() if x and name != "naive"}
        return state.calibration

    def _verdicts(self):
        """(profile, logged response, doc id, accepted?) for each FEEDBACK event with a logged query
        (verdicts reversed since by a FEEDBACK_UNDO left out)."""
        self._settle()
        events = self.store.events().to_pandas()
        if not len(events):
            return
        undone = {event_detail(d).get("undoes") for d in events.loc[events["event_type"] == EventType.FEEDBACK_UNDO.value,
                                                                 "detail"]}
        fb = events[events["event_type"].isin([EventType.FEEDBACK_ACCEPT.value, EventType.FEEDBACK_CORRECT.value])
                    & (events["query_id"].fillna("") != "")]
        if undone and len(fb):
            at_us = pd.to_datetime(fb["at"], utc=True).astype("datetime64[us, UTC]").astype("int64")
            ids = [verdict_key(d, doc, t) for d, doc, t in zip(fb["detail"], fb["doc_id"], at_us, strict=True)]
            fb = fb[[i not in undone for i in ids]]
        if not len(fb):
            return
        logged = {r["query_id"]: r for r in self.store.queries(sorted(set(fb["query_id"]))).to_pylist()}
        for row in fb.itertuples(index=False):
            rec = logged.get(row.query_id)
            if rec is not None:
                response = json.loads(rec["response"] or "{}")
                yield (response.get("profile", rec["profile"]), response, row.doc_id,
                       row.event_type == EventType.FEEDBACK_ACCEPT.value)

    def feedback_reliability(self, *, bins: int = 10) -> dict[str, Any]:
        """How well the reported confidence matches operators' verdicts.

        Each FEEDBACK event that names a logged query is paired with the confidence that query
        reported for that document: accept counts as right (1), correct as wrong (0). Returns
        ``{"n", "ece", "by_profile": {profile: {"n", "ece", "bins": [...]}}}`` (bins as in
        :func:`retrieval.calibration.reliability_bins`).
        """
        pairs: dict[str, tuple[list[float], list[bool]]] = {}
        for profile, response, doc_id, accepted in self._verdicts():
            hit = next((r for r in response.get("results", []) if r.get("id") == doc_id), None)
            if hit is not None:
                conf, right = pairs.setdefault(profile, ([], []))
                conf.append(float(hit.get("confidence", 0.0)))
                right.append(accepted)
        by_profile = {name: {"n": len(c), "ece": expected_calibration_error(c, r, bins),
                             "bins": reliability_bins(c, r, bins).to_dict("records")}
                      for name, (c, r) in sorted(pairs.items())}
        all_conf = [x for c, _ in pairs.values() for x in c]
        all_right = [x for _, r in pairs.values() for x in r]
        return {"n": len(all_conf), "ece": expected_calibration_error(all_conf, all_right, bins) if all_conf else None,
                "by_profile": by_profile}

    def review_queue(self) -> pd.DataFrame:
        """Open contradictions awaiting an operator's decision."""
        edges = self.edges_frame()
        if not len(edges):
            return edges
        mask = (edges["edge_type"] == EdgeType.CONTRADICTS.value) & (edges["status"].isin(["", "open"]))
        return edges[mask].reset_index(drop=True)

    def query_log(self) -> pd.DataFrame:
        self._settle()
        log = self.store.queries().to_pandas()
        return log.sort_values("asked_at", ascending=False, ignore_index=True) if len(log) else log

    def rejections_frame(self) -> pd.DataFrame:
        """One row per rejection of every logged query: query_id, asked_at, id, code, reason.

        The rejected ids and their codes are the query log's ``rejection_ids`` /
        ``rejection_codes`` columns (written by :meth:`_log_query`); the logged response adds
        each rejection's reason (and chunk_id) at the same position."""
        self._settle()
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
        self._settle()
        docs = self.store.chunks_for_docs([doc_id])
        if not docs.num_rows:
            raise InputError(f"no document with id {doc_id!r} in the store", field="id")
        start = to_us(docs.column("created_at")[0].as_py())
        end = to_us(until)
        events = self.knowledge.get().events
        times = set(np.linspace(start, max(start, end), points).astype(np.int64).tolist())
        times.update(int(t) for t in events.loc[events["doc_id"] == doc_id, "at_us"] if start <= t <= end)
        ordered = sorted(times)
        values = self._trust_at([doc_id], ordered)
        return pd.DataFrame({"at": [from_us(t) for t in ordered], "trust": [v[doc_id] for v in values]})

    # ---------------------------------------------------------------------- versions & audit
    def tag(self, label: str) -> dict[str, int]:
        return self.store.tag(label)

    def restore(self, *, tag: str | None = None, versions: dict[str, int] | None = None,
                now: datetime) -> dict[str, int]:
        """Roll the knowledge (chunks, edges) back to a tag or versions, and record it.

        The audit and the query log are append-only history and stay as they are
        (:meth:`Store.restore`). The RESTORE event names the documents the restore removed
        (``removed``, at most ``RESTORE_DETAIL_IDS`` ids and their count) and those it brought
        back. Feedback given to a removed document stays in the audit and in calibration (it was
        a verdict on an answer really given, whose query-log row is kept); it weighs on no live
        document while the id is absent, and applies again if that id is ingested again, as
        feedback outlives any update of an id (docs/RELIABILITY.md, "Restore").
        """
        before = self._document_ids()
        restored = self.store.restore(tag=tag, versions=versions)
        after = self._document_ids()
        removed, returned = sorted(before - after), sorted(after - before)
        self.store.append_events([{"doc_id": "", "event_type": EventType.RESTORE.value, "at": now,
                                   "detail": {"tag": tag, "versions": versions, "restored": restored,
                                              "removed": removed[:RESTORE_DETAIL_IDS], "removed_count": len(removed),
                                              "returned": returned[:RESTORE_DETAIL_IDS],
                                              "returned_count": len(returned)}}])
        return restored

    def _document_ids(self) -> set[str]:
        docs = self.store.documents()
        return set(docs.column("doc_id").to_pylist()) if docs.num_rows else set()

    def maintain(self, *, cleanup_older_than_days: float = RETENTION_DAYS, now: datetime) -> dict[str, Any]:
        """Retention: compact the tables and drop versions older than the cleanup age (tagged
        versions are kept: ``pre-ingest``, ``pre-consolidate`` and the operator's own tags)."""
        if not 0 <= cleanup_older_than_days <= MAX_RETENTION_DAYS:
            raise InputError(f"expected a number of days from 0 to {MAX_RETENTION_DAYS}, found {cleanup_older_than_days}",
                             field="--older-than-days")
        before = self.store.table_versions()
        self.store.optimize(cleanup_older_than_days=cleanup_older_than_days, now=now)
        out = {"cleanup_older_than_days": cleanup_older_than_days, "versions_before": before,
               "versions_after": self.store.table_versions(), "tags": sorted(
                   {t for tags in self.store.tags().values() for t in tags})}
        return out

    # ----------------------------------------------------------------------------- access
    def check_operator(self, token: str | None) -> None:
        """Allow a write action (ingest, feedback, consolidate, restore) from the dashboard.

        Open when no operator token is configured; otherwise ``token`` must equal it, else
        :class:`OperatorTokenError` (a ``PermissionError``). Read-only viewing never calls this.
        """
        if not token_allows(self.settings.operator_token, token):
            raise OperatorTokenError("this action needs the operator token (SMARTVECTOR_OPERATOR_TOKEN)")

    @property
    def writes_need_token(self) -> bool:
        return bool(self.settings.operator_token)

    # ------------------------------------------------------------------------------- stats
    def stats(self) -> dict[str, Any]:
        self._settle()
        docs = self.store.documents()
        by_kind: dict[str, int] = {}
        by_lifecycle: dict[str, int] = {}
        by_doc_type: dict[str, int] = {}
        if docs.num_rows:
            for name, target in (("kind", by_kind), ("lifecycle", by_lifecycle), ("doc_type", by_doc_type)):
                for value in docs.column(name).to_pylist():
                    target[value] = target.get(value, 0) + 1
        return {
            "store": self.settings.store_uri, "model": self.settings.model_name,
            "documents": docs.num_rows, "chunks": self.store.count_chunks(),
            "chunks_retired": self.store.count_chunks(current_only=False) - self.store.count_chunks(),
            "events": self.store.table("events").count_rows(),
            "edges": self.store.table("edges").count_rows(),
            "queries": self.store.table("queries").count_rows(),
            "by_kind": dict(sorted(by_kind.items())), "by_lifecycle": dict(sorted(by_lifecycle.items())),
            "by_doc_type": dict(sorted(by_doc_type.items())),
            "table_versions": self.store.table_versions(),
        }


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)
