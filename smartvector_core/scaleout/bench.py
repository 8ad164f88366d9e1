"""Ray engine vs local engine throughput: ``python -m smartvector_core.scaleout.bench N``.

Ingests N synthetic one-chunk documents (30 words each) with the real MiniLM, first with the Ray
engine on ``ray.init(num_cpus=2)``, then with the local engine (torch on 2 threads), each into
a fresh temporary store; prints one JSON line. Run it on a quiet machine.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime

NOW = datetime(2026, 11, 30, tzinfo=UTC)
WORDS = ["api", "rate", "limit", "quota", "token", "billing", "invoice", "region", "latency", "deploy", "rollback", "policy", "seat", "plan", "user", "admin", "audit", "log", "error", "retry", "cache", "index", "shard", "replica", "backup", "restore", "version", "release"]


def synthetic_records(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    return [{"id": f"d{i:06d}", "title": f"note {i}", "created_at": "2026-01-01T00:00:00Z",
             "text": " ".join(rng.choice(WORDS) for _ in range(30)) + f" ref {i}."} for i in range(n)]


def main(n: int) -> dict:
    os.environ.setdefault("LANCEDB_LOG", "error")
    import ray

    from ..ingest import ingest_documents, validate_records
    from ..service import SmartVector
    from ..settings import load_settings
    from .ray_ingest import REPO_ROOT, LazyEmbedder, ingest_documents_ray

    docs = validate_records(synthetic_records(n), ingest_time=NOW)
    tmp = tempfile.mkdtemp()
    out: dict = {"n_docs": n}
    t = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(REPO_ROOT)}})
    out["ray_init_s"] = round(time.perf_counter() - t, 1)
    app = SmartVector(load_settings(f"{tmp}/ray", env={}), embedder=LazyEmbedder("all-MiniLM-L6-v2"))
    t = time.perf_counter()
    report = ingest_documents_ray(app.store, docs, model_name=app.settings.model_name, now=NOW,
                                  embedder=app.embedder)
    out.update(ray_s=round(time.perf_counter() - t, 1), ray_chunks=report.chunks)
    ray.shutdown()

    os.environ["SMARTVECTOR_EMBED_THREADS"] = "2"
    local = SmartVector(load_settings(f"{tmp}/local", env={}))
    t = time.perf_counter()
    _ = local.embedder
    out["local_model_load_s"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    report = ingest_documents(local.store, local.embedder, docs, now=NOW)
    out.update(local_s=round(time.perf_counter() - t, 1), local_encode_s=round(report.encode_seconds, 1),
               local_chunks=report.chunks)
    out["ray_throughput_over_local"] = round(out["local_s"] / out["ray_s"], 2)
    return out


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)))
