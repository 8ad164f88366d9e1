"""Tune the ``default`` profile on the paper suite's TUNE split (never the held-out split).

Usage: python scripts/tune/default.py [--misses]
Prints the tune-split metrics of a grid of weight variants of ``default`` and, with --misses,
the queries the current preset gets wrong.
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import replace

from smartvector_core.config import SignalWeights
from smartvector_core.embedding import get_embedder
from smartvector_core.evaluation.accuracy.paper_suite import generate_paper_suite
from smartvector_core.evaluation.accuracy.runner import prepared_bench
from smartvector_core.retrieval.profiles import DEFAULT


def main() -> None:
    suite = generate_paper_suite(seed=7, contradiction_rate=float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
    tune = [q for q in suite.queries if q.get("split") == "tune"]
    with prepared_bench(suite.corpus, tune, embedder=get_embedder()) as bench:
        if "--misses" in sys.argv:
            runs = bench.answer_profile(DEFAULT)
            for q in bench.queries:
                got = [r["id"] for r in runs[q.id]]
                if not got or got[0] not in q.relevant:
                    print(f"MISS {q.id} [{q.type}] {q.text[:70]!r} got {got[:2]} want {q.relevant[:2]} stale={q.stale[:2]}")
            return
        grid = []
        for sem, trust, temp, conf, rel in itertools.product((0.5, 0.6, 0.7), (0.15, 0.25, 0.35), (0.05, 0.1),
                                                             (0.0, 0.05), (0.0, 0.05)):
            prof = replace(DEFAULT, weights=SignalWeights(sem, temp, conf, rel), trust_weight=trust)
            m = bench.evaluate(bench.answer_profile(prof))
            grid.append((m["top1"], -m["stale_at_1"], m["mrr"], (sem, trust, temp, conf, rel)))
        for row in sorted(grid, reverse=True)[:12]:
            print(row)


if __name__ == "__main__":
    main()
