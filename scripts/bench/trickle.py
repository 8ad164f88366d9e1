"""Queries over HTTP while another process writes: p50/p99 steady and during a trickle.

    python scripts/bench/trickle.py --store DIR [--clients 4] [--steady 20] [--writes 60]

Copies the built store ``--store`` (e.g. the 100k synthetic store of ``perf``'s builder) to a
temporary directory, starts ``python -m smartvector_core serve`` on a free 127.0.0.1 port over
it, warms it for 25 s (the in-memory copy of the chunks table builds in the background), then
runs ``--clients`` client threads posting ``/query`` (the perf questions, ``default``, k = 5, no
pause) for ``--steady`` seconds, then for as long as another process ingests ``--writes``
one-chunk documents, one a second (no consolidation). Prints one JSON object: requests, errors,
p50 and p99 per phase, the writes' count / p50 / max seconds, and the load average at start and
end. ``--repo``: another checkout's server and writer (e.g. main, the baseline). Every loop is
bounded; traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from smartvector_core.evaluation.perf.stores import QUESTIONS  # noqa: E402
from tests.servers import free_port  # noqa: E402

WRITER = '''
import sys, time, uuid; sys.path.insert(0, {repo!r})
from datetime import datetime, timezone
from smartvector_core.evaluation.perf.stores import open_app
from smartvector_core.embedding import get_embedder
app = open_app({store!r}, get_embedder()); took = []
start = time.time()
for i in range({writes}):
    tag = uuid.uuid4().hex[:8]
    t0 = time.time()
    app.ingest_records([{{"id": "trickle_" + tag, "text": "The " + tag + " quota is " + str(i) + " requests per minute.",
                         "created_at": "2025-12-01T00:00:00Z"}}], now=datetime(2026, 1, 14, tzinfo=timezone.utc),
                       consolidate=False)
    took.append(time.time() - t0)
    time.sleep(max(0.0, start + i + 1 - time.time()))
print(len(took), round(sorted(took)[len(took) // 2], 3), round(max(took), 3))
'''


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--steady", type=float, default=20)
    ap.add_argument("--writes", type=int, default=60)
    ap.add_argument("--repo", default=str(REPO), help="the checkout whose server and writer run (a baseline: main)")
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        store = str(Path(tmp) / "store")
        shutil.copytree(args.store, store)
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "smartvector_core", "--store", store, "serve", "--port", str(port)],
                                  cwd=args.repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def post(text: str) -> dict:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/query", headers={"Content-Type": "application/json"},
                                         data=json.dumps({"text": text, "as_of": "2026-01-15T12:00:00Z"}).encode())
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())
        try:
            for _ in range(240):
                try:
                    post(QUESTIONS[0])
                    break
                except Exception:  # noqa: BLE001 - not up yet
                    time.sleep(0.5)
            end = time.time() + 25
            while time.time() < end:
                post(QUESTIONS[1])
            phase = {"name": "steady"}
            lat: dict[str, list[float]] = {"steady": [], "trickle": []}
            errors = {"steady": 0, "trickle": 0}
            stop = threading.Event()

            def client(i: int) -> None:
                n = i
                while not stop.is_set() and n < 100_000:
                    name = phase["name"]
                    t0 = time.perf_counter()
                    try:
                        post(QUESTIONS[n % len(QUESTIONS)])
                        lat[name].append(time.perf_counter() - t0)
                    except Exception:  # noqa: BLE001 - counted
                        errors[name] += 1
                    n += args.clients
            threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
            for t in threads:
                t.start()
            time.sleep(args.steady)
            phase["name"] = "trickle"
            writer = subprocess.Popen([sys.executable, "-c", WRITER.format(repo=args.repo, store=store, writes=args.writes)],
                                      cwd=args.repo, env=env, stdout=subprocess.PIPE, text=True)
            out, _ = writer.communicate(timeout=60 + 10 * args.writes)
            stop.set()
            for t in threads:
                t.join(timeout=120)

            def ms(xs, p):
                return round(float(np.percentile(xs, p)) * 1000, 1) if xs else None
            print(json.dumps({"repo": args.repo, "clients": args.clients, "writes (count, p50 s, max s)": out.strip(),
                              **{f"{k}_requests": len(v) for k, v in lat.items()},
                              **{f"{k}_errors": v for k, v in errors.items()},
                              **{f"{k}_p50_ms": ms(v, 50) for k, v in lat.items()},
                              **{f"{k}_p99_ms": ms(v, 99) for k, v in lat.items()},
                              "load_start": [round(x, 2) for x in load_start],
                              "load_end": [round(x, 2) for x in os.getloadavg()]}))
        finally:
            server.terminate()
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
