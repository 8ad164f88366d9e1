"""Render every dashboard page with AppTest against a store of ~10,000 chunks; print the times.

    .venv/bin/python scripts/bench/page_timings.py [--chunks 10000] [--store DIR] [--json]

Builds (once; reused when ``--store`` already holds data) a synthetic store with the hashing
embedder: documents of two paragraphs (two chunks each), version chains of up to four
versions (``supersedes``), some ``depends_on`` links, a spread of kinds, doc types and dates.
Each page is rendered in one AppTest session: ``cold`` (first visit: layouts and caches
built), then ``--repeat`` more times: ``warm`` is their median wall time and ``cpu`` the
median CPU time of this process (steadier when other work shares the machine). The Query Lab is timed with a side-by-side
query submitted. Target: every page within 1.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LANCEDB_LOG", "error")

PAGES = ["pages/overview.py", "pages/ingest.py", "pages/query_lab.py", "pages/knowledge_graph.py",
         "pages/freshness.py", "pages/rejection_log.py", "pages/feedback_audit.py", "pages/evaluation.py"]
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
WORDS = ["rate", "limit", "policy", "refund", "window", "incident", "outage", "region", "api", "key", "request", "minute", "release", "version", "security", "retention", "legal", "research", "model", "scale", "cluster", "gateway", "billing", "plan", "support", "webhook"]
DOC_TYPES = ["policy", "news", "research", "legal", "reference", "breaking_news", "general"]


def synthetic_records(n_docs: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)

    def paragraph() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(80)).capitalize() + "."

    records = []
    for i in range(n_docs):
        created = NOW - timedelta(days=rng.uniform(0, 900))
        rec = {"id": f"doc_{i:05d}", "title": f"Synthetic {rng.choice(WORDS)} {rng.choice(WORDS)} {i // 4}",
               "text": paragraph() + "\n\n" + paragraph(), "created_at": created.isoformat(),
               "doc_type": rng.choice(DOC_TYPES)}
        if i % 4:                                        # chains of four versions
            rec["supersedes"] = f"doc_{i - 1:05d}"
            rec["kind"] = "VERSIONED"
        if i > 50 and rng.random() < 0.1:
            rec["depends_on"] = [f"doc_{rng.randrange(0, i - 1):05d}"]
        records.append(rec)
    return records


def build_store(store: Path, chunks: int) -> None:
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    sv = SmartVector(load_settings(str(store), env={"SMARTVECTOR_MODEL": "hashing"}))
    if sv.store.count_chunks() >= chunks:
        return
    records = synthetic_records(chunks // 2)
    start = time.perf_counter()
    sv.ingest_records(records, now=NOW, actor="page_timings")
    print(f"built {sv.store.count_chunks()} chunks, {len(records)} documents in "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)


def _timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def time_pages(repeat: int = 3) -> dict[str, dict[str, float]]:
    """Per page: ``cold`` (first visit), ``warm`` (median wall time of ``repeat`` more visits)
    and ``cpu`` (median CPU time of this process for those visits: steadier on a busy machine)."""
    from statistics import median

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    wall, _ = _timed(at.run)
    out = {"app.py (first run: imports, store, model)": {"cold": wall}}

    def visit(page: str):
        at.switch_page(page).run()
        if at.exception:
            raise RuntimeError(f"{page}: {at.exception[0].value}")

    for page in PAGES:
        cold, _ = _timed(lambda page=page: visit(page))
        runs = [_timed(lambda page=page: visit(page)) for _ in range(repeat)]
        out[page] = {"cold": cold, "warm": median(r[0] for r in runs), "cpu": median(r[1] for r in runs)}
        if page.endswith("query_lab.py"):
            def ask():
                at.text_input(key="lab_text").input("What is the rate limit policy for an api key?")
                at.button[0].click().run()
            runs = [_timed(ask) for _ in range(repeat)]
            out["pages/query_lab.py + side-by-side query"] = {"warm": median(r[0] for r in runs),
                                                              "cpu": median(r[1] for r in runs)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--store", help="store directory (default: a temporary one)")
    parser.add_argument("--repeat", type=int, default=3, help="warm renders per page (median reported)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sv-timings-") as tmp:
        store = Path(args.store or Path(tmp) / "store")
        build_store(store, args.chunks)
        os.environ.update(SMARTVECTOR_STORE=str(store), SMARTVECTOR_MODEL="hashing")
        os.environ.pop("SMARTVECTOR_OPERATOR_TOKEN", None)
        results = time_pages(args.repeat)
    if args.json:
        print(json.dumps({k: {m: round(v, 3) for m, v in t.items()} for k, t in results.items()}))
        return 0
    print(f"{'page':50s} {'cold s':>8s} {'warm s':>8s} {'cpu s':>8s}")
    for page, t in results.items():
        cells = [f"{t[m]:.2f}" if m in t else "-" for m in ("cold", "warm", "cpu")]
        print(f"{page:50s} {cells[0]:>8s} {cells[1]:>8s} {cells[2]:>8s}")
    pages = [t for k, t in results.items() if k.startswith("pages/")]
    print(f"slowest page: warm {max(t['warm'] for t in pages):.2f} s wall, {max(t['cpu'] for t in pages):.2f} s CPU "
          f"(target 1.5 s; load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
