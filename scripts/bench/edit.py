"""Benchmark of a one-document edit: ingest + its consolidation into a store of n chunks.

Copies a built synthetic store (``perf``'s 100k builder: ``chunk_rows`` + ``embedding_like_vectors``,
indexes built) to a temporary directory, opens one service over it (a warm process: one query
and one edit first), then ingests ``--edits`` one-document writes (4 paragraphs of
``scripts/bench/consolidate.py``-style text, every other one a new version of the one before by title),
each with the consolidation the service runs after an ingest (on its warm
:class:`~smartvector_core.consolidation.incremental.ConsolidationCache`); with ``--baseline``
every other edit instead consolidates by reading the store (the same writes, same process, same
load). Prints one JSON object: per arm, wall p50 / p90 of the whole edit (and its CPU
time, this process's threads: steadier on a shared machine), of the ingest part and
of the consolidation part, the consolidation's phase timings (p50); the load average at start
and end; with ``--profile``, the top of a cProfile of one more (cached) edit.

    python scripts/bench/edit.py --store /tmp/speed/store100k.base [--edits 20] [--baseline] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("LANCEDB_LOG", "error")

import numpy as np  # noqa: E402

from smartvector_core.embedding import get_embedder  # noqa: E402
from smartvector_core.evaluation.perf.stores import QUESTIONS, fixed_now, open_app  # noqa: E402

SENTENCES = ["Refunds are accepted within {n} days.", "Api calls are limited to {n} requests per minute.",
             "Backups are kept for {n} weeks.", "Invoices are processed within {n} hours.",
             "Trial accounts expire after {n} days.", "Seats are capped at {n} seats."]


def record(i: int, rng: np.random.Generator) -> dict:
    """Edit ``i``: a 4-paragraph document; odd edits are a new version (same title) of edit i-1."""
    title = f"Edit policy {i // 2}"
    paras = [SENTENCES[(i + k) % len(SENTENCES)].format(n=int(rng.integers(1, 90))) + " The owner of the plan "
             "reviews it every quarter with the billing team." for k in range(4)]
    if i % 3 == 0:
        paras.append(f"See edit_{max(0, i - 1)} for details.")
    return {"id": f"edit_{i}", "title": title, "text": "\n\n".join(paras), "doc_type": "policy",
            "kind": "VERSIONED", "source": "docs",
            "created_at": (fixed_now() - timedelta(days=30) + timedelta(hours=i)).isoformat()}


def pct(xs, p) -> float:
    return round(float(np.percentile(xs, p)), 3) if xs else 0.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True, help="a built store directory (copied, never written)")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--baseline", action="store_true",
                    help="every other edit consolidates by reading the store (the run before the cache), same process")
    args = ap.parse_args()
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        path = Path(tmp) / "store"
        shutil.copytree(args.store, path)
        app = open_app(str(path), get_embedder())
        now = fixed_now() - timedelta(days=1)
        rng = np.random.default_rng(5)
        app.query(QUESTIONS[0], as_of=fixed_now(), log=False)
        app.keep_consolidation_inputs()   # as the API server and the dashboard do
        t0 = time.perf_counter()
        app.ingest_records([record(0, rng)], now=now)    # warm: the first edit of the process
        warm_s = time.perf_counter() - t0
        arms = {"cached": ([], [], [], {}), "store": ([], [], [], {})}
        cpu: dict[str, list[float]] = {"cached": [], "store": []}
        for i in range(1, args.edits + 1):
            arm = "store" if args.baseline and i % 2 == 0 else "cached"
            total, ingest, consol, phases = arms[arm]
            t0, c0 = time.perf_counter(), time.process_time()
            if arm == "cached":   # what ingest_records does: its consolidation on the warm cache
                report = app.ingest_records([record(i, rng)], now=now)
            else:                 # the baseline: the same write, its consolidation reading the store
                report = app.ingest_records([record(i, rng)], now=now, consolidate=False)
                report.consolidation = app.consolidate(now=now)
            total.append(time.perf_counter() - t0)
            cpu[arm].append(time.process_time() - c0)
            c = report.consolidation or {}
            consol.append(c.get("seconds", 0.0))
            ingest.append(total[-1] - consol[-1])
            for k, v in (c.get("timings") or {}).items():
                phases.setdefault(k, []).append(v)
        out = {"chunks": app.store.count_chunks(), "edits": args.edits, "first_edit_s": round(warm_s, 3)}
        for arm, (total, ingest, consol, phases) in arms.items():
            if total:
                out[arm] = {"edits": len(total), "edit_p50_s": pct(total, 50), "edit_p90_s": pct(total, 90),
                            "edit_cpu_p50_s": pct(cpu[arm], 50),
                            "edit_min_s": round(min(total), 3), "edit_max_s": round(max(total), 3),
                            "ingest_p50_s": pct(ingest, 50), "consolidate_p50_s": pct(consol, 50),
                            "phases_p50_s": {k: pct(v, 50) for k, v in phases.items()}}
        out.update({"last_consolidation": {k: v for k, v in (report.consolidation or {}).items() if k != "timings"},
                    "load_start": [round(x, 2) for x in load_start], "load_end": [round(x, 2) for x in os.getloadavg()]})
        print(json.dumps(out))
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            app.ingest_records([record(args.edits + 1, rng)], now=now)
            prof.disable()
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats("smartvector_core", 60)
            pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
            print(s.getvalue()[:20000])


if __name__ == "__main__":
    main()
