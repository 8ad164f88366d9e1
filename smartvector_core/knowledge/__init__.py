"""What the store knows beyond the chunks, as arrays for the query path and the pages: its events
(:mod:`.events`), its documents' version chains and supersession (:mod:`.doc_index`) and each
document's trust at any moment (:class:`.state.KnowledgeState`), cached per table version
(:class:`.state.KnowledgeCache`). A pure domain snapshot: the query path's own caches (the
in-memory text index, full-text results, calibration knots) are
:class:`smartvector_core.retrieval.query_cache.QueryCache`'s.
"""

from .doc_index import DocIndex, edge_rows
from .events import EVENT_COLUMNS, events_frame, live_edges, rows_frame
from .state import KnowledgeCache, KnowledgeState

__all__ = ["EVENT_COLUMNS", "DocIndex", "KnowledgeCache", "KnowledgeState", "edge_rows", "events_frame", "live_edges",
           "rows_frame"]
