"""The speed harness of ``python -m smartvector_core perf`` (issue 7, docs/PERF.md), beside the
accuracy benchmark: :mod:`.stores` (synthetic and real-text inputs), :mod:`.benchmarks` (one
function a measurement) and :mod:`.report` (the run, its targets, the PERF.md table). The
benchmark scripts (``scripts/bench_*.py``, ``scaleout/bench.py``) build on the same pieces.
"""

from .benchmarks import (
    bench_consolidate,
    bench_ingest,
    bench_peak_rss,
    bench_query,
    bench_query_real,
    bench_question_embed,
    bench_rerank,
    bench_rerank_cold,
    bench_surgical,
    recall_at_20,
    vm_hwm_kb,
)
from .report import ANCHORS, FULL, KEEP_BELOW, QUICK, TARGETS, check_targets, format_table, perf_markdown, run
from .stores import (
    DIM,
    QUESTIONS,
    REAL_ROOT,
    REAL_SETS,
    chunk_rows,
    embedding_like_vectors,
    fill,
    fixed_now,
    open_app,
    real_store,
    synthetic_candidates,
    synthetic_knowledge,
    synthetic_records,
    synthetic_text,
    unit_vectors,
)

__all__ = [
    "ANCHORS", "DIM", "FULL", "KEEP_BELOW", "QUESTIONS", "QUICK", "REAL_ROOT", "REAL_SETS", "TARGETS",
    "bench_consolidate", "bench_ingest", "bench_peak_rss", "bench_query", "bench_query_real",
    "bench_question_embed", "bench_rerank", "bench_rerank_cold", "bench_surgical", "check_targets",
    "chunk_rows", "embedding_like_vectors", "fill", "fixed_now", "format_table", "open_app",
    "perf_markdown", "real_store", "recall_at_20", "run", "synthetic_candidates", "synthetic_knowledge",
    "synthetic_records", "synthetic_text", "unit_vectors", "vm_hwm_kb",
]
