"""Surgical re-embedding: which chunks of a new document version need a new vector.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``, section 2.4 "Surgical
Updates": re-embed only the spans whose text changed, located by ``source_offset``; section 3.1:
77% less re-embedding per one-word edit).

Chunks are matched by content hash as a multiset: a hash present twice in the old version and
once in the new one keeps one vector and removes the other. A kept chunk may have moved (new
offsets): it needs its offsets rewritten, not a new embedding.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..errors import InputError


class ChunkRef(NamedTuple):
    content_hash: str
    char_start: int
    char_end: int


@dataclass(frozen=True)
class ChunkDiff:
    """``kept``: (old, new) pairs with equal hashes; ``added``: new chunks to embed;
    ``removed``: old chunks whose vectors are retired (kept in history, not deleted)."""

    kept: tuple[tuple[ChunkRef, ChunkRef], ...]
    added: tuple[ChunkRef, ...]
    removed: tuple[ChunkRef, ...]

    @property
    def moved(self) -> tuple[tuple[ChunkRef, ChunkRef], ...]:
        """Kept chunks whose offsets changed (rewrite offsets, keep the vector)."""
        return tuple((o, n) for o, n in self.kept if (o.char_start, o.char_end) != (n.char_start, n.char_end))

    @property
    def new_count(self) -> int:
        return len(self.kept) + len(self.added)


def _ref(item: Any, where: str) -> ChunkRef:
    if hasattr(item, "content_hash"):
        return ChunkRef(str(item.content_hash), int(item.char_start), int(item.char_end))
    try:
        content_hash, start, end = item
        return ChunkRef(str(content_hash), int(start), int(end))
    except (TypeError, ValueError):
        raise InputError(f"expected (content_hash, char_start, char_end) or a Chunk, found {item!r}",
                         field=where) from None


class ChunkMatch(NamedTuple):
    """Positions: ``kept`` (old, new) pairs in new order, ``added`` new positions, ``removed``
    old positions (ascending)."""

    kept: list[tuple[int, int]]
    added: list[int]
    removed: list[int]


def match_chunks(old_hashes: Sequence[str], new_hashes: Sequence[str]) -> ChunkMatch:
    """Match by content hash as a multiset, the k-th old occurrence of a hash with its k-th new
    one (ingest passes both in document order, so a kept chunk keeps its ``chunk_id``)."""
    waiting: dict[str, deque[int]] = defaultdict(deque)
    for position, content_hash in enumerate(old_hashes):
        waiting[content_hash].append(position)
    kept, added = [], []
    for position, content_hash in enumerate(new_hashes):
        queue = waiting.get(content_hash)
        if queue:
            kept.append((queue.popleft(), position))
        else:
            added.append(position)
    return ChunkMatch(kept, added, sorted(p for q in waiting.values() for p in q))


def diff_chunks(old: Iterable[Any], new: Iterable[Any]) -> ChunkDiff:
    """Match old and new chunks by content hash, duplicates counted (k-th with k-th, in order):
    :func:`match_chunks` over refs.

    Items are ``(content_hash, char_start, char_end)`` tuples or objects with those attributes
    (:class:`~smartvector_core.models.Chunk`). Output keeps the input order.
    """
    old_refs = [_ref(x, "old") for x in old]
    new_refs = [_ref(x, "new") for x in new]
    match = match_chunks([r.content_hash for r in old_refs], [r.content_hash for r in new_refs])
    return ChunkDiff(tuple((old_refs[o], new_refs[n]) for o, n in match.kept),
                     tuple(new_refs[n] for n in match.added), tuple(old_refs[o] for o in match.removed))


def reembed_fraction(diff: ChunkDiff) -> float:
    """Share of the new version's chunks that need an embedding: added / (kept + added).

    0.0 when nothing changed (or the new version is empty), 1.0 when every chunk is new; a full
    re-embed costs 1.0, so the saving is 1 − this.
    """
    total = diff.new_count
    return len(diff.added) / total if total else 0.0
