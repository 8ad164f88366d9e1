"""Ingest: validated documents -> chunks -> embeddings (reused by content hash) -> one commit.

Re-ingesting an id updates it surgically: chunks whose text is unchanged keep their rows and
vectors; only new or edited chunks are embedded; chunks that disappeared are retired
(``current = false``, ``retired_at`` set), never deleted. Each batch of documents is written
in a single ``merge_insert`` commit, so a document is either whole in the store or absent.

Nothing is written until every document of the call is known to be storable:
:func:`prepare_documents` chunks, classifies and fingerprints each one first, and any failure is
an :class:`~smartvector_core.errors.InputError` naming its file and line (a bad file sorted last
in a directory of 2,000 good ones writes nothing).

Crash safety and concurrent writers (docs/RELIABILITY.md): a batch is planned against the store
as read, then written under the store's write lock only if the ``chunks`` table has not moved
meanwhile (else planned again; the last try plans under the lock). The write order is edges
(idempotent, keyed by ``edge_id``), chunks, events, so ``kill -9`` between commits leaves every
document whole or absent, with its declared edges whenever it is present. The INGEST / UPDATE
audit row carries the version's ``doc_hash``; a re-run that finds a stored version whose latest
INGEST / UPDATE row names another hash (the kill came between the chunks and the events commit)
writes the missing row then, marked ``reconciled`` (:func:`_missing_audit`). Crash points
``ingest:after:edges``, ``ingest:after:chunks``, ``ingest:after:events``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import pyarrow as pa

from ..embedding import claim_encoder
from ..errors import InputError
from ..memory.surgical import match_chunks
from ..models import Document, EdgeType, EventType, Lifecycle, event_detail
from ..store import Store, chunks_schema
from ..temporal.content_time import passage_spans
from .chunking import chunk_document
from .classify import classify

HASH_LOOKUP_CHUNKS = 2000   # ours: one vectors_for_hashes query (its 2,000-hash batch)
DOC_BATCH = 2000
PLAN_ATTEMPTS = 3  # optimistic plans before planning under the write lock


@dataclass
class IngestReport:
    documents: int = 0
    chunks: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    chunks_retired: int = 0
    encode_seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"documents": self.documents, "chunks": self.chunks,
                "chunks_embedded": self.chunks_embedded, "chunks_reused": self.chunks_reused,
                "added": len(self.added), "updated": len(self.updated),
                "unchanged": len(self.unchanged), "chunks_retired": self.chunks_retired,
                "warnings": self.warnings}

    def merge(self, part: IngestReport) -> None:
        """Add the counts of one batch (``documents`` is set by the caller)."""
        for name in ("chunks", "chunks_embedded", "chunks_reused", "chunks_retired", "encode_seconds"):
            setattr(self, name, getattr(self, name) + getattr(part, name))
        for name in ("added", "updated", "unchanged", "warnings"):
            getattr(self, name).extend(getattr(part, name))


def doc_fingerprint(doc: Document) -> str:
    """Hash of everything stored about a version: unchanged fingerprint -> nothing to write."""
    payload = json.dumps({
        "text": doc.text, "title": doc.title, "created_at": doc.created_at.isoformat() if doc.dated else None,
        "valid_from": doc.valid_from.isoformat() if doc.valid_from else None,
        "valid_until": doc.valid_until.isoformat() if doc.valid_until else None,
        "kind": doc.kind.value if doc.kind else None, "doc_type": doc.doc_type, "version": doc.version,
        "supersedes": list(doc.supersedes), "depends_on": list(doc.depends_on), "source": doc.source,
        "authority": doc.authority, "metadata": doc.metadata,
    }, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass(frozen=True)
class Prepared:
    """What a document becomes in the store, computed before anything is written."""

    chunks: list
    kind: str
    kind_reason: str
    doc_type: str
    doc_type_reason: str
    fingerprint: str
    metadata: str
    spans: list[tuple[list[int], list[int]]]   # per chunk: the periods its text names (content time)


def prepare_documents(docs: Sequence[Document]) -> dict[str, Prepared]:
    """Chunk, classify and fingerprint every document (by id), and extract the periods each chunk
    names (:func:`temporal.content_time.passage_spans`, relative phrases read at the document's
    ``created_at``), or raise :class:`InputError` at the first one that cannot be stored, naming
    its origin: validation of the whole call ends here, before the first write."""
    out: dict[str, Prepared] = {}
    for doc in docs:
        try:
            kind, kind_reason, doc_type, doc_type_reason = classify(doc)
            chunks = chunk_document(doc.id, doc.text)
            anchor = doc.created_at if doc.dated else None
            out[doc.id] = Prepared(chunks, kind.value, kind_reason, doc_type, doc_type_reason, doc_fingerprint(doc),
                                   doc.metadata_json(), [passage_spans(c.text, anchor) for c in chunks])
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            if isinstance(exc, InputError):
                raise
            file, _, line = doc.origin.rpartition(":")
            raise InputError(f"cannot be stored ({type(exc).__name__}: {exc})", file=file or doc.origin or None,
                             line=int(line) if line.isdigit() else None, field="record") from None
    return out


def _previous(store: Store, doc_ids: Sequence[str]) -> tuple[dict[str, dict], dict[str, list[dict]]]:
    """Per doc id: its stored document fields, and its stored current chunk rows (with vectors)."""
    rows = store.chunks_for_docs(list(doc_ids), current_only=True, with_vectors=True).to_pylist()
    docs: dict[str, dict] = {}
    chunks: dict[str, list[dict]] = {}
    for row in rows:
        docs.setdefault(row["doc_id"], row)
        chunks.setdefault(row["doc_id"], []).append(row)
    return docs, chunks


def ingest_documents(store: Store, embedder, docs: Sequence[Document], *, now: datetime,
                     progress: Callable[[int, int], None] | None = None,
                     actor: str = "cli", vectors: Mapping[str, np.ndarray] | None = None,
                     prepared: Mapping[str, Prepared] | None = None) -> IngestReport:
    """Write ``docs`` into ``store``; ``now`` is the ingest moment (record time).

    ``vectors``: embeddings already computed elsewhere (the Ray engine), by content hash; a text
    whose hash is there is not encoded again (vectors stored under the same hash still win).
    ``prepared``: :func:`prepare_documents` of ``docs`` when the caller ran it already.
    """
    prepared = prepared if prepared is not None else prepare_documents(docs)   # before any write
    if docs:   # one store, one encoder: refused before the first write, recorded on it
        claim_encoder(store, getattr(embedder, "encoder_id", None))
    report = IngestReport(documents=len(docs))
    # a few chunks ask the store for their own hashes (one indexed look-up); more read every
    # stored hash once (0.1 s at 100k chunks) and look up only those that are there
    few = sum(len(prepared[d.id].chunks) for d in docs) <= HASH_LOOKUP_CHUNKS
    known_hashes: set[str] | None = None
    for start in range(0, len(docs), DOC_BATCH):
        batch = list(docs[start:start + DOC_BATCH])
        cache: dict[str, np.ndarray] = dict(vectors or {})
        if known_hashes is None and not few:
            known_hashes = store.content_hashes()
        for attempt in range(PLAN_ATTEMPTS):
            locked = attempt == PLAN_ATTEMPTS - 1  # last try: plan under the lock, nothing can move
            with store.write_lock() if locked else nullcontext():
                seen = store.version("chunks")
                part = IngestReport()
                rows, edges, events = _plan_batch(store, embedder, batch, part, now=now, actor=actor,
                                                  cache=cache, known_hashes=known_hashes, prepared=prepared)
            with store.write_lock():
                if not locked and store.version("chunks") != seen:
                    continue  # another writer committed since we read: plan again (vectors are kept)
                # edges first (idempotent by edge id), then the chunks (one commit: the document
                # appears whole), then the audit events: a kill between two commits leaves
                # each document whole or absent, and a re-run converges
                store.upsert_edges(edges)
                store.crash_point("ingest:after:edges")
                if rows and not part.updated:
                    # only new documents: a plain append (merge_insert would join against the
                    # whole table, its memory growing with the store); safe under the lock, the
                    # table unchanged since the plan found these ids absent
                    store.add_chunks(_to_table(rows, store.dim))
                elif rows:
                    store.upsert_chunks(_to_table(rows, store.dim))
                store.crash_point("ingest:after:chunks")
                store.append_events(events)
                store.crash_point("ingest:after:events")
            break
        report.merge(part)
        if progress:
            progress(min(start + DOC_BATCH, len(docs)), len(docs))
    if report.added or report.updated:
        store.ensure_indexes()   # no-op on small stores; indexes and optimize() on large ones
    store.merge_appends(("chunks", "edges"))   # the small fragments writes gathered (events: as appended)
    return report


def _missing_audit(store: Store, stored: Mapping[str, dict], chunks: Mapping[str, list[dict]],
                   *, actor: str) -> list[dict]:
    """INGEST / UPDATE rows for stored versions whose audit row never landed.

    ``stored``: doc id -> its stored document fields (found unchanged by this call). A version
    is audited when the latest INGEST / UPDATE row of its id carries its ``doc_hash`` (rows
    written before the hash was recorded count as audited). The missing row is dated at the
    newest ``ingested_at`` of the version's chunks (when its data landed) and marked
    ``reconciled``.
    """
    if not stored:
        return []
    kinds = [EventType.INGEST.value, EventType.UPDATE.value]
    events = store.events(list(stored)).to_pylist()
    latest: dict[str, dict] = {}
    for e in events:
        if e["event_type"] in kinds and (e["doc_id"] not in latest or e["at"] >= latest[e["doc_id"]]["at"]):
            latest[e["doc_id"]] = e
    out = []
    for doc_id, row in stored.items():
        last = latest.get(doc_id)
        logged = event_detail(last["detail"]).get("doc_hash", row["doc_hash"]) if last else None
        if logged == row["doc_hash"]:
            continue
        landed = max((c["ingested_at"] for c in chunks.get(doc_id, []) if c["ingested_at"] is not None),
                     default=row["ingested_at"])
        out.append({"doc_id": doc_id, "event_type": (EventType.UPDATE if last else EventType.INGEST).value,
                    "at": landed, "actor": actor,
                    "detail": {"chunks": len(chunks.get(doc_id, [])), "doc_hash": row["doc_hash"],
                               "reconciled": True}})
    return out


def _plan_batch(store: Store, embedder, batch: list[Document], part: IngestReport, *, now: datetime,
                actor: str, cache: dict[str, np.ndarray], known_hashes: set[str] | None,
                prepared: Mapping[str, Prepared]) -> tuple[list[dict], list[dict], list[dict]]:
    """Chunk rows, edges and events that write ``batch`` over the store as it is now. New texts
    are encoded (once: ``cache`` keeps their vectors by content hash for a re-plan); counts go to
    ``part``. Unchanged documents whose audit row is missing get it now (:func:`_missing_audit`).
    ``known_hashes``: every content hash stored (None: ask the store for each new text's)."""
    old_docs, old_chunks = _previous(store, [d.id for d in batch])
    rows: list[dict] = []
    pending: list[tuple[dict, str]] = []  # (row, text) awaiting a vector
    events: list[dict] = []
    edges: list[dict] = []
    unchanged: dict[str, dict] = {}
    for doc in batch:
        prep = prepared[doc.id]
        fingerprint = prep.fingerprint
        previous = old_docs.get(doc.id)
        if previous is not None and previous["doc_hash"] == fingerprint:
            part.unchanged.append(doc.id)
            part.chunks += len(old_chunks[doc.id])
            part.chunks_reused += len(old_chunks[doc.id])
            unchanged[doc.id] = previous
            continue
        new_chunks = prep.chunks
        kind, kind_reason, doc_type, doc_type_reason = prep.kind, prep.kind_reason, prep.doc_type, prep.doc_type_reason
        lifecycle = Lifecycle.UNCONSOLIDATED.value
        superseded_at = previous["superseded_at"] if previous else None
        fields = {
            "doc_id": doc.id, "title": doc.title, "source": doc.source, "created_at": doc.created_at,
            "dated": doc.dated, "valid_from": doc.valid_from, "valid_until": doc.valid_until,
            "kind": kind, "kind_reason": kind_reason, "doc_type": doc_type,
            "doc_type_reason": doc_type_reason, "version": doc.version,
            "supersedes": list(doc.supersedes), "depends_on": list(doc.depends_on),
            "authority": doc.authority if doc.authority is not None else float("nan"),
            "metadata": prep.metadata, "lifecycle": lifecycle,
            "superseded_at": superseded_at, "current": True, "ingested_at": now,
            "retired_at": None, "doc_hash": fingerprint,
        }
        # surgical update (memory/surgical.py): unchanged texts keep their rows' vectors
        stored = sorted(old_chunks.get(doc.id, []), key=lambda r: r["ordinal"])
        match = match_chunks([r["content_hash"] for r in stored], [c.content_hash for c in new_chunks])
        reuse = {n: stored[o] for o, n in match.kept}
        for position, chunk in enumerate(new_chunks):
            row = {**fields, "chunk_id": chunk.chunk_id, "ordinal": chunk.ordinal, "text": chunk.text,
                   "char_start": chunk.char_start, "char_end": chunk.char_end,
                   "content_hash": chunk.content_hash, "content_start_us": prep.spans[position][0],
                   "content_end_us": prep.spans[position][1]}
            old = reuse.get(position)
            if old is not None:
                row["vector"] = old["vector"]
                row["ingested_at"] = old["ingested_at"]
                part.chunks_reused += 1
                rows.append(row)
            else:
                pending.append((row, chunk.text))
        retired = [stored[o] for o in match.removed]
        for old in retired:
            rows.append({**old, "current": False, "retired_at": now})
        part.chunks_retired += len(retired)
        part.chunks += len(new_chunks)
        (part.updated if previous is not None else part.added).append(doc.id)
        events.append({"doc_id": doc.id, "event_type": (EventType.UPDATE if previous else EventType.INGEST).value,
                       "at": now, "actor": actor,
                       "detail": {"chunks": len(new_chunks), "retired": len(retired), "origin": doc.origin,
                                  "doc_hash": fingerprint}})
        for target in doc.supersedes:
            edges.append({"src": doc.id, "dst": target, "edge_type": EdgeType.SUPERSEDES.value,
                          "origin": "declared", "evidence": "supersedes field", "created_at": now})
        for target in doc.depends_on:
            edges.append({"src": doc.id, "dst": target, "edge_type": EdgeType.DEPENDS_ON.value,
                          "origin": "declared", "evidence": "depends_on field", "created_at": now})
    events += _missing_audit(store, unchanged, old_chunks, actor=actor)
    if pending:
        rows += _with_vectors(store, embedder, pending, part, cache, known_hashes)
    return rows, edges, events


def _with_vectors(store: Store, embedder, pending: list[tuple[dict, str]], part: IngestReport,
                  cache: dict[str, np.ndarray], known_hashes: set[str] | None) -> list[dict]:
    """The ``pending`` rows (row, text) with their vectors: a stored text's vector by its content
    hash (looked up only where ``known_hashes`` holds it, or always when it is None), else the
    ``cache``'s, else encoded now, once per distinct text; counts go to ``part``."""
    wanted = [row["content_hash"] for row, _ in pending
              if known_hashes is None or row["content_hash"] in known_hashes]
    stored = store.vectors_for_hashes(wanted) if wanted else {}
    to_encode: dict[str, str] = {}
    given: dict[str, np.ndarray] = {}
    for row, text in pending:
        h = row["content_hash"]
        if h in stored:
            continue
        if h in cache:
            given[h] = cache[h]
        else:
            to_encode.setdefault(h, text)
    t0 = time.perf_counter()
    encoded = embedder.encode(list(to_encode.values())) if to_encode else np.zeros((0, store.dim))
    part.encode_seconds += time.perf_counter() - t0
    fresh = {**given, **dict(zip(to_encode, encoded, strict=True))}
    part.chunks_embedded += len(fresh)
    # a chunk counts as reused unless its text was encoded for it in this call
    part.chunks_reused += len(pending) - len(fresh)
    for row, _ in pending:
        row["vector"] = fresh.get(row["content_hash"], stored.get(row["content_hash"]))
    if known_hashes is not None:
        known_hashes.update(fresh)
    cache.update(fresh)
    return [row for row, _ in pending]


def _to_table(rows: list[dict], dim: int) -> pa.Table:
    schema = chunks_schema(dim)
    columns = {}
    for name in schema.names:
        values = [r.get(name) for r in rows]
        if name == "vector":
            flat = np.asarray(np.stack([np.asarray(v, dtype=np.float32) for v in values]), dtype=np.float32)
            columns[name] = pa.FixedSizeListArray.from_arrays(pa.array(flat.reshape(-1)), dim)
        else:
            columns[name] = pa.array(values, type=schema.field(name).type)
    return pa.table(columns, schema=schema)
