"""Times at the edge: every accepted form becomes aware UTC; the rest is one clear error."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from smartvector_core.clock import parse_time
from smartvector_core.errors import InputError


@pytest.mark.parametrize(("text", "expected"), [
    ("2025-06-01", datetime(2025, 6, 1, tzinfo=UTC)),
    ("2025-06-01T12:00:00Z", datetime(2025, 6, 1, 12, tzinfo=UTC)),
    ("2025-06-01T12:00", datetime(2025, 6, 1, 12, tzinfo=UTC)),               # no zone: UTC
    ("2025-06-01 12:00:00+02:00", datetime(2025, 6, 1, 10, tzinfo=UTC)),
    ("2025-06", datetime(2025, 6, 1, tzinfo=UTC)),
    ("2025", datetime(2025, 1, 1, tzinfo=UTC)),
    (1717200000, datetime(2024, 6, 1, tzinfo=UTC)),                            # Unix seconds
])
def test_accepted_forms_become_aware_utc(text, expected):
    parsed = parse_time(text)
    assert parsed == expected and parsed.tzinfo is not None


@pytest.mark.parametrize("bad", ["yesterday", "2025/06/01", "12:00", "", None, True, 1e20, "2025-13-01"])
def test_unreadable_times_name_the_field(bad):
    with pytest.raises(InputError) as info:
        parse_time(bad, field="created_at")
    assert str(info.value).startswith("created_at: ")


def test_iso_us_equals_iso_of_from_us():
    from smartvector_core.clock import from_us, iso, iso_us

    for micros in (0, 1, 999_999, 1_700_000_000_000_000, 1_700_000_000_123_456, -86_400_000_000):
        assert iso_us(micros) == iso(from_us(micros))
