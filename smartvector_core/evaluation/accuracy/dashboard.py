"""The benchmark the Evaluation page runs: one call, the demo corpus and queries or the paper
suite, over the page's encoder. Pages call :func:`page_benchmark` and render what it returns."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import pandas as pd

from ...errors import InputError
from ...retrieval.calibration import reliability_bins
from ...settings import DEMO_CORPUS, DEMO_QUERIES
from .paper_bench import run_paper_bench
from .report import load_bench
from .runner import run_bench

SUITES = ("demo", "paper")   # the demo corpus and queries; the paper suite's held-out split


def page_benchmark(embedder, suite: str, profiles: Sequence[str], *, ablations: bool = False,
                   sweep: bool = False, progress: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """The benchmark of ``suite`` for ``profiles`` with ``embedder``: :func:`demo_bench`, or the
    paper suite (:func:`.paper_bench.run_paper_bench`, with ``ablations`` and the weight
    ``sweep`` when asked; ``progress(step, done, total)`` per step)."""
    if suite == "demo":
        return demo_bench(embedder, profiles)
    if suite == "paper":   # plus the questions each profile got wrong at rank 1, as on the demo
        kept: dict[str, Any] = {}
        out = run_paper_bench(embedder, profiles=profiles, ablations=ablations, sweep=sweep, rates=(),
                              progress=progress, keep_runs=kept)
        out["missed"] = missed_questions(kept.get("runs") or {}, kept.get("queries") or [])
        return out
    raise InputError(f"expected one of {', '.join(SUITES)}, found {suite!r}", field="suite")


def reliability_from_runs(runs: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]],
                          relevant: Mapping[str, Collection[str]], bins: int = 10) -> dict[str, pd.DataFrame]:
    """Per profile, :func:`reliability_bins` of each query's top result (confidence, is it relevant)."""
    out = {}
    for profile, by_query in runs.items():
        conf, hit = [], []
        for qid, results in by_query.items():
            if results:
                conf.append(float(results[0].get("confidence") or 0.0))
                hit.append(str(results[0].get("id")) in set(relevant.get(qid, ())))
        out[profile] = reliability_bins(conf, hit, bins)
    return out


def demo_bench(embedder, profiles: Sequence[str], *, k: int = 5) -> dict[str, Any]:
    """The benchmark on the demo corpus and queries, set up as ``bench --corpus --queries``
    (:func:`~smartvector_core.evaluation.accuracy.report.load_bench`), plus a reliability table per
    profile from the kept runs."""
    corpus, specs = load_bench(DEMO_CORPUS, DEMO_QUERIES)
    result = run_bench(corpus, specs, list(profiles), embedder=embedder, k=k)
    out = result.to_dict()
    out["reliability"] = reliability_from_runs(result.runs, {s.id: s.relevant for s in specs})
    out["missed"] = missed_questions(result.runs, specs)
    return out


def missed_questions(runs: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]],
                     specs: Sequence[Any]) -> list[dict[str, Any]]:
    """The questions each profile got wrong at rank 1 (what its top-1 figure counts against it):
    ``profile``, ``query_id``, ``question``, ``answered`` (its top result, "—" when none),
    ``expected`` (the relevant ids), ``stale`` (the answer is one of the query's stale ids) and,
    where the questions have one (the paper suite), the question's ``type`` beside its id."""
    by_id = {s.id: s for s in specs}
    typed = any(getattr(s, "type", None) for s in specs)
    rows = []
    for profile, by_query in runs.items():
        for qid, results in by_query.items():
            spec = by_id.get(qid)
            if spec is None or not spec.relevant:
                continue
            top = str(results[0].get("id")) if results else ""
            if top not in set(spec.relevant):
                row = {"profile": profile, "query_id": qid}
                if typed:       # beside the id: the table's right edge may clip its last column
                    row["type"] = getattr(spec, "type", None) or "—"
                rows.append({**row, "question": spec.text, "answered": top or "—",
                             "expected": ", ".join(spec.relevant), "stale": top in set(spec.stale or ())})
    return rows
