"""Chunking on paragraph and sentence boundaries, with character offsets into the source.

Units: each paragraph (text between blank lines) is a unit; a paragraph longer than
``max_chars`` is split greedily on sentence ends into pieces of at most ``target_chars`` (a
sentence longer than ``max_chars`` is cut at word boundaries), each piece a unit.

Packing (content-defined, so an edit in one paragraph changes one chunk, or two at a boundary):
consecutive units are packed into one chunk up to a boundary. A chunk ends after unit ``u`` when

- ``u`` is at least ``target_chars`` long or is a piece of a split paragraph (it is full), or
- ``u`` is at least ``min_chars`` long and ``draw(u) < len(u) / target_chars``, where
  ``draw(u)`` is the first 64 bits of SHA-256 of the unit's text read as a fraction of 2^64.

The boundary rate is one per ``target_chars`` characters of short paragraphs (content-defined
chunking over paragraphs, as LBFS/FastCDC cut byte streams where a rolling hash meets a rule).
A unit shorter than ``min_chars`` (a heading, a label) never ends a chunk: it joins the text
after it. A packed run of several units longer than ``target_chars`` (what the embedder reads
whole) is split after its unit with the smallest draw (the last unit excluded), recursively,
until every part fits; a single unit stands alone up to ``max_chars``. A trailing run shorter
than ``min_chars`` joins the chunk before it when the two fit in ``target_chars``.

Whether a unit ends a chunk depends only on that unit's own text, and a run is split only by its
own units, so a one-paragraph edit changes the chunk holding that paragraph, or that chunk and
the next one when the edit moves the boundary (in the last run, the one before it when a short
trailing run joins it); every other chunk keeps its text and hash.
"""

from __future__ import annotations

import hashlib
import re

from ..config import CHUNK_MAX_CHARS, CHUNK_TARGET_CHARS
from ..models import Chunk

_PARAGRAPH = re.compile(r"\S(?:.*?\S)?(?=[ \t]*\n[ \t]*\n|\s*\Z)", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")
MIN_CHARS = 40
_DRAW_SCALE = float(2 ** 64)


def content_hash(text: str) -> str:
    """SHA-256 of the chunk text (hex): the key for embedding reuse."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def boundary_draw(text: str) -> float:
    """The unit's draw in [0, 1): the first 64 bits of SHA-256 of ``text`` over 2^64."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") / _DRAW_SCALE


def _paragraph_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _PARAGRAPH.finditer(text)]


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


def _units(text: str, target: int, max_chars: int) -> list[tuple[int, int, bool]]:
    """(start, end, full) per unit: ``full`` when it is a piece of a split paragraph or at least
    ``target`` characters long."""
    units: list[tuple[int, int, bool]] = []
    for start, end in _paragraph_spans(text):
        if end - start > max_chars:
            units.extend((s, e, True) for s, e in _split_long(text, start, end, target, max_chars))
        else:
            units.append((start, end, end - start >= target))
    return units


def _fit(spans: list[tuple[int, int]], draws: list[float], cap: int) -> list[tuple[int, int]]:
    """One packed run (unit spans in order) as chunk spans of at most ``cap`` (a single unit
    stands alone whatever its length): split after the unit with the smallest draw, the last
    unit excluded, until every part fits."""
    if len(spans) == 1 or spans[-1][1] - spans[0][0] <= cap:
        return [(spans[0][0], spans[-1][1])]
    cut = min(range(len(spans) - 1), key=draws.__getitem__) + 1
    return _fit(spans[:cut], draws[:cut], cap) + _fit(spans[cut:], draws[cut:], cap)


def packed_runs(text: str, *, target_chars: int = CHUNK_TARGET_CHARS, max_chars: int = CHUNK_MAX_CHARS,
                min_chars: int = MIN_CHARS) -> list[list[tuple[int, int]]]:
    """The unit spans of ``text`` grouped into packed runs, each run ending at a boundary (rule
    in the module docstring); a run becomes one chunk, or several when it exceeds ``target_chars``."""
    runs: list[list[tuple[int, int]]] = []
    run: list[tuple[int, int]] = []
    for start, end, full in _units(text, target_chars, max_chars):
        run.append((start, end))
        length = end - start
        if full or (length >= min_chars and boundary_draw(text[start:end]) < length / target_chars):
            runs.append(run)
            run = []
    if run:
        if runs and run[-1][1] - run[0][0] < min_chars and run[-1][1] - runs[-1][0][0] <= target_chars:
            runs[-1] = runs[-1] + run
        else:
            runs.append(run)
    return runs


def chunk_spans(text: str, *, target_chars: int = CHUNK_TARGET_CHARS,
                max_chars: int = CHUNK_MAX_CHARS, min_chars: int = MIN_CHARS) -> list[tuple[int, int]]:
    """Character spans [start, end) of the chunks of ``text``: each packed run, split to fit."""
    runs = packed_runs(text, target_chars=target_chars, max_chars=max_chars, min_chars=min_chars)
    return [span for run in runs
            for span in _fit(run, [boundary_draw(text[s:e]) for s, e in run], target_chars)]


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
