"""Queries files (CONTRACT.md): one question a line, with labels for the benchmark.

Read by the CLI, the API and the benchmark; no state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..clock import parse_time
from ..errors import InputError
from ..ingest.parse import _decode, _read_bytes, parse_jsonl
from ..ingest.validate import clean_id, is_encodable

MAX_QUERY_ID_CHARS = 200   # the API's bound on a query id, and the file's

QUERY_FIELDS = {"id", "text", "as_of", "relevant", "stale"}


@dataclass
class QuerySpec:
    """One line of a queries file (CONTRACT.md)."""

    id: str
    text: str
    as_of: datetime
    relevant: list[str]
    stale: list[str]
    extra: dict[str, Any]
    id_given: bool = True     # False: numbered by its line (``q1``, ``q2``, ...), not named in the file


def read_queries(path: str | Path, *, now: datetime, warn: Callable[[str], None] | None = None) -> list[QuerySpec]:
    """Read a queries JSONL file; unknown fields are kept in ``extra`` (with one warning).

    A query id is text or a whole number (a list or an object is refused), checked by
    :func:`~smartvector_core.ingest.validate.clean_id` (NFC, no control characters)."""
    path = Path(path)
    text = _decode(_read_bytes(path, 50 * 1024 * 1024), str(path))
    specs: list[QuerySpec] = []
    seen: set[str] = set()
    unknown: set[str] = set()
    for record in parse_jsonl(text, str(path), max_line_bytes=5 * 1024 * 1024):
        origin = record.pop("_origin")
        file, _, line = origin.rpartition(":")
        where = {"file": file, "line": int(line)}
        qtext = record.get("text")
        if isinstance(qtext, str) and not is_encodable(qtext):
            raise InputError("holds a lone surrogate (a \\ud800-\\udfff escape that is half a character)",
                             field="text", **where)
        if not isinstance(qtext, str) or not qtext.strip():
            raise InputError("missing or empty: every query needs its text", field="text", **where)
        qid = record.get("id")
        qid = (clean_id(qid, field="id", max_chars=MAX_QUERY_ID_CHARS, **where) if qid not in (None, "")
               else f"q{len(specs) + 1}")
        if qid in seen:
            raise InputError(f"duplicate query id {qid!r}", field="id", **where)
        seen.add(qid)
        as_of = now
        if record.get("as_of") not in (None, ""):
            try:
                as_of = parse_time(record["as_of"], field="as_of")
            except InputError as exc:
                raise InputError(exc.message, field="as_of", **where) from None
        labels = {}
        for name in ("relevant", "stale"):
            value = record.get(name) or []
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InputError(f"expected a list of document ids, found {value!r}", field=name, **where)
            labels[name] = value
        extra = {k: v for k, v in record.items() if k not in QUERY_FIELDS}
        unknown.update(extra)
        specs.append(QuerySpec(qid, qtext.strip(), as_of, labels["relevant"], labels["stale"], extra,
                               id_given=record.get("id") not in (None, "")))
    if not specs:   # as for a corpus file (ingest/parse.py): an empty file is a mistake, not zero questions
        raise InputError("no queries: the file is empty or holds only blank lines", file=str(path))
    if unknown and warn:
        warn(f"{path}: fields not used for querying, kept as labels: {', '.join(sorted(unknown))}")
    return specs
