"""What the query path keeps for one knowledge state (:class:`QueryCache`), and the holder that
gives each state its cache (:class:`QueryCaches`).

A :class:`~smartvector_core.knowledge.KnowledgeState` is the domain snapshot (documents, events,
trust); the query path adds what only it reads, valid as long as that state is:

- the document-level candidate fields of every document (:meth:`QueryCache.document_fields`:
  written on every chunk of a document, so a search need not read them from LanceDB), and the
  share of the chunk rows a search at a moment may return (:meth:`QueryCache.existing_share`);
- the in-memory copy of the chunks table (:class:`.text_index.TextIndex`), carried across states:
  as it is while the chunks table keeps its version, updated by this process's writes
  (:class:`QueryCaches`);
- full-text results per (name or question, existence bound) (:attr:`QueryCache.full_text`);
- the store's calibration knots refitted on operators' verdicts (:meth:`QueryCache.calibration`).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future

import numpy as np

from ..knowledge import KnowledgeState
from .candidates import document_fields, document_fields_after
from .text_index import TextIndex

Knots = tuple[np.ndarray, np.ndarray]
TEXT_INDEX_NOW_ROWS = 20_000   # ours: a store of up to this many chunk rows builds its in-memory text
#                                index at its first question (0.4–0.9 s at 20k distinct texts); a larger one in the background


def _building(store, into: Future):
    """A function that builds the store's :class:`TextIndex` into ``into`` (a failure is kept
    there: LanceDB's own index then answers)."""
    def build() -> None:
        try:
            into.set_result(TextIndex.from_store(store))
        except Exception as exc:  # noqa: BLE001 - kept in the future, read by text_index
            into.set_exception(exc)
    return build


class QueryCache:
    """The query path's caches over one :class:`KnowledgeState` (``knowledge``) of ``store``
    (None: a state not backed by a store, e.g. a benchmark's synthetic one; then there is no
    text index and the chunk counts are those of a store whose every row is current)."""

    def __init__(self, knowledge: KnowledgeState, store=None, *, text_index: Future | None = None) -> None:
        self.knowledge = knowledge
        self.store = store
        self.full_text: dict = {}     # full-text results per key: a name's store-wide matches, a question's best hits
        self._text_index = text_index
        self._fields: dict[str, np.ndarray] | None = None
        # the previous state's documents and fields (document_fields_after reuses their rows)
        self._fields_before: tuple | None = None
        self._created_sorted: np.ndarray | None = None
        self._counts: tuple[int, float] | None = None
        self._knots: dict[str, Knots] | None = None
        self._knots_verdicts = -1

    # -------------------------------------------------------------------- documents
    def document_fields(self) -> dict[str, np.ndarray] | None:
        """The document-level candidate fields of every document, in ``knowledge.doc_index()``
        order (built once; None for an empty store)."""
        docs = self.knowledge.docs
        if docs is None or docs.num_rows == 0:
            return None
        if self._fields is None:
            before = self._fields_before
            self._fields = document_fields(docs) if before is None else document_fields_after(docs, *before)
            self._fields_before = None
        return self._fields

    def _chunk_counts(self) -> tuple[int, float]:
        """(rows of the chunks table, retired versions included; current chunks / rows)."""
        if self._counts is None:
            rows = self.store.count_rows("chunks") if self.store is not None else 0
            self._counts = (rows, self.store.count_chunks() / rows if rows else 1.0)
        return self._counts

    @property
    def current_share(self) -> float:
        """Current chunks / all chunk rows (the rest: retired versions, kept for restore)."""
        return self._chunk_counts()[1]

    def existing_share(self, as_of_us: int | None) -> float:
        """The share of the chunk table's rows a search at ``as_of`` may return (current, and
        created by then; None: no time bound), estimated as the current share times the share of
        documents created by ``as_of`` (documents counted alike, whatever their size). Used to
        size an unfiltered search (``Store.search(overfetch=)``): an estimate, not a result."""
        fields = self.document_fields()
        if fields is None:
            return 0.0
        current_share = self.current_share
        if as_of_us is None:
            return current_share
        if self._created_sorted is None:
            self._created_sorted = np.sort(fields["created_us"])
        created = self._created_sorted
        return current_share * float(np.searchsorted(created, as_of_us, side="right")) / len(created)

    # -------------------------------------------------------------------- text index
    def text_index(self) -> TextIndex | None:
        """The in-memory copy of the chunks table (:class:`.text_index.TextIndex`: its full-text
        index, and each row's id, document and text for the vector hits), or None while it is
        being built. Built at the first call: there and then for a store of up to
        ``TEXT_INDEX_NOW_ROWS`` rows, else in the background (the caller searches LanceDB's
        index meanwhile); a build that fails leaves LanceDB's index in use."""
        if self.store is None:
            return None
        if self._text_index is None:
            self._text_index = Future()
            build = _building(self.store, self._text_index)
            if self._chunk_counts()[0] <= TEXT_INDEX_NOW_ROWS:
                build()
            else:   # a daemon: a one-shot command does not wait for it at exit
                threading.Thread(target=build, name="smartvector-text-index", daemon=True).start()
        built = self._text_index
        return built.result() if built.done() and built.exception() is None else None

    def wait_for_text_index(self, timeout: float | None = None) -> TextIndex | None:
        """:meth:`text_index`, waiting up to ``timeout`` seconds for a background build (a server
        warming up, a benchmark that measures the steady state); None if it is not ready then."""
        self.text_index()
        if self._text_index is None:
            return None
        try:
            return self._text_index.result(timeout=timeout)
        except Exception:  # noqa: BLE001 - not ready in time, or the build failed: LanceDB answers
            return None

    def prepare(self, as_of_us: int | None = None) -> None:
        """Build now what the first query on this state would (a state readied in the background,
        ``KnowledgeCache``'s ``prepare``): the document fields and index, the sorted creation
        times, the chunk counts, the event index, the text index's catch-up (not waited for)."""
        self.knowledge.doc_index()
        self.knowledge.event_index()
        if self.document_fields() is not None:
            self.existing_share(as_of_us if as_of_us is not None else 0)
        if self.store is not None:
            self._chunk_counts()
            self.text_index()

    # -------------------------------------------------------------------- calibration
    def calibration(self) -> dict[str, Knots] | None:
        """Per profile, the store's calibration knots refitted on operators' verdicts, as last
        set by :meth:`set_calibration`; None when they must be (re)fitted: never set, or verdicts
        were recorded since (``knowledge.verdicts``)."""
        return self._knots if self._knots_verdicts == self.knowledge.verdicts else None

    def set_calibration(self, knots: dict[str, Knots]) -> dict[str, Knots]:
        """Keep ``knots`` (the service's refit, ``SmartVector.store_calibration``) for this state's verdicts."""
        self._knots, self._knots_verdicts = knots, self.knowledge.verdicts
        return knots

    def calibration_knots(self, profile: str) -> Knots | None:
        """This store's calibration knots of ``profile`` (None: the shipped prior applies)."""
        return (self.calibration() or {}).get(profile)


class QueryCaches:
    """One :class:`QueryCache` per knowledge state of ``store``: a new state gets a new cache,
    which starts with the previous one's text index: as it was when the chunks table is the same
    version, else caught up with the rows written since (:meth:`TextIndex.caught_up`: any
    process's writes), so a write never leaves the queries without the copy; a fresh build runs
    only after a commit that deleted or moved rows, or in the background to compact a caught-up
    copy (:meth:`TextIndex.wants_compaction`), which then takes the copy's place once it is
    caught up the same way."""

    def __init__(self, store) -> None:
        self.store = store
        self._cache: QueryCache | None = None     # the newest state's
        self._previous: QueryCache | None = None  # the one before (queries read it while the next is prepared)
        self._lock = threading.Lock()
        self._compacting = False

    def get(self, knowledge: KnowledgeState) -> QueryCache:
        """The cache of ``knowledge``: the newest or the one before it (a state being prepared in
        the background while queries still read the previous one: ``KnowledgeCache.get(wait=False)``),
        else a new one, which becomes the newest."""
        for cache in (self._cache, self._previous):   # no lock: a query never waits for a state being prepared
            if cache is not None and cache.knowledge is knowledge:
                return cache
        with self._lock:
            for cache in (self._cache, self._previous):
                if cache is not None and cache.knowledge is knowledge:
                    return cache
            last = self._cache
            self._previous = last
            self._cache = QueryCache(knowledge, self.store, text_index=self._carried(last, knowledge))
            if last is not None and last._fields is not None and last.knowledge.docs is not None:
                self._cache._fields_before = (last.knowledge.docs, last._fields)
            return self._cache

    def _carried(self, last: QueryCache | None, knowledge: KnowledgeState) -> Future | None:
        """The text index a cache of ``knowledge`` starts with (None: built afresh)."""
        if last is None or last._text_index is None or last.knowledge.versions is None or knowledge.versions is None:
            return None
        was, now = last.knowledge.versions[2], knowledge.versions[2]
        if was == now:
            return last._text_index
        built = last._text_index
        if not built.done():
            return self._following(built)
        if built.exception() is not None:
            return None
        index = built.result().caught_up(self.store)
        if index is None:
            return None
        if index.wants_compaction():
            self._compact()
        return _done(index)

    def _following(self, built: Future) -> Future:
        """The text index of a new state while the previous one's is still being built: that
        build, caught up with the table once it is done (a fresh build only if it failed or
        cannot be caught up). One full build at a time: before, every state that a write made
        during a build started a build of its own (a trickle of writes at 100k chunks kept
        several running at once on two cores)."""
        into: Future = Future()

        def follow(done: Future) -> None:
            try:
                index = done.result().caught_up(self.store) if done.exception() is None else None
                into.set_result(index if index is not None else TextIndex.from_store(self.store))
            except Exception as exc:  # noqa: BLE001 - kept in the future, read by text_index
                into.set_exception(exc)
        built.add_done_callback(follow)
        return into

    def _compact(self) -> None:
        """Build the text index afresh in the background; once built, catch it up with the
        table and put it in the current cache (a daemon thread)."""
        if self._compacting:
            return
        self._compacting = True

        def run() -> None:
            try:
                fresh = TextIndex.from_store(self.store)
                with self._lock:
                    index = fresh.caught_up(self.store)
                    if self._cache is not None and index is not None:
                        self._cache._text_index = _done(index)
            except Exception:  # noqa: BLE001 - the updated copy keeps answering; the next write tries again
                pass
            finally:
                self._compacting = False
        threading.Thread(target=run, name="smartvector-text-index-compaction", daemon=True).start()


def _done(index: TextIndex) -> Future:
    built: Future = Future()
    built.set_result(index)
    return built
