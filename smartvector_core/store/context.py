"""What every part of the store shares, as one typed object: the LanceDB connection and its four
open tables, the write lock, the retry of commit conflicts, the crash points, and the count of
small writes since each append-only table was last compacted. Opening a store builds it
(:func:`open_store`); each part (:mod:`.chunks`, :mod:`.edges`, :mod:`.logs`, :mod:`.upkeep`,
:mod:`.indexes`) is given it and reads the tables through it, so a table swapped in
``tables`` is the one every part uses."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypeVar

import lancedb
import pyarrow as pa

from ..errors import StoreError
from ..settings import Settings
from .lock import WriteLock, open_write_lock
from .schema import EDGES_SCHEMA, EVENTS_SCHEMA, QUERIES_SCHEMA, SCHEMA_VERSION, chunks_schema

T = TypeVar("T")
RETRY_ATTEMPTS = 6        # a write tried this many times when LanceDB reports a commit conflict
RETRY_FIRST_DELAY_S = 0.05   # then 0.1, 0.2, ... (doubling)
COMMITS_KEPT = 256           # ours: the chunks-table commits of this process remembered (commits_between)


@dataclass
class StoreContext:
    """The state the store's parts share. ``tables``: chunks, edges, events, queries (LanceDB
    tables, kept current by LanceDB's read consistency); ``unmergeable``: per table, the fragments a
    merge of small fragments left as they were (:mod:`.fragments`); ``writes``: writes of this
    process per append-only table (:class:`.logs.LogTables`); ``commits``:
    per chunks-table version this process committed, the documents whose rows it may have
    changed in place (:meth:`note_commit`); ``own_writes``: see :meth:`write_lock`."""

    settings: Settings
    uri: str
    dim: int
    db: Any                      # lancedb.DBConnection
    lock: WriteLock
    tables: dict[str, Any] = field(default_factory=dict)
    unmergeable: dict[str, tuple[int, ...]] = field(default_factory=dict)
    writes: dict[str, int] = field(default_factory=dict)
    commits: dict[int, tuple[str, ...]] = field(default_factory=dict)
    own_writes: int = 0          # write-lock sections this process has left (counted ones)
    writing: int = 0             # counted sections entered and not left (0 or, nested, more)

    @contextmanager
    def write_lock(self, *, counted: bool = True) -> Iterator[None]:
        """Serialise writers of this store across threads and processes. Each section left adds
        one to ``own_writes`` (``counted=False``: a write no knowledge state reads, the query
        log), so a state loaded when the count was ``n`` holds every write of this process up
        to ``n`` (:class:`~smartvector_core.knowledge.KnowledgeCache`)."""
        with self.lock:
            self.writing += counted
            try:
                yield
            finally:
                if counted:
                    self.own_writes += 1
                    self.writing -= 1

    def note_commit(self, doc_ids) -> None:
        """Record the chunks-table commit just made under the write lock: its version and the
        documents whose rows it may have changed in place (keeping their row ids: a merge of
        some columns; an append changes none). The oldest records past ``COMMITS_KEPT`` go."""
        self.commits[int(self.tables["chunks"].version)] = tuple(dict.fromkeys(doc_ids))
        while len(self.commits) > COMMITS_KEPT:
            del self.commits[next(iter(self.commits))]

    def commits_between(self, after: int, upto: int) -> set[str] | None:
        """The documents whose chunk rows commits ``after`` < version <= ``upto`` may have changed
        in place, when this process made every one of them (:meth:`note_commit`); None when it
        did not (another process's write, an index build, a compaction): then only a read of
        every row tells."""
        out: set[str] = set()
        for version in range(int(after) + 1, int(upto) + 1):
            ids = self.commits.get(version)
            if ids is None:
                return None
            out.update(ids)
        return out

    def retry(self, fn: Callable[[], T], attempts: int = RETRY_ATTEMPTS) -> T | None:
        """Run a write, retrying commit conflicts with exponential backoff."""
        delay = RETRY_FIRST_DELAY_S
        for attempt in range(attempts):
            try:
                return fn()
            except Exception as exc:  # lance raises plain errors on commit conflicts
                if attempt == attempts - 1 or "conflict" not in str(exc).lower():
                    raise
                time.sleep(delay)
                delay *= 2
        return None  # pragma: no cover

    def crash_point(self, point: str) -> None:
        """Test hook: end the process at once (as ``kill -9`` would) when ``SMARTVECTOR_CRASH_AT``
        names ``point`` (``Settings.crash_at``). The crash-point sweep of
        ``tests/reliability/test_crash_points.py`` runs every command once per point."""
        if self.settings.crash_at == point:
            os._exit(137)


def open_store(settings: Settings, dim: int, *, read_consistency_s: float | None = 0.0) -> StoreContext:
    """Connect to the store of ``settings``, open its four tables (creating or finishing any a
    fresh store lacks) and check them against this code: vectors of ``dim``, its schema version."""
    uri = settings.store_uri
    interval = None if read_consistency_s is None else timedelta(seconds=read_consistency_s)
    try:
        db = lancedb.connect(uri, storage_options=settings.storage_options or None,
                             read_consistency_interval=interval)
    except Exception as exc:  # pragma: no cover - depends on the URI
        raise StoreError(f"cannot open store {uri}: {exc}") from exc
    ctx = StoreContext(settings=settings, uri=uri, dim=dim, db=db,
                       lock=open_write_lock(uri, settings.storage_options))
    _ensure_tables(ctx)
    return ctx


def _ensure_tables(ctx: StoreContext) -> None:
    """Open the four tables, creating (or finishing) any that a fresh store lacks.

    Creating a store is safe at every instant: a process killed while LanceDB creates a
    table leaves a table directory without a committed version, which ``list_tables`` shows
    but ``open_table`` cannot open ("Table 'events' was not found"). So each table is opened
    by trying, and one that does not open is created under the write lock with
    ``exist_ok=True``, which LanceDB completes over such a half-created directory (a table
    with a committed version is opened, never replaced). Crash points ``store:create:<name>``.
    """
    wanted = {"chunks": chunks_schema(ctx.dim), "edges": EDGES_SCHEMA,
              "events": EVENTS_SCHEMA, "queries": QUERIES_SCHEMA}
    for name, schema in wanted.items():
        ctx.tables[name] = _open_or_create(ctx, name, schema)
    add_missing_columns(ctx, wanted["chunks"])
    stored_dim = ctx.tables["chunks"].schema.field("vector").type.list_size
    if stored_dim != ctx.dim:
        raise StoreError(f"store {ctx.uri} holds {stored_dim}-d vectors, the model makes "
                         f"{ctx.dim}-d ones: use the model the store was built with")
    version = (ctx.tables["chunks"].schema.metadata or {}).get(b"smartvector.schema_version")
    if version and version.decode() != SCHEMA_VERSION:
        raise StoreError(f"store {ctx.uri} has schema version {version.decode()}, "
                         f"this code reads {SCHEMA_VERSION}")


def add_missing_columns(ctx: StoreContext, schema: pa.Schema) -> None:
    """A store written before a nullable column of the chunks schema existed (the content-time
    spans) gets it, all null, in one commit under the write lock: old stores open, read and
    take new writes. Null spans read as none."""
    table = ctx.tables["chunks"]
    missing = [schema.field(name) for name in schema.names if name not in table.schema.names]
    if not missing:
        return
    with ctx.write_lock():
        table.checkout_latest()
        missing = [f for f in missing if f.name not in table.schema.names]
        if missing:
            ctx.retry(lambda: table.add_columns(missing))


def _open_or_create(ctx: StoreContext, name: str, schema: pa.Schema):
    try:
        return ctx.db.open_table(name)
    except Exception:  # absent, or half-created by a killed process: create it under the lock
        pass
    with ctx.write_lock():
        try:
            return ctx.db.open_table(name)   # another process may have finished it meanwhile
        except Exception:
            pass
        ctx.crash_point(f"store:create:{name}")
        try:
            return ctx.db.create_table(name, schema=schema, exist_ok=True)
        except Exception as exc:
            raise StoreError(f"store {ctx.uri}: table {name!r} can be neither opened nor created "
                             f"({exc})") from exc


def read_whole(table, query) -> pa.Table:
    """Every row ``query`` (a LanceDB query builder over ``table``) matches. LanceDB needs a
    limit, taken from ``count_rows()``, and the count and the read are two table versions apart
    when another process commits between them: a read that fills its limit is made again with
    twice the limit, so no row is cut (once small fragments are merged, :mod:`.fragments`, the
    rows a short limit cuts need not be the newest: a concurrent consolidation then planned
    without some of the audit, tests/reliability/test_exactly_once.py)."""
    limit = table.count_rows() + 1
    while True:
        rows = query.limit(limit).to_arrow()
        if rows.num_rows < limit:
            return rows
        limit *= 2
