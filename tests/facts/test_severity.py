"""The blog's conflict severity between two versions, on the one quantity reader."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.config.query import DEFAULT_CALIBRATION
from smartvector_core.facts import conflict_severity


@pytest.mark.parametrize(("old", "new", "severity", "boost", "penalty"), [
    ("100", "5000", 0.980, 0.196, 0.098),      # blog
    ("1000", "500", 0.500, 0.100, 0.050),      # blog
    ("1000", "1000", 0.0, 0.0, 0.0),           # blog
    ("100 requests per minute", "1,000 requests per minute", 0.9, 0.18, 0.09),
    ("100 requests per minute, keep 30 days", "100 req/min, keep 90 days", 2 / 3, 0.4 / 3, 0.2 / 3),
    ("100 requests per minute", "30 days", 0.0, 0.0, 0.0),       # no shared kind
    ("100 requests per minute", "6,000 requests per hour", 0.0, 0.0, 0.0),   # the same rate
    ("0 errors", "0 errors", 0.0, 0.0, 0.0),
    ("0 errors", "4 errors", 1.0, 0.2, 0.1),
    ("Document number 3 about topic 21", "Document number 4 about topic 22", 0.0, 0.0, 0.0),   # names
])
def test_conflict_severity(old, new, severity, boost, penalty):
    c = conflict_severity(old, new)
    assert (c.severity, c.boost) == pytest.approx((severity, boost))
    assert DEFAULT_CALIBRATION.conflict_penalty * c.severity == pytest.approx(penalty)   # the confidence side


def test_pairs_in_order_most_changed_first():
    c = conflict_severity("30 days then 90 days", "30 days then 45 days")
    assert [(p.old.surface, p.new.surface) for p in c.pairs] == [("90 days", "45 days"), ("30 days", "30 days")]
    assert c.severity == pytest.approx(0.5)


@given(st.text(max_size=120), st.text(max_size=120))
def test_total_and_bounded(a, b):
    c = conflict_severity(a, b)
    assert 0.0 <= c.severity <= 1.0
    assert c.boost == pytest.approx(0.2 * c.severity)
