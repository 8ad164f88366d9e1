from datetime import UTC, datetime

import pytest

from smartvector_core.clock import US_PER_DAY, to_us

AS_OF = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)  # a Monday


@pytest.fixture
def as_of() -> datetime:
    return AS_OF


@pytest.fixture
def as_of_us() -> int:
    return to_us(AS_OF)


def days_ago_us(days: float) -> int:
    return to_us(AS_OF) - int(days * US_PER_DAY)
