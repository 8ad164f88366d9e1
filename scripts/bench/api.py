"""Load test of the HTTP query API against the in-process query, on one store, in one run.

    .venv/bin/python scripts/bench/api.py [--chunks 100000] [--clients 8] [--seconds 60] [--json]

Builds a store of ``--chunks`` synthetic chunks (embedding-like vectors, the same builder as
``perf``), builds its indexes, then:

1. in-process: ``SmartVector.query`` from 1 thread and from ``--clients`` threads (p50, p99), with
   the query log written in the background as the server does (the same work);
2. over HTTP: ``python -m smartvector_core serve`` in a subprocess on a free 127.0.0.1 port, with
   1 client and then ``--clients`` concurrent clients for ``--seconds`` each (throughput, p50,
   p99, errors), each client on one kept-alive connection. Traffic goes to 127.0.0.1 only; every
   loop is bounded in count and time.

The questions are the perf questions; each request asks ``k = 5`` of ``default``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from smartvector_core.embedding import get_embedder  # noqa: E402
from smartvector_core.evaluation import perf  # noqa: E402
from tests.servers import free_port, wait_healthy  # noqa: E402

MAX_REQUESTS = 200_000   # hard bound on any loop below


def _summary(latencies: list[float], seconds: float, errors: int) -> dict:
    ms = np.asarray(latencies) * 1000
    return {"requests": len(ms), "errors": errors, "throughput_rps": round(len(ms) / seconds, 1),
            "p50_ms": round(float(np.percentile(ms, 50)), 2) if len(ms) else None,
            "p99_ms": round(float(np.percentile(ms, 99)), 2) if len(ms) else None}


def _drive(call, clients: int, seconds: float) -> dict:
    """``clients`` threads calling ``call(i)`` in a loop for ``seconds`` (bounded)."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def worker(w: int) -> None:
        i = w
        while time.monotonic() < stop_at and len(latencies) < MAX_REQUESTS:
            t0 = time.perf_counter()
            try:
                call(i)
                with lock:
                    latencies.append(time.perf_counter() - t0)
            except Exception:  # noqa: BLE001 - counted, reported
                with lock:
                    errors[0] += 1
            i += clients

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker, args=(w,)) for w in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return _summary(latencies, time.monotonic() - t0, errors[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    questions = perf.QUESTIONS
    as_of = perf.fixed_now().isoformat()
    out: dict = {"chunks": args.chunks, "clients": args.clients, "seconds": args.seconds}
    with tempfile.TemporaryDirectory() as directory:
        embedder = get_embedder()
        app = perf.open_app(directory, embedder)
        perf.fill(app.store, args.chunks, vectors=perf.embedding_like_vectors(args.chunks, np.random.default_rng(11)))
        app.store.ensure_indexes()
        moment = perf.fixed_now()
        lock = threading.Lock()

        app.write_log_in_background(0.5)   # the same work as the server: answers logged in the background

        def local(i: int) -> None:
            with lock:   # the server serialises engine calls the same way
                app.query(questions[i % len(questions)], as_of=moment)

        local(0)
        out["in_process_1"] = _drive(local, 1, min(args.seconds, 20))
        out[f"in_process_{args.clients}"] = _drive(local, args.clients, min(args.seconds, 20))
        app.flush()

        port = free_port()
        env = {**os.environ, "SMARTVECTOR_STORE": directory, "LANCEDB_LOG": "error"}
        server = subprocess.Popen([sys.executable, "-m", "smartvector_core", "serve", "--port", str(port)],
                                  cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(base + "/health", server, timeout=120, what="serve")

            connections = threading.local()   # one kept-alive connection per client, as a RAG app pools them

            def remote(i: int) -> None:
                if not hasattr(connections, "http"):
                    connections.http = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                body = json.dumps({"text": questions[i % len(questions)], "as_of": as_of, "k": 5})
                connections.http.request("POST", "/query", body=body, headers={"Content-Type": "application/json"})
                reply = connections.http.getresponse()
                payload = reply.read()
                if reply.status != 200 or not payload:
                    raise RuntimeError(reply.status)

            remote(0)
            out["http_1"] = _drive(remote, 1, min(args.seconds, 20))
            out[f"http_{args.clients}"] = _drive(remote, args.clients, args.seconds)
        finally:
            server.terminate()
            server.wait(timeout=60)
    out["http_overhead_p50_ms_1_client"] = round(out["http_1"]["p50_ms"] - out["in_process_1"]["p50_ms"], 2)
    out[f"http_overhead_p50_ms_{args.clients}_clients"] = round(
        out[f"http_{args.clients}"]["p50_ms"] - out[f"in_process_{args.clients}"]["p50_ms"], 2)
    print(json.dumps(out, indent=None if args.json else 1))


if __name__ == "__main__":
    main()
