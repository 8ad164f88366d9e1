"""The answer abstains when everything about the question was ruled out by its time and what is
left is about something else (confidence.out_of_force), worked by hand on four-passage pools."""

from datetime import UTC, datetime
from types import SimpleNamespace

import numpy as np

from smartvector_core.models import RejectionCode
from smartvector_core.retrieval import confidence_model as cm
from smartvector_core.retrieval.confidence import OUT_OF_FORCE, out_of_force
from smartvector_core.retrieval.rerank import CODES, KEEP, TIME_RULE_CODES
from smartvector_core.temporal.intent import parse_intent

NOT_YET = CODES.index(RejectionCode.NOT_YET_VALID)
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
T_US = int(datetime(2025, 3, 31, tzinfo=UTC).timestamp() * 1e6)


def _pool(texts, cosine, codes):
    """Candidates and reranking with only what out_of_force reads: kept rows by score, best first."""
    codes = np.asarray(codes, dtype=np.int64)
    cands = SimpleNamespace(title=[""] * len(texts), text=list(texts), title_text=[f" {t}" for t in texts],
                            raw_cosine=np.asarray(cosine),
                            doc_id=np.array([f"d{i}" for i in range(len(texts))], dtype=object))
    return cands, SimpleNamespace(reject_code=codes, order=np.flatnonzero(codes == KEEP),
                                  time_gated=np.isin(codes, TIME_RULE_CODES))


def _asked(question):
    return cm.question_words(question, parse_intent(question, AS_OF))


RATE = "What was the API rate limit as of March 2025?"


def test_the_subject_words_leave_out_the_time():
    assert _asked(RATE).topic == ("api", "limit", "rate")      # not "march", not "2025"


def test_everything_about_it_removed_and_the_rest_off_topic_abstains():
    # topic {api, limit, rate}: removed d0 holds 3/3; kept d1 holds "api" only (1/3 < 0.5), and
    # the gap 3/3 - 1/3 = 0.67 >= 0.5; the question is closer to d0 (0.62 > 0.51)
    cands, ranked = _pool(["API rate limits: 100 requests per minute per key (from June 2025)",
                           "Data retention: API request logs are kept for 13 months",
                           "Expense policy: receipts within 30 days",
                           "Rate limit FAQ: limits apply per key"],
                          [0.62, 0.51, 0.20, 0.58], [NOT_YET, KEEP, KEEP, NOT_YET])
    reason = out_of_force(cands, ranked, _asked(RATE), T_US)
    assert reason is not None and reason.startswith(f"{OUT_OF_FORCE} at 2025-03-31")
    assert "d0: NOT_YET_VALID" in reason          # the removed passage holding most of the subject


def test_a_kept_passage_about_half_the_subject_answers():
    # kept d1 holds "rate" and "limit" (2/3 >= 0.5): something about it was in force
    cands, ranked = _pool(["API rate limits: 100 requests per minute per key",
                           "Rate limit for the legacy gateway: 50 per minute",
                           "Expense policy"], [0.62, 0.51, 0.20], [NOT_YET, KEEP, KEEP])
    assert out_of_force(cands, ranked, _asked(RATE), T_US) is None


def test_two_subject_words_one_kept_is_not_off_topic():
    # "refund window": the 2024 policy says "refunds" not "window", 1/2 = 0.5 is not < 0.5
    question = "What was the refund window as of March 2025?"
    cands, ranked = _pool(["Refund window: 60 days (2025 policy)", "Refunds are accepted within 30 days"],
                          [0.70, 0.60], [NOT_YET, KEEP])
    assert out_of_force(cands, ranked, _asked(question), T_US) is None


def test_the_question_closer_to_a_kept_passage_answers():
    # same words as the first pool, but the kept passage is the closer one (0.65 > 0.62)
    cands, ranked = _pool(["API rate limits: 100 requests per minute", "Data retention: API request logs"],
                          [0.62, 0.65], [NOT_YET, KEEP])
    assert out_of_force(cands, ranked, _asked(RATE), T_US) is None


def test_nothing_removed_by_time_answers():
    dup = CODES.index(RejectionCode.DUPLICATE_CHUNK)     # not a time rule
    cands, ranked = _pool(["API rate limits: 100 requests per minute", "Data retention: API request logs"],
                          [0.62, 0.51], [dup, KEEP])
    assert out_of_force(cands, ranked, _asked(RATE), T_US) is None


def test_everything_removed_abstains_with_the_reason():
    # no kept passage at all: coverage 0, cosine -inf against the removed rate-limit passage
    cands, ranked = _pool(["API rate limits: 100 requests per minute"], [0.62], [NOT_YET])
    assert out_of_force(cands, ranked, _asked(RATE), T_US).startswith(OUT_OF_FORCE)
