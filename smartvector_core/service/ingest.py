"""Ingest and consolidation: records and files in, the demo corpus, consolidation runs, access events.

A part of :class:`smartvector_core.service.SmartVector`, over its :class:`.core.ServiceContext`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..consolidation import consolidate as run_consolidation
from ..consolidation import wake_accessed
from ..consolidation.incremental import ConsolidationCache
from ..ingest import IngestReport, ingest_documents, read_records, validate_records
from ..ingest.pipeline import prepare_documents
from ..ingest.validate import record_warnings
from ..models import EdgeType, EventType
from ..settings import DEMO_CORPUS
from .core import PRE_INGEST_TAG, PRE_INGEST_TAG_MIN_DOCS, ServicePart


class IngestService(ServicePart):
    """Records and files in, the demo corpus, consolidation runs, access events.

    ``warm_inputs``: the consolidation inputs a long-lived process keeps caught up per write
    (:class:`~smartvector_core.consolidation.incremental.ConsolidationCache`), set by
    :meth:`keep_consolidation_inputs`; ``None`` (a one-shot command) reads the store instead,
    since building the cache costs more than one store-reading run."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.warm_inputs: ConsolidationCache | None = None

    def keep_consolidation_inputs(self) -> ConsolidationCache:
        """From now on, ingests consolidate from a cache caught up per write (same result as
        reading the store): for a process that writes again, the API server and the dashboard.
        Returns the cache (:attr:`warm_inputs`), made at the first call."""
        if self.warm_inputs is None:
            self.warm_inputs = ConsolidationCache()
        return self.warm_inputs

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
        report.consolidation = self.consolidate(now=now, cached=self.warm_inputs is not None) if wanted else None
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

    def load_demo(self, *, now: datetime, if_empty: bool = True) -> IngestReport | None:
        """Load the demo corpus (only into an empty store when ``if_empty``)."""
        if if_empty and self.store.count_chunks() > 0:
            return None
        return self.ingest_paths([DEMO_CORPUS], now=now, actor="demo")

    # ------------------------------------------------------------------------- consolidation
    def consolidate(self, *, now: datetime, full: bool = False, config=None, engine: str = "local",
                    cached: bool = False) -> dict[str, Any]:
        """Run the consolidation agent (see :mod:`smartvector_core.consolidation`).

        Incremental by default: only UNCONSOLIDATED documents (new or edited) are compared with
        their neighbours; ``full`` re-examines everything. Returns the run's counts
        (``supersessions, contradictions, dependencies, archived, dormant`` and more).
        ``config``: this run's :class:`~smartvector_core.config.consolidation.ConsolidationConfig`
        (default: the service's ``EngineConfig.consolidation``).
        ``engine="ray"``: the candidate search and per-pair checks run as Ray tasks
        (:mod:`smartvector_core.scaleout.ray_consolidate`); same result, writes from here.
        ``cached``: read the documents and chunks from this service's
        :class:`~smartvector_core.consolidation.incremental.ConsolidationCache` (caught up per
        write; same result), made here if :meth:`keep_consolidation_inputs` has not made it.
        """
        if engine not in ("local", "ray"):
            raise ValueError(f"unknown consolidation engine {engine!r} (local or ray)")
        finder = None
        if engine == "ray":
            from ..scaleout.ray_consolidate import ray_finder

            finder = ray_finder()
        # only the events are needed: skip the knowledge cache's full reload (graph, documents)
        report = run_consolidation(self.store, None, now=now, full=full, config=config or self.config.consolidation,
                                   finder=finder, cache=self.keep_consolidation_inputs() if cached else None)
        return report.to_dict()

    def wake_dormant(self, access_events: list[dict[str, Any]]) -> None:
        """DORMANT -> ACTIVE for accessed documents (a dormant document stays searchable)."""
        ids = list(dict.fromkeys(e["doc_id"] for e in access_events))
        # cached: its documents carry the lifecycle (no store read); the log writer does not wait
        # for another process's write to be loaded (a document it made dormant just now wakes at its next access)
        state = self.knowledge.get(wait=False)
        docs = state.docs
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
        self.wake_dormant(rows)
