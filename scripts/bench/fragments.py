"""Queries after a run of one-document writes: do reads slow as the writes' fragments gather?

    python scripts/bench/fragments.py --store DIR [--steps 30,60,120] [--queries 160] [--repo PATH]

Copies the built store ``--store`` (e.g. the 100k synthetic store of ``scripts/bench/million.py
--rows 100000 --build-only``) to a temporary directory and opens it in this process (``--repo``:
another checkout's engine, e.g. a baseline commit). Warms up, waits 20 s for the in-memory copies,
times ``--queries`` queries (the perf questions, ``default``, k = 5, no log): the steady figures.
Then, for each total of ``--steps``, ingests one-chunk documents one at a time (no consolidation,
as ``scripts/bench/trickle.py``'s writer) up to that total, waits 10 s, and times the queries
again. Prints one JSON line per phase: p50 / p99 of the whole query and of its search stage, the
chunks table's fragments, and the writes' p50 / max seconds. No concurrent writer: what is
measured is what the writes leave behind, not their CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--steps", default="30,60,120")
    ap.add_argument("--queries", type=int, default=160)
    ap.add_argument("--repo", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    args = ap.parse_args()
    sys.path.insert(0, args.repo)
    from smartvector_core.embedding import get_embedder
    from smartvector_core.evaluation.perf.stores import QUESTIONS, open_app

    as_of = datetime(2026, 1, 14, tzinfo=UTC)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        store = os.path.join(tmp, "store")
        shutil.copytree(args.store, store)
        app = open_app(store, get_embedder())

        def timed(n: int) -> dict:
            total, search = [], []
            for i in range(n):
                t0 = time.perf_counter()
                resp = app.query(QUESTIONS[i % len(QUESTIONS)], as_of=as_of, k=5, log=False)
                total.append((time.perf_counter() - t0) * 1000)
                search.append(resp.timings_ms.get("search", 0.0))
            p = lambda xs, q: round(float(np.percentile(xs, q)), 1)  # noqa: E731
            return {"p50_ms": p(total, 50), "p99_ms": p(total, 99), "search_p50_ms": p(search, 50),
                    "search_p99_ms": p(search, 99), "fragments": app.store.fragments("chunks")}

        def settle() -> None:
            for _ in range(20):
                app.query(QUESTIONS[0], as_of=as_of, k=5, log=False)
            time.sleep(10)
            timed(20)

        settle()
        time.sleep(10)
        print(json.dumps({"repo": args.repo, "writes": 0, **timed(args.queries)}), flush=True)
        took: list[float] = []
        for total in (int(s) for s in args.steps.split(",")):
            while len(took) < total:
                tag = uuid.uuid4().hex[:8]
                t0 = time.perf_counter()
                app.ingest_records([{"id": "trickle_" + tag, "created_at": "2025-12-01T00:00:00Z",
                                     "text": f"The {tag} quota is {len(took)} requests per minute."}],
                                   now=as_of, consolidate=False)
                took.append(time.perf_counter() - t0)
            settle()
            print(json.dumps({"repo": args.repo, "writes": total, **timed(args.queries),
                              "write_p50_s": round(float(np.median(took)), 3), "write_max_s": round(max(took), 3)}),
                  flush=True)


if __name__ == "__main__":
    main()
