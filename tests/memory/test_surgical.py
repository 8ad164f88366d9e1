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
