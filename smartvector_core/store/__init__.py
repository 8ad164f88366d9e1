"""The LanceDB store: the only package that talks to LanceDB. :class:`Store` (:mod:`.facade`) is
the one door; its parts are the modules beside it. LanceDB's log level is set here, before any
part imports LanceDB."""

from __future__ import annotations

import os

os.environ.setdefault("LANCEDB_LOG", "error")

from .facade import Store  # noqa: E402
from .fragments import FRAGMENT_BOUND  # noqa: E402
from .logs import LOG_MERGE_EVERY  # noqa: E402
from .schema import (  # noqa: E402
    DOC_COLUMNS,
    EDGES_SCHEMA,
    EVENTS_SCHEMA,
    QUERIES_SCHEMA,
    RESTORABLE_TABLES,
    TS,
    check_tag_label,
    chunks_schema,
    cosine_distance,
    cosine_similarity,
    edge_id,
    vector_matrix,
)
from .search import first_existing, overfetched  # noqa: E402

__all__ = [
    "FRAGMENT_BOUND", "LOG_MERGE_EVERY", "DOC_COLUMNS", "EDGES_SCHEMA", "EVENTS_SCHEMA", "QUERIES_SCHEMA", "RESTORABLE_TABLES",
    "TS", "Store", "check_tag_label", "chunks_schema", "cosine_distance", "cosine_similarity", "edge_id",
    "first_existing", "overfetched", "vector_matrix",
]
