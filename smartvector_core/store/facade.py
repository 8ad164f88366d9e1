"""The LanceDB store: the only module that talks to LanceDB.

Tables (one database directory or object-store prefix):

- ``chunks``: one row per chunk of a document version, with the vector, the text, its source
  offsets and content hash, and the document's fields repeated (so a search hit carries all a
  reranker needs). A chunk replaced by an edit keeps its row with ``current = false`` and
  ``retired_at`` set: nothing is deleted.
- ``edges``: supersedes / depends_on / contradicts, declared or inferred, with evidence and a
  review ``status`` for contradictions.
- ``events``: append-only audit (ingest, access, feedback, lifecycle, ripple, re-embed, restore).
- ``queries``: the query log with results, rejections and intent, keyed by ``query_id``.

The :class:`Store` is a facade over parts that share one :class:`.context.StoreContext` (the
connection, the open tables, the write lock, retries, crash points): ``chunk_table``
(:mod:`.chunks`), ``search_part`` (:mod:`.search`), ``edge_table`` (:mod:`.edges`), ``logs``
(:mod:`.logs`: events and the query log), ``upkeep`` (:mod:`.upkeep`: rows, versions, tags,
restore, compaction) and ``indexes`` (:mod:`.indexes`); schemas are :mod:`.schema`, the write
lock :mod:`.lock`, the repairs :mod:`.repair`. Each public method of the store is one of a part's,
named beside the part that holds it.

Writes are serialised per store by a file lock (two processes ``merge_insert``-ing the same new
keys at once silently create duplicate rows in LanceDB; appends from two processes are safe). Filters are built with
``lancedb.expr`` (values escaped), never by pasting text into SQL.
"""

from __future__ import annotations

from ..parts import delegate
from ..settings import Settings
from .chunks import ChunkTable
from .context import StoreContext, open_store
from .edges import EdgeTable
from .indexes import Indexes
from .logs import LogTables
from .repair import repair, repair_tags
from .search import ChunkSearch
from .upkeep import Upkeep


class Store:
    """A SmartVector store over one LanceDB database: the parts, over one shared context."""

    def __init__(self, settings: Settings, dim: int, *, read_consistency_s: float | None = 0.0) -> None:
        self.ctx: StoreContext = open_store(settings, dim, read_consistency_s=read_consistency_s)
        self.settings = settings
        self.uri = self.ctx.uri
        self.dim = dim
        self.db = self.ctx.db
        self.chunk_table = ChunkTable(self.ctx)
        self.edge_table = EdgeTable(self.ctx)
        self.logs = LogTables(self.ctx)
        self.upkeep = Upkeep(self.ctx)
        self.indexes = Indexes(self.ctx)
        self.search_part = ChunkSearch(self.ctx, self.indexes)
        self.repairs: list[str] = repair_tags(self.ctx)   # what a fault left, undone on open (.repair)

    # ---------------------------------------------------------------- the shared context
    write_lock = delegate("ctx", StoreContext.write_lock)
    crash_point = delegate("ctx", StoreContext.crash_point)

    @property
    def own_writes(self) -> int:
        """How many write-lock sections this process has left (:meth:`StoreContext.write_lock`)."""
        return self.ctx.own_writes

    @property
    def own_writing(self) -> bool:
        """A write of this process is in progress (its commit may already be seen in the versions)."""
        return self.ctx.writing > 0

    def repair(self) -> list[str]:
        """Every repair (:func:`.repair.repair`): broken tag files, then the write lock."""
        return repair(self.ctx)

    # ------------------------------------------------------------------------ chunks
    encoder = delegate("chunk_table", ChunkTable.encoder)
    record_encoder = delegate("chunk_table", ChunkTable.record_encoder)
    count_chunks = delegate("chunk_table", ChunkTable.count_chunks)
    content_hashes = delegate("chunk_table", ChunkTable.content_hashes)
    vectors_for_hashes = delegate("chunk_table", ChunkTable.vectors_for_hashes)
    chunks_for_docs = delegate("chunk_table", ChunkTable.chunks_for_docs)
    add_chunks = delegate("chunk_table", ChunkTable.add_chunks)
    upsert_chunks = delegate("chunk_table", ChunkTable.upsert_chunks)
    update_doc_fields = delegate("chunk_table", ChunkTable.update_doc_fields)
    documents = delegate("chunk_table", ChunkTable.documents)
    chunk_rows = delegate("chunk_table", ChunkTable.chunk_rows)
    chunk_rows_after = delegate("chunk_table", ChunkTable.chunk_rows_after)
    commits_between = delegate("chunk_table", ChunkTable.commits_between)
    chunks_by_row_id = delegate("chunk_table", ChunkTable.chunks_by_row_id)
    chunks_by_id = delegate("chunk_table", ChunkTable.chunks_by_id)
    current_chunks = delegate("chunk_table", ChunkTable.current_chunks)

    # ------------------------------------------------------------------------ search
    search = delegate("search_part", ChunkSearch.search)
    plain_search = delegate("search_part", ChunkSearch.plain_search)
    search_row_ids = delegate("search_part", ChunkSearch.search_row_ids)
    fts_search = delegate("search_part", ChunkSearch.fts_search)

    # ------------------------------------------------------------------------- edges
    upsert_edges = delegate("edge_table", EdgeTable.upsert_edges)
    edges = delegate("edge_table", EdgeTable.edges)

    # ------------------------------------------------------------ events and queries
    append_events = delegate("logs", LogTables.append_events)
    events = delegate("logs", LogTables.events)
    existing_event_ids = delegate("logs", LogTables.existing_event_ids)
    log_queries = delegate("logs", LogTables.log_queries)
    queries = delegate("logs", LogTables.queries)

    # ------------------------------------------------------- rows, versions, upkeep
    count_rows = delegate("upkeep", Upkeep.count_rows)
    all_rows = delegate("upkeep", Upkeep.all_rows)
    version = delegate("upkeep", Upkeep.version)
    versions = delegate("upkeep", Upkeep.versions)
    table_versions = delegate("upkeep", Upkeep.table_versions)
    versions_of = delegate("upkeep", Upkeep.versions_of)
    fragments = delegate("upkeep", Upkeep.fragments)
    tag = delegate("upkeep", Upkeep.tag)
    tags = delegate("upkeep", Upkeep.tags)
    restore = delegate("upkeep", Upkeep.restore)
    restore_problem = delegate("upkeep", Upkeep.restore_problem)
    optimize = delegate("upkeep", Upkeep.optimize)

    # ----------------------------------------------------------------------- indexes
    chunk_indexes = delegate("indexes", Indexes.chunk_indexes)
    ensure_indexes = delegate("indexes", Indexes.ensure_indexes)
    merge_appends = delegate("indexes", Indexes.merge_appends)
    ensure_text_index = delegate("indexes", Indexes.ensure_text_index)
