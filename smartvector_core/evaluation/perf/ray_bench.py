"""``ingest --engine ray`` against the local engine at size (docs/SCALING.md).

Both engines ingest the same ``--chunks`` chunks (documents of 4 distinct paragraphs of
English-like text, ``perf.synthetic_records``: every chunk text unique, so every chunk is encoded) into
fresh stores, with no consolidation, in one process: the local engine
(``SmartVector.ingest_records``) and the Ray engine (``scaleout.ray_ingest.ingest_documents_ray``
on a local Ray cluster of ``--workers`` CPUs: one encoder actor per CPU, one ONNX thread each,
then the driver's writes). ``ray.init`` is timed apart. Then the two stores are compared row by
row: every column of every chunk row equal (``ingested_at`` too: both run with the same
``now``), vectors equal to 1e-5 (ONNX Runtime batches the texts differently in the two engines,
which moves float32 results by ~1e-7).

The Ray engine's phases come with it (``ray_stats``: driver validation, preparation overlapped
with encoding, the wait for the last vectors, the actors' summed encode time, the driver's
writes), and ``probe``: one encoder actor's start-up and Ray's cost of moving a batch of texts
out and its vectors back (:func:`actor_probe`): the terms of the model in docs/SCALING.md.

``--model hashing`` uses the hashing embedder: what remains is the engines' own cost (chunking,
orchestration, row building, writes) without the encoder.

    python -m smartvector_core.evaluation.perf.ray_bench --chunks 100000 --workers 2 [--model hashing] [--json OUT]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa


def _app(directory: str, model: str, embedder):
    from ...service import SmartVector
    from ...settings import load_settings

    return SmartVector(load_settings(directory, env={"SMARTVECTOR_MODEL": model}), embedder=embedder)


def _local_embedder(model: str, threads: int):
    from ...embedding import OnnxEmbedder, get_embedder

    return get_embedder(model) if model.startswith("hashing") else OnnxEmbedder(model, threads=threads)


def _table(app) -> pa.Table:
    rows = app.store.all_rows("chunks")
    return rows.take(pa.array(np.lexsort((rows.column("current").to_numpy(zero_copy_only=False),
                                          np.asarray(rows.column("chunk_id").to_pylist(), dtype=object)))))


def time_indexes(app, out: dict, key: str) -> None:
    """Add the seconds of every ``ensure_indexes`` call of ``app``'s store to ``out[key]`` (the
    index build at the end of an ingest: the same serial cost in both engines)."""
    original = app.store.ensure_indexes
    out[key] = 0.0

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            out[key] = round(out[key] + time.perf_counter() - t0, 1)

    app.store.ensure_indexes = timed


def same_contents(a, b) -> dict:
    left, right = _table(a), _table(b)
    out = {"rows": [left.num_rows, right.num_rows], "columns_differing": []}
    if left.num_rows != right.num_rows:
        out["equal"] = False
        return out
    for name in left.column_names:
        if name == "vector":
            x = np.stack(left.column(name).to_numpy(zero_copy_only=False))
            y = np.stack(right.column(name).to_numpy(zero_copy_only=False))
            out["vector_max_abs_diff"] = float(np.abs(x - y).max()) if len(x) else 0.0
            if not np.allclose(x, y, atol=1e-5):
                out["columns_differing"].append(name)
        elif pa.types.is_floating(left.schema.field(name).type):      # NaN (no authority) == NaN
            x, y = (c.to_numpy(zero_copy_only=False).astype(np.float64) for c in (left.column(name), right.column(name)))
            if not np.array_equal(x, y, equal_nan=True):
                out["columns_differing"].append(name)
        elif not left.column(name).equals(right.column(name)):
            out["columns_differing"].append(name)
    out["equal"] = not out["columns_differing"]
    return out


def actor_probe(model: str, batch: int, texts: list[str], rounds: int = 5) -> dict:
    """Ray's own costs, apart from the encoder: the start of one encoder actor of ``model``
    (worker process, imports, model load: until its first reply), and the round trip of one
    call of ``batch`` texts minus the actor's own encode time (pickled texts out, one float32
    array back; measured with the hashing encoder at the same 384 dimensions, median of
    ``rounds``)."""
    import ray

    from ...scaleout.ray_ingest import EncoderPool

    t0 = time.perf_counter()
    started = EncoderPool(model, 1, batch=batch)
    ray.get(started.actors[0].encoder_id.remote())
    start_s = time.perf_counter() - t0
    started.close()
    pool = EncoderPool("hashing", 1, batch=batch)
    actor = pool.actors[0]
    ray.get(actor.encoder_id.remote())
    sample = (texts * (batch // max(1, len(texts)) + 1))[:batch]
    overheads = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        _, seconds = ray.get(actor.encode.remote(sample))
        overheads.append(time.perf_counter() - t0 - seconds)
    pool.close()
    call = float(np.median(overheads))
    return {"actor_start_s": round(start_s, 2), "batch": batch, "call_overhead_ms": round(1000 * call, 2),
            "transfer_us_per_chunk": round(1e6 * call / batch, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--batch", type=int, default=2048, help="texts per encoder-actor call (ray_ingest.ENCODE_BATCH)")
    parser.add_argument("--ray-first", action="store_true", help="run the Ray engine before the local one")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from ...ingest import validate_records
    from ...scaleout.ray_ingest import LazyEmbedder, ensure_ray, ingest_documents_ray
    from .. import perf

    os.environ.setdefault("LANCEDB_LOG", "error")
    records = perf.synthetic_records(args.chunks, per_doc=4, prefix="ray")
    out: dict = {"cores": os.cpu_count(), "load_avg_1m_at_start": round(os.getloadavg()[0], 2),
                 "model": args.model, "workers": args.workers, "documents": len(records),
                 "order": "ray, local" if args.ray_first else "local, ray"}
    with tempfile.TemporaryDirectory() as root:
        local = _app(f"{root}/local", args.model, _local_embedder(args.model, args.workers))
        local.embedder.encode(["warm up"])
        time_indexes(local, out, "local_index_s")
        distributed = _app(f"{root}/ray", args.model, LazyEmbedder(args.model))
        time_indexes(distributed, out, "ray_index_s")
        reports = {}

        def run_local() -> None:
            t0 = time.perf_counter()
            reports["local"] = local.ingest_records(records, now=perf.fixed_now(), consolidate=False)
            out["local_s"] = round(time.perf_counter() - t0, 1)
            out["local_encode_s"] = round(reports["local"].encode_seconds, 1)

        def run_ray() -> None:
            t0 = time.perf_counter()
            ensure_ray(num_cpus=args.workers)
            out["ray_init_s"] = round(time.perf_counter() - t0, 1)
            t0 = time.perf_counter()
            docs = validate_records(records, ingest_time=perf.fixed_now())      # as the local engine does
            stats: dict = {"validate_s": round(time.perf_counter() - t0, 3)}
            reports["ray"] = ingest_documents_ray(distributed.store, docs, model_name=args.model,
                                                  now=perf.fixed_now(), batch=args.batch, stats=stats)
            out["ray_s"] = round(time.perf_counter() - t0, 1)
            out["ray_stats"] = {k: round(v, 3) if isinstance(v, float) else v for k, v in stats.items()}

        os.environ["SMARTVECTOR_EMBED_THREADS"] = "1"  # each Ray encoder actor: one thread (local: its own)
        for run in ((run_ray, run_local) if args.ray_first else (run_local, run_ray)):
            run()
        out["chunks"] = reports["local"].chunks
        out["reports_equal"] = reports["local"].to_dict() == reports["ray"].to_dict()
        for engine in ("local", "ray"):
            out[f"{engine}_ms_per_chunk"] = round(1000 * out[f"{engine}_s"] / max(1, out["chunks"]), 3)
            out[f"{engine}_ms_per_chunk_without_index"] = round(
                1000 * (out[f"{engine}_s"] - out[f"{engine}_index_s"]) / max(1, out["chunks"]), 3)
        out["ray_speedup"] = round(out["local_s"] / out["ray_s"], 3)
        out["ray_speedup_with_init"] = round(out["local_s"] / (out["ray_s"] + out["ray_init_s"]), 3)
        out["ray_speedup_without_index"] = round((out["local_s"] - out["local_index_s"])
                                                 / max(0.1, out["ray_s"] - out["ray_index_s"]), 3)
        out["same_contents"] = same_contents(local, distributed)
        out["probe"] = actor_probe(args.model, args.batch, [t for r in records[:64] for t in r["text"].split("\n\n")])
    perf.emit_figures(out, args.json)


if __name__ == "__main__":
    main()
