"""Queries right after a one-document write against the steady state, in one process.

    python scripts/bench/write_read.py --store DIR [--queries 100] [--rounds 2]

Copies the built store ``--store`` (``perf``'s 100k synthetic store) to a temporary directory,
opens one service over it, asks one question and waits for the in-memory copy of the chunks
table, then per round: ``--queries`` steady queries (the perf questions in turn, ``default``,
k = 5, the real question encoder, no log), one one-document write with its consolidation
(``scripts/bench/edit.py``'s documents; its consolidation reads the service's warm inputs, as
the API server's does), the first query after it (does it return the new
document? how long did it take?), and ``--queries`` more. Prints one JSON object per round:
steady and after p50 / p99, their ratios, the first query's time and whether it saw the
document, the knowledge state's refresh time, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("LANCEDB_LOG", "error")

import numpy as np  # noqa: E402
from edit import record  # noqa: E402

from smartvector_core.embedding import get_embedder  # noqa: E402
from smartvector_core.evaluation.perf.stores import QUESTIONS, fixed_now, open_app  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        path = Path(tmp) / "store"
        shutil.copytree(args.store, path)
        app = open_app(str(path), get_embedder())
        as_of, now = fixed_now(), fixed_now() - timedelta(days=1)
        rng = np.random.default_rng(3)

        def ask(text: str):
            t0 = time.perf_counter()
            r = app.query(text, as_of=as_of, log=False)
            return time.perf_counter() - t0, r

        ask(QUESTIONS[0])
        app.query_cache().wait_for_text_index()
        app.keep_consolidation_inputs()   # as the API server and the dashboard do: writes consolidate warm
        app.ingest_records([record(0, rng)], now=now)   # the process's first write (caches built)
        for _ in range(20):
            ask(QUESTIONS[1])
        for r in range(1, args.rounds + 1):
            load = os.getloadavg()[0]
            steady = [ask(QUESTIONS[i % len(QUESTIONS)])[0] for i in range(args.queries)]
            doc = record(100 + r, rng)
            t0 = time.perf_counter()
            app.ingest_records([doc], now=now)
            write_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            app.knowledge.get()
            refresh_s = time.perf_counter() - t0
            first_s, res = ask(doc["text"].split("\n\n")[0])
            after = [ask(QUESTIONS[i % len(QUESTIONS)])[0] for i in range(args.queries)]

            def ms(xs, p):
                return round(float(np.percentile(xs, p)) * 1000, 1)
            print(json.dumps({"round": r, "chunks": app.store.count_chunks(), "write_s": round(write_s, 3),
                              "knowledge_refresh_ms": round(refresh_s * 1000, 1),
                              "first_query_ms": round(first_s * 1000, 1),
                              "first_query_sees_it": any(x.id == doc["id"] for x in res.results),
                              "steady_p50_ms": ms(steady, 50), "steady_p99_ms": ms(steady, 99),
                              "after_p50_ms": ms(after, 50), "after_p99_ms": ms(after, 99),
                              "ratio_p50": round(float(np.median(after) / np.median(steady)), 2),
                              "ratio_p99": round(float(np.percentile(after, 99) / np.percentile(steady, 99)), 2),
                              "load_start": round(load, 2), "load_end": round(os.getloadavg()[0], 2)}), flush=True)


if __name__ == "__main__":
    main()
