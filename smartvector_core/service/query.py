"""Queries: one question in, a logged :class:`~smartvector_core.models.QueryResponse` out.

A part of :class:`smartvector_core.service.SmartVector`, over its :class:`.core.ServiceContext`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from ..clock import to_us
from ..embedding import check_encoder
from ..errors import InputError
from ..models import QueryResponse
from ..retrieval import QueryRequest, get_profile, run_query
from ..retrieval.candidates import PASSAGES_PER_DOCUMENT
from ..retrieval.query_cache import QueryCache
from ..retrieval.search import start_encoding
from .archive import ArchiveService, archived_reason
from .calibration import CalibrationService
from .core import MAX_K, QueryLog, ServiceContext, ServicePart

WARM_WAIT_S = 60.0   # ours: the longest :meth:`QueryService.warm` waits for the chunks' in-memory copy
WARM_QUESTION = "warm-up"   # the unlogged question :meth:`QueryService.warm` asks


class QueryService(ServicePart):
    """Questions in, logged answers out: the encoder check, the knowledge state a query reads,
    the store's calibration (``calibration_service``), the operator archives in force
    (``archive_service``), the query log (``log``)."""

    def __init__(self, ctx: ServiceContext, log: QueryLog, calibration_service: CalibrationService,
                 archive_service: ArchiveService) -> None:
        super().__init__(ctx)
        self.log = log
        self.calibration_service = calibration_service
        self.archive_service = archive_service
        self._encoder_checked = False
        ctx.cache_preparers.append(self._prepare_calibration)

    def _prepare_calibration(self, cache: QueryCache) -> None:
        """Fit the store's calibration for a state readied in the background (else its first query does)."""
        if cache.calibration() is None:
            self.calibration_service.fit_store_calibration(cache)

    def query_cache(self) -> QueryCache:
        """The query path's cache (text index, full-text results, calibration) of the knowledge
        state the next query reads (:meth:`.core.QueryLog.state_for_query`)."""
        return self.query_caches.get(self.log.state_for_query())

    def _check_encoder(self) -> None:
        """A question is compared with the store's vectors only if one encoder made both
        (:func:`embedding.check_encoder`); checked at this instance's first query (reading the
        record costs a schema read, ~0.5 ms)."""
        if not self._encoder_checked:
            stored = self.store.encoder()
            check_encoder(stored, getattr(self.embedder, "encoder_id", stored), self.store.uri)
            self._encoder_checked = True

    def warm(self, as_of: datetime, wait_s: float = WARM_WAIT_S) -> None:
        """Ready the query path before the first question (a server, the dashboard opening its
        store): one unlogged question (:data:`WARM_QUESTION`, ``default`` profile, as of
        ``as_of``) loads the model and reads or builds what every question reads (the knowledge
        state and its document index, the candidate fields, the relational importance, the event
        aggregates, the calibration, LanceDB's vector index), then the in-memory copy of the
        chunks table (:class:`.retrieval.text_index.TextIndex`, built in the background above
        ``TEXT_INDEX_NOW_ROWS`` chunk rows) is waited for up to ``wait_s`` seconds. At 100k chunks
        on the 2 shared cores (load ~10) the first side-by-side question took 2.7–3.7 s without
        it, and until the copy is built a question searches LanceDB's indexes (0.5–1.5 s for the
        Query Lab's two profiles instead of 0.1–0.3 s). Nothing is written; an empty store only
        loads the model."""
        if not self.store.count_chunks():
            self.embedder.encode([WARM_QUESTION])
            return
        self.query(WARM_QUESTION, as_of=as_of, log=False)
        if wait_s > 0:
            self.query_cache().wait_for_text_index(timeout=wait_s)

    # ------------------------------------------------------------------------------- query
    def query(self, text: str, *, as_of: datetime, profile: str = "default", k: int = 5,
              query_id: str = "", log: bool = True, asked_at: datetime | None = None,
              vector=None, group_by: str = "chunk", per_document: int = PASSAGES_PER_DOCUMENT) -> QueryResponse:
        """Answer ``text`` as of ``as_of``: up to ``k`` passages, at most ``per_document`` of one
        document, grouped under their document (``group_by="document"``: one per document).

        A document an operator archived by ``as_of`` leaves the results and is listed among the
        rejections (``ARCHIVED``, who archived it, when and why: the rerank gate of
        :func:`retrieval.rerank.rerank`).

        ``asked_at`` (default ``as_of``) is when the question was really asked: the query log and
        the access events carry it, so asking about a past moment never rewrites that past's
        confidence. ``vector``: the question's embedding when the caller encoded it already.
        """
        if not text or not text.strip():
            raise InputError("empty: the query needs some text", field="query")
        if not 1 <= k <= MAX_K:
            raise InputError(f"expected a whole number from 1 to {MAX_K}, found {k}", field="--k")
        request = QueryRequest(text.strip(), as_of, get_profile(profile), k, query_id, group_by, per_document,
                               self.config)
        self._check_encoder()
        if vector is None:   # encoded while the knowledge state is checked
            vector = start_encoding(self.embedder, request.text)
        cache = self.query_cache()
        if cache.calibration() is None:
            self.calibration_service.fit_store_calibration(cache)
        marks = self.archive_service.archive_marks(cache.knowledge, to_us(as_of))
        if marks:
            request = replace(request, archived={d: archived_reason(m) for d, m in marks.items()})
        response = run_query(self.store, self.embedder, request, cache=cache, vector=vector)
        if log:
            self.log.log_query(response, now=asked_at or as_of)
        return response

    def check_query_ids(self, questions: dict[str, str]) -> None:
        """Refuse a query id that the log (or its buffer) already holds for a different question:
        an id names one question, so the verdicts given on its answers stay with that question.
        ``questions``: query id -> question text. Asking the same question under the same id
        again (a retried request, a re-run batch) is allowed. One read of the log for the lot."""
        wanted = {qid: " ".join(str(text).split()) for qid, text in questions.items() if qid}
        if not wanted:
            return
        with self.ctx.log_lock:
            logged = [(r["query_id"], r["query"]) for r in self.log.pending_queries + self.log.writing_queries
                      if r["query_id"] in wanted]
        rows = self.store.queries(list(wanted)).select(["query_id", "query"])
        logged += zip(rows.column("query_id").to_pylist(), rows.column("query").to_pylist(), strict=True)
        for qid, text in logged:
            if " ".join(str(text).split()) != wanted[qid]:
                raise InputError(f"query id {qid!r} is already logged for another question ({str(text)[:60]!r}): "
                                 "give this question an id of its own", field="id")

    def compare(self, text: str, profiles: Sequence[str], *, as_of: datetime, k: int = 5,
                asked_at: datetime | None = None) -> list[QueryResponse]:
        """The same question under each of ``profiles`` (the Query Lab's side by side): embedded
        once, each answer logged as :meth:`query` logs it."""
        if not text or not text.strip():
            raise InputError("empty: the query needs some text", field="query")
        vector = self.embedder.encode([text])[0]
        return [self.query(text, as_of=as_of, profile=p, k=k, asked_at=asked_at, vector=vector) for p in profiles]
