"""Request and response models of the HTTP API (pydantic), so ``/docs`` shows the whole schema.

Responses mirror the ``query --json`` line of ``../shared/CONTRACT.md``; ``extra="allow"`` keeps
fields added to that line later (they are passed through unchanged, never dropped).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from ..ingest.validate import clean_id, is_encodable
from ..service import MAX_K  # one bound on k for the CLI, the service and the API
from ..service.queries import MAX_QUERY_ID_CHARS

MAX_BATCH = 256             # the most questions one batch request may carry
MAX_TEXT_CHARS = 4_000      # a question longer than this is not a question


def _utf8(value: str) -> str:
    """Refuse a string no response can hold (a lone surrogate from a ``\\ud800`` escape)."""
    if not is_encodable(value):
        raise ValueError("holds a lone surrogate (half a character, from a \\ud800-\\udfff escape)")
    return value


def _finite(value: Any) -> Any:
    """Refuse NaN and ±Infinity (JSON bodies may carry them; ``1e309`` reads as Infinity), and
    ``true``/``false`` where a number or a time goes."""
    if isinstance(value, bool):
        raise ValueError("expected a number, found a boolean")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("expected a finite number, found NaN or Infinity")
    return value


def _query_id(value: str) -> str:
    return clean_id(_utf8(value), field="id", max_chars=MAX_QUERY_ID_CHARS) if value.strip() else value


Text = Annotated[str, AfterValidator(_utf8)]
Finite = BeforeValidator(_finite)
QueryId = Annotated[str, AfterValidator(_query_id)]
DocId = Annotated[str, AfterValidator(lambda v: clean_id(_utf8(v), field="id", max_chars=1_000))]


class QueryIn(BaseModel):
    """One question: the query line of CONTRACT.md."""

    model_config = ConfigDict(extra="forbid")

    text: Text = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="the question")
    as_of: Annotated[datetime | None, Finite] = Field(None, description="ISO-8601 moment the question is asked "
                                                                        "about; absent: now. Times without a zone "
                                                                        "are UTC")
    profile: Text = Field("default", description="naive | temporal | smartvector | default")
    k: Annotated[int, Finite] = Field(5, ge=1, le=MAX_K, description="how many passages to return")
    group_by: Literal["chunk", "document"] | None = Field(
        None, description="chunk: passages (several per document); document: one per document")
    id: QueryId | None = Field(None, max_length=MAX_QUERY_ID_CHARS,
                               description="query id to use in the log (batch lines); an id already logged "
                                           "for a different question is refused")


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
    confidence_factors: list[str] = Field(default_factory=list,
                                          description="what moved this confidence most, in words")
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
    abstained: bool = Field(False, description="true when nothing in the store is about the question, or nothing about it was in force at the moment judged")
    abstain_reason: str | None = None


class BatchOut(BaseModel):
    responses: list[QueryOut]


class FeedbackIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: DocId = Field(min_length=1, max_length=1_000, description="document version id")
    verdict: Literal["accept", "correct", "undo"] = Field(
        description="accept raises trust, correct lowers it and ripples to dependents; undo reverses the "
                    "standing verdict of this credential for query_id by an appended event. The actor "
                    "recorded is taken from the credential (the X-Operator-Token), never from the body")
    query_id: QueryId = Field("", max_length=MAX_QUERY_ID_CHARS)


class ArchiveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=1_000, description="document version id")
    reason: str = Field("", max_length=500, description="why (archive only; kept in the event); "
                        "the actor is the credential's, as for feedback")


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
