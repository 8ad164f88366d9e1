"""The metrics, a baseline and the paper suite working together."""

import numpy as np
import pytest

from smartvector_core.evaluation import evaluate, fixed_recency, generate_paper_suite


@pytest.fixture(scope="module")
def suite():
    return generate_paper_suite()


def test_oracle_scores_perfectly(suite):
    runs = {q["id"]: [{"id": q["relevant"][0], "confidence": 1.0}] for q in suite.queries}
    out = evaluate(runs, suite.split("heldout"))
    assert out["n"] == 69
    assert (out["top1"], out["stale_at_1"], out["ece"], out["mrr"]) == (1.0, 0.0, 0.0, 1.0)
    assert set(out["by_type"]) == {q["type"] for q in suite.queries}


def test_newest_wins_within_subject_is_poor(suite):
    """LlamaIndex FixedRecency (top_k=1) over the query's subject documents that exist at as_of."""
    runs = {}
    for q in suite.queries:
        subject = q.get("subject")
        pool = [d for d in suite.corpus if d["created_at"] <= q["as_of"]
                and (subject is None or d["metadata"].get("subject") == subject)]
        dates = np.array([d["created_at"][:19] for d in pool], dtype="datetime64[s]")
        best = pool[int(fixed_recency(dates)[0])]
        runs[q["id"]] = [{"id": best["id"], "confidence": 0.9}]
    out = evaluate(runs, suite.queries)
    assert out["top1"] < 0.35
    assert out["by_type"]["point_in_time"]["top1"] < 0.2      # only FAQs written back then
    assert out["by_type"]["expired_event"]["stale_at_1"] == 1.0
    assert out["by_type"]["rumour"]["top1"] == 0.0
