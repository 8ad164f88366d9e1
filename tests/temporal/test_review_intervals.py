"""Review interval per doc type (``FreshnessConfig.review_intervals``): what it does to the grade
of a version in force. The report's freshness halves once per interval of its type since the
last review; the type is read case-insensitively; an unknown or missing type gets the default;
a store's own table changes the grades."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from smartvector_core.config.temporal import DEFAULT_TEMPORAL, FreshnessConfig
from smartvector_core.temporal.freshness import freshness_report

AS_OF = datetime(2026, 6, 1, tzinfo=UTC)
REVIEWED_DAYS_AGO = 120


def _report(doc_types, config: FreshnessConfig = DEFAULT_TEMPORAL.freshness) -> pd.DataFrame:
    """VERSIONED documents in force, last ingested ``REVIEWED_DAYS_AGO`` days before ``AS_OF``."""
    n = len(doc_types)
    stamp = pd.Series(pd.to_datetime([AS_OF - timedelta(days=REVIEWED_DAYS_AGO)] * n, utc=True))
    missing = pd.Series(pd.to_datetime([pd.NaT] * n, utc=True))
    docs = pd.DataFrame({"doc_type": list(doc_types), "kind": "VERSIONED", "created_at": stamp,
                         "dated": True, "valid_from": missing, "valid_until": missing, "ingested_at": stamp})
    return freshness_report(docs, AS_OF, config)


def test_freshness_halves_once_per_review_interval_of_the_type():
    types = ["news", "policy", "reference"]
    out = _report(types)
    assert (out["graded_by"] == "review").all()
    interval = out["review_interval_days"].to_numpy()
    assert out["freshness"].to_numpy() == pytest.approx(0.5 ** (REVIEWED_DAYS_AGO / interval))
    # a type reviewed more often is more overdue after the same 120 days
    assert interval[0] < interval[1] < interval[2]
    assert out["freshness"].is_monotonic_increasing and out["freshness"].iloc[0] < out["freshness"].iloc[2]
    assert (out["review_due"] - out["reviewed_at"]).dt.days.tolist() == interval.astype(int).tolist()


def test_type_case_and_unknown_types():
    out = _report(["POLICY ", "policy", "no such type", None, ""])
    freshness = out["freshness"].to_numpy()
    assert freshness[0] == freshness[1]                       # case and spaces do not matter
    assert freshness[2] == freshness[3] == freshness[4]       # unknown, missing, empty: the default
    default = DEFAULT_TEMPORAL.freshness.default_review_interval_days
    assert freshness[2] == pytest.approx(0.5 ** (REVIEWED_DAYS_AGO / default))


def test_a_stores_own_table_changes_the_grades():
    weekly = FreshnessConfig(review_interval_days={"policy": 7.0})
    default, own = _report(["policy"]).iloc[0], _report(["policy"], weekly).iloc[0]
    assert own["review_interval_days"] == 7.0 and own["freshness"] < default["freshness"]
    assert own["grade"] == "F" and own["advice"].startswith("Review overdue since")


def test_empty_input_gives_an_empty_array():
    out = FreshnessConfig().review_intervals([])
    assert isinstance(out, np.ndarray) and out.shape == (0,)
