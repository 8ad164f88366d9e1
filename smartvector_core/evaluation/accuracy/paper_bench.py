"""``bench --suite paper``: the rebuilt paper benchmark, its robustness sweep, ablations, weight
sweep, re-embedding cost and calibration fit.

- Main run: the suite at contradiction rate 0 (seed 7), queries of one split (``heldout`` by
  default), every requested profile and baseline in one store.
- Robustness: the same split at each contradiction rate (0, 0.25, 0.5, 0.75), for ``naive`` and
  ``default``; ``max_drop`` is the largest top-1 loss against rate 0 (in points, ×100).
- Calibration (:func:`fit_calibration`) only ever reads the ``tune`` split.
- Texts are embedded once for all stores of a run (:class:`runner.TimedEmbedder` memo).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError
from ...retrieval import confidence_model as cm
from ...retrieval.calibration import KNOTS_FILE, expected_calibration_error
from ...service import SmartVector
from ...settings import load_settings
from .ablation import DEFAULT_SWEEP_STEP, run_ablations, weight_sweep
from .paper_suite import CONTRADICTION_RATES, DEFAULT_SEED, generate_paper_suite
from .runner import ALL_PROFILES, TimedEmbedder, check_profiles, prepared_bench, score_profiles

#: The paper's reported held-out figures (seeds/smartvector-paper-*.txt, section 3).
PAPER_FIGURES = {
    "cosine_rag": {"top1": 0.310, "stale_at_1": 0.350, "ece": 0.470},
    "smartvector": {"top1": 0.620, "stale_at_1": 0.133, "ece": 0.244},
    "reembedding_saving": 0.77,
}
SPLITS = ("heldout", "tune", "all")
ROBUSTNESS_PROFILES = ("naive", "default")
GATED_PROFILES = ("temporal", "smartvector", "default")


def _split_queries(suite, split: str) -> list[dict[str, Any]]:
    if split not in SPLITS:
        raise InputError(f"expected one of {', '.join(SPLITS)}, found {split!r}", field="split")
    return list(suite.queries) if split == "all" else suite.split(split)


def check_rates(rates: Sequence[float]) -> list[float]:
    out = []
    for rate in rates:
        value = float(rate)
        if not 0.0 <= value <= 1.0:
            raise InputError(f"expected contradiction rates in [0, 1], found {rate}", field="rates")
        out.append(value)
    return sorted(set(out))


def robustness(embedder, *, seed: int, split: str, rates: Sequence[float], k: int,
               mode: str = "live") -> dict[str, Any]:
    """top1 / stale_at_1 / ECE of ``naive`` and ``default`` at each contradiction rate."""
    per_rate = []
    for rate in check_rates(rates):
        suite = generate_paper_suite(seed, rate)
        timings: dict[str, float] = {}
        with prepared_bench(suite.corpus, _split_queries(suite, split), embedder=embedder, k=k,
                            timings=timings, mode=mode) as bench:
            metrics = score_profiles(bench, ROBUSTNESS_PROFILES, timings)
        per_rate.append({"rate": rate, "n_documents": len(suite.corpus),
                         **{name: {key: metrics[name][key] for key in ("top1", "stale_at_1", "ece")}
                            for name in ROBUSTNESS_PROFILES}})
    base = per_rate[0] if per_rate and per_rate[0]["rate"] == 0.0 else None
    drops = {name: (round(100 * max(base[name]["top1"] - r[name]["top1"] for r in per_rate), 2) if base else None)
             for name in ROBUSTNESS_PROFILES}
    return {"rates": per_rate, "max_drop_points": drops, "split": split}


def measure_reembedding(embedder, paragraphs: int = 20) -> dict[str, Any]:
    """Ingest a ``paragraphs``-paragraph document, change one word, re-ingest; compare the chunks
    embedded and the encoder time with re-embedding the whole document."""
    timed = TimedEmbedder(embedder, memo=False)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    body = [f"Section {i + 1}. The operations handbook says that team {i + 1} reviews incident reports "
            f"within {3 + i} business days, escalates severity-one issues to the on-call lead, and "
            f"records every decision in the shared register for audit purposes. Each review names the "
            f"owner, the deadline and the follow-up agreed with the reporting team, and the register keeps "
            f"it for seven years, after which the records team archives it in cold storage." for i in range(paragraphs)]   # each long enough to be its own chunk
    record = {"id": "handbook", "title": "Operations handbook", "text": "\n\n".join(body),
              "created_at": now.isoformat()}
    edited = dict(record, text=record["text"].replace("reviews incident reports within 10",
                                                      "reviews incident reports within 12"),
                  created_at=now.replace(day=2).isoformat())
    if edited["text"] == record["text"]:
        raise InputError("the re-embedding probe needs at least 8 paragraphs", field="paragraphs")

    folder = tempfile.mkdtemp(prefix="smartvector-reembed-")
    try:
        app = SmartVector(load_settings(str(Path(folder) / "store"), env={}), embedder=timed)
        first = app.ingest_records([record], now=now, consolidate=False)
        timed.seconds = 0.0
        second = app.ingest_records([edited], now=now.replace(day=2), consolidate=False)
        surgical_s = timed.seconds
        texts = app.store.chunks_for_docs(["handbook"]).column("text").to_pylist()
        timed.seconds = 0.0
        timed.encode(texts)
        whole_s = timed.seconds
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    total = second.chunks or first.chunks
    return {"paragraphs": paragraphs, "chunks_total": total, "chunks_embedded": second.chunks_embedded,
            "chunks_reused": second.chunks_reused, "encoder_seconds": round(surgical_s, 4),
            "whole_document": {"chunks_embedded": len(texts), "encoder_seconds": round(whole_s, 4)},
            "saving_chunks": round(1 - second.chunks_embedded / max(1, len(texts)), 4),
            "saving_seconds": round(1 - surgical_s / whole_s, 4) if whole_s > 0 else None,
            "paper_claim": PAPER_FIGURES["reembedding_saving"]}


def run_paper_bench(embedder, *, seed: int = DEFAULT_SEED, split: str = "heldout",
                    rates: Sequence[float] = CONTRADICTION_RATES, profiles: Sequence[str] = ALL_PROFILES,
                    k: int = 5, ablations: bool = False, sweep: bool = False,
                    sweep_step: float = DEFAULT_SWEEP_STEP, reembed: bool = False,
                    mode: str = "live", progress=None, keep_runs: dict | None = None) -> dict[str, Any]:
    """The paper benchmark (module docstring); returns the CONTRACT bench JSON plus extras.
    ``mode``: ``live`` (ingested right after the corpus, each question at its own ``as_of``) or ``backdated``
    (:func:`.runner.ingest_moment`). ``progress(step, done, total)``: called as each phase
    starts and after each point of the weight sweep (an exception it raises stops the run; the
    temporary stores are removed on the way out). ``keep_runs``: filled with the main run's
    answers per profile (``"runs"``: profile -> query id -> results) and its questions
    (``"queries"``: :class:`.runner.BenchQuery`), what the figures count."""
    def report(step: str, done: int = 0, total: int = 1) -> None:
        if progress is not None:
            progress(step, done, total)

    names = check_profiles(profiles)
    started = time.perf_counter()
    timed = TimedEmbedder(embedder)
    suite = generate_paper_suite(seed, 0.0)
    queries = _split_queries(suite, split)
    timings: dict[str, float] = {}
    out: dict[str, Any] = {}
    report("building the benchmark store (ingest, consolidation)")
    with prepared_bench(suite.corpus, queries, embedder=timed, k=k, timings=timings, mode=mode) as bench:
        report("scoring the profiles")
        runs: dict[str, dict] = {}
        out["profiles"] = score_profiles(bench, names, timings, keep_runs=runs)
        if keep_runs is not None:
            keep_runs.update(runs=runs, queries=list(bench.queries))
        out["params"] = {**suite.params, "split": split, "k": k, "mode": mode, "now": bench.now.isoformat(),
                         "ingested_at": bench.now.isoformat(),
                         "model": getattr(embedder, "name", type(embedder).__name__), "query_log": False,
                         "calibration": "knots fitted on the tune split only (bench --fit-calibration)"}
        if ablations:
            report("ablations")
            t0 = time.perf_counter()
            with prepared_bench(suite.corpus, queries, embedder=timed, k=k, consolidate=False, mode=mode) as raw:
                out["ablations"] = run_ablations(bench, raw)
            timings["ablations"] = time.perf_counter() - t0
        if sweep:
            t0 = time.perf_counter()
            out["sweep"] = {"step": sweep_step, "split": split, "points": weight_sweep(
                bench, step=sweep_step, progress=lambda done, total: report("weight sweep", done, total))}
            timings["sweep"] = time.perf_counter() - t0
    if rates:
        report("robustness to contradictions")
        t0 = time.perf_counter()
        out["robustness"] = robustness(timed, seed=seed, split=split, rates=rates, k=k, mode=mode)
        timings["robustness"] = time.perf_counter() - t0
    if reembed:
        out["reembed"] = measure_reembedding(embedder)
    out["paper"] = PAPER_FIGURES
    timings["encoder"] = timed.seconds
    timings["total"] = time.perf_counter() - started
    out["timings_s"] = {key: round(value, 3) for key, value in timings.items()}
    return out


def fit_calibration(embedder, *, seed: int = DEFAULT_SEED, profiles: Sequence[str] = GATED_PROFILES,
                    rates: Sequence[float] = (0.0,), k: int = 5, write: bool = True,
                    feedback: Mapping[str, tuple[Sequence[float], Sequence[bool]]] | None = None) -> dict[str, Any]:
    """Fit each profile's confidence model and isotonic map on the paper suite's **tune** split
    only (``bench --suite paper --fit-calibration``), with the store's verdicts (``feedback``:
    per profile, certainty and accepted) added to the isotonic step; the held-out split is never
    read. The shipped prior is fitted on many corpora (``calibration --fit-prior``,
    :mod:`.confidence_fit`): this one-suite fit is for experiments on the suite.
    """
    from .confidence_fit import collect_from, fit_prior, write_prior

    names = [n for n in check_profiles(profiles) if n != "naive"]
    timed = TimedEmbedder(embedder)
    rows = {}
    for rate in check_rates(rates):
        suite = generate_paper_suite(seed, rate)
        with prepared_bench(suite.corpus, suite.split("tune"), embedder=timed, k=k) as bench:
            rows[(f"paper@{rate}", "fit")] = collect_from(bench, profiles=names)
    verdicts = {n: v for n, v in (feedback or {}).items() if n in names}
    fitted = fit_prior(rows, profiles=names, verdicts=verdicts)
    report = {}
    for name, part in fitted.items():
        cert, hit = [], []
        model = cm.model_from_dict(part["model"])
        for data in rows.values():
            keep = (data["profile"] == name) & (data["rank"] == 1)
            cert.append(model.certainty(data["x"][keep]))
            hit.append(data["right"][keep])
        x, y = np.concatenate(cert), np.concatenate(hit).astype(bool)
        report[name] = {"n": part["n"], "knots": len(part["x"]),
                        "tune_ece_raw_certainty": expected_calibration_error(x, y),
                        "tune_ece_fitted": expected_calibration_error(np.interp(x, part["x"], part["y"]), y)}
    meta = {"split": "tune", "feedback_pairs": sum(len(x) for x, _ in (feedback or {}).values()), "seed": seed,
            "rates": list(check_rates(rates)), "k": k, "model": getattr(embedder, "name", type(embedder).__name__),
            "method": "logistic regression on standardised evidence, then centred isotonic"}
    if write and fitted:
        write_prior(fitted, meta)
    return {"profiles": report, "meta": meta, "written": str(KNOTS_FILE) if write and fitted else None}
