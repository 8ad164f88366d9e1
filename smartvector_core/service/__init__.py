"""The service layer: what the CLI and the dashboard pages call. No Streamlit here.

:class:`SmartVector` owns one store and one embedder. Every method that depends on time takes
``as_of`` / ``now`` explicitly; the callers (CLI, pages) read the clock.

The service is a package: :class:`SmartVector` is a thin facade composed of one part per
concern (:mod:`.core` state and query log, :mod:`.ingest`, :mod:`.query`, :mod:`.feedback`,
:mod:`.calibration`, :mod:`.frames` for audit frames, :mod:`.admin`, :mod:`.archive`, :mod:`.review`); its public methods are the
ones the CLI, the pages, the HTTP API and the LangChain retriever call.
"""

from __future__ import annotations

from .admin import AdminOps
from .archive import ArchiveOps
from .calibration import CalibrationOps
from .core import (
    MAX_K,
    MAX_RETENTION_DAYS,
    PRE_INGEST_TAG,
    PRE_INGEST_TAG_MIN_DOCS,
    RESTORE_DETAIL_IDS,
    RETENTION_DAYS,
    ServiceCore,
    dumps,
)
from .feedback import FeedbackOps
from .frames import FramesOps
from .ingest import IngestOps
from .queries import QUERY_FIELDS, QuerySpec, read_queries
from .query import QueryOps
from .review import ReviewOps

__all__ = ["MAX_K", "MAX_RETENTION_DAYS", "PRE_INGEST_TAG", "PRE_INGEST_TAG_MIN_DOCS", "QUERY_FIELDS", "QuerySpec",
           "RESTORE_DETAIL_IDS", "RETENTION_DAYS", "SmartVector", "dumps", "read_queries"]


class SmartVector(IngestOps, QueryOps, FeedbackOps, ReviewOps, CalibrationOps, FramesOps, AdminOps, ArchiveOps, ServiceCore):
    """One knowledge base: a store, its embedder, and the operations on them."""
