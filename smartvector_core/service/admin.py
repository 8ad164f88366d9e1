"""Administration: tags, restore, maintenance, repairs, the store's counts and the operator token.

A part of :class:`smartvector_core.service.SmartVector`, over its :class:`.core.ServiceContext`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..errors import InputError, OperatorTokenError
from ..models import EventType
from ..settings import token_allows
from .core import (
    MAX_RETENTION_DAYS,
    RESTORE_DETAIL_IDS,
    RETENTION_DAYS,
    QueryLog,
    ServiceContext,
    ServicePart,
)


class AdminService(ServicePart):
    """Tags, restore, maintenance, repairs, stats and the operator token; ``log`` is written
    before the counts are read."""

    def __init__(self, ctx: ServiceContext, log: QueryLog) -> None:
        super().__init__(ctx)
        self.log = log

    # ---------------------------------------------------------------------- versions & audit
    def tag(self, label: str) -> dict[str, int]:
        return self.store.tag(label)

    def versions(self) -> dict[str, Any]:
        """``{"versions": {table: current version}, "tags": {label: {table: version}}}``."""
        return {"versions": self.store.table_versions(), "tags": self.store.tags()}

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

    def repair(self) -> list[str]:
        """Undo what a fault left (``store.repair``): broken tag files removed, stale write
        locks cleared; what was done, one line each (those done when the store opened first)."""
        return [*self.store.repairs, *self.store.repair()]

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
        self.log.settle()
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
            "events": self.store.count_rows("events"),
            "edges": self.store.count_rows("edges"),
            "queries": self.store.count_rows("queries"),
            "by_kind": dict(sorted(by_kind.items())), "by_lifecycle": dict(sorted(by_lifecycle.items())),
            "by_doc_type": dict(sorted(by_doc_type.items())),
            "table_versions": self.store.table_versions(),
        }
