"""A drop-in LangChain retriever over a SmartVector store.

>>> from smartvector_core.integrations.langchain import SmartVectorRetriever
>>> retriever = SmartVectorRetriever(store="data/lancedb", k=5)          # in-process
>>> retriever = SmartVectorRetriever(url="http://127.0.0.1:8600", k=5)   # or over the HTTP API
>>> docs = retriever.invoke("What is the refund window?")

Each :class:`~langchain_core.documents.Document` is one passage; its metadata carries ``id``,
``chunk_id``, ``trust``, ``confidence``, ``tier``, ``validity_state``, ``kind``, ``reasons``, ``rank``
and ``query_id``. When nothing in the store is about the question the engine *abstains*, and
the ``abstain`` policy decides what the chain sees:

- ``"empty"`` (default): no documents. A bot then says "I don't know" instead of answering from
  stale or unrelated text.
- ``"keep"``: the low-confidence passages, each marked ``abstained=True`` in its metadata.
- ``"raise"``: :class:`AbstainedError`, for callers that branch on it.

Depends only on ``langchain-core``.
"""

from __future__ import annotations

import json
import urllib.request
from datetime import datetime
from typing import Any, Literal

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, PrivateAttr

from .. import clock


class AbstainedError(LookupError):
    """The store holds nothing about the question (``abstain="raise"``)."""

    def __init__(self, reason: str, response: dict[str, Any]) -> None:
        super().__init__(reason)
        self.response = response


def to_documents(response: dict[str, Any]) -> list[Document]:
    """The passages of one ``query --json`` line as LangChain documents."""
    abstained = bool(response.get("abstained", False))
    docs = []
    for r in response.get("results", []):
        docs.append(Document(page_content=r["text"], id=r.get("chunk_id"), metadata={
            "id": r["id"], "chunk_id": r.get("chunk_id"), "rank": r.get("rank"), "score": r.get("score"),
            "trust": r.get("trust"), "confidence": r.get("confidence"), "tier": r.get("confidence_tier"),
            "validity_state": r.get("validity_state"), "kind": r.get("kind"), "reasons": r.get("reasons", []),
            "title": r.get("title"), "query_id": response.get("query_id"), "as_of": response.get("as_of"),
            "abstained": abstained}))
    return docs


class SmartVectorRetriever(BaseRetriever):
    """Temporal, trust-aware retrieval from a SmartVector store, in-process or over HTTP.

    Give ``store`` (a LanceDB directory or object-store URI; ``""`` means ``$SMARTVECTOR_STORE``)
    for an in-process engine, or ``url`` for a running ``python -m smartvector_core serve``.
    ``as_of`` (ISO-8601 string or datetime) pins the moment of judgement; absent: now.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: str | None = None
    url: str | None = None
    as_of: datetime | str | None = None
    profile: str = "default"
    k: int = 5
    group_by: Literal["chunk", "document"] | None = None
    abstain: Literal["empty", "keep", "raise"] = "empty"
    timeout_s: float = 30.0
    service: Any = None
    _service: Any = PrivateAttr(default=None)

    def _local(self):
        if self._service is None:
            if self.service is not None:
                self._service = self.service
            else:
                from ..service import SmartVector
                from ..settings import load_settings

                self._service = SmartVector(load_settings(self.store or None))
        return self._service

    def _moment(self) -> datetime:
        if self.as_of is None:
            return clock.now()
        if isinstance(self.as_of, datetime):
            return clock.ensure_utc(self.as_of)
        return clock.parse_time(self.as_of, field="as_of")

    def _ask(self, query: str) -> dict[str, Any]:
        moment = self._moment()
        if self.url:
            body: dict[str, Any] = {"text": query, "as_of": clock.iso(moment), "profile": self.profile, "k": self.k}
            if self.group_by:
                body["group_by"] = self.group_by
            request = urllib.request.Request(self.url.rstrip("/") + "/query", data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"}, method="POST")
            with urllib.request.urlopen(request, timeout=self.timeout_s) as reply:   # noqa: S310 (caller's URL)
                return json.loads(reply.read())
        kwargs = {"group_by": self.group_by} if self.group_by else {}
        response = self._local().query(query, as_of=moment, profile=self.profile, k=self.k,
                                       asked_at=clock.now(), **kwargs)
        return response.to_dict()

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        response = self._ask(query)
        if response.get("abstained"):
            if self.abstain == "raise":
                raise AbstainedError(response.get("abstain_reason") or "nothing relevant in the store", response)
            if self.abstain == "empty":
                return []
        return to_documents(response)
