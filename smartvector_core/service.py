"""The service layer: what the CLI and the dashboard pages call. No Streamlit here.

:class:`SmartVector` owns one store and one embedder. Every method that depends on time takes
``as_of`` / ``now`` explicitly; the callers (CLI, pages) read the clock.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from .clock import parse_time
from .errors import InputError
from .ingest import IngestReport, ingest_documents, read_records, validate_records
from .models import QueryResponse
from .retrieval import QueryRequest, get_profile, run_query
from .settings import Settings, load_settings
from .store import Store


@dataclass
class QuerySpec:
    """One line of a queries file (CONTRACT.md)."""

    id: str
    text: str
    as_of: datetime
    relevant: list[str]
    stale: list[str]
    extra: dict[str, Any]


QUERY_FIELDS = {"id", "text", "as_of", "relevant", "stale"}


def read_queries(path: str | Path, *, now: datetime, warn: Callable[[str], None] | None = None) -> list[QuerySpec]:
    """Read a queries JSONL file; unknown fields are kept in ``extra`` (with one warning)."""
    from .ingest.parse import _decode, _read_bytes, parse_jsonl

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
        if not isinstance(qtext, str) or not qtext.strip():
            raise InputError("missing or empty: every query needs its text", field="text", **where)
        qid = record.get("id")
        qid = str(qid) if qid not in (None, "") else f"q{len(specs) + 1}"
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
        specs.append(QuerySpec(qid, qtext.strip(), as_of, labels["relevant"], labels["stale"], extra))
    if unknown and warn:
        warn(f"{path}: fields not used for querying, kept as labels: {', '.join(sorted(unknown))}")
    return specs


class SmartVector:
    """One knowledge base: a store, its embedder, and the operations on them."""

    def __init__(self, settings: Settings | None = None, *, embedder=None) -> None:
        self.settings = settings or load_settings()
        self._embedder = embedder
        self._store: Store | None = None

    @property
    def embedder(self):
        if self._embedder is None:
            from .embedding import get_embedder

            self._embedder = get_embedder(self.settings.model_name)
        return self._embedder

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.settings, self.embedder.dim)
        return self._store

    # ------------------------------------------------------------------------------ ingest
    def load_records(self, paths: Iterable[str | Path]) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = []
        for path in paths:
            records.extend(read_records(path, max_file_bytes=self.settings.max_file_bytes,
                                        max_line_bytes=self.settings.max_line_bytes))
        return records

    def ingest_records(self, records: Sequence[dict[str, Any]], *, now: datetime,
                       progress: Callable[[int, int], None] | None = None, actor: str = "cli") -> IngestReport:
        """Validate every record, then write them (nothing is written if any record is bad)."""
        docs = validate_records(records, ingest_time=now)
        return ingest_documents(self.store, self.embedder, docs, now=now, progress=progress, actor=actor)

    def ingest_paths(self, paths: Iterable[str | Path], *, now: datetime, **kwargs) -> IngestReport:
        return self.ingest_records(self.load_records(paths), now=now, **kwargs)

    # ------------------------------------------------------------------------------- query
    def query(self, text: str, *, as_of: datetime, profile: str = "default", k: int = 5,
              query_id: str = "", log: bool = True) -> QueryResponse:
        if not text or not text.strip():
            raise InputError("empty: the query needs some text", field="query")
        if k < 1:
            raise InputError(f"expected k >= 1, found {k}", field="k")
        request = QueryRequest(text.strip(), as_of, get_profile(profile), k, query_id)
        return run_query(self.store, self.embedder, request)

    # ------------------------------------------------------------------------------- stats
    def stats(self) -> dict[str, Any]:
        docs = self.store.documents()
        by_kind: dict[str, int] = {}
        by_lifecycle: dict[str, int] = {}
        by_doc_type: dict[str, int] = {}
        if docs.num_rows:
            for name, target in (("kind", by_kind), ("lifecycle", by_lifecycle), ("doc_type", by_doc_type)):
                for value in docs.column(name).to_pylist():
                    target[value] = target.get(value, 0) + 1
        return {
            "store": self.settings.store_uri, "model": self.settings.model_name,
            "documents": docs.num_rows, "chunks": self.store.count_chunks(),
            "chunks_retired": self.store.count_chunks(current_only=False) - self.store.count_chunks(),
            "events": self.store.table("events").count_rows(),
            "edges": self.store.table("edges").count_rows(),
            "queries": self.store.table("queries").count_rows(),
            "by_kind": dict(sorted(by_kind.items())), "by_lifecycle": dict(sorted(by_lifecycle.items())),
            "by_doc_type": dict(sorted(by_doc_type.items())),
            "table_versions": self.store.table_versions(),
        }


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)
