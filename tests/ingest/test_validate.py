"""Record validation (``ingest/validate.py``). A record's id: a non-empty string or an integer; a
boolean (``true`` too), float, list or object is one clear error naming the field."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from smartvector_core.errors import InputError
from smartvector_core.ingest.validate import validate_record

AT = datetime(2026, 11, 30, tzinfo=UTC)


@pytest.mark.parametrize("bad", [True, False, 1.5, ["a"], {"a": 1}])
def test_an_id_that_is_not_a_string_or_an_integer_is_refused(bad):
    with pytest.raises(InputError, match="expected a string") as info:
        validate_record({"id": bad, "text": "Some text."}, ingest_time=AT)
    assert info.value.field == "id"


@pytest.mark.parametrize(("raw", "doc_id"), [("  policy_v1 ", "policy_v1"), (7, "7"), (0, "0")])
def test_strings_are_stripped_and_integers_become_strings(raw, doc_id):
    assert validate_record({"id": raw, "text": "Some text."}, ingest_time=AT).id == doc_id
