"""Evaluation: what the engine's answers are worth and how fast they come, run against the
service (this package sits above it; the service imports nothing from here).

- :mod:`.accuracy`: retrieval metrics, the rebuilt SmartVector paper benchmark, baseline rankers,
  the ``bench`` runner and report, ablations, the confidence prior's fit.
- :mod:`.perf`: the speed figures (``perf``): stores, one benchmark a figure, the PERF.md table,
  and the Ray ingest benchmark (:mod:`.perf.ray_bench`).

The accuracy names are re-exported here.
"""

from .accuracy import (  # noqa: F401
    ALL_PROFILES,
    BASELINES,
    PAPER_FIGURES,
    BenchResult,
    PreparedBench,
    Suite,
    ablation_profiles,
    evaluate,
    expected_calibration_error,
    fit_calibration,
    fixed_recency,
    generate_paper_suite,
    langchain_time_weighted,
    llamaindex_time_weighted,
    measure_reembedding,
    mrr,
    prepared_bench,
    recall_at_k,
    robustness,
    rrf_fuse,
    run_ablations,
    run_bench,
    run_paper_bench,
    simplex_grid,
    stale_at_1,
    top1_accuracy,
    weight_sweep,
    write_jsonl,
    write_suite,
)

__all__ = [
    "ALL_PROFILES", "BASELINES", "BenchResult", "PAPER_FIGURES", "PreparedBench", "ablation_profiles",
    "fit_calibration", "measure_reembedding", "prepared_bench", "robustness", "run_ablations", "run_bench",
    "run_paper_bench", "simplex_grid", "weight_sweep",
    "Suite", "evaluate", "expected_calibration_error", "fixed_recency", "generate_paper_suite",
    "langchain_time_weighted", "llamaindex_time_weighted", "mrr", "recall_at_k", "rrf_fuse",
    "stale_at_1", "top1_accuracy", "write_jsonl", "write_suite",
]
