"""Validation of raw corpus records into :class:`~smartvector_core.models.Document`.

Every record of a call is validated before anything is written; the first problem found is
raised as one :class:`InputError` ``FILE:LINE: field: what is wrong``. Choices made here:

- ``created_at`` absent: the ingest moment, and ``dated = False`` (the temporal signals give
  an undated document neutral freshness instead of treating it as brand new).
- Unknown top-level fields are kept in ``metadata`` (corpora come from many exporters).
- Control characters are removed from ``text`` and ``title``; in an ``id`` they are an error.
- ``supersedes`` / ``depends_on`` may be a string or a list of strings; a reference to an id
  that is neither in the call nor in the store is accepted (it may arrive later).
- An id (or a referenced id) may hold only printable characters and plain spaces (Python's
  ``str.isprintable``): no invisible or direction-changing ones such as U+200B ZERO WIDTH SPACE
  or U+202E RIGHT-TO-LEFT OVERRIDE, no other spaces (U+00A0), separators, private-use or
  unassigned code points. Two ids that look the same would name different documents, and an
  override can make ``a_v2`` display as another id. Such an id is an input error.
- Ids are NFC-normalised (:func:`clean_id`): ``café`` written composed and decomposed is one id
  (two records of it in one call are a duplicate). The same rule (NFC, no control or invisible
  characters, at most ``MAX_ID_CHARS``) holds for query ids and actors (:func:`clean_id`).
- ``metadata`` must be a JSON object (``null`` is none); ``[]`` or any other type is an input
  error, as is a value JSON cannot hold.
- ``valid_until`` earlier than ``created_at`` is accepted with a warning (see
  :func:`record_warnings`): a record written after its window closed, such as an incident
  report, is legitimate; it is EXPIRED from the moment it exists.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from ..clock import parse_time
from ..errors import InputError
from ..models import Document, DocumentKind
from .parse import strip_control

KNOWN_FIELDS = {"id", "text", "title", "created_at", "valid_from", "valid_until", "kind", "doc_type",
                "version", "supersedes", "depends_on", "source", "authority", "metadata"}
_ID_BAD = re.compile(r"[\x00-\x1f\x7f]")
MAX_ID_CHARS = 512


def _where(origin: str) -> tuple[str | None, int | None]:
    if not origin:
        return None, None
    name, _, line = origin.rpartition(":")
    return (name or origin), (int(line) if line.isdigit() else None)


def _id_problem(value: str) -> str | None:
    """Why ``value`` cannot be an id (None: it can)."""
    if _ID_BAD.search(value):
        return "contains control characters"
    hidden = next((c for c in value if c != " " and not c.isprintable()), None)
    if hidden is not None:
        return (f"contains an invisible or direction-changing character U+{ord(hidden):04X} "
                f"({unicodedata.name(hidden, 'unnamed')})")
    return None


def is_encodable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (a JSON ``\\ud800`` escape gives a lone
    surrogate, half a character, which no file or response can hold)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean_id(value: object, *, field: str = "id", file: str | None = None, line: int | None = None,
             max_chars: int = MAX_ID_CHARS) -> str:
    """``value`` as an id: text (an integer is written out), stripped, NFC-normalised, with only
    printable characters and plain spaces, at most ``max_chars``; else :class:`InputError`
    naming ``field`` (and ``file``/``line`` where given). The one rule for document ids,
    referenced ids, query ids and actors."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(f"expected a string, found {type(value).__name__}", field=field, file=file, line=line)
    text = unicodedata.normalize("NFC", str(value).strip())
    problem = _id_problem(text)
    if problem:
        raise InputError(problem, field=field, file=file, line=line)
    if len(text) > max_chars:
        raise InputError(f"longer than {max_chars} characters", field=field, file=file, line=line)
    return text


def _fail(origin: str, field: str, message: str) -> InputError:
    file, line = _where(origin)
    return InputError(message, file=file, line=line, field=field)


def _optional_time(record: dict[str, Any], name: str, origin: str) -> datetime | None:
    value = record.get(name)
    if value is None or value == "":
        return None
    try:
        return parse_time(value, field=name)
    except InputError as exc:
        raise _fail(origin, name, exc.message) from None


def _id_list(record: dict[str, Any], name: str, origin: str, own_id: str) -> tuple[str, ...]:
    value = record.get(name)
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _fail(origin, name, f"expected an id or a list of ids, found {value!r}")
    for ref in value:
        problem = _id_problem(ref.strip())
        if problem:
            raise _fail(origin, name, f"id {ref.strip()!r} {problem}")
    ids = tuple(dict.fromkeys(unicodedata.normalize("NFC", v.strip()) for v in value))
    if own_id in ids:
        raise _fail(origin, name, f"document {own_id!r} cannot refer to itself")
    return ids


def _text_field(record: dict[str, Any], name: str, origin: str) -> str:
    value = record.get(name)
    if value is None:
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise _fail(origin, name, f"expected a string, found {type(value).__name__}")
    if not is_encodable(str(value)):
        raise _fail(origin, name, "holds a lone surrogate (half a character, from a \\ud800-\\udfff escape)")
    return strip_control(str(value)).strip()


def validate_record(record: dict[str, Any], *, ingest_time: datetime) -> Document:
    """One raw record -> a :class:`Document`, or :class:`InputError` naming file, line and field."""
    origin = str(record.get("_origin", ""))
    raw_id = record.get("id")
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        raise _fail(origin, "id", "missing or empty: every document version needs an id")
    file, line = _where(origin)
    doc_id = clean_id(raw_id, field="id", file=file, line=line)
    text = record.get("text")
    if not isinstance(text, str):
        raise _fail(origin, "text", "missing: expected the document's text as a string"
                    if text is None else f"expected a string, found {type(text).__name__}")
    if not is_encodable(text):
        raise _fail(origin, "text", "holds a lone surrogate (half a character, from a \\ud800-\\udfff escape)")
    text = strip_control(text)
    if not text.strip():
        raise _fail(origin, "text", "empty: the document has no text")

    created = _optional_time(record, "created_at", origin)
    valid_from = _optional_time(record, "valid_from", origin)
    valid_until = _optional_time(record, "valid_until", origin)
    if valid_from and valid_until and valid_until <= valid_from:
        raise _fail(origin, "valid_until", f"{valid_until.isoformat()} is not after valid_from "
                    f"{valid_from.isoformat()}")

    kind = None
    if record.get("kind") not in (None, ""):
        try:
            kind = DocumentKind.parse(record["kind"], field_name="kind")
        except InputError as exc:
            raise _fail(origin, "kind", exc.message) from None

    doc_type = record.get("doc_type")
    if doc_type in (None, ""):
        doc_type = None
    elif not isinstance(doc_type, str):
        raise _fail(origin, "doc_type", f"expected a profile name string, found {doc_type!r}")
    else:
        doc_type = doc_type.strip().lower()

    authority = record.get("authority")
    if authority is not None:
        if isinstance(authority, bool) or not isinstance(authority, int | float) or not math.isfinite(authority):
            raise _fail(origin, "authority", f"expected a number in [0, 1], found {authority!r}")
        if not 0.0 <= float(authority) <= 1.0:
            raise _fail(origin, "authority", f"expected a number in [0, 1], found {authority}")
        authority = float(authority)

    metadata = record.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise _fail(origin, "metadata", f"expected a JSON object, found {type(metadata).__name__} {metadata!r:.40}")
    extra = {k: v for k, v in record.items() if k not in KNOWN_FIELDS and not str(k).startswith("_")}
    if extra:
        metadata = {**metadata, **{k: v for k, v in extra.items() if k not in metadata}}
    try:
        json.dumps(metadata, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise _fail(origin, "metadata", f"a value JSON cannot hold ({exc})") from None

    return Document(
        id=doc_id, text=text, created_at=created or ingest_time, title=_text_field(record, "title", origin),
        dated=created is not None, valid_from=valid_from, valid_until=valid_until, kind=kind,
        doc_type=doc_type, version=_text_field(record, "version", origin),
        supersedes=_id_list(record, "supersedes", origin, doc_id),
        depends_on=_id_list(record, "depends_on", origin, doc_id),
        source=_text_field(record, "source", origin), authority=authority, metadata=metadata,
        origin=origin)


def _find_cycle(graph: dict[str, tuple[str, ...]]) -> list[str] | None:
    """A cycle in the ``supersedes`` relation, as a list of ids, or None (iterative DFS)."""
    state: dict[str, int] = {}
    for root in graph:
        if state.get(root):
            continue
        stack = [(root, iter(graph.get(root, ())))]
        path = [root]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            if state.get(child) == 1:
                return path[path.index(child):] + [child]
            if child in graph and not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(graph.get(child, ()))))
    return None


def record_warnings(docs: Iterable[Document]) -> list[str]:
    """Accepted but questionable records, one warning each: ``valid_until`` before ``created_at``."""
    return [f"{d.origin}: valid_until: {d.valid_until.isoformat()} is before created_at "
            f"{d.created_at.isoformat()} (kept: written after its window closed, EXPIRED from the start)"
            for d in docs if d.dated and d.valid_until is not None and d.valid_until < d.created_at]


def validate_records(records: Iterable[dict[str, Any]], *, ingest_time: datetime,
                     known_supersedes: Mapping[str, tuple[str, ...]]
                     | Callable[[set[str]], Mapping[str, tuple[str, ...]]] | None = None) -> list[Document]:
    """Validate a whole call: each record, duplicate ids, and ``supersedes`` cycles.

    ``known_supersedes``: the store's declared SUPERSEDES (src -> dsts), or a function of the
    call's (valid) ids returning them, called only once every record is valid.
    """
    docs: list[Document] = []
    seen: dict[str, str] = {}
    for record in records:
        doc = validate_record(record, ingest_time=ingest_time)
        if doc.id in seen:
            raise _fail(doc.origin, "id", f"duplicate id {doc.id!r} (first at {seen[doc.id]})")
        seen[doc.id] = doc.origin
        docs.append(doc)
    if callable(known_supersedes):
        known_supersedes = known_supersedes(set(seen))
    graph = dict(known_supersedes or {})
    graph.update({d.id: d.supersedes for d in docs if d.supersedes})
    cycle = _find_cycle(graph)
    if cycle:
        origin = next((d.origin for d in docs if d.id in cycle), "")
        raise _fail(origin, "supersedes", "cycle: " + " -> ".join(cycle))
    return docs
