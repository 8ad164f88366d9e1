"""Local vs Ray consolidation time: ``python scripts/bench/ray_consolidate.py [N]``.

Ingests N synthetic policy-like documents (``scripts/bench/consolidate.py`` ``corpus``: numbers with units,
versions sharing a title, citations; about one chunk each) with the hashing embedder into two
fresh stores without consolidating, then times the first (all-new) consolidation with the local
engine and with the Ray engine on ``ray.init(num_cpus=2)`` (start-up timed apart; ``--warm``: the workers are started and
have imported the code before the timed run), checks that
both wrote the same edges and lifecycle, and prints one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("LANCEDB_LOG", "error")

from consolidate import NOW, corpus  # noqa: E402

from smartvector_core.embedding import HashingEmbedder  # noqa: E402
from smartvector_core.scaleout.ray_ingest import REPO_ROOT  # noqa: E402
from smartvector_core.service import SmartVector  # noqa: E402
from smartvector_core.settings import load_settings  # noqa: E402


def _state(app: SmartVector):
    edges = sorted((r["src"], r["dst"], r["edge_type"], r["evidence"]) for r in app.store.edges().to_pylist())
    return edges, sorted((r["doc_id"], r["lifecycle"]) for r in app.store.documents().to_pylist())


def main(n: int, warm: bool = False) -> dict:
    import ray

    @ray.remote(num_cpus=1)
    def _warm() -> bool:
        import smartvector_core.consolidation  # noqa: F401

        time.sleep(0.5)
        return True

    records = corpus(n)
    out: dict = {"documents": n, "warm_workers": warm, "load_average_before": round(os.getloadavg()[0], 1)}
    with tempfile.TemporaryDirectory() as tmp:
        apps = {}
        for name in ("local", "ray"):
            apps[name] = SmartVector(load_settings(f"{tmp}/{name}", env={}), embedder=HashingEmbedder())
            apps[name].ingest_records(records, now=NOW, consolidate=False)
        t = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"PYTHONPATH": str(REPO_ROOT)}})
        out["ray_init_s"] = round(time.perf_counter() - t, 2)
        if warm:  # start the 2 workers and import the consolidation code there first
            t = time.perf_counter()
            ray.get([_warm.remote() for _ in range(4)])
            out["ray_warmup_s"] = round(time.perf_counter() - t, 2)
        for name, engine in (("local", "local"), ("ray", "ray")):
            t = time.perf_counter()
            report = apps[name].consolidate(now=NOW, engine=engine)
            out[f"{name}_s"] = round(time.perf_counter() - t, 2)
            out[f"{name}_find_s"] = round(report["timings"]["neighbours"], 2)
            out["chunks"] = report["chunks"]
            out["examined_pairs"] = report["examined_pairs"]
            out["contradictions"] = report["contradictions"]
        ray.shutdown()
        out["identical"] = _state(apps["local"]) == _state(apps["ray"])
    out["load_average_after"] = round(os.getloadavg()[0], 1)
    out["ray_over_local"] = round(out["local_s"] / out["ray_s"], 2)
    return out


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--warm"]
    print(json.dumps(main(int(args[0]) if args else 5000, warm="--warm" in sys.argv)))
