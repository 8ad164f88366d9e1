"""Ablations and the weight-sensitivity sweep, over a :class:`runner.PreparedBench`.

Ablations (the paper promised them and never showed them; labels as reported):

- ``decay_access_only``: our reading of "decay + access only": the ``smartvector`` scorer with
  weights 0.5·semantic + 0.5·confidence, temporal and relational 0, no gates. The paper's
  confidence signal is the document's trust (authority, feedback, access reinforcement; the
  age decay is memory strength now and only moves lifecycle: DESIGN.md "Trust model"), so
  this variant measures authority + access without time. Semantic stays in because a score
  without any similarity would not be a retriever.
- ``no_consolidation``: the four-signal ``smartvector`` profile with ``consolidated=False``
  on a second store where consolidation never ran (only declared edges exist).
- ``no_ripple``: ``smartvector`` with consolidation but ``ripple=False``.
- ``smartvector``: full four-signal profile; ``default``: the project's best configuration.
- ``default_minus_<signal>``: ``default`` with that signal's weight set to 0, for
  ``semantic, temporal, confidence, relational`` and ``trust`` (in ``default`` the confidence
  weight is carried by its trust signal, so ``default_minus_confidence`` lowers the trust weight).

Weight sweep: every point of the simplex grid over the four paper weights with step ``step``
(only points whose weights sum to 1), evaluated (a) with the ``smartvector`` scorer and (b) with
the ``default`` profile (its gates, chains, intent and trust term) whose four weights are set
to ``(1 − trust_weight) · point`` so that, with the trust term, they still sum to 1. Each point
reuses the prepared store and candidate pools: only reranking runs per point.
Variants keep their base profile's name (and so its calibration knots).
"""

from __future__ import annotations

import time
from dataclasses import replace
from itertools import product
from typing import Any

from ...config import SignalWeights
from ...errors import InputError
from ...retrieval.profiles import DEFAULT, SMARTVECTOR, Profile
from .runner import PreparedBench

SIGNALS = ("semantic", "temporal", "confidence", "relational")
DEFAULT_SWEEP_STEP = 0.125
SUMMARY_KEYS = ("top1", "stale_at_1", "ece", "mrr", "recall_at_5", "n")


def ablation_profiles() -> dict[str, Profile]:
    """The ablation variants answered on the consolidated store (see module docstring)."""
    variants: dict[str, Profile] = {
        "decay_access_only": replace(SMARTVECTOR, weights=SignalWeights(0.5, 0.0, 0.5, 0.0)),
        "no_ripple": replace(SMARTVECTOR, ripple=False),
        "smartvector": SMARTVECTOR,
        "default": DEFAULT,
    }
    for signal in SIGNALS:
        variants[f"default_minus_{signal}"] = replace(DEFAULT, weights=replace(DEFAULT.weights, **{signal: 0.0}))
    variants["default_minus_trust"] = replace(DEFAULT, trust_weight=0.0)
    return variants


NO_CONSOLIDATION = replace(SMARTVECTOR, consolidated=False)


def summary(metrics: dict[str, Any]) -> dict[str, Any]:
    return {key: metrics[key] for key in SUMMARY_KEYS}


def run_ablations(bench: PreparedBench, unconsolidated: PreparedBench | None,
                  queries: list[int] | None = None) -> dict[str, Any]:
    """Metrics per ablation (with ``by_type``), and each one's top-1 change against ``default``."""
    out: dict[str, Any] = {}
    for label, profile in ablation_profiles().items():
        out[label] = bench.evaluate(bench.answer_profile(profile, queries), queries)
    if unconsolidated is not None:
        out["no_consolidation"] = unconsolidated.evaluate(unconsolidated.answer_profile(NO_CONSOLIDATION, queries),
                                                          queries)
    base = out["default"]["top1"]
    for metrics in out.values():
        metrics["delta_top1_vs_default"] = metrics["top1"] - base
    return out


def simplex_grid(step: float = DEFAULT_SWEEP_STEP) -> list[SignalWeights]:
    """All (semantic, temporal, confidence, relational) on a grid of ``step`` summing to 1."""
    n = round(1.0 / step)
    if n < 1 or abs(n * step - 1.0) > 1e-9:

        raise InputError(f"expected a step that divides 1 (0.1, 0.125, 0.2, 0.25), found {step}", field="step")
    points = []
    for a, b, c in product(range(n + 1), repeat=3):
        d = n - a - b - c
        if d >= 0:
            points.append(SignalWeights(a / n, b / n, c / n, d / n))
    return points


def weight_sweep(bench: PreparedBench, queries: list[int] | None = None,
                 step: float = DEFAULT_SWEEP_STEP, progress=None) -> list[dict[str, Any]]:
    """One row per (scorer, grid point): the weights and top1 / stale_at_1 / ECE / MRR (data for a heatmap).
    ``progress(done, total)`` is called after each grid point (the dashboard's progress bar; an
    exception it raises stops the sweep there)."""
    rows: list[dict[str, Any]] = []
    scale = 1.0 - DEFAULT.trust_weight
    grid = simplex_grid(step)
    for done, point in enumerate(grid, start=1):
        variants = {
            "smartvector": replace(SMARTVECTOR, weights=point),
            "default": replace(DEFAULT, weights=SignalWeights(*(scale * w for w in point.as_dict().values()))),
        }
        for scorer, profile in variants.items():
            t0 = time.perf_counter()
            metrics = bench.evaluate(bench.answer_profile(profile, queries), queries)
            rows.append({"scorer": scorer, **{k: round(v, 6) for k, v in point.as_dict().items()},
                         "top1": metrics["top1"], "stale_at_1": metrics["stale_at_1"], "ece": metrics["ece"],
                         "mrr": metrics["mrr"], "n": metrics["n"],
                         "seconds": round(time.perf_counter() - t0, 3)})
        if progress is not None:
            progress(done, len(grid))
    return rows
