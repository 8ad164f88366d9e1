"""Chunking: short paragraphs packed up to the target at content-defined boundaries."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.ingest.chunking import (
    MIN_CHARS,
    boundary_draw,
    chunk_document,
    chunk_spans,
    packed_runs,
)

WORDS = ["archive", "retention", "region", "policy", "storage", "team", "weekly", "audit", "record", "class", "days"]


def _paragraph(i: int, length: int) -> str:
    text = f"Paragraph {i}:"
    while len(text) < length:
        text += " " + WORDS[(i * 7 + len(text)) % len(WORDS)]
    return text[:length].rstrip() + "."


def test_boundary_after_a_short_paragraph_whose_draw_is_below_its_share_of_the_target():
    """target 200, no size cap: a 60-character paragraph ends a chunk iff draw < 60/200."""
    paragraphs = [_paragraph(i, 60) for i in range(30)]
    text = "\n\n".join(paragraphs)
    ends = {end for _, end in chunk_spans(text, target_chars=200, max_chars=100_000)}
    offsets = [text.index(p) + len(p) for p in paragraphs]
    expected = {end for p, end in zip(paragraphs, offsets, strict=True) if boundary_draw(p) < len(p) / 200}
    assert ends - {offsets[-1]} == expected - {offsets[-1]}
    assert 0 < len(expected) < len(paragraphs)                  # the rule cuts, and packs


def test_paragraphs_of_the_target_length_stand_alone():
    paragraphs = [_paragraph(i, 820) for i in range(5)]
    text = "\n\n".join(paragraphs)
    assert [text[s:e] for s, e in chunk_spans(text)] == paragraphs


def test_short_paragraphs_are_packed_and_every_chunk_fits():
    paragraphs = [_paragraph(i, 120) for i in range(40)]
    text = "\n\n".join(paragraphs)
    chunks = chunk_document("d", text)
    assert len(chunks) < len(paragraphs) / 2
    assert all(len(c.text) <= 1200 for c in chunks)
    assert all(text[c.char_start:c.char_end] == c.text for c in chunks)
    assert "\n\n".join(c.text for c in chunks) == text           # packed whole paragraphs, in order


def test_a_heading_joins_the_paragraph_after_it():
    heading = "# Retention"
    assert len(heading) < MIN_CHARS
    text = "\n\n".join([heading, _paragraph(1, 850), _paragraph(2, 850)])
    spans = chunk_spans(text)
    assert len(spans) == 2 and text[spans[0][0]:spans[0][1]].startswith(heading + "\n\n")


def test_a_run_over_the_cap_is_split_after_its_smallest_draw():
    """No drawn boundary (target 100,000); cap 350 over 100-character paragraphs: the run of
    six splits after the paragraph (of the first five) with the smallest draw, then each half."""
    paragraphs = [_paragraph(i, 100) for i in range(6)]
    text = "\n\n".join(paragraphs)
    spans = chunk_spans(text, target_chars=100_000, max_chars=350)
    first_cut = min(range(5), key=lambda i: boundary_draw(paragraphs[i]))
    offsets = [text.index(p) + len(p) for p in paragraphs]
    assert offsets[first_cut] in {end for _, end in spans}
    assert all(e - s <= 350 for s, e in spans)


def test_a_long_paragraph_is_split_on_sentences_into_pieces_that_stand_alone():
    long = "A sentence about archive retention in every region. " * 60
    text = _paragraph(0, 100) + "\n\n" + long.strip()
    spans = chunk_spans(text)
    assert len(spans) >= 3 and all(e - s <= 1200 for s, e in spans)
    assert all(text[s:e].endswith(".") for s, e in spans)


_paragraphs = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=60).map(" ".join),
                       min_size=2, max_size=25)


@settings(max_examples=200, deadline=None)
@given(paragraphs=_paragraphs, data=st.data())
def test_a_one_paragraph_edit_changes_only_its_run_and_the_next(paragraphs, data):
    """Every chunk of a packed run other than the edited paragraph's run and the run after it
    (and the run before it, when the edit is in the last run, which a short trailing run joins)
    keeps its text, so its vector is reused."""
    i = data.draw(st.integers(0, len(paragraphs) - 1))
    replacement = data.draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=60).map(" ".join))
    text = "\n\n".join(paragraphs)
    edited = "\n\n".join(paragraphs[:i] + [replacement] + paragraphs[i + 1:])
    start = sum(len(p) + 2 for p in paragraphs[:i])
    runs = packed_runs(text)
    r = next(n for n, run in enumerate(runs) if run[0][0] <= start <= run[-1][1])
    touched = {r, r + 1} | ({r - 1} if r == len(runs) - 1 else set())
    untouched = [(s, e) for n, run in enumerate(runs) if n not in touched
                 for s, e in chunk_spans(text) if run[0][0] <= s and e <= run[-1][1]]
    new_texts = Counter(c.text for c in chunk_document("d", edited))
    assert not Counter(text[s:e] for s, e in untouched) - new_texts
