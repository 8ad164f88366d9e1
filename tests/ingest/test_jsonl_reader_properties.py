"""Property test of the JSON Lines reader: any list of JSON objects, written with any Unicode
content (raw U+2028, U+2029, U+0085, U+000B/C, U+001C-1E and the other characters
``str.splitlines`` breaks on, as text or as keys), one object a line with blank lines between,
reads back as the same objects in order, each with the line number it was written on."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.ingest.parse import jsonl_lines, parse_jsonl

SPLITLINES_BREAKS = "\u2028\u2029\u0085\x0b\x0c\x1c\x1d\x1e\r"
TEXT = st.text(alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(SPLITLINES_BREAKS)), max_size=30)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
                    st.floats(allow_nan=False, allow_infinity=False), TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(TEXT, inner, max_size=4)), max_leaves=12)
OBJECTS = st.lists(st.dictionaries(TEXT.filter(lambda k: k != "_origin"), VALUES, max_size=5), min_size=1,
                   max_size=8)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(objects=OBJECTS, blanks=st.lists(st.integers(0, 2), min_size=8, max_size=8),
       ascii_only=st.booleans(), crlf=st.booleans())
def test_any_objects_read_back_with_their_line_numbers(objects, blanks, ascii_only, crlf):
    newline = "\r\n" if crlf else "\n"
    lines, want = [], []
    for obj, gap in zip(objects, blanks, strict=False):
        lines += [""] * gap
        lines.append(json.dumps(obj, ensure_ascii=ascii_only))
        want.append((obj, len(lines)))
    text = newline.join(lines) + newline
    got = list(parse_jsonl(text, "f.jsonl", max_line_bytes=5 * 1024 * 1024))
    assert [int(r.pop("_origin").rpartition(":")[2]) for r in got] == [line for _, line in want]
    assert got == [obj for obj, _ in want]


@given(st.text(alphabet=st.sampled_from("ab\n" + SPLITLINES_BREAKS), max_size=40))
def test_lines_are_split_on_newline_only(text):
    assert [line for _, line in jsonl_lines(text)] == [part.removesuffix("\r") for part in text.split("\n")]
