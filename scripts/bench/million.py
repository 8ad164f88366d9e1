"""A million chunks on this machine: build time, query latency with the real
question encoder, recall@20 of the vector index against brute force, peak RSS of the query process.

Method (say it with every figure):
- **Vectors**: real all-MiniLM-L6-v2 embeddings of real text (the chunks of ``perf.real_store``:
  data/real/ Flask docs pages and changelog entries, 3,784 chunks) perturbed, since encoding a
  million passages would take ~1.5 hours on 2 cores. Row ``i`` is
  ``normalise(a + λ·(c − a) + ε)`` with ``a``, ``c`` two random real embeddings, ``λ ~ U(0, 0.3)``
  and ``ε ~ N(0, (0.35² / 384)·I)``: each row lies near one real passage, pulled towards another;
  the script prints the resulting neighbour cosines (top-1 / top-20 of a sample) so the
  structure is on record. Its **text** and title are those of ``a`` (real text: the full-text
  index and the reranker read real words), 5 chunks per document, creation times spread over
  1,000 days, kinds and doc types mixed (``perf.chunk_rows``).
- **Build**: rows written with ``Store.add_chunks`` in 50k batches, then ``ensure_indexes``
  (scalar indexes, IVF_HNSW_SQ on ``vector``, the full-text index): ``write_s`` and ``index_s``.
- **Queries** run in a fresh process (so its peak RSS is its own): the real questions of the
  real sets, encoded by the real encoder inside ``SmartVector.query`` (default profile, k = 5,
  no logging), against embed + the raw LanceDB top-60 search; p50/p95 of each over ``--rounds``; then one pass of the
  ``temporal`` profile (no lexical signal).
- **Recall@20**: the real questions' embeddings, indexed search vs ``exact=True`` (brute
  force), same prefilter; the share of the exact top-20 found. Peak RSS is read (VmHWM) after
  the timed queries and before the brute-force searches, which read every vector once.

    python scripts/bench/million.py --rows 1000000 --dir /tmp/million [--rounds 2] [--recall 30] [--json OUT]

The store is kept in ``--dir`` (rebuilt with ``--rebuild``), so the query half can be re-run alone.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LANCEDB_LOG", "error")

import numpy as np  # noqa: E402

BATCH = 50_000
LAMBDA_MAX = 0.3
NOISE = 0.35


def perturbed(base: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows near the real embeddings ``base`` (module docstring) and the base row of each."""
    a = rng.integers(0, len(base), n)
    c = rng.integers(0, len(base), n)
    lam = rng.uniform(0.0, LAMBDA_MAX, (n, 1)).astype(np.float32)
    v = base[a] + lam * (base[c] - base[a]) + rng.standard_normal((n, base.shape[1])).astype(np.float32) * (
        NOISE / np.sqrt(base.shape[1]))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32), a


def build(directory: Path, rows: int, seed: int = 0) -> dict:
    from smartvector_core.embedding import get_embedder
    from smartvector_core.evaluation import perf

    embedder = get_embedder()
    real_dir, _ = perf.real_store(embedder)
    source = perf.open_app(str(real_dir), embedder).store
    meta, base = source.current_chunks(("chunk_id", "text", "title"))
    texts = np.asarray(meta.column("text").to_pylist(), dtype=object)
    titles = np.asarray(meta.column("title").to_pylist(), dtype=object)
    app = perf.open_app(str(directory), embedder)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for start in range(0, rows, BATCH):
        n = min(BATCH, rows - start)
        vectors, picked = perturbed(base, n, rng)
        app.store.add_chunks(perf.chunk_rows(n, start=start, vectors=vectors, texts=texts[picked].tolist(),
                                             titles=[f"{t} ({start + i // 5})" for i, t in enumerate(titles[picked])]))
    write_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    indexes = app.store.ensure_indexes()
    index_s = time.perf_counter() - t0
    sample, _ = perturbed(base, 2_000, np.random.default_rng(seed + 1))
    probe, _ = perturbed(base, 20_000, np.random.default_rng(seed + 2))
    sims = np.sort(sample @ probe.T, axis=1)[:, ::-1]
    from smartvector_core.store.indexes import ivf_hnsw_partitions

    return {"rows": rows, "base_real_embeddings": int(len(base)), "write_s": round(write_s, 1),
            "partitions": ivf_hnsw_partitions(rows),
            "index_s": round(index_s, 1), "indexes": indexes,
            "neighbour_cosine_in_20k_sample": {"top1_p50": round(float(np.median(sims[:, 0])), 3),
                                               "top20_p50": round(float(np.median(sims[:, 19])), 3)},
            "load_avg_during_build": round(os.getloadavg()[0], 2)}


def query_child(directory: str, rounds: int, recall: int) -> None:
    """Fresh process: time the queries, read VmHWM, then recall@20 against brute force."""
    from smartvector_core.embedding import get_embedder
    from smartvector_core.evaluation import perf
    from smartvector_core.retrieval.candidates import SEARCH_COLUMNS
    from smartvector_core.retrieval.search import search_overfetch

    embedder = get_embedder()
    _, questions = perf.real_store(embedder)
    texts = [q["text"] for q in questions]
    as_of = perf.fixed_now()
    app = perf.open_app(directory, embedder)
    t0 = time.perf_counter()
    app.query(texts[0], as_of=as_of, log=False)
    first_s = time.perf_counter() - t0          # opens the store, loads the knowledge state
    t0 = time.perf_counter()                    # the in-memory text index, built in the background
    built = app.query_cache().wait_for_text_index() is not None
    text_index_s = time.perf_counter() - t0
    e2e, raw, per_round = [], [], []
    for r in range(rounds):
        start = len(e2e), len(raw)
        for i, text in enumerate(texts):
            for which in ((0, 1) if (r + i) % 2 else (1, 0)):
                t0 = time.perf_counter()
                if which:
                    app.query(text, as_of=as_of, log=False)
                else:
                    app.store.search(embedder.encode([text])[0], as_of=as_of, limit=60, columns=SEARCH_COLUMNS)
                (e2e if which else raw).append(time.perf_counter() - t0)
        per_round.append([round(float(np.median(e2e[start[0]:])) * 1000, 2), round(float(np.median(raw[start[1]:])) * 1000, 2)])
    temporal = []                               # the profile without a lexical signal, one pass
    for text in texts:
        t0 = time.perf_counter()
        app.query(text, as_of=as_of, log=False, profile="temporal")
        temporal.append(time.perf_counter() - t0)
    rss_mb = perf.vm_hwm_kb() / 1024
    hits, hits_unfiltered = [], []
    overfetch = search_overfetch(app.query_cache().existing_share(None))   # the query path's (no time bound here)
    for vector in embedder.encode(texts[:recall]):
        exact = app.store.search(vector, as_of=as_of, limit=20, columns=["chunk_id"], exact=True)
        exact = set(exact.column("chunk_id").to_pylist())
        for out, kw in ((hits, {}), (hits_unfiltered, {"overfetch": overfetch})):
            approx = app.store.search(vector, as_of=as_of, limit=20, columns=["chunk_id"], **kw)
            out.append(len(set(approx.column("chunk_id").to_pylist()) & exact) / max(1, len(exact)))
    ms = lambda xs, q: round(float(np.percentile(xs, q)) * 1000, 2)   # noqa: E731
    print(json.dumps({
        "chunks": app.store.count_chunks(), "questions": len(texts), "rounds": rounds,
        "first_query_s": round(first_s, 2), "text_index_built": built, "text_index_wait_s": round(text_index_s, 2),
        "query_p50_ms": ms(e2e, 50), "query_p95_ms": ms(e2e, 95),
        "raw_p50_ms": ms(raw, 50), "raw_p95_ms": ms(raw, 95),
        "query_overhead_ratio": round(float(np.median(e2e) / np.median(raw)), 3),
        "p50_per_round_query_raw_ms": per_round,
        "temporal_p50_ms": ms(temporal, 50), "temporal_p95_ms": ms(temporal, 95),
        "peak_rss_mb_queries": round(rss_mb, 1), "peak_rss_mb_with_brute_force": round(perf.vm_hwm_kb() / 1024, 1),
        "recall_at_20": round(float(np.mean(hits)), 4), "recall_queries": len(hits),
        "recall_min": round(float(np.min(hits)), 3),
        "recall_at_20_unfiltered_search": round(float(np.mean(hits_unfiltered)), 4),
        "overfetch": overfetch, "load_avg": os.getloadavg()}))


def main() -> None:
    from smartvector_core.evaluation import perf

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/smartvector-million"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--recall", type=int, default=30)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        query_child(str(args.dir), args.rounds, args.recall)
        return
    out: dict = {"cores": os.cpu_count(), "load_avg_1m_at_start": round(os.getloadavg()[0], 2)}
    marker = args.dir / "BUILT.json"
    if args.rebuild or not marker.is_file():
        import shutil

        shutil.rmtree(args.dir, ignore_errors=True)
        out["build"] = build(args.dir, args.rows)
        marker.write_text(json.dumps(out["build"]))
    else:
        out["build"] = json.loads(marker.read_text())
    print(json.dumps(out), flush=True)
    if args.build_only:
        return
    done = subprocess.run([sys.executable, __file__, "--child", "--dir", str(args.dir), "--rounds", str(args.rounds),
                           "--recall", str(args.recall)], capture_output=True, text=True, cwd=str(ROOT))
    if done.returncode:
        out["query_error"] = done.stderr.strip().splitlines()[-3:]
    else:
        out["query"] = json.loads(done.stdout.strip().splitlines()[-1])
    perf.emit_figures(out, args.json)


if __name__ == "__main__":
    main()
