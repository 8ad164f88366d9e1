"""Boundaries an operator relies on, with values worked out by hand."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from smartvector_core.temporal.intent import parse_intent
from smartvector_core.temporal.kinds import log_record_type

AS_OF = datetime(2026, 6, 15, tzinfo=UTC)


@pytest.mark.parametrize(("words", "month"), [("January", 1), ("February", 2), ("Feb", 2), ("March", 3),
                                              ("August", 8), ("December", 12)])
def test_a_named_month_is_that_month(words, month):
    intent = parse_intent(f"What was the refund window in {words} 2025?", AS_OF)
    assert intent.time_range is not None and intent.time_range[0] == datetime(2025, month, 1, tzinfo=UTC)


def test_two_minutes_cues_make_minutes_one_does_not():
    two = "Attendees: Ana, Bo\nAgenda: budget\nWe agreed on the budget."
    one = "Agenda: budget\nWe agreed on the budget."
    assert log_record_type(text=two)[0] == "meeting_minutes"
    assert log_record_type(text=one) is None
