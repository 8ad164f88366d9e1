"""Archive and unarchive: a person takes a document version out of answers, or brings it back.

A part of :class:`smartvector_core.service.SmartVector`, over its :class:`.core.ServiceContext`.

Each is one appended LIFECYCLE event with its actor and reason (:mod:`memory.archive`), then the
document's ``lifecycle`` field; nothing is deleted. A query at or after the archive moment
leaves the document out of its results and lists it among its rejections (``ARCHIVED``); a
query about an earlier moment still sees it (:func:`memory.archive.archived_at`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from ..clock import from_us, iso, to_us
from ..errors import InputError
from ..memory.archive import OPERATOR_MARK, ArchiveMark, archived_at, operator_moves
from ..memory.lifecycle import check_move
from ..models import EventType, Lifecycle
from .core import QueryLog, ServiceContext, ServicePart

ARCHIVE_REASON_MAX = 500   # characters of an operator's reason kept in the event
ARCHIVED_BY_A_PERSON = "archived by a person"   # the event's reason when the operator gave none


class ArchiveService(ServicePart):
    """Operator archive and unarchive, and the archives in force at a moment."""

    def __init__(self, ctx: ServiceContext, log: QueryLog) -> None:
        super().__init__(ctx)
        self.log = log
        self._operator_moves_memo: tuple | None = None   # (state, rows scanned, the operator moves found)

    def archive(self, doc_id: str, *, now: datetime, reason: str = "", actor: str = "operator") -> dict[str, Any]:
        """Take ``doc_id`` out of answers from ``now`` on (an ARCHIVED move by ``actor``)."""
        reason = " ".join(str(reason or "").split())[:ARCHIVE_REASON_MAX]
        with self.log.held(), self.store.write_lock():
            before = self._lifecycle_of(doc_id)
            if before == Lifecycle.ARCHIVED.value:
                raise InputError(f"{doc_id!r} is archived already (unarchive it to bring it back)", field="id")
            return self._operator_move(doc_id, before, Lifecycle.ARCHIVED.value, reason or ARCHIVED_BY_A_PERSON,
                                       now=now, actor=actor)

    def unarchive(self, doc_id: str, *, now: datetime, actor: str = "operator") -> dict[str, Any]:
        """Bring an archived ``doc_id`` back into answers (ARCHIVED -> ACTIVE by ``actor``).

        A version superseded at ``now`` stays archived: its chain's newer version answers
        (:class:`InputError` says which; ``restore`` or a re-ingest changes the chain)."""
        with self.log.held(), self.store.write_lock():
            before = self._lifecycle_of(doc_id)
            if before != Lifecycle.ARCHIVED.value:
                raise InputError(f"{doc_id!r} is not archived (lifecycle {before})", field="id")
            state = self.knowledge.get()
            if bool(state.superseded_at(np.asarray([doc_id], dtype=object), to_us(now))[0]):
                raise InputError(f"{doc_id!r} is superseded by a newer version of its chain: a superseded "
                                 "version stays archived", field="id")
            return self._operator_move(doc_id, before, Lifecycle.ACTIVE.value, "unarchived by a person",
                                       now=now, actor=actor)

    def archived_documents(self, *, as_of: datetime) -> dict[str, ArchiveMark]:
        """doc_id -> the operator archive in force at ``as_of`` (who, when, why)."""
        self.log.settle()
        return self.archive_marks(self.knowledge.get(), to_us(as_of))

    def archive_marks(self, state, as_of_us: int) -> dict[str, ArchiveMark]:
        """:func:`archived_at` over ``state``'s events. The operator moves are found once per
        state, then only in the rows appended since (each answer appends its ACCESS events: a
        query scans those few rows, not the whole events table)."""
        events = state.events
        memo = self._operator_moves_memo
        if memo is None or memo[0] is not state or memo[1] > len(events):
            memo = (state, len(events), operator_moves(events))
        elif memo[1] < len(events):
            tail = operator_moves(events.iloc[memo[1]:])
            moves = memo[2] if not len(tail) else pd.concat([memo[2], tail], ignore_index=True)
            memo = (state, len(events), moves)
        self._operator_moves_memo = memo
        return archived_at(memo[2], as_of_us)

    def _lifecycle_of(self, doc_id: str) -> str:
        rows = self.store.chunks_for_docs([doc_id])
        if not rows.num_rows:
            raise InputError(f"no document with id {doc_id!r} in the store", field="id")
        return str(rows.column("lifecycle")[0].as_py() or Lifecycle.ACTIVE.value)

    def _operator_move(self, doc_id: str, before: str, after: str, reason: str, *, now: datetime,
                       actor: str) -> dict[str, Any]:
        check_move(before, after)
        actor = str(actor or "operator")
        self.knowledge.record_events([{"doc_id": doc_id, "event_type": EventType.LIFECYCLE.value, "at": now,
                                       "actor": actor, "detail": {"from": before, "to": after, "reason": reason,
                                                                  OPERATOR_MARK: True}}])
        self.store.update_doc_fields([{"doc_id": doc_id, "lifecycle": after}])
        return {"id": doc_id, "from": before, "lifecycle": after, "reason": reason, "actor": actor, "at": iso(now)}


def archived_reason(mark: ArchiveMark) -> str:
    """The ARCHIVED rejection's reason: who archived the document, when, and why."""
    why = f": {mark.reason}" if mark.reason and mark.reason != ARCHIVED_BY_A_PERSON else ""
    return f"archived by {mark.actor or 'a person'} on {iso(from_us(mark.at_us))[:16].replace('T', ' ')} UTC{why}"
