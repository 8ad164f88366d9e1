"""Records and vocabularies of the engine.

Two time axes (as in temporal knowledge graphs): *valid time* (``valid_from``/``valid_until``:
when the content is true) and *record time* (``created_at``: when this version was written;
``ingested_at``: when we stored it). Enums turn strings into choices and list the valid ones
when a string is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from .errors import InputError


class _Choice(StrEnum):
    """A string enum whose ``parse`` lists the valid values in its error."""

    @classmethod
    def parse(cls, value: object, *, field_name: str | None = None):
        if isinstance(value, cls):
            return value
        text = str(value).strip().upper() if value is not None else ""
        try:
            return cls(text)
        except ValueError:
            valid = ", ".join(m.value for m in cls)
            raise InputError(f"expected one of {valid}, found {value!r}",
                             field=field_name or cls.__name__) from None

    def __str__(self) -> str:  # print as the bare value
        return self.value


class DocumentKind(_Choice):
    """What sort of truth a document carries (temporal-rag blog, "Axis 2: Document Kind")."""

    STATIC = "STATIC"        # timeless fact: definitions, maths, reference
    VERSIONED = "VERSIONED"  # replaced by newer information: policies, tutorials, specs
    EVENT = "EVENT"          # true only within a time window: announcements, outages


class ValidityState(_Choice):
    """Whether a document is true at ``as_of`` (blog, "Axis 1: Validity State").

    NOT_YET_VALID is ours: ``valid_from`` lies after ``as_of``.
    """

    EXPIRED = "EXPIRED"
    VALID = "VALID"
    TEMPORAL = "TEMPORAL"
    NOT_YET_VALID = "NOT_YET_VALID"


class Lifecycle(_Choice):
    """SmartVector's five-stage lifecycle, stored states (paper, section 2.2)."""

    UNCONSOLIDATED = "UNCONSOLIDATED"
    ACTIVE = "ACTIVE"
    DORMANT = "DORMANT"
    ARCHIVED = "ARCHIVED"


class EdgeType(_Choice):
    """Relations between document versions (paper: supersedes, depends_on, contradicts)."""

    SUPERSEDES = "SUPERSEDES"    # src replaces dst
    DEPENDS_ON = "DEPENDS_ON"    # src relies on dst (dst is "depended_by" src)
    CONTRADICTS = "CONTRADICTS"  # src and dst disagree (review queue)


class EventType(_Choice):
    """Rows of the append-only ``events`` table."""

    INGEST = "INGEST"
    UPDATE = "UPDATE"
    ACCESS = "ACCESS"
    FEEDBACK_ACCEPT = "FEEDBACK_ACCEPT"
    FEEDBACK_CORRECT = "FEEDBACK_CORRECT"
    FEEDBACK_UNDO = "FEEDBACK_UNDO"   # reverses one verdict (and its ripple): delta = minus what it added
    LIFECYCLE = "LIFECYCLE"
    RIPPLE = "RIPPLE"
    CONTRADICTION = "CONTRADICTION"
    CONTRADICTION_SETTLED = "CONTRADICTION_SETTLED"   # reverses a CONTRADICTION penalty (settled pair)
    REVIEW = "REVIEW"
    REEMBED = "REEMBED"
    RESTORE = "RESTORE"


def event_detail(value: Any) -> dict[str, Any]:
    """An event's ``detail`` (JSON text as stored, or already a dict) as a dict; {} when it is
    neither (the one reader of event details)."""
    if isinstance(value, dict):
        return value
    try:
        parsed = json.loads(value) if value else {}
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def verdict_key(detail: Any, doc_id: str, at_us: int) -> str:
    """What a FEEDBACK_UNDO names in ``detail.undoes``: the verdict's ``detail.event_id``, or
    ``"{doc_id}@{at_us}"`` for verdicts written before ids existed (service.feedback_undo)."""
    return event_detail(detail).get("event_id") or f"{doc_id}@{at_us}"


def without_undone(verdicts: Any, events: Any) -> Any:
    """The rows of ``verdicts`` that no FEEDBACK_UNDO among ``events`` reversed: the one rule for
    "verdict undone" (freshness's last accept, the calibration's verdicts, a standing verdict).

    Both are frames with columns ``event_type``, ``detail``, ``doc_id`` and ``at_us``
    (``verdicts`` a subset of rows, usually of ``events``); an undo names the verdict it
    reverses in ``detail.undoes`` as :func:`verdict_key` writes it.
    """
    undo = events.loc[events["event_type"] == "FEEDBACK_UNDO", "detail"]
    undone = {event_detail(d).get("undoes") for d in undo}
    if not undone or not len(verdicts):
        return verdicts
    keys = [verdict_key(d, doc, t) for d, doc, t in
            zip(verdicts["detail"], verdicts["doc_id"], verdicts["at_us"], strict=True)]
    return verdicts[[k not in undone for k in keys]]


class RejectionCode(_Choice):
    """Why a candidate was not returned (blog, "Knowing why something was rejected")."""

    EXPIRED_VERSIONED_DOC = "EXPIRED_VERSIONED_DOC"
    STALE_STATIC_DOC = "STALE_STATIC_DOC"
    HARD_EXPIRED_EVENT = "HARD_EXPIRED_EVENT"
    BELOW_RELEVANCE_GATE = "BELOW_RELEVANCE_GATE"
    OUT_OF_TIME_RANGE = "OUT_OF_TIME_RANGE"
    PAIR_PARTNER_NOT_FOUND = "PAIR_PARTNER_NOT_FOUND"
    SUPERSEDED_IN_CHAIN = "SUPERSEDED_IN_CHAIN"
    NOT_YET_VALID = "NOT_YET_VALID"
    EXPIRED_DOC = "EXPIRED_DOC"
    VERSION_MISMATCH = "VERSION_MISMATCH"
    DUPLICATE_CHUNK = "DUPLICATE_CHUNK"
    ARCHIVED = "ARCHIVED"   # taken out of answers by a person (service.archive)


class ConfidenceTier(_Choice):
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class Action(_Choice):
    """What to do with a result (blog, SOLO / PAIR / DROP)."""

    SOLO = "SOLO"
    PAIR = "PAIR"
    DROP = "DROP"


@dataclass(frozen=True)
class Document:
    """One document version as given by the user, validated and normalised.

    Times are aware UTC. ``created_at`` is never None after validation: when the file gives
    none it is the ingest moment and ``dated`` is False (an undated document is not treated
    as brand new by the temporal signals).
    """

    id: str
    text: str
    created_at: datetime
    title: str = ""
    dated: bool = True
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    kind: DocumentKind | None = None          # None: to be inferred
    doc_type: str | None = None               # None: to be inferred
    version: str = ""
    supersedes: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    source: str = ""
    authority: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    origin: str = ""                           # FILE:LINE it came from

    def metadata_json(self) -> str:
        return json.dumps(self.metadata, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Chunk:
    """A span of a document's text, with character offsets into that text."""

    doc_id: str
    ordinal: int
    text: str
    char_start: int
    char_end: int
    content_hash: str
    occurrence: int = 0   # n-th chunk of this document with the same text

    @property
    def chunk_id(self) -> str:
        """Stable across edits elsewhere in the document: keyed by content, not position."""
        return f"{self.doc_id}:{self.content_hash[:16]}:{self.occurrence}"


@dataclass(frozen=True)
class Signal:
    """One part of a score: ``contribution`` is what it added to the final score."""

    value: float
    weight: float
    contribution: float

    def to_dict(self) -> dict[str, float]:
        return {"value": round(float(self.value), 6), "weight": round(float(self.weight), 6),
                "contribution": round(float(self.contribution), 6)}


@dataclass
class Rejection:
    id: str
    code: RejectionCode
    reason: str
    chunk_id: str = ""

    def to_dict(self) -> dict[str, str]:
        out = {"id": self.id, "code": self.code.value, "reason": self.reason}
        if self.chunk_id:
            out["chunk_id"] = self.chunk_id
        return out


@dataclass
class Result:
    """One answer passage. ``confidence``: the calibrated probability that it is a right and
    current answer (tiers are thresholds on it); ``trust``: its document's trust at ``as_of``;
    ``certainty``: the uncalibrated evidence that calibration maps to ``confidence`` (logged so
    a store can refit its calibration from operators' verdicts). See DESIGN.md "Trust model"."""

    id: str
    chunk_id: str
    text: str
    rank: int
    score: float
    confidence: float
    confidence_tier: ConfidenceTier
    validity_state: ValidityState
    kind: DocumentKind
    signals: dict[str, Signal]
    reasons: list[str]
    title: str = ""
    doc_type: str = ""
    action: Action = Action.SOLO
    lifecycle: str = ""
    created_at: str | None = None
    paired_with: str | None = None
    trust: float = float("nan")
    certainty: float = float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "chunk_id": self.chunk_id, "text": self.text, "rank": self.rank,
            "score": round(float(self.score), 6), "confidence": round(float(self.confidence), 6),
            "trust": _rounded(self.trust), "certainty": _rounded(self.certainty),
            "confidence_tier": self.confidence_tier.value,
            "validity_state": self.validity_state.value, "kind": self.kind.value,
            "signals": {name: s.to_dict() for name, s in self.signals.items()},
            "reasons": list(self.reasons), "title": self.title, "doc_type": self.doc_type,
            "action": self.action.value, "lifecycle": self.lifecycle,
            "created_at": self.created_at, "paired_with": self.paired_with,
        }


def _rounded(value: float) -> float | None:
    """6 decimals; None (JSON null) for NaN (a value that was not computed)."""
    value = float(value)
    return None if value != value else round(value, 6)


@dataclass
class QueryResponse:
    query_id: str
    query: str
    as_of: str
    profile: str
    results: list[Result]
    rejections: list[Rejection]
    intent: dict[str, Any] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    abstained: bool = False            # nothing in the store is about the question
    abstain_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "query": self.query, "as_of": self.as_of,
                "profile": self.profile, "abstained": self.abstained, "abstain_reason": self.abstain_reason,
                "results": [r.to_dict() for r in self.results],
                "rejections": [r.to_dict() for r in self.rejections], "intent": self.intent,
                "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()}}
