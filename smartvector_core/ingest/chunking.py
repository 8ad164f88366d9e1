"""Chunking on paragraph and sentence boundaries, with character offsets into the source.

Rule: paragraphs (text between blank lines) are read in order. A run of consecutive paragraphs
shorter together than ``min_chars`` (400: headings, labels, the one- and two-sentence
paragraphs of news and reference pages) is joined to the paragraph after it, so a chunk holds
at least ``min_chars`` characters where the text has them; a paragraph of ``min_chars`` or more
stands alone, and one longer than ``max_chars`` is split greedily on sentence ends into pieces
of at most ``target_chars`` (a sentence longer than ``max_chars`` is cut at word boundaries). A
trailing short run joins the chunk before it when the two fit in ``max_chars``.

An *indented* short paragraph right after a chunk (the "Default: None" line that ends a
reStructuredText entry, a list item's continuation, a note inside a block) belongs to the block
before it as much as to what follows: it is added to the end of that chunk too, when the chunk
still fits in ``max_chars``, and it also opens the next run as before. Chunks then overlap by that
paragraph, so the entry's chunk holds the value it documents (the Flask set: answer
containment@5 0.815 -> 0.846 with top-1 unchanged; docs/QUALITY.md, tenth session). An unindented
short paragraph (a heading, a label) only opens the next run: it introduces what follows.

Locality: a boundary depends only on the paragraphs since the last boundary (and an indented
short paragraph on the chunk before it), and every paragraph of ``min_chars`` or more is a
boundary, so an edit changes the chunk holding the edited paragraph (an indented short one: both
chunks that hold it) and, when its length crosses the threshold, the chunks of the short run
after it up to the next long paragraph. Measured on real text (docs/PERF.md, "Chunks of the right size"): a
one-word edit re-embeds one chunk on average (at most two in 97-99% of edits), a paragraph that
grows 1.1-1.8 chunks. Content-defined packing (a boundary where a paragraph's hash meets a rule)
edits more locally but lost top-1 on the Flask and changelog tune splits, so it is not used.
"""

from __future__ import annotations

import hashlib
import re

from ..config import CHUNK_MAX_CHARS, CHUNK_TARGET_CHARS
from ..models import Chunk

_PARAGRAPH = re.compile(r"\S(?:.*?\S)?(?=[ \t]*\n[ \t]*\n|\s*\Z)", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")
MIN_CHARS = 400


def content_hash(text: str) -> str:
    """SHA-256 of the chunk text (hex): the key for embedding reuse."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _paragraph_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _PARAGRAPH.finditer(text)]


def _indented(text: str, start: int) -> bool:
    """The paragraph starting at ``start`` is indented: whitespace between its line's start and
    its first character."""
    return start > text.rfind("\n", 0, start) + 1


def _split_long(text: str, start: int, end: int, target: int, hard_max: int) -> list[tuple[int, int]]:
    """Split text[start:end] on sentence ends into pieces of about ``target`` characters."""
    cuts = [start] + [start + m.end() for m in _SENTENCE_END.finditer(text[start:end])] + [end]
    pieces: list[tuple[int, int]] = []
    piece_start = start
    for i in range(1, len(cuts)):
        if cuts[i] - piece_start > target and cuts[i - 1] > piece_start:
            pieces.append((piece_start, cuts[i - 1]))
            piece_start = cuts[i - 1]
    pieces.append((piece_start, end))
    out: list[tuple[int, int]] = []
    for s, e in pieces:  # a single sentence longer than hard_max: cut on whitespace
        while e - s > hard_max:
            cut = text.rfind(" ", s, s + target)
            cut = cut if cut > s else s + target
            out.append((s, cut))
            s = cut
        out.append((s, e))
    return [(s + len(text[s:e]) - len(text[s:e].lstrip()), e - (len(text[s:e]) - len(text[s:e].rstrip())))
            for s, e in out if text[s:e].strip()]


def chunk_spans(text: str, *, target_chars: int = CHUNK_TARGET_CHARS,
                max_chars: int = CHUNK_MAX_CHARS, min_chars: int = MIN_CHARS) -> list[tuple[int, int]]:
    """Character spans [start, end) of the chunks of ``text``."""
    spans: list[tuple[int, int]] = []
    pending: int | None = None  # start of a short paragraph waiting to be joined
    for start, end in _paragraph_spans(text):
        if pending is None and spans and end - start < min_chars and _indented(text, start) \
                and end - spans[-1][0] <= max_chars:
            spans[-1] = (spans[-1][0], end)       # it ends the block before it, and opens the next
        if pending is not None:
            start, pending = pending, None
        if end - start < min_chars:
            pending = start
            continue
        if end - start > max_chars:
            spans.extend(_split_long(text, start, end, target_chars, max_chars))
        else:
            spans.append((start, end))
    if pending is not None:
        if spans and spans[-1][1] - spans[-1][0] + (len(text) - pending) <= max_chars:
            spans[-1] = (spans[-1][0], len(text.rstrip()))
        else:
            spans.append((pending, len(text.rstrip())))
    return spans


def chunk_document(doc_id: str, text: str, **kwargs: int) -> list[Chunk]:
    """The chunks of one document, each with offsets, content hash and occurrence index."""
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for ordinal, (start, end) in enumerate(chunk_spans(text, **kwargs)):
        body = text[start:end]
        digest = content_hash(body)
        occurrence = seen.get(digest, 0)
        seen[digest] = occurrence + 1
        chunks.append(Chunk(doc_id, ordinal, body, start, end, digest, occurrence))
    if not chunks and text.strip():
        body = text.strip()
        start = text.index(body)
        chunks.append(Chunk(doc_id, 0, body, start, start + len(body), content_hash(body)))
    return chunks
