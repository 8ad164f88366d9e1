"""Small fragments merged as writes add them (store/fragments.py): the tier rule worked by hand,
and on real LanceDB in a temporary directory a run of one-document writes leaves a bounded
number of fragments, every document still answered as a fresh process answers it, every
version kept."""

from __future__ import annotations

from datetime import timedelta

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings
from smartvector_core.store.fragments import FRAGMENT_BOUND, merge_tier
from tests.conftest import NOW


def test_the_first_tier_past_its_bound_is_merged():
    # bound 2, tiers (10, 100): three fragments under 10 rows -> merge up to 10
    assert merge_tier([1, 1, 1, 500], bound=2, tiers=(10, 100)) == 10
    # two under 10 is within the bound; but 50, 60, 3, 4 are four under 100 -> merge up to 100
    assert merge_tier([3, 4, 50, 60, 500], bound=2, tiers=(10, 100)) == 100
    # bulk fragments (at or over the last tier) never count
    assert merge_tier([100, 100, 100, 5], bound=2, tiers=(10, 100)) is None
    assert merge_tier([], bound=0, tiers=(10,)) is None


def _doc(i: int) -> dict:
    return {"id": f"note_{i}", "title": f"Note {i}", "created_at": (NOW - timedelta(days=1)).isoformat(),
            "text": f"Team {i} keeps the quota of project number {i} at {i * 10} requests a minute."}


def test_one_document_writes_leave_a_bounded_number_of_fragments(tmp_path):
    store = str(tmp_path / "store")
    app = SmartVector(load_settings(store, env={}), embedder=HashingEmbedder())
    writes = 4 * FRAGMENT_BOUND
    versions_seen = []
    for i in range(writes):
        app.ingest_records([_doc(i)], now=NOW, consolidate=False)
        versions_seen.append(app.store.table_versions()["chunks"])
    for name in ("chunks", "edges"):
        assert app.store.fragments(name) <= FRAGMENT_BOUND + 1, name
    assert set(versions_seen) <= set(app.store.versions_of("chunks"))   # every version kept
    assert app.store.count_rows("chunks") == writes
    fresh = SmartVector(load_settings(store, env={}), embedder=HashingEmbedder())
    for i in (0, writes // 2, writes - 1):
        question = f"What quota does team {i} keep for project number {i}?"
        ours = app.query(question, as_of=NOW, k=3, log=False)
        theirs = fresh.query(question, as_of=NOW, k=3, log=False)
        assert ours.results[0].id == f"note_{i}"
        assert [(r.id, round(r.score, 9)) for r in ours.results] == [(r.id, round(r.score, 9)) for r in theirs.results]


def test_a_log_read_cut_short_by_a_commit_after_its_count_is_read_again(tmp_path, monkeypatch):
    """The events table's rows are counted, then read: another process may commit between the
    two, and once fragments are merged the rows a short limit cuts need not be the newest. A
    read that fills its limit is made again with twice the limit (``LogTables._read_log``)."""
    app = SmartVector(load_settings(str(tmp_path / "store"), env={}), embedder=HashingEmbedder())
    for i in range(3 * FRAGMENT_BOUND):
        app.ingest_records([_doc(i)], now=NOW, consolidate=False)
    table = app.store.ctx.tables["events"]
    everything = table.count_rows()
    monkeypatch.setattr(type(table), "count_rows", lambda self, *a, **k: 2)   # counted before 20 more rows came
    events = app.store.events()
    assert events.num_rows == everything
    assert set(events.column("doc_id").to_pylist()) >= {f"note_{i}" for i in range(3 * FRAGMENT_BOUND)}


def test_maintain_compacts_without_lancedbs_own_cleanup(tmp_path, monkeypatch):
    """``maintain`` compacts each table with no version cleanup of its own (LanceDB's default
    drops versions over 7 days old, and refuses to when a tag is older) before the cleanup that
    keeps the age asked and the tags: every ``optimize`` call names a cut-off."""
    from smartvector_core.store.fragments import KEEP_EVERY_VERSION

    app = SmartVector(load_settings(str(tmp_path / "store"), env={}), embedder=HashingEmbedder())
    app.ingest_records([_doc(1)], now=NOW, consolidate=False)
    calls = []
    for name, table in app.store.ctx.tables.items():
        real = table.optimize
        monkeypatch.setattr(table, "optimize", lambda real=real, name=name, **kw: (calls.append((name, kw)), real(**kw))[1])
    app.maintain(cleanup_older_than_days=30, now=NOW)
    firsts = {}
    for name, kw in calls:
        firsts.setdefault(name, kw)
    assert set(firsts) == set(app.store.ctx.tables)
    assert all(kw.get("cleanup_older_than") == KEEP_EVERY_VERSION for kw in firsts.values()), firsts
    assert all(kw.get("cleanup_older_than") is not None for _, kw in calls)
