import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.temporal import conflict_severity, extract_quantities, negation_conflict


def units(text):
    return [(q.value, q.unit) for q in extract_quantities(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("API rate limits are set to 100 requests per minute.", [(100.0, "request/minute")]),
    ("Limit: 1,000 req/min", [(1000.0, "request/minute")]),
    ("$5 per month", [(5.0, "USD/month")]),
    ("keep logs 30 days", [(30.0, "day")]),
    ("12% off, or 3 percent", [(12.0, "%"), (3.0, "%")]),
    ("1.5k users and 2 million tokens", [(1500.0, "user"), (2e6, "token")]),
    ("100ms timeout", [(100.0, "ms")]),
    ("We sold 2000 requests in 2019.", [(2000.0, "request")]),
    ("Since 2024-03-15 (Node.js 20.19.0, v3.5) at 10:30, in March 2024", []),
    ("H100 GPUs cost 5 dollars", [(5.0, "USD")]),
    ("the answer is 42 and more", [(42.0, "")]),
    ("", []),
])
def test_extract_quantities(text, expected):
    assert units(text) == expected


def test_spans_cover_number_and_unit():
    text = "up to 100 requests per minute!"
    (q,) = extract_quantities(text)
    assert text[q.span[0]:q.span[1]] == "100 requests per minute"


@pytest.mark.parametrize(("old", "new", "severity", "boost", "penalty"), [
    ("100", "5000", 0.980, 0.196, 0.098),      # blog
    ("1000", "500", 0.500, 0.100, 0.050),      # blog
    ("1000", "1000", 0.0, 0.0, 0.0),           # blog
    ("100 requests per minute", "1,000 requests per minute", 0.9, 0.18, 0.09),
    ("100 requests per minute, keep 30 days", "100 req/min, keep 90 days", 2 / 3, 0.4 / 3, 0.2 / 3),
    ("100 requests per minute", "30 days", 0.0, 0.0, 0.0),       # no shared unit
    ("0 errors", "0 errors", 0.0, 0.0, 0.0),
    ("0 errors", "4 errors", 1.0, 0.2, 0.1),
])
def test_conflict_severity(old, new, severity, boost, penalty):
    c = conflict_severity(old, new)
    assert (c.severity, c.boost, c.confidence_penalty) == pytest.approx((severity, boost, penalty))


def test_pairs_in_order_most_changed_first():
    c = conflict_severity("30 days then 90 days", "30 days then 45 days")
    assert [(p.old.value, p.new.value) for p in c.pairs] == [(90.0, 45.0), (30.0, 30.0)]
    assert c.severity == pytest.approx(0.5)


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("API keys are allowed in URLs.", "API keys are not allowed in URLs.", True),
    ("Smoking is permitted.", "Smoking is prohibited.", True),
    ("Two-factor login is required for admins.", "Two-factor login is not required for admins.", True),
    ("Two-factor login is required for admins.", "Two-factor login is optional for admins.", True),
    ("Caching is enabled by default.", "Caching is disabled by default.", True),
    ("You can delete a project.", "You can't delete a project.", True),
    ("You can delete a project.", "You cannot delete a project.", True),
    ("Smoking is allowed in the lobby.", "Pets are not allowed in the lobby.", False),
    ("API keys are allowed in URLs.", "API keys are allowed in URLs.", False),
    ("Caching is enabled.", "Logging is required.", False),
    ("", "nothing here", False),
])
def test_negation_conflict(a, b, expected):
    assert negation_conflict(a, b) is expected
    assert negation_conflict(b, a) is expected


@given(st.text(max_size=120), st.text(max_size=120))
def test_total_and_bounded(a, b):
    c = conflict_severity(a, b)
    assert 0.0 <= c.severity <= 1.0
    assert c.boost == pytest.approx(0.2 * c.severity)
    assert isinstance(negation_conflict(a, b), bool)
    for q in extract_quantities(a):
        assert 0 <= q.span[0] < q.span[1] <= len(a)
