"""Accuracy: retrieval metrics, the rebuilt SmartVector paper benchmark, baseline rankers, the
real-set and confidence-prior runs.

Metrics, baselines and the suite generator are pure (no store, no model, no clock): runs and
records in, numbers out. The runner (:mod:`.runner`, :mod:`.ablation`, :mod:`.paper_bench`) builds
a temporary store from a corpus and answers labelled queries against it (``bench``).
"""

from .ablation import ablation_profiles, run_ablations, simplex_grid, weight_sweep
from .baselines import (
    fixed_recency,
    langchain_time_weighted,
    llamaindex_time_weighted,
    rrf_fuse,
)
from .dashboard import page_benchmark
from .metrics import (
    evaluate,
    expected_calibration_error,
    mrr,
    recall_at_k,
    stale_at_1,
    top1_accuracy,
)
from .paper_bench import PAPER_FIGURES, fit_calibration, measure_reembedding, robustness, run_paper_bench
from .paper_suite import Suite, generate_paper_suite, write_jsonl, write_suite
from .runner import ALL_PROFILES, BASELINES, BenchResult, PreparedBench, prepared_bench, run_bench

__all__ = [
    "ALL_PROFILES", "BASELINES", "page_benchmark", "BenchResult", "PAPER_FIGURES", "PreparedBench", "ablation_profiles",
    "fit_calibration", "measure_reembedding", "prepared_bench", "robustness", "run_ablations", "run_bench",
    "run_paper_bench", "simplex_grid", "weight_sweep",
    "Suite", "evaluate", "expected_calibration_error", "fixed_recency", "generate_paper_suite",
    "langchain_time_weighted", "llamaindex_time_weighted", "mrr", "recall_at_k", "rrf_fuse",
    "stale_at_1", "top1_accuracy", "write_jsonl", "write_suite",
]
