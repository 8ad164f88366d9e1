"""Evaluation: retrieval metrics, the rebuilt SmartVector paper benchmark, and baseline rankers.

Everything here is pure (no store, no model, no clock): runs and records in, numbers out.
"""

from .baselines import (
    fixed_recency,
    langchain_time_weighted,
    llamaindex_time_weighted,
    rrf_fuse,
)
from .metrics import (
    evaluate,
    expected_calibration_error,
    mrr,
    recall_at_k,
    stale_at_1,
    top1_accuracy,
)
from .paper_suite import Suite, generate_paper_suite, write_jsonl, write_suite

__all__ = [
    "Suite", "evaluate", "expected_calibration_error", "fixed_recency", "generate_paper_suite",
    "langchain_time_weighted", "llamaindex_time_weighted", "mrr", "recall_at_k", "rrf_fuse",
    "stale_at_1", "top1_accuracy", "write_jsonl", "write_suite",
]
