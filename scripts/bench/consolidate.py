"""Benchmark of the consolidation agent: seconds to consolidate stores of n chunks, and growth.

Builds synthetic stores (policy-like texts with numbers and units, versions sharing a title,
citations, conflicting sources) with the deterministic hashing embedder, ingests them without
consolidating, then times ``consolidate`` (the first run: every document is new) and one
incremental run after adding 1% more documents. Prints one JSON line per size and the growth
exponent log(t2/t1)/log(n2/n1), of wall time and of CPU time (the process's own: less sensitive
to other work on a shared 2-core machine; BLAS threads count towards it).

    python scripts/bench/consolidate.py [--sizes 1000,10000] [--embedder hashing|real] [--exact-limit N] [--json]

The neighbour search is exact up to ``ConsolidationConfig.exact_limit`` chunks and uses inverted
lists above (``neighbour_search`` in the JSON line); ``--exact-limit 0`` uses the lists at every
size, a large one keeps it exact (to compare the two on one corpus).

``--embedder real``: the texts are embedded by the real all-MiniLM-L6-v2 (the default
ONNX encoder) instead of the hashing embedder, so neighbour search sees real embedding geometry.
The vectors are computed once per size and kept in ``$SMARTVECTOR_CACHE_DIR/consolidate-vectors``
(``--prepare`` only fills that cache); the timed ingest then reads them from the cache.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("LANCEDB_LOG", "error")

import numpy as np  # noqa: E402

from smartvector_core.consolidation import DEFAULT_CONSOLIDATION  # noqa: E402
from smartvector_core.embedding import HashingEmbedder  # noqa: E402
from smartvector_core.service import SmartVector  # noqa: E402
from smartvector_core.settings import load_settings  # noqa: E402

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SUBJECTS = ["refunds", "api calls", "password resets", "support tickets", "invoices", "uploads",
            "exports", "sessions", "backups", "trial accounts", "seats", "webhooks", "audit logs",
            "shipments", "returns", "vacation requests", "expense claims", "badges", "laptops", "licences"]
VERBS = ["are accepted within", "are limited to", "expire after", "are kept for", "are processed within",
         "must be filed within", "are reviewed every", "are capped at"]
UNITS = ["days", "hours", "minutes", "weeks", "requests", "percent", "GB", "seats"]
FILLER = ["the", "team", "owner", "region", "customer", "plan", "tier", "account", "workspace", "project",
          "office", "partner", "vendor", "contract", "billing", "security", "compliance", "operations",
          "finance", "people", "platform", "product"]


def corpus(n: int, seed: int = 7, start_id: int = 0) -> list[dict]:
    rng = random.Random(seed + start_id)
    base = NOW - timedelta(days=400)
    titles = [f"{rng.choice(SUBJECTS).title()} policy {k}" for k in range(max(1, n // 4))]
    out = []
    for i in range(start_id, start_id + n):
        k = rng.randrange(len(titles))
        subject = rng.choice(SUBJECTS)
        sentences = [f"{subject.capitalize()} {rng.choice(VERBS)} {rng.randint(1, 90)} {rng.choice(UNITS)}."]
        sentences += [" ".join(rng.choice(FILLER) for _ in range(12)).capitalize() + "." for _ in range(3)]
        if rng.random() < 0.1 and i > start_id:
            sentences.append(f"See doc_{rng.randrange(start_id, i)} for details.")
        out.append({"id": f"doc_{i}", "title": titles[k], "text": " ".join(sentences),
                    "created_at": (base + timedelta(hours=rng.randrange(24 * 390))).isoformat(),
                    "kind": "VERSIONED" if rng.random() < 0.7 else "STATIC",
                    "doc_type": rng.choice(["policy", "reference", "research"]),
                    "source": rng.choice(["docs", "wiki", "forum"])})
    return out


class CachedEmbedder:
    """The real encoder behind a cache of vectors by text (one ``.npz`` per corpus size)."""

    def __init__(self, path: Path) -> None:
        from smartvector_core.embedding import get_embedder

        self.model = get_embedder()
        self.name, self.encoder_id, self.dim = self.model.name, self.model.encoder_id, self.model.dim
        self.path = path
        self.cache: dict[str, object] = {}
        if path.is_file():
            stored = np.load(path, allow_pickle=True)
            self.cache = dict(zip(stored["texts"].tolist(), stored["vectors"], strict=True))

    def encode(self, texts, **kwargs):
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            for start in range(0, len(missing), 2048):
                part = missing[start:start + 2048]
                self.cache.update(zip(part, self.model.encode(part, **kwargs), strict=True))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(self.path, texts=np.asarray(list(self.cache), dtype=object),
                     vectors=np.stack(list(self.cache.values())))
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)


def _embedder(kind: str, n: int):
    if kind == "hashing":
        return HashingEmbedder()
    from smartvector_core.embedding import cache_dir

    return CachedEmbedder(cache_dir() / "consolidate-vectors" / f"minilm-{n}.npz")


def _texts(n: int) -> list[str]:
    from smartvector_core.ingest.chunking import chunk_document

    return [c.text for r in corpus(n) + corpus(max(1, n // 100), start_id=n) for c in chunk_document(r["id"], r["text"])]


def run(n: int, embedder: str = "hashing", exact_limit: int | None = None) -> dict:
    config = DEFAULT_CONSOLIDATION if exact_limit is None else replace(DEFAULT_CONSOLIDATION, exact_limit=exact_limit)
    with tempfile.TemporaryDirectory() as tmp:
        app = SmartVector(load_settings(str(Path(tmp) / "store"), env={}), embedder=_embedder(embedder, n))
        t0 = time.perf_counter()
        app.ingest_records(corpus(n), now=NOW, consolidate=False)
        ingest_s = time.perf_counter() - t0
        load_start = os.getloadavg()[0]
        t0, c0 = time.perf_counter(), time.process_time()
        first = app.consolidate(now=NOW, config=config)
        first_s, first_cpu = time.perf_counter() - t0, time.process_time() - c0
        extra = max(1, n // 100)
        app.ingest_records(corpus(extra, start_id=n), now=NOW, consolidate=False)
        t0, c0 = time.perf_counter(), time.process_time()
        app.consolidate(now=NOW, config=config)
        incremental_s, incremental_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        again = app.consolidate(now=NOW, config=config)
        again_s = time.perf_counter() - t0
        return {"chunks": first["chunks"], "embedder": embedder, "ingest_s": round(ingest_s, 2), "consolidate_s": round(first_s, 2),
                "consolidate_cpu_s": round(first_cpu, 2), "load_average_start": round(load_start, 1),
                "load_average": round(os.getloadavg()[0], 1),
                "neighbour_search": "exact" if first["chunks"] <= config.exact_limit else "lists",
                "incremental_docs": extra, "incremental_s": round(incremental_s, 2),
                "incremental_cpu_s": round(incremental_cpu, 2), "noop_s": round(again_s, 2),
                "examined_pairs": first["examined_pairs"], "supersessions": first["supersessions"],
                "contradictions": first["contradictions"], "dependencies": first["dependencies"],
                "archived": first["archived"], "dormant": first["dormant"], "timings": first["timings"],
                "second_run_writes": again["supersessions"] + again["contradictions"] + again["dependencies"]
                + again["archived"] + again["dormant"] + again["activated"] + again["rippled"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--embedder", choices=("hashing", "real"), default="hashing")
    parser.add_argument("--prepare", action="store_true", help="only compute and cache the real vectors")
    parser.add_argument("--exact-limit", type=int, default=None,
                        help="ConsolidationConfig.exact_limit for these runs (0: the inverted lists at every size)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.prepare:
        for n in sizes:
            t0 = time.perf_counter()
            texts = _texts(n)
            _embedder("real", n).encode(texts)
            print(json.dumps({"prepared": n, "texts": len(texts), "seconds": round(time.perf_counter() - t0, 1)}),
                  flush=True)
        return 0
    rows = []
    for n in sizes:
        row = run(n, args.embedder, args.exact_limit)
        rows.append(row)
        print(json.dumps(row) if args.json else
              f"{row['chunks']:>7} chunks: consolidate {row['consolidate_s']:.2f} s (CPU {row['consolidate_cpu_s']:.2f} s, "
              f"load {row['load_average']}) "
              f"(+{row['incremental_docs']} docs incremental {row['incremental_s']:.2f} s, no-op {row['noop_s']:.2f} s), "
              f"{row['examined_pairs']} pairs, {row['supersessions']} supersessions, "
              f"{row['contradictions']} contradictions, {row['dependencies']} dependencies", flush=True)
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        scale = math.log(b["chunks"] / a["chunks"])
        exponent = math.log(b["consolidate_s"] / a["consolidate_s"]) / scale
        cpu_exponent = math.log(b["consolidate_cpu_s"] / a["consolidate_cpu_s"]) / scale
        print(json.dumps({"growth_exponent": round(exponent, 3), "growth_exponent_cpu": round(cpu_exponent, 3)})
              if args.json else f"growth exponent {exponent:.2f} wall, {cpu_exponent:.2f} CPU "
                                f"({a['chunks']} -> {b['chunks']} chunks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
