"""int8 against fp32, in one run: agreement, encode and ingest speed, quality.

- **agreement**: cosine between the fp32 and the int8 vector of every chunk text of the real
  sets (data/real/, 3,784 chunks) and of their questions: mean, 1st percentile, minimum.
- **speed** (one process, both encoders loaded and warmed, the runs alternated fp32/int8 so
  neither gets the quieter minute): encode throughput on the real chunk texts, and ingest
  throughput (validate, chunk, classify, embed, write; no consolidation) of the real corpora
  into a fresh temporary store; ``--repeats`` runs of each, median and spread.
- **quality** (subprocesses through the CLI, ``SMARTVECTOR_EMBED_BACKEND=onnx`` vs
  ``onnx-int8``): ``bench --suite paper`` (held-out split) and ``bench --corpus`` on the test
  split of each real set, profiles naive and default: top-1 and containment@5.

The int8 variant becomes the default only if ingest is >= 1.6x fp32, and top-1 is within 1 point
on the paper suite and on each real set (``verdict``).

    python scripts/bench/encoders.py [--parts agreement,speed,quality] [--repeats 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LANCEDB_LOG", "error")

import numpy as np  # noqa: E402

SETS = ("flask-docs", "changelogs")
SPEEDUP_NEEDED = 1.6
POINT = 0.01


def _records() -> list[dict]:
    return [json.loads(line) for name in SETS
            for line in (ROOT / "data" / "real" / name / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _questions() -> list[str]:
    return [json.loads(line)["text"] for name in SETS
            for line in (ROOT / "data" / "real" / name / "queries.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _encoders():
    from smartvector_core.embedding import OnnxEmbedder, embed_threads

    return {"fp32": OnnxEmbedder(threads=embed_threads()), "int8": OnnxEmbedder(threads=embed_threads(), int8=True)}


def agreement(encoders, texts: list[str], questions: list[str]) -> dict:
    out = {}
    for label, items in (("chunks", texts), ("questions", questions)):
        cosine = (encoders["fp32"].encode(items) * encoders["int8"].encode(items)).sum(axis=1)
        out[label] = {"n": len(items), "mean": round(float(cosine.mean()), 4),
                      "p01": round(float(np.percentile(cosine, 1)), 4), "min": round(float(cosine.min()), 4)}
    return out


def speed(encoders, records: list[dict], texts: list[str], repeats: int) -> dict:
    from smartvector_core.evaluation import perf

    for enc in encoders.values():
        enc.encode(texts[:64])
    runs: dict[str, dict[str, list[float]]] = {k: {"encode": [], "ingest": []} for k in encoders}
    chunks = 0
    for r in range(repeats):
        for label in (("fp32", "int8") if r % 2 == 0 else ("int8", "fp32")):
            enc = encoders[label]
            t0 = time.perf_counter()
            enc.encode(texts)
            runs[label]["encode"].append(len(texts) / (time.perf_counter() - t0))
            with tempfile.TemporaryDirectory() as directory:
                app = perf.open_app(directory, enc)
                app.store.count_chunks()
                t0 = time.perf_counter()
                report = app.ingest_records(records, now=perf.fixed_now(), consolidate=False)
                runs[label]["ingest"].append(report.chunks / (time.perf_counter() - t0))
                chunks = report.chunks
    out: dict = {"chunks": chunks, "repeats": repeats}
    for label, figures in runs.items():
        out[label] = {f"{k}_chunks_per_s": round(float(np.median(v)), 1) for k, v in figures.items()}
        out[label].update({f"{k}_runs": [round(x, 1) for x in v] for k, v in figures.items()})
    for k in ("encode", "ingest"):
        out[f"{k}_speedup"] = round(out["int8"][f"{k}_chunks_per_s"] / out["fp32"][f"{k}_chunks_per_s"], 3)
        out[f"{k}_speedup_per_run"] = [round(b / a, 3) for a, b in zip(runs["fp32"][k], runs["int8"][k], strict=True)]
    return out


def _cli_bench(args: list[str], backend: str) -> dict:
    env = {**os.environ, "SMARTVECTOR_EMBED_BACKEND": backend, "LANCEDB_LOG": "error"}
    done = subprocess.run([sys.executable, "-m", "smartvector_core", "bench", *args, "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"bench {' '.join(args)} ({backend}) failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def quality(profiles: str = "naive,default") -> dict:
    from real import split_queries

    out: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        suites = {"paper": ["--suite", "paper", "--profiles", profiles, "--rates", "none"]}
        for name in SETS:
            queries = split_queries(name, "test", Path(folder))
            suites[name] = ["--corpus", str(ROOT / "data" / "real" / name / "corpus.jsonl"), "--queries",
                            str(queries), "--profiles", profiles, "--k", "5"]
        for suite, args in suites.items():
            out[suite] = {}
            for label, backend in (("fp32", "onnx"), ("int8", "onnx-int8")):
                t0 = time.perf_counter()
                result = _cli_bench(args, backend)["profiles"]
                out[suite][label] = {p: {m: v[m] for m in ("top1", "containment_at_5", "n") if m in v}
                                     for p, v in result.items()}
                out[suite][label]["seconds"] = round(time.perf_counter() - t0, 1)
            out[suite]["top1_change_default"] = round(out[suite]["int8"]["default"]["top1"]
                                                      - out[suite]["fp32"]["default"]["top1"], 4)
    return out


def verdict(out: dict) -> dict:
    checks = {}
    if "speed" in out:
        checks["ingest_speedup_at_least_1.6"] = out["speed"]["ingest_speedup"] >= SPEEDUP_NEEDED
    if "agreement" in out:
        checks["mean_cosine_at_least_0.99"] = out["agreement"]["chunks"]["mean"] >= 0.99
    for suite, figures in out.get("quality", {}).items():
        checks[f"{suite}_top1_within_1_point"] = figures["top1_change_default"] >= -POINT
    return {"checks": checks, "make_default": bool(checks) and all(checks.values())
            and {"speed", "agreement", "quality"} <= set(out)}


def main() -> None:
    from smartvector_core.evaluation import perf

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="agreement,speed,quality")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=0, help="first N records only (a quick check)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    out: dict = {"cores": os.cpu_count(), "load_avg_1m_at_start": round(os.getloadavg()[0], 2)}
    records = _records()[:args.limit or None]
    if parts & {"agreement", "speed"}:
        from smartvector_core.ingest.chunking import chunk_document

        texts = [c.text for r in records for c in chunk_document(r["id"], r["text"])]
        encoders = _encoders()
        out["threads"] = os.environ.get("SMARTVECTOR_EMBED_THREADS") or "library default"
        if "agreement" in parts:
            out["agreement"] = agreement(encoders, texts, _questions())
        if "speed" in parts:
            out["speed"] = speed(encoders, records, texts, args.repeats)
        print(json.dumps(out), flush=True)
    if "quality" in parts:
        sys.path.insert(0, str(ROOT / "scripts" / "bench"))
        out["quality"] = quality()
    out["verdict"] = verdict(out)
    perf.emit_figures(out, args.json)


if __name__ == "__main__":
    main()
