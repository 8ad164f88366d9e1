"""``python -m smartvector_core perf``: every speed figure in one run, judged against its
target, and the docs/PERF.md table.

Keys (targets in ``TARGETS``): ``rerank_1000_ms``; ``query_p50_ms`` / ``raw_p50_ms`` /
``query_overhead_ratio`` per store size (and ``plain_p50_ms`` / ``plain_overhead_ratio``: over embed + the
plainest top-60 search, ``Store.plain_search``; on real text the worst of both forms and stores is
``plain_overhead_ratio_real``, beside ``query_overhead_ratio_real``); ``question_embed_ms`` (and the PyTorch figure
``question_embed_torch_ms``); ``ingest_chunks_per_s`` and ``ingest_vs_encode_ratio``;
``consolidate_s`` at two sizes and its growth exponent; ``surgical_reembed_fraction``;
``peak_rss_mb`` of ingesting the large size; ``recall_at_20`` of the vector index against
brute force; ``cores`` and the peers' figures (``anchors``).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path

from ...embedding import get_embedder
from ...settings import embed_threads
from .benchmarks import (
    bench_consolidate,
    bench_ingest,
    bench_peak_rss,
    bench_query,
    bench_query_real,
    bench_question_embed,
    bench_rerank,
    bench_rerank_cold,
    bench_surgical,
    torch_baseline,
)
from .stores import REAL_SETS

ANCHORS = {
    "temporal_rag_rerank_1000_ms": [640, 1200],
    "smartvector_reference_consolidate_1000_s": 259,
    "smartvector_reference_query": "scans every vector per query",
}
TARGETS = {
    "rerank_1000_ms": ("<=", 2.0), "query_p50_ms_large": ("<=", 30.0), "query_overhead_ratio": ("<=", 1.15),
    "query_overhead_ratio_real": ("<=", 1.15), "plain_overhead_ratio_real": ("<=", 1.25),
    "ingest_vs_encode_ratio": (">=", 0.9), "consolidate_s_large": ("<=", 60.0),
    "consolidate_growth_exponent": ("<=", 1.2), "surgical_reembed_fraction": ("<=", 0.05),
    "peak_rss_mb": ("<=", 2000.0), "recall_at_20": (">=", 0.95),
}
FULL = {"query_sizes": (10_000, 100_000), "consolidate_sizes": (1_000, 10_000), "rss_chunks": 100_000,
        "ingest_chunks": 600, "rerank_repeats": 200, "query_repeats": 40, "recall_queries": 100,
        "real_rounds": 3, "real_limit": None}
QUICK = {"query_sizes": (2_000, 20_000), "consolidate_sizes": (500, 2_000), "rss_chunks": 10_000,
         "ingest_chunks": 200, "rerank_repeats": 60, "query_repeats": 16, "recall_queries": 30,
         "real_rounds": 1, "real_limit": None}


def run(*, quick: bool = False, log: Callable[[str], None] | None = None, sizes: dict | None = None) -> dict:
    """Every figure, as one flat dict (keys in the module docstring); ``sizes`` overrides the
    ``FULL`` / ``QUICK`` sizes (the tests run toy ones)."""

    sizes = sizes or (QUICK if quick else FULL)
    say = log or (lambda _m: None)
    started = time.perf_counter()
    mode = "full" if sizes is FULL else "quick" if sizes is QUICK else "custom"
    out: dict = {"mode": mode, "cores": os.cpu_count(), "load_avg_1m_at_start": round(os.getloadavg()[0], 2)}
    say("rerank")
    out["rerank_1000_ms"] = round(bench_rerank(1000, sizes["rerank_repeats"]), 3)
    out["rerank_1000_cold_ms"] = round(bench_rerank_cold(1000), 3)
    if os.getloadavg()[0] >= (os.cpu_count() or 1):
        # FACTS.md: on a shared CPU the encoder's threads collapse; one thread holds up
        os.environ["SMARTVECTOR_EMBED_THREADS"] = "1"
    embedder = get_embedder()
    out["embed_backend"] = type(embedder).__name__
    out["embed_threads"] = embed_threads() or os.cpu_count()
    small, large = sizes["query_sizes"]
    for label, n in (("small", small), ("large", large)):
        say(f"query at {n} chunks")
        figures = bench_query(n, embedder, repeats=sizes["query_repeats"],
                              recall_queries=sizes["recall_queries"] if label == "large" else 0)
        if "recall_at_20" in figures:
            out["recall_at_20"] = figures.pop("recall_at_20")
        out[f"query_{label}_chunks"] = n
        out[f"query_{label}"] = figures
    out["query_p50_ms"] = {str(small): out["query_small"]["query_p50_ms"], str(large): out["query_large"]["query_p50_ms"]}
    out["query_overhead_ratio"] = max(out["query_small"]["query_overhead_ratio"],
                                      out["query_large"]["query_overhead_ratio"])
    say("query on real text")
    for key, indexed in (("query_real", False), ("query_real_indexed", True)):
        out[key] = bench_query_real(embedder, rounds=sizes["real_rounds"], limit=sizes["real_limit"],
                                    sets=sizes.get("real_sets", REAL_SETS), cache=sizes.get("real_cache"),
                                    vector_index=indexed)
    out["query_overhead_ratio_real"] = max(out["query_real"]["query_overhead_ratio"],
                                           out["query_real_indexed"]["query_overhead_ratio"])
    # beside it, over embed + the plainest top-60 search (issue 30, item 4): the worst form and store
    out["plain_overhead_ratio_real"] = max(out[key][form]["plain_overhead_ratio"] for key in
                                           ("query_real", "query_real_indexed") for form in ("passages", "documents"))
    say("ingest")
    torch_model = torch_baseline(embedder)
    out.update(bench_question_embed(embedder, torch_model, sizes["query_repeats"]))
    out.update(bench_ingest(embedder, sizes["ingest_chunks"], torch_model))
    del torch_model
    say("surgical edit")
    out.update(bench_surgical(embedder))
    say("consolidate")
    c_small, c_large = sizes["consolidate_sizes"]
    t_small, t_large = bench_consolidate(c_small), bench_consolidate(c_large)
    out["consolidate_s"] = {str(c_small): t_small, str(c_large): t_large}
    out["consolidate_growth_exponent"] = (round(math.log(t_large / t_small) / math.log(c_large / c_small), 3)
                                          if t_small and t_large else None)
    say(f"peak RSS of ingesting {sizes['rss_chunks']} chunks")
    out.update(bench_peak_rss(sizes["rss_chunks"]))
    out["anchors"] = ANCHORS
    out["targets_met"] = check_targets(out)
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def emit_figures(out: dict, path: Path | None = None) -> None:
    """The end of every benchmark script: ``load_avg_1m_at_end`` (the machine is shared: the
    load at the start and at the end say how fair the run was), the figures as one JSON line on
    stdout, and with ``path`` the same figures indented into that file."""
    out["load_avg_1m_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out))
    if path:
        Path(path).write_text(json.dumps(out, indent=1) + "\n")


def check_targets(out: dict) -> dict[str, bool | None]:
    """Each speed target (``TARGETS``) against the figures (None where a figure is missing)."""
    values = {
        "rerank_1000_ms": out.get("rerank_1000_ms"),
        "query_p50_ms_large": out.get("query_large", {}).get("query_p50_ms"),
        "query_overhead_ratio": out.get("query_overhead_ratio"),
        "query_overhead_ratio_real": out.get("query_overhead_ratio_real"),
        "plain_overhead_ratio_real": out.get("plain_overhead_ratio_real"),
        "ingest_vs_encode_ratio": out.get("ingest_vs_encode_ratio"),
        "consolidate_s_large": max((v for v in out.get("consolidate_s", {}).values() if v is not None), default=None),
        "consolidate_growth_exponent": out.get("consolidate_growth_exponent"),
        "surgical_reembed_fraction": out.get("surgical_reembed_fraction"),
        "peak_rss_mb": out.get("peak_rss_mb"), "recall_at_20": out.get("recall_at_20"),
    }
    met = {}
    for key, (op, bound) in TARGETS.items():
        value = values.get(key)
        met[key] = None if value is None else (value <= bound if op == "<=" else value >= bound)
    return met


def _real_row(real: dict | None) -> tuple[str, str, str, str]:
    if not real:
        return ("Query overhead on real text", "not measured", "≤ 1.15", "")
    p, d = real["passages"], real["documents"]
    index = "with a vector index" if real.get("vector_index") else "no vector index"
    return (f"Query overhead on real text ({real['real_chunks']:,} chunks of {' + '.join(real['real_sets'])}, "
            f"{index}, {real['real_questions']} questions × {real['rounds']} rounds)",
            f"× {p['query_overhead_ratio']} passages (rounds {min(p['ratio_per_round'])}–{max(p['ratio_per_round'])}), "
            f"× {d['query_overhead_ratio']} one per document; p50 {p['query_p50_ms']} ms, raw {real['raw_p50_ms']} ms"
            + (f"; over embed + plain top-60 search ({real['plain_p50_ms']} ms): × {p['plain_overhead_ratio']} passages, "
               f"× {d['plain_overhead_ratio']} per document" if "plain_p50_ms" in real else ""),
            "≤ 1.15 (over plain ≤ 1.25)", "issue 18 harness: 1.54–1.58 (news), 1.55 (docs)")


def format_table(out: dict) -> str:
    """The figures as plain text lines (``perf`` without ``--json``)."""
    lines = [f"cores: {out['cores']}  mode: {out['mode']}  load at start: {out['load_avg_1m_at_start']}"]
    for key, value in out.items():
        if key in ("cores", "mode", "load_avg_1m_at_start", "targets_met"):
            continue
        lines.append(f"{key:>34}: {json.dumps(value, default=str)}")
    lines.append("targets met: " + ", ".join(f"{k}={v}" for k, v in out["targets_met"].items()))
    return "\n".join(lines)


KEEP_BELOW = "<!-- sections below are kept by `perf`: measured by their own scripts, each with its method -->"


def perf_markdown(out: dict, previous: str = "") -> str:
    """docs/PERF.md: the run's figures beside the targets and the peers' figures; the part of
    ``previous`` (the page as it was) from :data:`KEEP_BELOW` on is kept as it is."""
    q_small, q_large = out["query_small"], out["query_large"]
    c = out["consolidate_s"]
    rows = [
        ("Rerank + explain 1,000 candidates (median)", f"{out['rerank_1000_ms']} ms "
         f"(cold text caches {out['rerank_1000_cold_ms']} ms)", "≤ 2 ms", "temporal-rag: 640–1,200 ms"),
        (f"Query p50 at {out['query_small_chunks']:,} chunks (embed, search, rerank, log)",
         f"{q_small['query_p50_ms']} ms (raw {q_small['raw_p50_ms']} ms)", "", ""),
        (f"Query p50 at {out['query_large_chunks']:,} chunks", f"{q_large['query_p50_ms']} ms "
         f"(raw {q_large['raw_p50_ms']} ms)", "≤ 30 ms", "SmartVector reference: scans every vector"),
        ("Query overhead over embed + raw LanceDB search", f"× {out['query_overhead_ratio']}"
         + (f" (over embed + plain top-60, no prefilter, 3 columns: × {q_small['plain_overhead_ratio']} at "
            f"{out['query_small_chunks']:,}, × {q_large['plain_overhead_ratio']} at {out['query_large_chunks']:,})"
            if "plain_overhead_ratio" in q_large else ""), "≤ 1.15", ""),
        _real_row(out.get("query_real")),
        _real_row(out.get("query_real_indexed")),
        ("Embed one question (p50)", f"{out.get('question_embed_ms')} ms ({out.get('embed_backend')}; "
         f"PyTorch sentence-transformers {out.get('question_embed_torch_ms')} ms)", "", ""),
        ("Recall@20 of the vector index vs brute force", f"{out['recall_at_20']}", "≥ 0.95", ""),
        ("Ingest throughput", f"{out['ingest_chunks_per_s']} chunks/s (plain SentenceTransformer.encode "
         f"{out['encode_chunks_per_s']}, our encoder alone {out.get('backend_encode_chunks_per_s')})", "", ""),
        ("Ingest / plain encode throughput", f"{out['ingest_vs_encode_ratio']} (over our encoder alone "
         f"{out.get('ingest_vs_backend_encode_ratio')})", "≥ 0.9", ""),
        ("Consolidate " + " / ".join(f"{int(k):,}" for k in c) + " chunks",
         " / ".join("n/a" if v is None else f"{v} s" for v in c.values()), "≤ 60 s at 10k",
         "SmartVector reference: 259 s for 1,000"),
        ("Consolidation growth exponent", f"{out['consolidate_growth_exponent']}", "≤ 1.2", ""),
        ("Re-embedded share, one-word edit in a 20-chunk document", f"{out['surgical_reembed_fraction']}",
         "≤ 0.05", ""),
        (f"Peak RSS ingesting {out['rss_chunks']:,} chunks", f"{out['peak_rss_mb']} MB", "≤ 2,000 MB", ""),
    ]
    lines = ["# Performance", "",
             f"Measured by `python -m smartvector_core perf` ({out['mode']} run) on this machine: "
             f"{out['cores']} cores, 1-minute load average {out['load_avg_1m_at_start']} at the start "
             f"(the machine was shared); encoder {out.get('embed_backend')} on {out.get('embed_threads')} "
             "threads. Raw figures: "
             "`docs/perf.json`.", "",
             "| figure | ours | target | peers |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {t} | {p} |" for a, b, t, p in rows]
    lines += ["", "How each figure is made: `smartvector_core/evaluation/perf/` (docstrings). Stores are built in "
              "temporary directories. Query stores hold embedding-like vectors (2,000 topic directions "
              "plus noise: top-1 neighbour cosine ~0.86, as MiniLM paraphrases score), written directly "
              "because encoding 100k passages would take an hour and is not what is measured; the "
              "question is embedded by the real MiniLM (ONNX Runtime, the default encoder) in both the "
              "end-to-end and the raw timing. The raw timing is a plain LanceDB search with the same "
              "prefilter returning every column the reranker reads; the end-to-end query asks LanceDB "
              "for the hits' row ids and distances only and takes their columns from its in-memory copy "
              "of the chunks table and the document-level ones from its knowledge state, so it can be "
              "faster than the raw search it is compared with. Queries are timed in a server's steady "
              "state: after the first question, and after that copy is built (in the background above "
              "20k rows; `text_index_wait_s`). "
              "Consolidation runs on hashing-embedder vectors of synthetic text; the peak-RSS child "
              "loads and runs MiniLM, writes random vectors, and reads its own VmHWM. Ingest, the "
              "surgical edit and the encoder baselines use real MiniLM encoding: `ingest_vs_encode_ratio` "
              "is over plain `SentenceTransformer.encode` (PyTorch), `ingest_vs_backend_encode_ratio` "
              "over our encoder alone. Random unit vectors are not used for recall: in 384 dimensions "
              "they have no near neighbours, and no approximate index finds their top-20 "
              "(IVF_HNSW_SQ: 0.34).", ""]
    missed = [key for key, ok in out.get("targets_met", {}).items() if ok is False]
    lines += [("Targets missed in this run: " + ", ".join(f"`{k}`" for k in missed) + ".") if missed
              else "Every target is met in this run.", ""]
    kept = previous[previous.index(KEEP_BELOW):] if KEEP_BELOW in previous else ""
    return "\n".join(lines) + ("\n" + kept if kept else "")
