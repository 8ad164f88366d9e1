"""Surgical re-embedding: multiset diff by content hash."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.errors import InputError
from smartvector_core.memory import ChunkRef, diff_chunks, reembed_fraction
from smartvector_core.models import Chunk


def test_one_word_edit_reembeds_one_chunk_of_four():
    old = [("h1", 0, 100), ("h2", 100, 200), ("h3", 200, 300), ("h4", 300, 400)]
    new = [("h1", 0, 100), ("h2x", 100, 203), ("h3", 203, 303), ("h4", 303, 403)]
    diff = diff_chunks(old, new)
    assert diff.added == (ChunkRef("h2x", 100, 203),)
    assert diff.removed == (ChunkRef("h2", 100, 200),)
    assert [o.content_hash for o, _ in diff.kept] == ["h1", "h3", "h4"]
    assert [(o.char_start, n.char_start) for o, n in diff.moved] == [(200, 203), (300, 303)]
    assert reembed_fraction(diff) == 0.25  # 75% saved against a full re-embed


def test_duplicates_count():
    old = [("same", 0, 10), ("same", 10, 20), ("other", 20, 30)]
    new = [("same", 0, 10), ("other", 10, 20), ("same", 20, 30), ("same", 30, 40)]
    diff = diff_chunks(old, new)
    assert [(o.char_start, n.char_start) for o, n in diff.kept] == [(0, 0), (20, 10), (10, 20)]
    assert diff.added == (ChunkRef("same", 30, 40),)
    assert diff.removed == ()
    shrink = diff_chunks(old, [("same", 0, 10)])
    assert shrink.removed == (ChunkRef("same", 10, 20), ChunkRef("other", 20, 30))


def test_edges_and_chunk_objects():
    assert reembed_fraction(diff_chunks([], [])) == 0.0
    assert reembed_fraction(diff_chunks([], [("a", 0, 1)])) == 1.0
    assert reembed_fraction(diff_chunks([("a", 0, 1)], [])) == 0.0
    chunk = Chunk("doc", 0, "text", 0, 4, "abc")
    assert diff_chunks([chunk], [("abc", 5, 9)]).kept == ((ChunkRef("abc", 0, 4), ChunkRef("abc", 5, 9)),)
    with pytest.raises(InputError, match="content_hash"):
        diff_chunks([("only-a-hash",)], [])


_chunks = st.lists(st.tuples(st.sampled_from("abcde"), st.integers(0, 100), st.integers(0, 100)), max_size=12)


@settings(max_examples=300, deadline=None)
@given(old=_chunks, new=_chunks)
def test_diff_is_a_multiset_partition(old, new):
    diff = diff_chunks(old, new)
    assert len(diff.kept) + len(diff.added) == len(new)
    assert len(diff.kept) + len(diff.removed) == len(old)
    assert all(o.content_hash == n.content_hash for o, n in diff.kept)
    kept = Counter(o.content_hash for o, _ in diff.kept)
    assert kept == Counter(h for h, *_ in old) & Counter(h for h, *_ in new)
    assert 0.0 <= reembed_fraction(diff) <= 1.0
    assert reembed_fraction(diff_chunks(new, new)) == 0.0


def test_match_chunks_positions():
    from smartvector_core.memory.surgical import match_chunks

    got = match_chunks(["a", "b", "a", "c"], ["a", "a", "a", "c", "d"])
    assert got.kept == [(0, 0), (2, 1), (3, 3)]        # k-th "a" with k-th "a", in order
    assert got.added == [2, 4] and got.removed == [1]


def test_ingest_updates_through_the_diff(fake_app):
    """The live path (ingest/pipeline.py) uses :func:`match_chunks`: with a paragraph repeated,
    dropping its last copy retires exactly that chunk; the other copies keep their rows."""
    from tests.conftest import NOW

    full = " The storage team records the outcome of each check in the shared register." * 11
    repeated = "Every archive is checked for integrity once a week by the storage team." + full
    others = [f"Section {i}: archive class {i} keeps data for {i + 10} days in every region." + full
              for i in range(3)]                      # each as long as the chunk target: one chunk each
    doc = {"id": "hb", "kind": "STATIC", "doc_type": "reference", "created_at": "2025-01-01",
           "text": "\n\n".join([others[0], repeated, others[1], repeated, others[2], repeated])}
    fake_app.ingest_records([doc], now=NOW)
    before = set(fake_app.store.chunks_for_docs(["hb"], current_only=True).column("chunk_id").to_pylist())
    edited = {**doc, "text": "\n\n".join([others[0], repeated, others[1], repeated, others[2] + " Reviewed."])}
    report = fake_app.ingest_records([edited], now=NOW)
    after = set(fake_app.store.chunks_for_docs(["hb"], current_only=True).column("chunk_id").to_pylist())
    assert (report.chunks_embedded, report.chunks_reused, report.chunks_retired) == (1, 4, 2)
    assert len(before) == 6 and len(after) == 5
    gone = sorted(before - after)
    assert len(gone) == 2 and any(g.endswith(":2") for g in gone)   # the third copy of the repeated text
    assert {c for c in before & after if c.endswith(":1")}           # the second copy kept its row
