"""Time at the edges: the one place that reads the wall clock and normalises datetimes.

Everything below the CLI and the pages takes ``as_of`` as a parameter. All datetimes inside
the engine are timezone-aware UTC; a time written without a zone is read as UTC.
Inside arrays and tables, times are int64 microseconds since the epoch (UTC).
"""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime, timedelta

from dateutil import parser as _dateparser

from .errors import InputError

UTC = UTC
_ISO_DATE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?|\d{4})?(?:$|[T ])")
US_PER_DAY = 86_400 * 1_000_000


def now() -> datetime:
    """The current moment, UTC. Only the CLI, the pages and ingest defaults may call this."""
    return datetime.now(UTC)


def unix_seconds() -> float:
    """Wall-clock seconds since the epoch, for leases shared between machines (the S3 write
    lock's expiry). Like :func:`now`, only infrastructure at the edges calls this."""
    return time.time()


def ensure_utc(moment: datetime) -> datetime:
    """Make ``moment`` timezone-aware UTC (a naive datetime is taken to be UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def parse_time(value: object, *, field: str = "time") -> datetime:
    """Parse an ISO-8601 string (or datetime/date) into an aware UTC datetime.

    Accepts ``2026-06-01``, ``2026-06-01T12:00:00Z``, ``2026-06-01 12:00+02:00``, and the reduced
    ISO forms ``2026-06`` and ``2026`` (the first moment of that month or year); a number is
    read as Unix seconds.
    Raises :class:`InputError` naming ``field`` when the value cannot be read.
    """
    if isinstance(value, datetime):
        return _in_range(value, field)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:  # Unix seconds, as some exporters write them
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            raise InputError(f"number {value!r} is not a Unix time in seconds", field=field) from None
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"expected an ISO-8601 time, found {value!r}", field=field)
    text = value.strip()
    if not _ISO_DATE.match(text):
        raise InputError(f"expected an ISO-8601 time like 2026-06-01T12:00:00Z, found {text!r}",
                         field=field)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        try:
            parsed = _dateparser.isoparse(text)
        except (ValueError, OverflowError) as exc:
            raise InputError(f"cannot read time {text!r} ({exc})", field=field) from None
    return _in_range(parsed, field)


def _in_range(moment: datetime, field: str) -> datetime:
    """``moment`` in UTC, or :class:`InputError` when UTC cannot hold it (``0001-01-01T00:00+01:00``
    is in year 0, ``9999-12-31T23:59:59-01:00`` in year 10000: Python's datetime has neither)."""
    try:
        return ensure_utc(moment)
    except (OverflowError, ValueError):
        raise InputError(f"{moment.isoformat()} is outside the times this store can hold "
                         "(0001-01-01 to 9999-12-31, UTC)", field=field) from None


def to_us(moment: datetime | None) -> int | None:
    """Aware datetime -> int microseconds since the epoch (None stays None)."""
    if moment is None:
        return None
    delta = ensure_utc(moment) - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def from_us(micros: int | None) -> datetime | None:
    """int microseconds since the epoch -> aware UTC datetime."""
    if micros is None:
        return None
    return _EPOCH + timedelta(microseconds=int(micros))


def iso_us(micros: int) -> str:
    """``iso(from_us(micros))`` of an int, in one step (the query's explanations format dozens)."""
    return (_EPOCH + timedelta(microseconds=micros)).isoformat().replace("+00:00", "Z")


def iso(moment: datetime | None) -> str | None:
    """Format as ISO-8601 with a trailing Z (None stays None)."""
    if moment is None:
        return None
    if moment.tzinfo is not UTC:        # already UTC (from_us, parse_time): nothing to convert
        moment = ensure_utc(moment)
    return moment.isoformat().replace("+00:00", "Z")
