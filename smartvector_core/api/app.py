"""The HTTP query API for RAG apps: the same store, gates, trust and rejections as the CLI.

One process serves many requests. The service (model, store handle, knowledge state) is built
once. The query-log rows and access events that answers produce are buffered and written by the
service's background writer ``flush_interval_s`` after a query (queries asked meanwhile share its
commits, instead of each waiting for two LanceDB commits). Each query reads the knowledge state of
the store's current table versions, so a write made by the dashboard or the CLI is seen at once.
On shutdown the buffers are flushed: nothing is lost.

Concurrency: queries (and the other reads) run at once in the server's worker threads, each on
one consistent knowledge state (the cache swaps whole snapshots, refreshed by one thread while
the others wait for it); an operator's write runs alone, after the reads in flight
(:class:`.rwlock.ReadWriteLock`), and the store's own lock serialises it with other processes.

Only the endpoints below exist; none takes a path or a URL, so nothing else on the machine is
reachable through the API. Bind it to 127.0.0.1 (the default) unless a proxy guards it.

Bad input is a 422 whose body names each field at fault and never echoes the value back (a NaN,
an Infinity or a lone surrogate in the echo would make the error itself unencodable). A query-log
row is written ``flush_interval_s`` after its answer: a ``kill -9`` of the server loses the rows
of that last interval (docs/RELIABILITY.md); a normal stop (SIGTERM, Ctrl-C) writes them.
The actor of a verdict is the credential: ``operator-token:<fingerprint>`` when the store
requires a token, ``api`` when it is open.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from .. import clock
from ..errors import InputError, OperatorTokenError
from ..ingest.parse import huge_number
from ..ingest.validate import clean_id, is_encodable
from ..service import SmartVector
from .rwlock import ReadWriteLock
from .schemas import (
    ArchiveIn,
    ArchiveOut,
    BatchIn,
    BatchOut,
    DocumentOut,
    FeedbackIn,
    FeedbackOut,
    HealthOut,
    QueryIn,
    QueryOut,
)

FLUSH_INTERVAL_S = 0.5


def _json(payload: Any, status_code: int = 200) -> Response:
    """The CLI's serialisation (``service.dumps``), so ``/query`` bytes equal ``query --json``."""
    return Response(json.dumps(payload, ensure_ascii=False, default=str), status_code=status_code,
                    media_type="application/json")


def _as_of(value: datetime | None) -> datetime:
    """The moment of judgement: now when absent; made UTC at this edge (a zone-less time is UTC)."""
    if value is None:
        return clock.now()
    try:
        return clock.ensure_utc(value)
    except (OverflowError, ValueError):
        raise HTTPException(status_code=422, detail=[{"loc": ["body", "as_of"], "type": "value_error",
                                                      "msg": f"out of range: {value.isoformat()}"}]) from None


def _unprocessable(exc: InputError) -> HTTPException:
    field = getattr(exc, "field", None) or "body"
    return HTTPException(status_code=422, detail=[{"loc": ["body", field], "msg": str(exc), "type": "value_error"}])


def _safe_text(value: object) -> str:
    """``value`` as text any JSON encoder can write (lone surrogates escaped)."""
    return str(value).encode("utf-8", "backslashreplace").decode("utf-8")


def validation_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    """The 422 body of a request pydantic refused: where and why, without the input itself."""
    out = []
    for error in exc.errors():
        out.append({"loc": [_safe_text(part) if isinstance(part, str) else part for part in error.get("loc", ())],
                    "msg": _safe_text(error.get("msg", "")), "type": _safe_text(error.get("type", ""))})
    return out


def actor_of(token: str | None) -> str:
    """Who a verdict is recorded as: the credential, never a name the client chose
    (``operator-token:`` and the first 8 hex digits of the token's SHA-256; ``api`` on an open store)."""
    if not token:
        return "api"
    return "operator-token:" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:8]


class Engine:
    """The service behind a readers-writer lock: reads at once, writes alone; its query log is
    written by the service's background writer."""

    def __init__(self, service: SmartVector, *, flush_interval_s: float = FLUSH_INTERVAL_S) -> None:
        self.service = service
        self.lock = ReadWriteLock()
        self.flush_interval_s = flush_interval_s

    @contextmanager
    def locked(self) -> Iterator[SmartVector]:
        """The service for a write (alone)."""
        with self.lock.writing():
            yield self.service

    @contextmanager
    def reading(self) -> Iterator[SmartVector]:
        """The service for a read (beside other reads)."""
        with self.lock.reading():
            yield self.service

    def start(self) -> None:
        """Open (or create) the store and ready the query path before the first request (model,
        knowledge state, calibration, the chunks' in-memory copy: :meth:`SmartVector.warm`), then
        hand the query log to the service's background writer (:meth:`SmartVector.write_log_in_background`)."""
        self.service.warm(as_of=clock.now())
        self.service.write_log_in_background(self.flush_interval_s)

    def stop(self) -> None:
        with self.lock.writing():
            self.service.flush()

    def pending(self) -> int:
        return self.service.pending_log_rows()

    def query(self, spec: QueryIn, *, asked_at: datetime, vector=None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if spec.group_by is not None:
            kwargs["group_by"] = spec.group_by
        with self.lock.reading():
            if spec.id:
                self.service.check_query_ids({spec.id: spec.text})
            response = self.service.query(spec.text, as_of=_as_of(spec.as_of), profile=spec.profile, k=spec.k,
                                          query_id=spec.id or "", asked_at=asked_at, vector=vector, **kwargs)
        return response.to_dict()


def create_app(service: SmartVector | None = None, *, flush_interval_s: float = FLUSH_INTERVAL_S) -> FastAPI:
    """The FastAPI application over ``service`` (default: the store of ``$SMARTVECTOR_STORE``)."""
    service = service or SmartVector()
    service.keep_consolidation_inputs()   # a server writes again: its ingests consolidate from a warm cache
    engine = Engine(service, flush_interval_s=flush_interval_s)

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        engine.start()
        try:
            yield
        finally:
            engine.stop()

    api = FastAPI(title="SmartVector Studio query API", version="1.0", lifespan=lifespan,
                  description="Temporal, trust-aware retrieval over a SmartVector store. `/query` returns "
                              "exactly the `query --json` line of the command line.")
    api.state.engine = engine

    @api.middleware("http")
    async def refuse_huge_numbers(request: Request, call_next):
        """A body integer over 4,300 digits, which Python's JSON reader refuses (a bare 400
        naming nothing), is a 422 naming its field."""
        if request.method in ("POST", "PUT", "PATCH"):
            huge = huge_number(await request.body())
            if huge:
                return JSONResponse({"detail": [{"loc": ["body", huge[0]], "type": "value_error",
                                                 "msg": f"a number of {huge[1]} digits, over the limit of 4300 digits"}]},
                                    status_code=422)
        return await call_next(request)

    @api.exception_handler(RequestValidationError)
    async def unprocessable(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_errors(exc)}, status_code=422)

    @api.post("/query", response_model=QueryOut, summary="Ask one question")
    def query(body: QueryIn) -> Response:
        try:
            return _json(engine.query(body, asked_at=clock.now()))
        except InputError as exc:
            raise _unprocessable(exc) from None

    @api.post("/query/batch", response_model=BatchOut, summary="Ask several questions, answered in order")
    def query_batch(body: BatchIn) -> Response:
        asked_at = clock.now()
        ids = [q.id for q in body.queries if q.id]
        if len(ids) != len(set(ids)):
            raise HTTPException(status_code=422, detail=[{"loc": ["body", "queries", "id"], "type": "value_error",
                                                          "msg": "a query id given twice in one batch"}])
        try:
            vectors = engine.service.embedder.encode([q.text for q in body.queries])   # one batched call
            return _json({"responses": [engine.query(q, asked_at=asked_at, vector=v)
                                        for q, v in zip(body.queries, vectors, strict=True)]})
        except InputError as exc:
            raise _unprocessable(exc) from None

    _operator_routes(api, engine)

    @api.get("/documents/{doc_id:path}", response_model=DocumentOut,
             summary="A document's trust, lifecycle, version chain and dependents (ids may hold '/')")
    def document(doc_id: str, as_of: datetime | None = Query(None)) -> Response:
        moment = _as_of(as_of)
        try:
            if not is_encodable(doc_id):
                raise InputError("holds a lone surrogate", field="id")
            doc_id = clean_id(doc_id, field="id", max_chars=1_000)
        except InputError as exc:
            raise _unprocessable(exc) from None
        try:
            with engine.reading() as sv:
                chain = sv.version_chain(doc_id)
                trust = sv.trust_of([doc_id], as_of=moment).get(doc_id)
                dependents = sv.ripple_preview(doc_id)
        except InputError as exc:
            raise HTTPException(status_code=404, detail=str(exc)) from None
        row = next(r for r in chain if r["id"] == doc_id)
        return _json({"id": doc_id, "as_of": clock.iso(moment), "trust": trust, "lifecycle": row["lifecycle"],
                      "kind": row["kind"], "title": row.get("title"), "version": row.get("version"),
                      "version_chain": chain, "dependents": dependents})

    @api.get("/health", response_model=HealthOut)
    def health() -> JSONResponse:
        with engine.reading() as sv:
            stats = {"documents": sv.store.documents().num_rows, "chunks": sv.store.count_chunks()}
        return JSONResponse({"status": "ok", **stats, "pending_log_rows": engine.pending()})

    @api.get("/stats", summary="What the store holds (the `stats --json` object)")
    def stats() -> Response:
        with engine.reading() as sv:
            return _json(sv.stats())

    return api


def _operator_routes(api: FastAPI, engine: Engine) -> None:
    """The operator's writes (feedback, archive, unarchive): each needs the operator token and
    records the credential's actor."""

    @api.post("/feedback", response_model=FeedbackOut, summary="An operator's verdict on a document version")
    def feedback(body: FeedbackIn, x_operator_token: str | None = Header(None)) -> Response:
        def verdict(sv, actor: str) -> dict:
            if body.verdict == "undo":
                return sv.feedback_undo(body.id, now=clock.now(), query_id=body.query_id, actor=actor)
            return sv.feedback(body.id, body.verdict, now=clock.now(), query_id=body.query_id, actor=actor)
        return _operator_write(x_operator_token, verdict)

    def _operator_write(token: str | None, write) -> Response:
        """One operator write: the token checked, the actor taken from the credential, the
        buffered answers flushed first (a write lands after every answer it may refer to), and
        403 / 404 / 422 for a bad token, an unknown document or bad input."""
        try:
            with engine.locked() as sv:
                sv.check_operator(token)
                actor = actor_of(token if sv.settings.operator_token else None)
                sv.flush()
                out = write(sv, actor)
        except OperatorTokenError as exc:
            raise HTTPException(status_code=403, detail=str(exc)) from None
        except InputError as exc:
            if "no document" in str(exc):
                raise HTTPException(status_code=404, detail=str(exc)) from None
            raise _unprocessable(exc) from None
        return _json(out)

    def _lifecycle_write(body: ArchiveIn, token: str | None, unarchive: bool) -> Response:
        return _operator_write(token, lambda sv, actor: (
            sv.unarchive(body.id, now=clock.now(), actor=actor) if unarchive
            else sv.archive(body.id, now=clock.now(), reason=body.reason, actor=actor)))

    @api.post("/archive", response_model=ArchiveOut, summary="Take a document version out of answers "
                                                             "(an appended event; nothing deleted)")
    def archive(body: ArchiveIn, x_operator_token: str | None = Header(None)) -> Response:
        return _lifecycle_write(body, x_operator_token, unarchive=False)

    @api.post("/unarchive", response_model=ArchiveOut, summary="Bring an archived version back into answers")
    def unarchive(body: ArchiveIn, x_operator_token: str | None = Header(None)) -> Response:
        return _lifecycle_write(body, x_operator_token, unarchive=True)


def serve(service: SmartVector, *, host: str = "127.0.0.1", port: int = 8600) -> None:
    """Run the API with uvicorn until interrupted (buffers are flushed on the way out)."""
    import uvicorn

    uvicorn.run(create_app(service), host=host, port=port, log_level="warning", workers=1)
