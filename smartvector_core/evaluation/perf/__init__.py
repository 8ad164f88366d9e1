"""The speed harness of ``python -m smartvector_core perf`` (docs/PERF.md), beside the
accuracy benchmark: :mod:`.stores` (synthetic and real-text inputs), :mod:`.benchmarks` (one
function a measurement) and :mod:`.report` (the run, its targets, the PERF.md table). The
benchmark scripts (``scripts/bench/*.py``, ``evaluation/perf/ray_bench.py``) build on the same pieces;
what they use is named here.
"""

from .benchmarks import bench_query, bench_query_real, vm_hwm_kb
from .report import KEEP_BELOW, TARGETS, emit_figures, format_table, perf_markdown, run
from .stores import (
    QUESTIONS,
    chunk_rows,
    embedding_like_vectors,
    fill,
    fixed_now,
    open_app,
    real_store,
    synthetic_candidates,
    synthetic_records,
)

__all__ = [
    "KEEP_BELOW", "QUESTIONS", "TARGETS", "bench_query", "bench_query_real", "chunk_rows", "embedding_like_vectors",
    "emit_figures", "fill", "fixed_now", "format_table", "open_app", "perf_markdown", "real_store", "run",
    "synthetic_candidates", "synthetic_records", "vm_hwm_kb",
]
