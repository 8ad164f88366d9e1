"""Time the dashboard in a real browser (Chromium through Playwright) and take its screenshots.

    .venv/bin/python scripts/bench/browser_timings.py --store DIR [--model hashing] [--repeat 7]
        [--screenshots docs/screenshots] [--json]

Serves ``app.py`` on 127.0.0.1 against ``--store`` and, in Chromium at 1440×900, measures the
Query Lab round trip as an operator feels it: from the click on "Run side by side" until both
profiles' new cards are on screen and Streamlit has stopped running (first question: cold;
the median of ``--repeat`` more: warm), then the time each page takes to show its content.
Beside the wall times it reports the work of a round trip, which does not depend on how busy
the machine is: the page run's CPU time on the server (its caption) plus the renderer main
thread's busy time in Chromium (CDP ``Performance.getMetrics`` ``TaskDuration``).
With ``--screenshots`` it saves one PNG per page there (the README's pictures).
Build a large store first with ``scripts/bench/page_timings.py --chunks 100000 --store DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.servers import CHROMIUM, CHROMIUM_FLAGS, streamlit_app  # noqa: E402

QUESTIONS = ["What is the rate limit policy for an api key?", "refund window for billing plans",
             "incident outage in a region", "security retention policy", "gateway webhook release version",
             "support plan scale cluster", "legal research model", "api key request per minute",
             "billing refund policy version"]
#: page path -> (title, text that shows the page has its content)
PAGES = {"": ("SmartVector Studio", "Recent events"), "ingest": ("Ingest", "Upload files"),
         "query_lab": ("Query Lab", "Profile: default"), "knowledge_graph": ("Knowledge Graph", "Relations"),
         "freshness": ("Review worklist", "live documents"), "rejection_log": ("Rejection Log", "Counts by code"),
         "feedback_audit": ("Feedback & Audit", "Review queue"), "evaluation": ("Evaluation", "Run benchmark")}


def settled(page, timeout_ms: int = 60_000) -> None:
    """Wait until Streamlit has finished the run (no running indicator, no stale elements)."""
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]') && "
        "!document.querySelector('[data-stale=\"true\"]') && "
        "!document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=timeout_ms)


def ask(page, question: str) -> float:
    """Seconds from the click to both profiles' new cards being on screen, run finished."""
    # the same elements as the wait below reads ('body *' also matched their wrappers, so the
    # old string never equalled the new one and a click could be timed before its run began)
    old = page.evaluate("() => [...document.querySelectorAll('[data-testid=\"stText\"]')].map(e => e.textContent)"
                        ".filter(t => t.startsWith('query id ')).join('|')")
    page.get_by_label("Question").fill(question)
    start = time.perf_counter()
    page.get_by_role("button", name="Run side by side").click()
    page.wait_for_function(
        "(old) => { const ids = [...document.querySelectorAll('[data-testid=\"stText\"]')]"
        ".map(e => e.textContent).filter(t => t.startsWith('query id ')); "
        "return ids.length >= 2 && ids.join('|') !== old; }", arg=old, timeout=60_000)
    settled(page)
    return time.perf_counter() - start


def page_run_ms(page) -> tuple[float, float]:
    """The server's wall and CPU time for the last Query Lab run, from the page's caption."""
    import re

    text = page.get_by_text(re.compile(r"page run \d+ ms")).first.inner_text()
    found = re.search(r"page run (\d+) ms \(CPU (\d+) ms", text)
    return (float(found.group(1)), float(found.group(2))) if found else (float("nan"), float("nan"))


def renderer_busy_s(cdp) -> float:
    """Seconds the page's renderer main thread has spent on tasks so far (CDP Performance)."""
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return float(metrics.get("TaskDuration", 0.0))


def run(store: str, model: str, repeat: int, shots: Path | None) -> dict:
    from playwright.sync_api import sync_playwright

    log_path = Path(os.environ.get("TMPDIR", "/tmp")) / "sv_browser_timings.log"
    out: dict = {"store": store, "model": model}
    with streamlit_app(store, model, log_path, timeout=90) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        outside: list[str] = []
        page.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1", "data:", "blob:"))
                else outside.append(r.url))
        page.goto(f"{url}/query_lab", wait_until="domcontentloaded")
        page.get_by_role("heading", name="Query Lab").wait_for(timeout=120_000)
        settled(page, 120_000)
        out["query_lab_cold_s"] = ask(page, QUESTIONS[0])
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        warm, server, cpu, browser_cpu = [], [], [], []
        load_before = os.getloadavg()[0]
        for i in range(repeat):
            busy = renderer_busy_s(cdp)
            warm.append(ask(page, QUESTIONS[1 + i % (len(QUESTIONS) - 1)]))
            browser_cpu.append(renderer_busy_s(cdp) - busy)
            wall_ms, cpu_ms = page_run_ms(page)
            server.append(wall_ms)
            cpu.append(cpu_ms)
        out["query_lab_warm_s"] = statistics.median(warm)
        out["query_lab_warm_max_s"] = max(warm)
        out["query_lab_page_run_ms"] = statistics.median(server)
        out["query_lab_page_cpu_ms"] = statistics.median(cpu)
        out["query_lab_renderer_busy_ms"] = round(statistics.median(browser_cpu) * 1000, 1)
        out["query_lab_work_ms"] = round(out["query_lab_page_cpu_ms"] + out["query_lab_renderer_busy_ms"], 1)
        out["load_average"] = [load_before, os.getloadavg()[0]]   # 1-minute, before and after the warm questions
        out["query_lab_warm_all_s"] = [round(w, 3) for w in warm]
        loads = {}
        for path, (title, marker) in PAGES.items():
            start = time.perf_counter()
            page.goto(f"{url}/{path}", wait_until="domcontentloaded")
            page.get_by_role("heading", name=title).first.wait_for(timeout=120_000)
            if path == "query_lab":
                ask(page, QUESTIONS[0])
            page.get_by_text(marker).first.wait_for(timeout=120_000)
            settled(page, 120_000)
            loads[title] = round(time.perf_counter() - start, 3)
            if shots is not None:
                shots.mkdir(parents=True, exist_ok=True)
                page.wait_for_timeout(600)
                page.screenshot(path=str(shots / f"{path or 'overview'}.png"), full_page=False)
        out["page_load_s"] = loads
        out["requests_outside_127.0.0.1"] = sorted(set(outside))
        browser.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--model", default="hashing")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--screenshots", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = run(args.store, args.model, args.repeat, args.screenshots)
    print(json.dumps(out, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
