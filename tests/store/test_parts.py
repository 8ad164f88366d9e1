"""The store's parts over their one shared context: retries of commit conflicts, the write lock
a store gets, a table swapped in the context seen by every part, the full-text index built by
the first full-text search, and each facade method being its part's."""

from __future__ import annotations

import pytest
from filelock import FileLock

from smartvector_core.settings import load_settings
from smartvector_core.store import Store
from smartvector_core.store.chunks import ChunkTable
from smartvector_core.store.context import StoreContext
from smartvector_core.store.indexes import TEXT_INDEX
from smartvector_core.store.lock import S3WriteLock, open_write_lock
from smartvector_core.store.search import ChunkSearch
from smartvector_core.store.upkeep import Upkeep

from ..conftest import NOW


def _context(tmp_path) -> StoreContext:
    return StoreContext(settings=load_settings(str(tmp_path), env={}), uri=str(tmp_path), dim=4, db=None,
                        lock=open_write_lock(str(tmp_path), None))


def test_a_commit_conflict_is_retried_and_any_other_error_raised_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr("smartvector_core.store.context.time.sleep", lambda s: None)
    ctx = _context(tmp_path)
    calls = []

    def conflicting_twice():
        calls.append(1)
        if len(calls) < 3:
            raise RuntimeError("Commit conflict for version 7")
        return "written"

    assert ctx.retry(conflicting_twice) == "written" and len(calls) == 3
    calls.clear()
    with pytest.raises(RuntimeError, match="conflict"):
        ctx.retry(lambda: calls.append(1) or (_ for _ in ()).throw(RuntimeError("conflict")), attempts=4)
    assert len(calls) == 4                                       # gave up after the last attempt
    calls.clear()
    with pytest.raises(ValueError, match="disk full"):
        ctx.retry(lambda: calls.append(1) or (_ for _ in ()).throw(ValueError("disk full")))
    assert len(calls) == 1                                       # not a conflict: no retry


def test_a_local_store_locks_a_file_in_its_directory_and_an_s3_store_locks_an_object(tmp_path):
    local = open_write_lock(str(tmp_path / "store"), None)
    assert isinstance(local, FileLock) and local.lock_file == str(tmp_path / "store" / ".write.lock")
    remote = open_write_lock("s3://bucket/prefix", {"aws_endpoint": "http://127.0.0.1:9", "aws_region": "us-east-1"})
    assert isinstance(remote, S3WriteLock)


def test_every_part_reads_the_tables_of_the_one_context(fake_app):
    fake_app.ingest_records([{"id": "d1", "text": "Refunds within 30 days.", "created_at": "2026-01-01"}],
                            now=NOW, consolidate=False)
    store: Store = fake_app.store
    parts = (store.chunk_table, store.edge_table, store.logs, store.upkeep, store.indexes, store.search_part)
    assert all(part.ctx is store.ctx for part in parts)

    class Counting:
        """A chunks table that counts the rows asked of it."""
        def __init__(self, table):
            self.table, self.asked = table, 0

        def count_rows(self, *args):
            self.asked += 1
            return self.table.count_rows(*args)

    counting = Counting(store.ctx.tables["chunks"])
    store.ctx.tables["chunks"] = counting
    assert store.count_rows("chunks") == 1 and store.count_chunks(current_only=False) == 1
    assert counting.asked == 2                                  # upkeep and chunks both read the swapped table


def test_the_first_full_text_search_builds_the_missing_text_index(fake_app):
    fake_app.ingest_records([{"id": "d1", "text": "Refunds within 30 days.", "created_at": "2026-01-01"}],
                            now=NOW, consolidate=False)
    store = fake_app.store
    store.ctx.tables["chunks"].drop_index(f"{TEXT_INDEX}_idx")
    fresh = Store(store.settings, store.dim)                   # knows nothing of an index yet
    assert TEXT_INDEX not in fresh.chunk_indexes()
    hits = fresh.fts_search("refunds", as_of=None, limit=5)
    assert hits.column("chunk_id").to_pylist() and TEXT_INDEX in fresh.chunk_indexes()


@pytest.mark.parametrize(("name", "part"), [("search", ChunkSearch.search), ("chunks_by_id", ChunkTable.chunks_by_id),
                                            ("restore", Upkeep.restore)])
def test_a_facade_method_is_its_part_s_method(name, part):
    method = getattr(Store, name)
    assert method.__wrapped__ is part and method.__doc__ == part.__doc__


def test_a_cleanup_lancedb_finds_past_a_tag_is_retried_with_more_slack():
    """LanceDB measures the cleanup's age from its own clock, which has moved on since ``now``:
    a cut-off it finds past a tagged version is tried again further back, never given up on the
    first refusal, and another error is not swallowed."""
    from datetime import UTC, datetime, timedelta

    from smartvector_core.store.upkeep import _cleanup

    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    tag_at = now.astimezone().replace(tzinfo=None) - timedelta(minutes=5)

    class Table:
        def __init__(self, refusals, error="Cleanup error: 1 tagged version(s) have been marked"):
            self.refusals, self.error, self.cuts = refusals, error, []
            self.tags = type("Tags", (), {"list": lambda _: {"keep": {"version": 3}}})()

        def list_versions(self):
            return [{"version": v, "timestamp": tag_at - timedelta(minutes=3 - v)} for v in (1, 2, 3)]

        def optimize(self, cleanup_older_than):
            self.cuts.append(cleanup_older_than)
            if len(self.cuts) <= self.refusals:
                raise RuntimeError(self.error)

    table = Table(refusals=2)
    _cleanup(table, timedelta(0), now)
    assert [round(c.total_seconds()) for c in table.cuts] == [301, 310, 420]   # 1 s, 10 s, 120 s before the tag
    with pytest.raises(RuntimeError, match="disk"):
        _cleanup(Table(refusals=1, error="disk full"), timedelta(0), now)
