"""Request and response models of the HTTP API (pydantic), so ``/docs`` shows the whole schema.

Responses mirror the ``query --json`` line of ``../shared/CONTRACT.md``; ``extra="allow"`` keeps
fields added to that line later (they are passed through unchanged, never dropped).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..service import MAX_K  # one bound on k for the CLI, the service and the API

MAX_BATCH = 256             # the most questions one batch request may carry
MAX_TEXT_CHARS = 4_000      # a question longer than this is not a question


class QueryIn(BaseModel):
    """One question: the query line of CONTRACT.md."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="the question")
    as_of: datetime | None = Field(None, description="ISO-8601 moment the question is asked about; "
                                                     "absent: now. Times without a zone are UTC")
    profile: str = Field("default", description="naive | temporal | smartvector | default")
    k: int = Field(5, ge=1, le=MAX_K, description="how many passages to return")
    group_by: Literal["chunk", "document"] | None = Field(
        None, description="chunk: passages (several per document); document: one per document")
    id: str | None = Field(None, max_length=200, description="query id to use in the log (batch lines)")


class BatchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    queries: list[QueryIn] = Field(min_length=1, max_length=MAX_BATCH)


class SignalOut(BaseModel):
    value: float
    weight: float
    contribution: float


class ResultOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    chunk_id: str
    text: str
    rank: int
    score: float
    confidence: float = Field(description="calibrated probability that this passage is a right and current answer")
    confidence_tier: str
    trust: float | None = Field(None, description="the document's trust at as_of")
    validity_state: str
    kind: str
    signals: dict[str, SignalOut]
    reasons: list[str]


class RejectionOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    code: str
    reason: str


class QueryOut(BaseModel):
    """Exactly the ``query --json`` line."""

    model_config = ConfigDict(extra="allow")

    query_id: str
    query: str
    as_of: str
    profile: str
    results: list[ResultOut]
    rejections: list[RejectionOut]
    abstained: bool = Field(False, description="true when nothing in the store is about the question")
    abstain_reason: str | None = None


class BatchOut(BaseModel):
    responses: list[QueryOut]


class FeedbackIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=1_000, description="document version id")
    verdict: Literal["accept", "correct", "undo"] = Field(
        description="accept raises trust, correct lowers it and ripples to dependents; undo reverses this "
                    "actor's standing verdict for query_id by an appended event")
    query_id: str = Field("", max_length=200)
    actor: str = Field("api", max_length=200, description="who gave the verdict")


class ArchiveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=1_000, description="document version id")
    reason: str = Field("", max_length=500, description="why (archive only; kept in the event)")
    actor: str = Field("api", max_length=200, description="who archived or unarchived it")


class ArchiveOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    lifecycle: str
    actor: str


class FeedbackOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    trust_before: float
    trust_after: float


class DocumentOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    as_of: str
    trust: float | None
    lifecycle: str
    kind: str
    doc_type: str | None = None
    title: str | None = None
    version_chain: list[dict[str, Any]]
    dependents: list[dict[str, Any]]


class HealthOut(BaseModel):
    status: Literal["ok"]
    documents: int
    chunks: int
    pending_log_rows: int
