"""The query figures below the `perf` table of docs/PERF.md, in one process:
rerank of 1,000 candidates (3 medians, and with cold text caches), the end-to-end query on the
real-text store without and with a vector index (``perf.bench_query_real``), and on synthetic
stores of 10k and 100k chunks (``perf.bench_query``), each against embed + the raw LanceDB
search of the same run. Methods: the docstrings of ``smartvector_core/evaluation/perf``.

    python scripts/bench/query.py [--rounds 3] [--json docs/perf/query.json]
    python scripts/bench/render_perf_sections.py      # PERF.md's sections from docs/perf/*.json
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LANCEDB_LOG", "error")


def main() -> None:
    from smartvector_core.embedding import get_embedder
    from smartvector_core.evaluation import perf
    from smartvector_core.evaluation.perf import benchmarks
    from smartvector_core.settings import embed_threads

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds over the real questions")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    out: dict = {"cores": os.cpu_count(), "load_avg_1m_at_start": round(os.getloadavg()[0], 2)}
    out["rerank_1000_ms"] = [round(benchmarks.bench_rerank(1000, 200), 3) for _ in range(3)]
    out["rerank_1000_cold_ms"] = round(benchmarks.bench_rerank_cold(1000), 3)
    embedder = get_embedder()
    out["embed_threads"] = embed_threads() or os.cpu_count()
    out["real"] = perf.bench_query_real(embedder, rounds=args.rounds)
    out["real_indexed"] = perf.bench_query_real(embedder, rounds=args.rounds, vector_index=True)
    for n in (10_000, 100_000):
        out[f"synthetic_{n}"] = perf.bench_query(n, embedder, repeats=40, recall_queries=100 if n == 100_000 else 0)
    perf.emit_figures(out, args.json)


if __name__ == "__main__":
    main()
