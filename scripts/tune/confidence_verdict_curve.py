"""How fast a store's refit learns a corpus unlike the prior's: ECE against the number of verdicts.

    python scripts/tune/confidence_verdict_curve.py [--rows .calibration/rows] [--corpus timeqa]
                                               [--profile default] [--repeats 20]

Reads the rows collected by ``python -m smartvector_core calibration --fit-prior`` (no benchmark
runs here). The prior is fitted on every corpus **except** ``--corpus`` (so that corpus is one the
prior has never seen); operators' verdicts are simulated from that corpus' labels: its fit part's
top-1 answers, in a seeded random order, each an accept (right) or a correct (wrong) on the
certainty the answer carried. After n verdicts the store's calibration is
``calibration.refit_knots`` on them with the prior as its pseudo-verdicts (as
``SmartVector.store_calibration`` does), and ECE is measured on the corpus' report part (its
top-1 confidences, never seen by the verdicts). Prints a Markdown table: n, mean and range of
ECE over ``--repeats`` orders, and AUROC (the refit is monotone: it never changes the order).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from smartvector_core.evaluation.accuracy.confidence_fit import fit_prior, load_rows
from smartvector_core.retrieval import confidence_model as cm
from smartvector_core.retrieval.calibration import auroc, expected_calibration_error, refit_knots

STEPS = (0, 5, 10, 20, 30, 40, 60, 100, 200, 400)


def top1_certainty(data: dict, profile: str, model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keep = (data["profile"] == profile) & (data["rank"] == 1)
    return (model.certainty(data["x"][keep]), data["right"][keep].astype(bool),
            data["abstained"][keep].astype(bool))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default=".calibration/rows")
    ap.add_argument("--corpus", default="timeqa")
    ap.add_argument("--profile", default="default")
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    rows = load_rows(Path(args.rows))
    fitted = fit_prior(rows, profiles=(args.profile,), exclude=(args.corpus,))[args.profile]
    model = cm.model_from_dict(fitted["model"])
    prior = (np.asarray(fitted["x"]), np.asarray(fitted["y"]))
    stream_x, stream_y, _ = top1_certainty(rows[(args.corpus, "fit")], args.profile, model)
    test_x, test_y, test_abstained = top1_certainty(rows[(args.corpus, "report")], args.profile, model)
    print(f"corpus {args.corpus}: {len(stream_x)} verdicts available, {len(test_x)} held-out questions "
          f"(accuracy {test_y.mean():.3f}); prior fitted without it")
    print("| verdicts | ECE (mean) | ECE (min–max) | AUROC |")
    print("|---|---|---|---|")
    for n in (s for s in STEPS if s <= len(stream_x)):
        eces = []
        for seed in range(args.repeats if n else 1):
            order = np.random.default_rng(seed).permutation(len(stream_x))[:n]
            knots = refit_knots(args.profile, stream_x[order], stream_y[order], prior=prior) if n else prior
            conf = np.interp(test_x, *knots)
            conf = np.where(test_abstained, np.minimum(conf, 0.25), conf)
            eces.append(expected_calibration_error(conf, test_y))
        print(f"| {n} | {np.mean(eces):.3f} | {min(eces):.3f}–{max(eces):.3f} | {auroc(test_x, test_y):.3f} |")


if __name__ == "__main__":
    main()
