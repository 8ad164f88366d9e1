"""The perf harness's measurements: rerank, query (synthetic and real text), recall of the
vector index, question embedding, ingest, the surgical edit, consolidation and peak RSS
(``python -m smartvector_core perf``, docs/PERF.md). Each builds its own stores in a temporary
directory (inputs: :mod:`.stores`); figures are medians of repeated runs on this machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

from ...clock import parse_time
from ...embedding import HashingEmbedder, SentenceEmbedder, get_embedder
from ...facts import quantities, statements
from ...ingest.chunking import chunk_document
from ...retrieval import calibration, scoring
from ...retrieval.candidates import SEARCH_COLUMNS
from ...retrieval.pipeline import QueryRequest, answer
from ...retrieval.profiles import get_profile
from ...service import SmartVector
from ...settings import embed_threads
from .stores import (
    DIM,
    QUESTIONS,
    REAL_SETS,
    WORDS,
    chunk_rows,
    embedding_like_vectors,
    fill,
    fixed_now,
    open_app,
    real_store,
    synthetic_candidates,
    synthetic_knowledge,
    synthetic_records,
    synthetic_text,
    unit_vectors,
)


# ----------------------------------------------------------------------------- rerank
def bench_rerank(n: int = 1000, repeats: int = 100, profile: str = "default") -> float:
    """Median ms of :func:`retrieval.pipeline.answer` (score, gate, dedup, explain) over ``n``."""

    cands, as_of = synthetic_candidates(n)
    knowledge = synthetic_knowledge(cands)
    prof = get_profile(profile)
    request = QueryRequest("What is the current API rate limit per key?", as_of, prof, 5, "perf")
    for _ in range(3):
        answer(cands, request, prof, knowledge)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        answer(cands, request, prof, knowledge)
        times.append(time.perf_counter() - t0)
    return float(np.median(times) * 1000)


def bench_rerank_cold(n: int = 1000, repeats: int = 20, profile: str = "default") -> float:
    """As :func:`bench_rerank`, with the memoised text parsers, the texts' word sets
    (:func:`calibration.text_words`) and the titles' item counts (:func:`scoring.roundup_titles`)
    cleared before each run."""

    cands, as_of = synthetic_candidates(n)
    knowledge = synthetic_knowledge(cands)
    prof = get_profile(profile)
    request = QueryRequest("What is the current API rate limit per key?", as_of, prof, 5, "perf")
    caches = [f for m in (quantities, statements) for f in vars(m).values() if hasattr(f, "cache_clear")]
    times = []
    for _ in range(repeats):
        for f in caches:
            f.cache_clear()
        calibration.clear_text_words()
        scoring._TITLE_ITEMS.clear()
        t0 = time.perf_counter()
        answer(cands, request, prof, knowledge)
        times.append(time.perf_counter() - t0)
    return float(np.median(times) * 1000)


# ----------------------------------------------------------------------------- query
def bench_query(n: int, embedder, *, repeats: int, recall_queries: int = 0) -> dict:
    """End-to-end query (embed, search, rerank, log) against embed + the raw LanceDB search, in
    the steady state of a server: after the first question, and after the in-memory copy of the
    chunks table is built (a store above 20k rows builds it in the background: while it runs the
    queries read LanceDB's columns and compete with it for the cores; its time is
    ``text_index_wait_s``)."""

    out: dict = {}
    with tempfile.TemporaryDirectory() as directory:
        app = open_app(directory, embedder)
        fill(app.store, n, vectors=embedding_like_vectors(n, np.random.default_rng(11)))
        t0 = time.perf_counter()
        out["indexes"] = app.store.ensure_indexes()
        out["index_build_s"] = round(time.perf_counter() - t0, 2)
        as_of = fixed_now()
        app.batching = True
        app.query(QUESTIONS[0], as_of=as_of)
        t0 = time.perf_counter()
        app.query_cache().wait_for_text_index()
        out["text_index_wait_s"] = round(time.perf_counter() - t0, 2)
        raw, e2e, plain = [], [], []
        for r in range(repeats):
            q = QUESTIONS[r % len(QUESTIONS)]
            for which in ((0, 1, 2) if r % 2 else (2, 1, 0)):   # alternate the order: no warm-cache bias
                t0 = time.perf_counter()
                if which == 1:
                    app.query(q, as_of=as_of)
                elif which == 2:
                    app.store.plain_search(embedder.encode([q])[0], limit=60)
                else:
                    app.store.search(embedder.encode([q])[0], as_of=as_of, limit=60, columns=SEARCH_COLUMNS)
                (raw, e2e, plain)[which].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        app.flush()
        flush_s = time.perf_counter() - t0
        out.update(query_p50_ms=_ms(np.median(e2e)), raw_p50_ms=_ms(np.median(raw)),
                   query_overhead_ratio=round(float(np.median(e2e) / np.median(raw)), 3),
                   plain_p50_ms=_ms(np.median(plain)),
                   plain_overhead_ratio=round(float(np.median(e2e) / np.median(plain)), 3),
                   log_flush_ms_per_query=_ms(flush_s / (repeats + 1)),
                   mean_overhead_ratio_with_flush=round(float((np.sum(e2e) + flush_s) / np.sum(raw)), 3))
        if recall_queries:
            out["recall_at_20"] = recall_at_20(app.store, recall_queries)
    return out


def bench_query_real(embedder, *, rounds: int = 3, sets: tuple[str, ...] = REAL_SETS,
                     cache: Path | None = None, limit: int | None = None, vector_index: bool = False) -> dict:
    """The end-to-end query on real text against embed + the raw LanceDB search: every question of the real sets at its own ``as_of``, ``default``, k = 5,
    no logging, the two timings alternated in order. The raw search is the one of
    :func:`bench_query` (top 60, the existence prefilter, every column the reranker reads).
    Both result forms are timed: passages (``group_by="chunk"``, the default) and one result
    per document. Each of ``rounds`` rounds asks every question once per form; the figures
    are the p50 over all rounds, ``query_overhead_ratio`` = p50(query) / p50(raw), and its
    value per round (``ratio_per_round``: the spread). ``vector_index``: the store with a vector
    index (:func:`stores.real_store`)."""

    directory, questions = real_store(embedder, sets=sets, cache=cache, limit=limit, vector_index=vector_index)
    app = open_app(str(directory), embedder)
    asked = [(q["text"], parse_time(q["as_of"])) for q in questions]
    app.query(asked[0][0], as_of=asked[0][1], log=False)      # warm: model, knowledge state, indexes
    app.query_cache().wait_for_text_index()          # a server's steady state
    forms = ("chunk", "document")
    times: dict[str, list[list[float]]] = {f: [] for f in ("raw", "plain", *forms)}
    for r in range(rounds):
        for series in times.values():
            series.append([])
        for i, (text, as_of) in enumerate(asked):
            steps = ["raw", "plain", *forms] if (r + i) % 2 else [*forms, "plain", "raw"]
            for step in steps:
                t0 = time.perf_counter()
                if step == "raw":
                    app.store.search(embedder.encode([text])[0], as_of=as_of, limit=60, columns=SEARCH_COLUMNS)
                elif step == "plain":
                    app.store.plain_search(embedder.encode([text])[0], limit=60)
                else:
                    app.query(text, as_of=as_of, log=False, group_by=step)
                times[step][-1].append(time.perf_counter() - t0)
    every = {step: np.concatenate(series) for step, series in times.items()}
    out = {"real_sets": list(sets), "real_chunks": app.store.count_chunks(), "real_questions": len(asked),
           "vector_index": "vector" in app.store.chunk_indexes(), "rounds": rounds,
           "raw_p50_ms": _ms(np.median(every["raw"])), "plain_p50_ms": _ms(np.median(every["plain"]))}
    for form, key in (("chunk", "passages"), ("document", "documents")):
        out[key] = {"query_p50_ms": _ms(np.median(every[form])), "query_p95_ms": _ms(np.percentile(every[form], 95)),
                    "query_overhead_ratio": round(float(np.median(every[form]) / np.median(every["raw"])), 3),
                    "plain_overhead_ratio": round(float(np.median(every[form]) / np.median(every["plain"])), 3),
                    "ratio_per_round": [round(float(np.median(e) / np.median(w)), 3)
                                        for e, w in zip(times[form], times["raw"], strict=True)]}
    out["query_overhead_ratio"] = max(out["passages"]["query_overhead_ratio"],
                                      out["documents"]["query_overhead_ratio"])
    return out


def recall_at_20(store, queries: int, *, seed: int = 7) -> float:
    """Share of the exact top-20 (brute force, same prefilter) that the indexed search returns.

    Queries are stored vectors moved by noise (a question lies near, not on, its passages);
    the store holds :func:`embedding_like_vectors`."""
    rng = np.random.default_rng(seed)
    _, base = store.current_chunks(("chunk_id",))
    picks = base[rng.integers(0, len(base), queries)] + rng.standard_normal((queries, base.shape[1])) * 0.03
    hits = []
    for q in picks.astype(np.float32):
        approx = store.search(q, as_of=fixed_now(), limit=20, columns=["chunk_id"]).column("chunk_id").to_pylist()
        exact = store.search(q, as_of=fixed_now(), limit=20, columns=["chunk_id"], exact=True).column("chunk_id").to_pylist()
        hits.append(len(set(approx) & set(exact)) / max(1, len(exact)))
    return round(float(np.mean(hits)), 4)


def _ms(seconds: float) -> float:
    return round(float(seconds) * 1000, 2)


# ---------------------------------------------------------------------------- ingest
def bench_question_embed(embedder, torch_model, repeats: int) -> dict:
    """Median ms to embed one question: our encoder, and plain PyTorch sentence-transformers."""
    out = {}
    for key, model in (("question_embed_ms", embedder), ("question_embed_torch_ms", torch_model)):
        model.encode(QUESTIONS[:2])   # warm
        times = []
        for r in range(repeats):
            t0 = time.perf_counter()
            model.encode([QUESTIONS[r % len(QUESTIONS)]])
            times.append(time.perf_counter() - t0)
        out[key] = _ms(np.median(times))
    return out


def torch_baseline(embedder):
    """Plain PyTorch sentence-transformers (the baseline of the encoder figures)."""

    return embedder if isinstance(embedder, SentenceEmbedder) else SentenceEmbedder(threads=embed_threads())


def bench_ingest(embedder, n_chunks: int, torch_model=None) -> dict:
    """Ingest throughput (validate, chunk, classify, embed, write) over plain encoding.

    ``ingest_vs_encode_ratio`` is over plain ``SentenceTransformer.encode`` (PyTorch) of the same
    texts (the target's definition); ``ingest_vs_backend_encode_ratio`` is over our own encoder's
    ``encode`` alone (ONNX Runtime by default), i.e. what the pipeline costs beyond encoding.
    Each encoder is timed before and after the ingest and the two times averaged."""

    records = synthetic_records(n_chunks)
    texts = [c.text for r in records for c in chunk_document(r["id"], r["text"])]
    torch_model = torch_model or torch_baseline(embedder)

    def encode_s(model) -> float:
        t0 = time.perf_counter()
        model.encode(texts, batch_size=64)
        return time.perf_counter() - t0

    encode_s(torch_model), encode_s(embedder)   # warm
    plain, ours = [encode_s(torch_model)], [encode_s(embedder)]
    with tempfile.TemporaryDirectory() as directory:
        app = open_app(directory, embedder)
        app.store.count_chunks()
        t0 = time.perf_counter()
        report = app.ingest_records(records, now=fixed_now(), consolidate=False)
        ingest_s = time.perf_counter() - t0
    plain.append(encode_s(torch_model))
    ours.append(encode_s(embedder))
    per_text = report.chunks / len(texts) / ingest_s
    return {"ingest_chunks": report.chunks, "ingest_chunks_per_s": round(report.chunks / ingest_s, 1),
            "encode_chunks_per_s": round(len(texts) / float(np.mean(plain)), 1),
            "backend_encode_chunks_per_s": round(len(texts) / float(np.mean(ours)), 1),
            "ingest_vs_encode_ratio": round(float(np.mean(plain)) * per_text, 3),
            "ingest_vs_backend_encode_ratio": round(float(np.mean(ours)) * per_text, 3)}


def bench_surgical(embedder) -> dict:
    """Re-embedded share of a 20-chunk document after a one-word edit."""
    rng = np.random.default_rng(11)
    paragraphs = [f"Clause {p}. {synthetic_text(rng, 70)}" for p in range(20)]   # each one chunk (>= 400 chars)
    record = {"id": "surgical", "title": "Surgical", "text": "\n\n".join(paragraphs),
              "created_at": "2025-06-01T00:00:00Z", "doc_type": "policy", "kind": "STATIC"}
    with tempfile.TemporaryDirectory() as directory:
        app = open_app(directory, embedder)
        first = app.ingest_records([record], now=fixed_now(), consolidate=False)
        words = paragraphs[7].split()
        words[5] = "zebra"
        paragraphs[7] = " ".join(words)
        edited = dict(record, text="\n\n".join(paragraphs))
        second = app.ingest_records([edited], now=fixed_now() + timedelta(hours=1), consolidate=False)
    return {"surgical_chunks": first.chunks, "surgical_reembedded": second.chunks_embedded,
            "surgical_reembed_fraction": round(second.chunks_embedded / max(1, second.chunks), 4)}


# ----------------------------------------------------------------------- consolidate
def bench_consolidate(n: int) -> float | None:
    """Seconds of one full consolidation of ``n`` freshly written chunks (None without one).

    Text families share titles (version chains) and change numbers (contradictions); vectors
    come from the hashing embedder so near texts are near vectors, as with a real model."""

    if not hasattr(SmartVector, "consolidate"):
        return None
    rng = np.random.default_rng(5)
    texts = [f"The {WORDS[i % len(WORDS)]} limit of family {i // 3} is {int(rng.integers(1, 500))} "
             f"requests per minute. {synthetic_text(rng, 12)}" for i in range(n)]
    titles = [f"Family {i // 3} policy" for i in range(n)]
    hashing = HashingEmbedder(DIM)
    with tempfile.TemporaryDirectory() as directory:
        app = open_app(directory, hashing)
        app.store.add_chunks(chunk_rows(n, per_doc=1, vectors=hashing.encode(texts), texts=texts,
                                        titles=titles, lifecycle="UNCONSOLIDATED"))
        app.store.ensure_indexes()
        t0 = time.perf_counter()
        app.consolidate(now=fixed_now())
        return round(time.perf_counter() - t0, 3)


# ------------------------------------------------------------------------------- rss
def _rss_child(n_chunks: int) -> None:
    """Subprocess body: load the model, encode once, ingest ``n_chunks`` chunks; print peak RSS.

    The model is loaded and run (its memory counts) but the bulk vectors are random unit
    vectors: encoding 100k passages would take ~an hour on 2 cores and is not what is measured.
    """

    model = get_embedder()
    model.encode([synthetic_text(np.random.default_rng(0), 40) for _ in range(64)])

    class RandomVectors:
        name, dim = "random", model.dim

        def __init__(self) -> None:
            self.rng = np.random.default_rng(1)

        def encode(self, texts, **_):
            return unit_vectors(len(texts), self.rng, self.dim)

    with tempfile.TemporaryDirectory() as directory:
        app = open_app(directory, RandomVectors())
        t0 = time.perf_counter()
        report = app.ingest_records(synthetic_records(n_chunks, per_doc=5, prefix="rss"), now=fixed_now(), consolidate=False)
        seconds = time.perf_counter() - t0
    # VmHWM belongs to this process image: ru_maxrss would also carry the high-water mark the
    # parent had when it forked this child (the perf run itself, with its 100k-row stores)
    peak_kb = vm_hwm_kb() or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"peak_rss_mb": round(peak_kb / 1024, 1), "rss_chunks": report.chunks,
                      "rss_ingest_s": round(seconds, 1)}))


def vm_hwm_kb() -> int | None:
    """Peak resident set of this process image, from /proc (Linux), in kB."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def bench_peak_rss(n_chunks: int) -> dict:
    code = f"from smartvector_core.evaluation.perf.benchmarks import _rss_child; _rss_child({int(n_chunks)})"
    env = dict(os.environ, LANCEDB_LOG="error")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=str(Path(__file__).resolve().parents[3]), timeout=3600)
    if done.returncode != 0:
        return {"peak_rss_mb": None, "rss_error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])
