"""The store's table schemas and the pure helpers over its rows: edge ids, tag labels, cosine
similarity <-> LanceDB's cosine distance. No LanceDB here (the tables are :mod:`.store`'s)."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from ..errors import InputError

SCHEMA_VERSION = "1"
ENCODER_KEY = b"smartvector.encoder"   # vector field metadata: the encoder that made the vectors
TS = pa.timestamp("us", tz="UTC")
_META = {b"smartvector.schema_version": SCHEMA_VERSION.encode()}


def chunks_schema(dim: int) -> pa.Schema:
    return pa.schema([
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("ordinal", pa.int32()),
        pa.field("text", pa.string()),
        pa.field("char_start", pa.int32()),
        pa.field("char_end", pa.int32()),
        pa.field("content_hash", pa.string()),
        pa.field("vector", pa.list_(pa.float32(), dim)),
        pa.field("title", pa.string()),
        pa.field("source", pa.string()),
        pa.field("created_at", TS),
        pa.field("dated", pa.bool_()),
        pa.field("valid_from", TS),
        pa.field("valid_until", TS),
        pa.field("kind", pa.string()),
        pa.field("kind_reason", pa.string()),
        pa.field("doc_type", pa.string()),
        pa.field("doc_type_reason", pa.string()),
        pa.field("version", pa.string()),
        pa.field("supersedes", pa.list_(pa.string())),
        pa.field("depends_on", pa.list_(pa.string())),
        pa.field("authority", pa.float32()),
        pa.field("metadata", pa.string()),
        pa.field("lifecycle", pa.string()),
        pa.field("superseded_at", TS),
        pa.field("current", pa.bool_()),
        pa.field("ingested_at", TS),
        pa.field("retired_at", TS),
        pa.field("doc_hash", pa.string()),
        # the periods written in the chunk's text (temporal.content_time.passage_spans): half-open
        # [start, end) in µs UTC, one list entry per time expression; null in stores written
        # before these columns existed (read as no spans)
        pa.field("content_start_us", pa.list_(pa.int64())),
        pa.field("content_end_us", pa.list_(pa.int64())),
    ], metadata=_META)

CONTENT_TIME_COLUMNS = ("content_start_us", "content_end_us")


def content_spans(starts: pa.Array | pa.ChunkedArray, ends: pa.Array | pa.ChunkedArray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two content-time list columns of n rows as (offsets (n + 1), starts, ends): row ``i``
    owns ``starts[offsets[i]:offsets[i+1]]``; a null list is an empty one."""
    out = []
    for column in (starts, ends):
        lists = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        if lists.null_count:
            lists = pa.compute.fill_null(lists, pa.scalar([], lists.type))
        out.append(lists)
    values = []
    for lists in out:   # a sliced column's offsets start past 0
        bounds = lists.offsets.to_numpy()
        values.append(lists.values.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)[bounds[0]:bounds[-1]])
    offsets = out[0].offsets.to_numpy().astype(np.int64)
    return offsets - offsets[0], values[0], values[1]


EDGES_SCHEMA = pa.schema([
    pa.field("edge_id", pa.string(), nullable=False),
    pa.field("src", pa.string()),
    pa.field("dst", pa.string()),
    pa.field("edge_type", pa.string()),
    pa.field("origin", pa.string()),
    pa.field("evidence", pa.string()),
    pa.field("status", pa.string()),
    pa.field("created_at", TS),
], metadata=_META)

EVENTS_SCHEMA = pa.schema([
    pa.field("event_id", pa.string(), nullable=False),
    pa.field("doc_id", pa.string()),
    pa.field("event_type", pa.string()),
    pa.field("at", TS),
    pa.field("delta", pa.float64()),
    pa.field("query_id", pa.string()),
    pa.field("actor", pa.string()),
    pa.field("detail", pa.string()),
], metadata=_META)

QUERIES_SCHEMA = pa.schema([
    pa.field("query_id", pa.string(), nullable=False),
    pa.field("query", pa.string()),
    pa.field("profile", pa.string()),
    pa.field("as_of", TS),
    pa.field("asked_at", TS),
    pa.field("result_ids", pa.list_(pa.string())),
    pa.field("rejection_ids", pa.list_(pa.string())),
    pa.field("rejection_codes", pa.list_(pa.string())),
    pa.field("response", pa.string()),
], metadata=_META)

DOC_COLUMNS = ["doc_id", "title", "source", "created_at", "dated", "valid_from", "valid_until",
               "kind", "kind_reason", "doc_type", "doc_type_reason", "version", "supersedes",
               "depends_on", "authority", "metadata", "lifecycle", "superseded_at", "ingested_at",
               "doc_hash"]


# Tag labels LanceDB accepts, made stricter up front (ASCII; no "..", no leading dot, no ".lock"
# ending): a label that LanceDB would refuse half-way through tagging the four tables is an
# input error before the first one is tagged.
_TAG_LABEL = re.compile(r"[A-Za-z0-9_-](?:[A-Za-z0-9_-]|\.(?!\.))*")
MAX_TAG_CHARS = 100
RESTORABLE_TABLES = ("chunks", "edges")   # knowledge; events and queries are append-only history


def check_tag_label(label: object) -> str:
    """``label`` stripped, or :class:`InputError` (field ``LABEL``) when LanceDB could not store it."""
    text = label.strip() if isinstance(label, str) else ""
    if (not _TAG_LABEL.fullmatch(text) or len(text) > MAX_TAG_CHARS or text.endswith((".", ".lock"))):
        raise InputError(f"expected a tag label without spaces, of letters, digits, '.', '-' and '_' (at most {MAX_TAG_CHARS}, "
                         f"no leading '.', no '..', not ending in '.' or '.lock'), found {label!r}", field="LABEL")
    return text


def edge_id(src: str, edge_type: str, dst: str) -> str:
    return hashlib.blake2b(f"{src}\x1f{edge_type}\x1f{dst}".encode(), digest_size=12).hexdigest()


def cosine_similarity(hits: pa.Table) -> np.ndarray:
    """Cosine similarity of vector-search hits: 1 − LanceDB's cosine ``_distance`` (every search
    here runs with ``distance_type("cosine")``); float64."""
    return 1.0 - hits.column("_distance").to_numpy().astype(np.float64)


def vector_matrix(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A ``vector`` column (fixed-size lists of float32) as an (n, dim) float32 array."""
    vectors = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    flat = vectors.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    return flat.reshape(len(vectors), vectors.type.list_size)


def cosine_distance(similarity: np.ndarray) -> pa.Array:
    """The ``_distance`` column (float32) of hits whose cosine similarity is known: the inverse
    of :func:`cosine_similarity`, for hits that did not come from a vector search."""
    return pa.array(1.0 - np.asarray(similarity, dtype=np.float64), pa.float32())
