"""The service's shared context and its query log.

:class:`ServiceContext` is what every part of :class:`smartvector_core.service.SmartVector` shares:
the settings and engine configuration, the one store, embedder, knowledge cache and query caches
(each opened at its first use), and the lock that orders the query log's writes with the
operators' writes. :class:`ServicePart` is the base of each part (ingest, query, feedback, ...):
it reads those through the context. :class:`QueryLog` is the part that buffers the query log
and the access events and writes them (at once, per batch, or from a background thread)."""

from __future__ import annotations

import atexit
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from ..clock import parse_time
from ..config import DEFAULT_ENGINE, EngineConfig
from ..knowledge import KnowledgeCache, KnowledgeState
from ..models import EventType, QueryResponse
from ..retrieval.query_cache import QueryCaches
from ..settings import Settings, load_settings
from ..store import Store

PRE_INGEST_TAG = "pre-ingest"  # rolling tag: the store as it was before the latest bulk ingest
PRE_INGEST_TAG_MIN_DOCS = 50  # an ingest call of at least this many documents is "bulk"
RESTORE_DETAIL_IDS = 1_000  # a RESTORE event lists at most this many removed / returned ids
MAX_K = 1_000  # the most results one query may ask for (the candidate pool is 12·k)
RETENTION_DAYS = 7.0  # maintain(): versions older than this are cleaned up (tagged ones kept)
MAX_RETENTION_DAYS = 36_500  # a century: larger ages overflow a timedelta (and keep everything anyway)


class ServiceContext:
    """The state every part of the service shares. The embedder, store, knowledge cache and query
    caches open at their first use (a command that reads no store opens none); ``log_lock``
    guards the query log's pending rows, their writes and the knowledge reads, and is taken
    before the store's write lock by every writer that takes both."""

    def __init__(self, settings: Settings | None = None, *, embedder=None, config: EngineConfig | None = None) -> None:
        self.settings = settings or load_settings()
        self.config = config or DEFAULT_ENGINE   # every query's thresholds (config/engine.py)
        self._embedder = embedder
        self._store: Store | None = None
        self._knowledge: KnowledgeCache | None = None
        self._query_caches: QueryCaches | None = None
        self.log_lock = threading.RLock()
        # what else readies a query cache of a state loaded in the background (the calibration)
        self.cache_preparers: list[Callable[[Any], None]] = []

    @property
    def embedder(self):
        if self._embedder is None:
            from ..embedding import get_embedder

            self._embedder = get_embedder(self.settings.model_name)
        return self._embedder

    def share_embedder(self, make):
        """The service's encoder, shared with a caller: the one it has, else ``make()`` (called
        once, then the service's encoder too). Ray ingest passes a lazy encoder whose model loads
        only at the first encode: the driver needs just the dimension to open the store."""
        if self._embedder is None:
            self._embedder = make()
        return self._embedder

    @property
    def store_is_open(self) -> bool:
        """Whether the store was opened (by any call that read or wrote it)."""
        return self._store is not None

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.settings, self.embedder.dim)
        return self._store

    @property
    def knowledge(self) -> KnowledgeCache:
        if self._knowledge is None:
            self._knowledge = KnowledgeCache(self.store, prepare=self._prepare_state)
        return self._knowledge

    def _prepare_state(self, state: KnowledgeState) -> None:
        """Ready the query cache of a state loaded in the background before queries read it
        (:meth:`.retrieval.query_cache.QueryCache.prepare`, then ``cache_preparers``)."""
        cache = self.query_caches.get(state)
        cache.prepare()
        for prepare in self.cache_preparers:
            prepare(cache)

    @property
    def query_caches(self) -> QueryCaches:
        if self._query_caches is None:
            self._query_caches = QueryCaches(self.store)
        return self._query_caches


class ServicePart:
    """A part of the service: it holds the shared :class:`ServiceContext` and reads the
    settings, configuration, store, embedder and caches through it."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    @property
    def settings(self) -> Settings:
        return self.ctx.settings

    @property
    def config(self) -> EngineConfig:
        return self.ctx.config

    @property
    def embedder(self):
        return self.ctx.embedder

    @property
    def store(self) -> Store:
        return self.ctx.store

    @property
    def knowledge(self) -> KnowledgeCache:
        return self.ctx.knowledge

    @property
    def query_caches(self) -> QueryCaches:
        return self.ctx.query_caches


class QueryLog(ServicePart):
    """The query log and the access events: buffered, then written (at once, at the end of a
    batch, or by a background writer); ``wake(access_events)`` is called after each write of
    access events (dormant documents that were read wake up)."""

    def __init__(self, ctx: ServiceContext, wake: Callable[[list[dict[str, Any]]], None]) -> None:
        super().__init__(ctx)
        self.wake = wake
        self.pending_queries: list[dict[str, Any]] = []
        self.pending_events: list[dict[str, Any]] = []
        self.writing_queries: list[dict[str, Any]] = []   # taken by the flush in progress, not committed yet
        self._flush_lock = threading.RLock()              # one flush at a time, in order
        self.batching = False
        self._batch_state: KnowledgeState | None = None
        self._log_wake: threading.Event | None = None
        self._log_delay_s = 0.0

    @contextmanager
    def held(self) -> Iterator[None]:
        """The log held for an operator's write of its own (feedback, archive): no flush runs and
        no query appends meanwhile. Locks are taken in one order everywhere: this flush lock,
        then ``log_lock``, then the store's write lock (a flush holds only the first while it
        writes)."""
        with self._flush_lock, self.ctx.log_lock:
            yield

    def pending(self) -> int:
        """Rows (query-log rows and access events) not written yet."""
        with self.ctx.log_lock:
            return len(self.pending_queries) + len(self.pending_events) + len(self.writing_queries)

    def state_for_query(self):
        """The knowledge state a query reads. In batch mode (``batching``) every query of the
        batch reads one snapshot taken at its first query: the batch is consistent and
        reproducible, and no query pays the per-table version checks; ``flush`` ends it."""
        if not self.batching:   # a write of our own appends to the state under the cache's lock;
            # after another process's write, the state before it while the next one is loaded
            return self.knowledge.get(wait=False)
        with self.ctx.log_lock:
            if self._batch_state is None:
                self._batch_state = self.knowledge.get()
            return self._batch_state

    def log_query(self, response: QueryResponse, *, now: datetime) -> None:
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
        with self.ctx.log_lock:
            self.pending_queries.append(row)
            self.pending_events.extend(events)
        if self._log_wake is not None:
            self._log_wake.set()
        elif not self.batching:
            self.flush()

    def write_log_in_background(self, delay_s: float = 0.3) -> None:
        """From now on a daemon thread writes the query log and access events, ``delay_s`` after
        a query (queries asked meanwhile go in the same commits), instead of the query waiting
        for two LanceDB commits. None is lost: every read of the log, events or confidence in
        this class flushes first, and so does interpreter exit (``atexit``). Idempotent."""
        with self.ctx.log_lock:
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

    def settle(self) -> None:
        """Before a read: write what the background writer has not written yet, so every page
        sees each query it asked (a no-op without :meth:`write_log_in_background`)."""
        if self._log_wake is not None and (self.pending_queries or self.pending_events or self.writing_queries):
            self.flush()   # waits for a flush in progress, then writes what is left

    def flush(self) -> None:
        """Write buffered query-log rows and access events (one commit each); ends a batch's
        knowledge snapshot. Thread-safe; rows of a failed write go back to the buffer, ahead of
        rows logged since, for the next flush.

        The buffer is taken under ``log_lock`` and written outside it (flushes run one at a time
        under their own lock): a query appending its row never waits for LanceDB's commits, nor
        for the knowledge refresh that waking dormant documents may start. Those waits stalled
        every client of the API for seconds while another process wrote (the trickle bench)."""
        with self._flush_lock:
            with self.ctx.log_lock:
                self._batch_state = None
                queries, self.pending_queries = self.pending_queries, []
                events, self.pending_events = self.pending_events, []
                self.writing_queries = queries
            try:
                if queries:
                    self.store.log_queries(queries)
                queries = []
                if events:
                    self.knowledge.record_events(events)
            except BaseException:
                with self.ctx.log_lock:
                    self.pending_queries[:0] = queries
                    self.pending_events[:0] = events
                raise
            finally:
                with self.ctx.log_lock:
                    self.writing_queries = []
            accessed = [e for e in events if e["event_type"] == EventType.ACCESS.value]
            if accessed:
                self.wake(accessed)

def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)
