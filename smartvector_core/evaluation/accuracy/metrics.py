"""Retrieval metrics over ranked id lists, each a small pure function with its formula.

Conventions used by every metric here (our choices, tested):

- A *ranking* is the list of document ids a system returned for one query, best first.
  A document reported more than once (several chunks) counts once, at its first rank;
  :func:`evaluate` removes the repeats before scoring.
- A query with an empty ranking (the system returned nothing) has no top result: its top-1
  is incorrect, it is not stale, its reciprocal rank and recall are 0, and for calibration its
  confidence is 0 and it is incorrect (it adds nothing to the bin's error: |0 − 0| = 0, but it
  does weigh down the other bins' shares).
- A query with no ``relevant`` ids can never be answered right: top-1, RR and recall are 0.
- Means over zero queries are 0.0 (and ``n`` says 0), so the output is always valid JSON.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import InputError
from ...retrieval.calibration import (  # noqa: F401  (one home)
    auroc,
    brier_decomposition,
    confidence_report,
    defined_or_none,
    distinct_per_100,
    expected_calibration_error,
    reliability_bins,
    tier_precision,
)

Ranking = Sequence[str]

#: Query type used in ``by_type`` for queries that carry no ``type`` field.
UNTYPED = "untyped"


def _mean(values: Iterable[float]) -> float:
    arr = np.fromiter(values, dtype=np.float64)
    return float(arr.mean()) if arr.size else 0.0


def _check_lengths(rankings: Sequence[Ranking], labels: Sequence[Collection[str]], name: str) -> None:
    if len(rankings) != len(labels):
        raise InputError(f"expected one {name} set per ranking, found {len(labels)} sets for "
                         f"{len(rankings)} rankings", field=name)


def top1_accuracy(rankings: Sequence[Ranking], relevant: Sequence[Collection[str]]) -> float:
    """Share of queries whose top result is a right answer.

    top1 = (1/N) · Σ_q [ranking_q[0] ∈ relevant_q]     (an empty ranking scores 0)
    """
    _check_lengths(rankings, relevant, "relevant")
    return _mean(float(bool(r) and r[0] in rel) for r, rel in zip(rankings, relevant, strict=True))


def stale_at_1(rankings: Sequence[Ranking], stale: Sequence[Collection[str]]) -> float:
    """Share of queries whose top result is an outdated or expired version (lower is better).

    stale@1 = (1/N) · Σ_q [ranking_q[0] ∈ stale_q]     (an empty ranking scores 0)
    """
    _check_lengths(rankings, stale, "stale")
    return _mean(float(bool(r) and r[0] in st) for r, st in zip(rankings, stale, strict=True))


def mrr(rankings: Sequence[Ranking], relevant: Sequence[Collection[str]]) -> float:
    """Mean reciprocal rank of the first right answer.

    MRR = (1/N) · Σ_q 1 / rank_q,  rank_q = 1-based position of the first id in relevant_q;
    a query with no right answer in its ranking contributes 0.
    """
    _check_lengths(rankings, relevant, "relevant")

    def reciprocal_rank(ranking: Ranking, rel: Collection[str]) -> float:
        for position, doc_id in enumerate(ranking, start=1):
            if doc_id in rel:
                return 1.0 / position
        return 0.0

    return _mean(reciprocal_rank(r, rel) for r, rel in zip(rankings, relevant, strict=True))


def recall_at_k(rankings: Sequence[Ranking], relevant: Sequence[Collection[str]], k: int = 5) -> float:
    """Mean share of each query's right answers found in its first ``k`` results.

    recall@k = (1/N) · Σ_q |set(ranking_q[:k]) ∩ relevant_q| / |relevant_q|
    (a query with no relevant ids contributes 0).
    """
    if k < 1:
        raise InputError(f"expected k >= 1, found {k}", field="k")
    _check_lengths(rankings, relevant, "relevant")

    def recall(ranking: Ranking, rel: Collection[str]) -> float:
        wanted = set(rel)
        return len(set(ranking[:k]) & wanted) / len(wanted) if wanted else 0.0

    return _mean(recall(r, rel) for r, rel in zip(rankings, relevant, strict=True))


def containment_at_k(passages: Sequence[Ranking], relevant: Sequence[Collection[str]], k: int = 5) -> float:
    """Answer containment: share of queries with a right answer among the first ``k`` *passages*.

    containment@k = (1/N) · Σ_q [set(passages_q[:k]) ∩ relevant_q ≠ ∅]

    ``passages_q`` is the list of document ids of the passages returned, in order and with
    repeats (several chunks of one document count as several passages), so this is what a
    generator handed the top-k passages would see ("k means k passages").
    """
    if k < 1:
        raise InputError(f"expected k >= 1, found {k}", field="k")
    _check_lengths(passages, relevant, "relevant")
    return _mean(float(bool(set(p[:k]) & set(rel))) for p, rel in zip(passages, relevant, strict=True))


def answer_containment_at_k(texts: Sequence[Sequence[str | None]], answers: Sequence[Collection[str]],
                            k: int = 5) -> float | None:
    """Answer containment by text: share of the queries that carry answer strings whose first
    ``k`` passages (``texts_q``: the passages' texts as returned) contain one of them.

    answer_containment@k = (1/|A|) · Σ_{q ∈ A} [∃ passage p in texts_q[:k], answer a of q: a ⊂ p]

    where A is the queries with at least one answer and ⊂ is case-insensitive substring. This is
    what a reader handed the k passages could quote; unlike :func:`containment_at_k` it gives no
    credit for the right document's passage that does not hold the answer. None when no query
    carries answers, or when a passage's text is unknown."""
    if k < 1:
        raise InputError(f"expected k >= 1, found {k}", field="k")
    if len(texts) != len(answers):
        raise InputError(f"expected one answer list per ranking, found {len(answers)} for {len(texts)}",
                         field="answers")
    asked = [(t[:k], [a.lower() for a in ans]) for t, ans in zip(texts, answers, strict=True) if ans]
    if not asked or any(p is None for t, _ in asked for p in t):
        return None
    return _mean(float(any(a in p.lower() for p in t for a in ans)) for t, ans in asked)


def _dedup(ids: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    return [i for i in ids if not (i in seen or seen.add(i))]


def _summary(rankings: list[list[str]], top_conf: list[float], queries: list[Mapping[str, Any]],
             passages: list[list[str]] | None = None, texts: list[list[str | None]] | None = None
             ) -> dict[str, float | int | None]:
    passages = rankings if passages is None else passages
    relevant = [set(q.get("relevant") or ()) for q in queries]
    stale = [set(q.get("stale") or ()) for q in queries]
    correct = [bool(r) and r[0] in rel for r, rel in zip(rankings, relevant, strict=True)]
    confidence = confidence_report(top_conf, correct)
    return {
        "top1": top1_accuracy(rankings, relevant),
        "stale_at_1": stale_at_1(rankings, stale),
        "ece": confidence["ece"],
        "auroc": confidence["auroc"],
        "high_precision": confidence["high_precision"],
        "high_n": confidence["high_n"],
        "distinct_per_100": confidence["distinct_per_100"],
        "mrr": mrr(rankings, relevant),
        "recall_at_5": recall_at_k(rankings, relevant, k=5),
        "containment_at_5": containment_at_k(passages, relevant, k=5),
        "answer_containment_at_5": None if texts is None else answer_containment_at_k(
            texts, [q.get("answers") or () for q in queries], k=5),
        "mean_passages": _mean(len(p) for p in passages),
        "n": len(queries),
    }


def evaluate(runs: Mapping[str, Sequence[Mapping[str, Any]]],
             queries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Score a run against labelled queries, overall and per query ``type``.

    ``runs`` maps a query id to its ranked results, each a mapping with ``id`` and
    ``confidence`` (only the top result's confidence is used, for ECE). ``queries`` are query
    records with ``id``, ``relevant``, ``stale`` and optionally ``type`` (missing:
    ``"untyped"``). A query absent from ``runs`` counts as an empty ranking; runs for ids not
    in ``queries`` are ignored. Returns ``{"top1", "stale_at_1", "ece", "auroc", "high_precision",
    "high_n", "distinct_per_100", "mrr", "recall_at_5", "containment_at_5", "answer_containment_at_5",
    "mean_passages", "n", "by_type": {type: {same keys}}}`` (the confidence figures of the top results:
    :func:`calibration.confidence_report`, as ``calibration --json``)
    (``containment_at_5`` over the passages as returned, repeats kept; ``answer_containment_at_5``:
    :func:`answer_containment_at_k` over the queries that carry ``answers``, None without any;
    ``mean_passages``: the mean number of results returned per query).
    """
    rankings: list[list[str]] = []
    passages: list[list[str]] = []
    texts: list[list[str | None]] = []
    top_conf: list[float] = []
    for q in queries:
        qid = q.get("id")
        if qid is None:
            raise InputError("expected every query to have an 'id'", field="id")
        results = list(runs.get(qid) or ())
        passages.append([str(r["id"]) for r in results])
        texts.append([r.get("text") for r in results])
        ranking = _dedup(passages[-1])
        rankings.append(ranking)
        if results:
            confidence = results[0].get("confidence")
            if confidence is None:
                raise InputError(f"expected a 'confidence' on the top result of query {qid!r}",
                                 field="confidence")
            top_conf.append(float(confidence))
        else:
            top_conf.append(0.0)
    query_list = list(queries)
    out: dict[str, Any] = _summary(rankings, top_conf, query_list, passages, texts)
    by_type: dict[str, list[int]] = {}
    for i, q in enumerate(query_list):
        by_type.setdefault(str(q.get("type") or UNTYPED), []).append(i)
    out["by_type"] = {
        name: _summary([rankings[i] for i in idx], [top_conf[i] for i in idx],
                       [query_list[i] for i in idx], [passages[i] for i in idx], [texts[i] for i in idx])
        for name, idx in sorted(by_type.items())
    }
    return out
