"""Answer containment over passages (issue 14: "k means k passages"), worked out by hand."""

import pytest

from smartvector_core.errors import InputError
from smartvector_core.evaluation.accuracy.metrics import (
    answer_containment_at_k,
    containment_at_k,
    evaluate,
    recall_at_k,
)

# q1: five chunks of the wrong document before the right one; q2: right at once; q3: nothing
PASSAGES = [["b", "b", "b", "b", "b", "a"], ["a"], []]
RELEVANT = [{"a"}, {"a", "c"}, {"a"}]


def test_containment_counts_passages_with_repeats():
    assert containment_at_k(PASSAGES, RELEVANT, k=5) == pytest.approx(1 / 3)   # q2 only
    assert containment_at_k(PASSAGES, RELEVANT, k=6) == pytest.approx(2 / 3)   # q1's 6th passage
    # recall over de-duplicated documents finds q1's answer at rank 2: containment does not
    assert recall_at_k([["b", "a"], ["a"], []], RELEVANT, k=2) == pytest.approx((1 + 0.5 + 0) / 3)


def test_containment_rejects_bad_k():
    with pytest.raises(InputError, match="k >= 1"):
        containment_at_k(PASSAGES, RELEVANT, k=0)


def test_evaluate_reports_containment_and_mean_passages():
    queries = [{"id": f"q{i}", "relevant": sorted(rel), "stale": []} for i, rel in enumerate(RELEVANT)]
    runs = {f"q{i}": [{"id": d, "confidence": 0.5} for d in p] for i, p in enumerate(PASSAGES)}
    out = evaluate(runs, queries)
    assert out["containment_at_5"] == pytest.approx(1 / 3)
    assert out["mean_passages"] == pytest.approx((6 + 1 + 0) / 3)
    assert out["recall_at_5"] == pytest.approx((1 + 0.5 + 0) / 3)      # q1: ['b', 'a'] after de-duplication


# answer containment by text: q1's answer only in its 6th passage, q2's in its first (another
# case), q3 returned nothing, q4 carries no answer (left out of the share)
TEXTS = [["no", "no", "no", "no", "no", "Default: None"], ["the DEFAULT is NONE"], [], ["x"]]
ANSWERS = [["default: none"], ["default is none", "zero"], ["none"], []]


def test_answer_containment_reads_the_passages_texts_case_insensitively():
    assert answer_containment_at_k(TEXTS, ANSWERS, k=5) == pytest.approx(1 / 3)   # q2 of q1-q3
    assert answer_containment_at_k(TEXTS, ANSWERS, k=6) == pytest.approx(2 / 3)   # q1's 6th passage
    assert answer_containment_at_k(TEXTS, [[], [], [], []]) is None                # no query has answers
    assert answer_containment_at_k([["a", None]], [["a"]]) is None                 # a text unknown


def test_evaluate_reports_answer_containment_where_queries_carry_answers():
    queries = [{"id": f"q{i}", "relevant": ["a"], "stale": [], "answers": a} for i, a in enumerate(ANSWERS)]
    runs = {f"q{i}": [{"id": "a", "confidence": 0.5, "text": t} for t in texts] for i, texts in enumerate(TEXTS)}
    assert evaluate(runs, queries)["answer_containment_at_5"] == pytest.approx(1 / 3)
    # runs without texts (an outside baseline's ids only): not measured, not zero
    assert evaluate({q: [{"id": r["id"], "confidence": 0.5} for r in rows] for q, rows in runs.items()},
                    queries)["answer_containment_at_5"] is None


def test_a_query_reads_answers_or_one_answer_and_rejects_anything_else():
    from smartvector_core.evaluation.accuracy.runner import normalise_queries

    base = {"text": "q", "as_of": "2026-01-01T00:00:00Z", "relevant": ["a"]}
    read = normalise_queries([{**base, "id": "q1", "answers": ["x", " "]}, {**base, "id": "q2", "answer": "y"},
                              {**base, "id": "q3"}])
    assert [q.answers for q in read] == [["x"], ["y"], []]
    assert read[0].label()["answers"] == ["x"]
    with pytest.raises(InputError, match="'q4': answers must be a string or a list of strings"):
        normalise_queries([{**base, "id": "q4", "answers": [1, 2]}])
