"""The one quantity reader: hand-worked values, units normalised, and what is not a quantity."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.facts import extract_quantities

DAY = 86_400.0


def read(text):
    return [(q.lo, q.hi, q.kind) for q in extract_quantities(text)]


@pytest.mark.parametrize(("text", "expected"), [
    # issue 13's hand-worked cases
    ("2 million requests", [(2_000_000.0, 2_000_000.0, "n:request")]),
    ("2,000,000 requests", [(2_000_000.0, 2_000_000.0, "n:request")]),
    ("1.5k users", [(1500.0, 1500.0, "n:user")]),
    ("3k users", [(3000.0, 3000.0, "n:user")]),
    ("2 weeks", [(14 * DAY, 14 * DAY, "time")]),
    ("30 days", [(30 * DAY, 30 * DAY, "time")]),
    ("100 requests per minute", [(100 / 60, 100 / 60, "n:request/time")]),
    ("6,000 requests per hour", [(6000 / 3600, 6000 / 3600, "n:request/time")]),
    ("Limit: 1,000 req/min", [(1000 / 60, 1000 / 60, "n:request/time")]),
    ("5000 calls a minute", [(5000 / 60, 5000 / 60, "n:call/time")]),
    # units of varying length are intervals
    ("1 month", [(28 * DAY, 31 * DAY, "time")]),
    ("1 year", [(365 * DAY, 366 * DAY, "time")]),
    ("1 GB", [(1e9, 2.0 ** 30, "data")]),
    ("3-5 days", [(3 * DAY, 5 * DAY, "time")]),
    # money, percent, small units
    ("$5", [(5.0, 5.0, "usd")]),
    ("5 dollars", [(5.0, 5.0, "usd")]),
    ("$2.5 million", [(2.5e6, 2.5e6, "usd")]),
    ("12% off, or 3 percent", [(12.0, 12.0, "%"), (3.0, 3.0, "%")]),
    ("100ms timeout", [(0.1, 0.1, "time")]),
    ("thirty days", [(30 * DAY, 30 * DAY, "time")]),
    ("five failed attempts", [(5.0, 5.0, "n:attempt")]),
    ("the answer is 42", [(42.0, 42.0, "")]),
])
def test_values_and_kinds(text, expected):
    got = read(text)
    assert [k for _, _, k in got] == [k for _, _, k in expected]
    assert [v for lo, hi, _ in got for v in (lo, hi)] == pytest.approx([v for lo, hi, _ in expected for v in (lo, hi)])


@pytest.mark.parametrize("text", [
    "Document number 3 about topic 21 with words alpha beta",   # identifiers, counts in names
    "Error code 1900 was raised on port 2020",
    "See section 4, step 2 and room 12",
    "Clients receive HTTP 429",
    "The build runs on Windows 11",
    "Python 3.11 and PostgreSQL 15.4 hosts",                     # versions
    "Node 20.19.0, v3.5 and version 5",
    "The policy was adopted in 2019",                            # dates and times
    "From 15 November 2025 until 2026-03-01",
    "Support hours are 9:00 to 17:00, doors open at 9am",
    "The 21st edition, on day 20",
    "An H100 GPU in S3",                                         # digits glued to letters
    "five times the standard limit",                            # a multiplier
    "Two-factor login",
])
def test_not_quantities(text):
    assert read(text) == []


def test_bounds():
    (low,), (high,) = extract_quantities("at least 8 characters"), extract_quantities("up to 64 characters")
    assert (low.bound, high.bound) == ("min", "max")
    assert extract_quantities("a minimum of 8 characters")[0].bound == "min"
    assert extract_quantities("within 30 days")[0].bound == "max"


def test_span_covers_number_and_unit():
    text = "up to 100 requests per minute!"
    (q,) = extract_quantities(text)
    assert text[q.span[0]:q.span[1]] == q.surface == "100 requests per minute"


@given(st.text(max_size=160))
def test_total(text):
    for q in extract_quantities(text):
        assert 0 <= q.span[0] < q.span[1] <= len(text)
        assert q.lo <= q.hi
