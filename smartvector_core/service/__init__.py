"""The service layer: what the CLI, the dashboard pages, the HTTP API and the LangChain retriever
call. No Streamlit here.

:class:`SmartVector` owns one store and one embedder. Every method that depends on time takes
``as_of`` / ``now`` explicitly; the callers (CLI, pages) read the clock.

:class:`SmartVector` is a facade over composed parts that share one
:class:`.core.ServiceContext` (settings, engine configuration, store, embedder, caches, the log
lock): ``ingest_service`` (:mod:`.ingest`), ``log`` (:class:`.core.QueryLog`), ``query_service``
(:mod:`.query`), ``feedback_service`` (:mod:`.feedback`), ``review_service`` (:mod:`.review`),
``calibration_service`` (:mod:`.calibration`), ``frames_service`` (:mod:`.frames`: audit
frames), ``admin_service`` (:mod:`.admin`) and ``archive_service`` (:mod:`.archive`). Each part
is given the parts it calls; each public method of the facade is one part's.
"""

from __future__ import annotations

from ..config import EngineConfig
from ..parts import delegate
from ..settings import Settings
from .admin import AdminService
from .archive import ArchiveService
from .calibration import CalibrationService
from .core import (
    MAX_K,
    MAX_RETENTION_DAYS,
    PRE_INGEST_TAG,
    PRE_INGEST_TAG_MIN_DOCS,
    RESTORE_DETAIL_IDS,
    RETENTION_DAYS,
    QueryLog,
    ServiceContext,
    ServicePart,
    dumps,
)
from .feedback import FeedbackService
from .frames import FramesService
from .ingest import IngestService
from .queries import QUERY_FIELDS, QuerySpec, read_queries
from .query import QueryService
from .review import ReviewService

__all__ = ["MAX_K", "MAX_RETENTION_DAYS", "PRE_INGEST_TAG", "PRE_INGEST_TAG_MIN_DOCS", "QUERY_FIELDS", "QuerySpec",
           "RESTORE_DETAIL_IDS", "RETENTION_DAYS", "SmartVector", "dumps", "read_queries"]


class SmartVector(ServicePart):
    """One knowledge base: a store, its embedder, and the operations on them (the parts). Its
    settings, configuration, store, embedder and caches are the shared context's (:class:`.core.ServicePart`)."""

    RESOLUTIONS = ReviewService.RESOLUTIONS

    def __init__(self, settings: Settings | None = None, *, embedder=None, config: EngineConfig | None = None) -> None:
        super().__init__(ServiceContext(settings, embedder=embedder, config=config))
        self.ingest_service = IngestService(self.ctx)
        self.log = QueryLog(self.ctx, wake=self.ingest_service.wake_dormant)
        self.archive_service = ArchiveService(self.ctx, self.log)
        self.calibration_service = CalibrationService(self.ctx, self.log)
        self.query_service = QueryService(self.ctx, self.log, self.calibration_service, self.archive_service)
        self.feedback_service = FeedbackService(self.ctx, self.log)
        self.frames_service = FramesService(self.ctx, self.log, self.feedback_service)
        self.review_service = ReviewService(self.ctx, self.frames_service, self.feedback_service,
                                            self.ingest_service)
        self.admin_service = AdminService(self.ctx, self.log)

    # ------------------------------------------------------------------ shared context
    # settings, config, embedder, store, knowledge, query_caches: ServicePart's, through ctx
    @property
    def store_is_open(self) -> bool:
        return self.ctx.store_is_open

    share_embedder = delegate("ctx", ServiceContext.share_embedder)

    # ------------------------------------------------------------------------ query log
    @property
    def batching(self) -> bool:
        """Batch mode: every query reads one knowledge snapshot and the log is written at ``flush``."""
        return self.log.batching

    @batching.setter
    def batching(self, on: bool) -> None:
        self.log.batching = on

    flush = delegate("log", QueryLog.flush)
    write_log_in_background = delegate("log", QueryLog.write_log_in_background)
    pending_log_rows = delegate("log", QueryLog.pending)

    # --------------------------------------------------------------------------- ingest
    load_records = delegate("ingest_service", IngestService.load_records)
    ingest_records = delegate("ingest_service", IngestService.ingest_records)
    ingest_paths = delegate("ingest_service", IngestService.ingest_paths)
    load_demo = delegate("ingest_service", IngestService.load_demo)
    consolidate = delegate("ingest_service", IngestService.consolidate)
    keep_consolidation_inputs = delegate("ingest_service", IngestService.keep_consolidation_inputs)
    record_access = delegate("ingest_service", IngestService.record_access)

    # ---------------------------------------------------------------------------- query
    query = delegate("query_service", QueryService.query)
    compare = delegate("query_service", QueryService.compare)
    check_query_ids = delegate("query_service", QueryService.check_query_ids)
    query_cache = delegate("query_service", QueryService.query_cache)
    warm = delegate("query_service", QueryService.warm)

    # ------------------------------------------------------------------------- feedback
    feedback = delegate("feedback_service", FeedbackService.feedback)
    feedback_undo = delegate("feedback_service", FeedbackService.feedback_undo)
    verdict_history = delegate("feedback_service", FeedbackService.verdict_history)
    standing_verdicts = delegate("feedback_service", FeedbackService.standing_verdicts)
    ripple_preview = delegate("feedback_service", FeedbackService.ripple_preview)
    trust_of = delegate("feedback_service", FeedbackService.trust_of)

    # --------------------------------------------------------------------------- review
    contradiction_sides = delegate("review_service", ReviewService.contradiction_sides)
    resolve_contradiction = delegate("review_service", ReviewService.resolve_contradiction)
    reopen_contradiction = delegate("review_service", ReviewService.reopen_contradiction)

    # ---------------------------------------------------------------------- calibration
    feedback_certainty_pairs = delegate("calibration_service", CalibrationService.feedback_certainty_pairs)
    scoring_warnings = delegate("calibration_service", CalibrationService.scoring_warnings)
    store_calibration = delegate("calibration_service", CalibrationService.store_calibration)
    feedback_reliability = delegate("calibration_service", CalibrationService.feedback_reliability)

    # --------------------------------------------------------------------------- frames
    version_chain = delegate("frames_service", FramesService.version_chain)
    documents_frame = delegate("frames_service", FramesService.documents_frame)
    freshness = delegate("frames_service", FramesService.freshness)
    events_frame = delegate("frames_service", FramesService.events_frame)
    edges_frame = delegate("frames_service", FramesService.edges_frame)
    review_queue = delegate("frames_service", FramesService.review_queue)
    query_log = delegate("frames_service", FramesService.query_log)
    rejections_frame = delegate("frames_service", FramesService.rejections_frame)
    trust_history = delegate("frames_service", FramesService.trust_history)

    # ---------------------------------------------------------------------------- admin
    tag = delegate("admin_service", AdminService.tag)
    versions = delegate("admin_service", AdminService.versions)
    restore = delegate("admin_service", AdminService.restore)
    maintain = delegate("admin_service", AdminService.maintain)
    repair = delegate("admin_service", AdminService.repair)
    stats = delegate("admin_service", AdminService.stats)
    check_operator = delegate("admin_service", AdminService.check_operator)

    @property
    def writes_need_token(self) -> bool:
        return self.admin_service.writes_need_token

    # -------------------------------------------------------------------------- archive
    archive = delegate("archive_service", ArchiveService.archive)
    unarchive = delegate("archive_service", ArchiveService.unarchive)
    archived_documents = delegate("archive_service", ArchiveService.archived_documents)
