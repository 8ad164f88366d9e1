"""Real-browser tests: Streamlit served on 127.0.0.1, driven by Playwright through Debian's Chromium
at 1440×900, as an operator meets the dashboard.

Every page is opened and checked on what it shows (graph labels and arrows, one confidence value
in card, table and downloaded CSV, the moment judged, the abstention state, the undo of a verdict,
titled tables), the browser never asks a host other than 127.0.0.1 (the favicon included), the
toolbar has no "Deploy" button, a ``<script>`` title stays literal text, and one screenshot per
page is taken. With ``SMARTVECTOR_SCREENSHOT_MODEL`` set (``make screenshot``: the real MiniLM)
the screenshots are copied to ``docs/screenshots/`` (the README's pictures); a plain run uses
the hashing model and leaves those files alone.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.servers import CHROMIUM, CHROMIUM_FLAGS, streamlit_app
from tests.ui.conftest import SCRIPT_TITLE, seed_store

pytestmark = pytest.mark.browser


SCREENSHOT_MODEL = os.environ.get("SMARTVECTOR_SCREENSHOT_MODEL", "")


@pytest.fixture
def server(tmp_path: Path):
    store = tmp_path / "store"
    model = SCREENSHOT_MODEL or "hashing"
    seed_store(store, model)
    with streamlit_app(store, model, tmp_path / "streamlit.log") as url:
        yield url


SCREENSHOTS = REPO / "docs" / "screenshots"


def _settled(page, timeout_ms: int = 60_000) -> None:
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]') && "
                           "!document.querySelector('[data-stale=\"true\"]') && "
                           "!document.querySelector('[data-testid=\"stSkeleton\"]')", timeout=timeout_ms)


def _shot(page, folder: Path, name: str) -> Path:
    page.get_by_role("heading").first.scroll_into_view_if_needed()
    page.wait_for_timeout(600)        # let charts finish drawing before the picture
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    if SCREENSHOT_MODEL:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, SCREENSHOTS / path.name)
    return path


def _open(page, server: str, path: str, heading: str, timeout_ms: int = 60_000) -> None:
    page.goto(f"{server}/{path}", wait_until="domcontentloaded")
    page.get_by_role("heading", name=heading).first.wait_for(timeout=timeout_ms)
    _settled(page, timeout_ms)


_QUERY_IDS = ("() => [...document.querySelectorAll('[data-testid=\"stText\"]')].map(e => e.textContent)"
              ".filter(t => t.startsWith('query id ')).join('|')")


def _ask(page, question: str) -> None:
    """Ask, and return once both sides show the new answers (new query ids: a check right after
    the click could otherwise read the previous answers before the run began)."""
    old = page.evaluate(_QUERY_IDS)
    page.get_by_label("Question").fill(question)
    page.get_by_role("button", name="Run side by side").click()
    page.wait_for_function(f"(old) => {{ const ids = ({_QUERY_IDS})(); return ids.split('|').length >= 2 && "
                           "ids !== old; }", arg=old, timeout=60_000)
    _settled(page)


def _download(page, button) -> list[str]:
    """The lines of the CSV a download button gives. Clicked once more if no download starts in
    15 s: a file sent by one run of a fragment can be dropped by the next run before the click
    fetches it (streamlit#8932, "MediaFileHandler: Missing file"); a person clicks again too."""
    for attempt in range(2):
        try:
            with page.expect_download(timeout=15_000 if attempt == 0 else 30_000) as download:
                button.get_by_role("button").click()
            return Path(download.value.path()).read_text(encoding="utf-8").splitlines()
        except Exception:  # noqa: BLE001 - playwright's timeout: once more, then fail
            if attempt:
                raise
            _settled(page)
    raise AssertionError("unreachable")


def _check_query_lab(page, server, tmp_path) -> Path:
    """The Query Lab in the browser: cards with the moment judged, one confidence on the card, in the
    table and in the CSV; passages and charts on request; a verdict, its repeat and its undo; an
    abstention and a <script> title shown as text. Returns its screenshot."""
    # Query Lab: cards with the moment judged and one confidence in card, table and CSV
    _open(page, server, "query_lab", "Query Lab")
    _ask(page, "What was the API rate limit as of March 2025?")
    charts = page.locator('[data-testid="stPlotlyChart"]')
    assert charts.count() == 0          # the score breakdown is in the Results tables' bar columns
    assert page.get_by_text("judged at 2025-03-31").count() >= 1
    shot = _shot(page, tmp_path, "query_lab")
    card = page.locator('[data-testid="stText"]').filter(has_text=re.compile(r"confidence \d\.\d{3} \(")).first
    confidence = re.search(r"confidence (\d\.\d{3})", card.inner_text()).group(1)
    assert re.search(r"score \d\.\d{3} = semantic \d\.\d{3}", card.inner_text())   # the breakdown on the card
    assert page.get_by_text("Rejected (").count() >= 2
    assert page.locator('[data-testid="stDataFrame"]').count() == 0          # tables are sent when opened
    page.locator('[data-testid="stExpander"] summary').filter(has_text="Results · naive").first.click()
    page.locator('[data-testid="stDownloadButton"]').first.wait_for(timeout=30_000)
    _settled(page)
    csv = _download(page, page.locator('[data-testid="stDownloadButton"]').first)   # Results · naive
    header, first_row = csv[0].split(","), csv[1].split(",")
    assert float(first_row[header.index("confidence")]) == float(confidence)   # the card's number
    assert header[3:5] == ["score", "semantic_contribution"]        # the breakdown beside the score
    _settled(page)                       # the CSV is built on the click: let that request end first
    texts = page.locator('[data-testid="stText"]').count()
    page.locator('[data-testid="stExpander"] summary').filter(
        has_text=re.compile(r"Full text · \d+ passage")).first.click()   # passages come when opened
    page.wait_for_function(f"() => document.querySelectorAll('[data-testid=\"stText\"]').length > {texts}",
                           timeout=30_000)
    _settled(page)
    page.get_by_text("Score breakdown charts").click()             # the charts, on request
    charts.nth(1).wait_for(timeout=30_000)
    page.locator(".js-plotly-plot .barlayer").first.wait_for(timeout=30_000)
    assert charts.count() == 2
    _settled(page)

    # a verdict, the same verdict again (recorded once), then its undo
    page.get_by_role("button", name="Accept").first.click()
    page.get_by_text("accept recorded on").first.wait_for(timeout=30_000)
    _settled(page)
    page.get_by_role("button", name="Accept").first.click()
    page.get_by_text("already recorded").first.wait_for(timeout=30_000)
    _settled(page)
    page.get_by_role("button", name="Undo").first.click()
    page.get_by_text("accept undone on").first.wait_for(timeout=30_000)
    _settled(page)

    # abstention, then a <script> title shown as literal text
    _ask(page, "asdf qwerty zxcv")
    page.get_by_text("Nothing relevant in the store").first.wait_for(timeout=30_000)
    _ask(page, "API rate limits shown as text not HTML bold")
    page.get_by_text(SCRIPT_TITLE).first.wait_for(timeout=30_000)
    assert page.locator("script", has_text="alert(1)").count() == 0

    return shot


def test_every_page_in_chromium(server, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium; `make test` does it)")
    from playwright.sync_api import sync_playwright

    dialogs: list[str] = []
    outside: list[str] = []
    shots: list[Path] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            context = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
            page = context.new_page()
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("request", lambda r: None if r.url.startswith((server, "data:", "blob:"))
                    else outside.append(r.url))

            # Overview: counts, the event filter without ACCESS, no raw dict, no Deploy button
            _open(page, server, "", "SmartVector Studio", timeout_ms=180_000)   # first visit: imports, store, model
            page.get_by_text("Recent events").first.wait_for()
            page.locator('[data-testid="stMetric"]').first.wait_for()
            assert page.get_by_text("Documents").count() >= 1
            assert page.get_by_role("button", name="Deploy").count() == 0
            assert page.locator("code", has_text="{").count() == 0
            shots.append(_shot(page, tmp_path, "overview"))

            shots.append(_check_query_lab(page, server, tmp_path))

            # Knowledge Graph: labelled nodes and arrowheads, a focused node
            _open(page, server, "knowledge_graph", "Knowledge Graph")
            page.locator(".js-plotly-plot .scatterlayer").first.wait_for(timeout=30_000)
            labels = page.locator(".js-plotly-plot .scatterlayer text")
            assert labels.count() >= 10
            texts = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot .scatterlayer text')]"
                                  ".map(t => t.textContent)")
            assert any(t.startswith("API rate") for t in texts)
            assert page.locator(".js-plotly-plot .scatterlayer path.point").count() > 0
            assert page.get_by_text("supersedes →").count() >= 1        # the legend names the edge types
            assert page.get_by_text("Lifecycle").count() >= 1
            shots.append(_shot(page, tmp_path, "knowledge_graph"))

            for path, heading, marker in (("ingest", "Ingest", "Upload files"),
                                          ("freshness", "Review worklist", "Worklist, most urgent first"),
                                          ("rejection_log", "Rejection Log", "Rejections per code"),
                                          ("feedback_audit", "Feedback & Audit", "open contradiction"),
                                          ("evaluation", "Evaluation", "Run benchmark")):
                _open(page, server, path, heading)
                page.get_by_text(marker).first.wait_for(timeout=30_000)
                shots.append(_shot(page, tmp_path, path))
            # the guided demo: one click asks naive and default; both answers and why they differ
            _open(page, server, "demo", "Guided demo")
            page.get_by_role("button", name="Ask both").first.click()
            page.get_by_text("Why: ").first.wait_for(timeout=60_000)
            _settled(page)
            assert page.get_by_text("naive answers").count() == 1 and page.get_by_text("default answers").count() == 1
            assert page.get_by_text(re.compile(r"trust \d\.\d{3}")).count() >= 1
            shots.append(_shot(page, tmp_path, "demo"))
            _open(page, server, "rejection_log", "Rejection Log")
            picker = page.locator('[data-testid="stSelectbox"]').filter(has_text="Query (asked at")
            chosen = picker.evaluate("e => e.innerText + ' ' + [...e.querySelectorAll('input')]"
                                     ".map(i => i.value || i.getAttribute('aria-label') || '').join(' ')")
            assert re.search(r" · (naive|default) · .* rejected", chosen) and " 0 rejected" not in chosen
        finally:
            browser.close()
    assert not dialogs
    assert not outside, f"requests to outside hosts (fails offline): {sorted(set(outside))}"
    assert len(shots) == 9 and all(s.stat().st_size > 10_000 for s in shots)


def _pick(page, label: str, option: str | None = None) -> str:
    """Choose ``option`` (the first one when None) in the multiselect or selectbox ``label``."""
    page.locator('[data-testid="stMultiSelect"], [data-testid="stSelectbox"]').filter(has_text=label) \
        .locator("input").first.click()
    page.keyboard.press("ArrowDown")            # opens the list
    if option:
        page.keyboard.type(option)
    options = page.locator('[role="option"]:not([data-key="__select_all__"])')
    choice = options.filter(has_text=option).first if option else options.first
    text = choice.inner_text()
    choice.click()
    page.keyboard.press("Escape")
    _settled(page)
    return text.strip()


def _card_ids(page) -> list[str]:
    return re.findall(r"\bid (\S+) ·", " ".join(page.locator('[data-testid="stText"]').all_inner_texts()))


def test_editor_and_agent_workflows_in_chromium(server, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium; `make test` does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
            _open(page, server, "freshness", "Review worklist", timeout_ms=180_000)

            # the editor: the most urgent document is the first to act on; archived, it leaves answers
            page.get_by_text("Worklist, most urgent first").first.wait_for()
            assert page.get_by_text(re.compile(r"\d+ live documents")).count() >= 1
            picked = _pick(page, "Act on")
            assert " — " in picked, picked
            urgent, title = picked.split(" — ", 1)
            _open(page, server, "query_lab", "Query Lab")
            _ask(page, title)
            before = _card_ids(page)
            _open(page, server, "freshness", "Review worklist")
            _pick(page, "Act on", urgent)
            page.get_by_label("Reason for archiving (kept in the audit)").fill("out of date")
            page.get_by_role("button", name="Archive", exact=True).click()
            page.get_by_text(f"{urgent} archived: it leaves answers").first.wait_for(timeout=30_000)
            _settled(page)
            _open(page, server, "query_lab", "Query Lab")
            _ask(page, title)
            after = _card_ids(page)
            assert urgent in before and urgent not in after

            # the editor pastes a new version of the rate-limit policy: the old one is superseded
            _open(page, server, "freshness", "Review worklist")
            _pick(page, "Act on", "policy_v3")
            page.get_by_label("Text of the new version").fill(
                "From 1 December 2026 the Larkspur API allows 800 requests per minute per API key.")
            page.get_by_role("button", name="Ingest as the new version").click()
            page.get_by_text("policy_v4 now supersedes policy_v3").first.wait_for(timeout=60_000)
            _settled(page)
            _open(page, server, "query_lab", "Query Lab")
            _ask(page, "How many requests per minute does the Larkspur API allow?")
            right = page.locator('[data-testid="stColumn"]').filter(has_text="Profile: default").last
            shown = re.findall(r"\bid (\S+) ·", " ".join(right.locator('[data-testid="stText"]').all_inner_texts()))
            assert "policy_v4" in shown and "policy_v3" not in shown

            # the agent: asks, corrects, asks again (lower trust), then undoes from the verdict history
            question = "What is the refund window?"
            _ask(page, question)
            card = page.locator('[data-testid="stText"]').filter(has_text=re.compile(r"trust \d\.\d{3}")).first
            doc = re.search(r"\bid (\S+) ·", card.inner_text()).group(1)
            trust = float(re.search(r"trust (\d\.\d{3})", card.inner_text()).group(1))
            page.get_by_role("button", name="Correct").first.click()
            page.get_by_text(f"correct recorded on {doc}").first.wait_for(timeout=30_000)
            _settled(page)
            _ask(page, question)
            again = page.locator('[data-testid="stText"]').filter(has_text=f"id {doc} ·").first
            lowered = float(re.search(r"trust (\d\.\d{3})", again.inner_text()).group(1))
            assert lowered < trust
            page.locator('[data-testid="stExpander"] summary').filter(has_text="Your verdicts on these documents") \
                .first.click()
            page.get_by_text(f"{doc}: correct · query").first.wait_for(timeout=30_000)
            page.locator('[data-testid="stExpander"]').filter(has_text=f"{doc}: correct · query").get_by_role(
                "button", name="Undo").first.click()
            page.get_by_text(f"correct undone on {doc}").first.wait_for(timeout=30_000)
            undone = page.get_by_text(f"correct undone on {doc}").first.inner_text()
            restored = float(undone.rsplit("→ ", 1)[1][:5])
            assert restored > lowered and restored == pytest.approx(trust, abs=0.02)   # each answer's access adds a little
        finally:
            browser.close()


def test_paper_benchmark_drills_down_to_the_questions_it_got_wrong_in_chromium(server, tmp_path):
    """Evaluation page, paper suite: the top-1 figure of a profile leads to the questions it got
    wrong at rank 1, as many as the figure counts (the metrics CSV's top1 and n), with their type."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium; `make test` does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True).new_page()
            _open(page, server, "evaluation", "Evaluation", timeout_ms=180_000)
            page.get_by_text("Paper suite (held-out split)").click()
            page.get_by_role("button", name="Run benchmark").click()
            page.get_by_text("Metrics per profile").first.wait_for(timeout=300_000)
            _settled(page, 300_000)
            with page.expect_download() as download:
                page.locator('[data-testid="stDownloadButton"]').first.get_by_role("button").click()
            rows = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
            header = rows[0].split(",")
            metrics = {r.split(",")[header.index("profile")]: r.split(",") for r in rows[1:]}
            naive = metrics["naive"]
            wrong = round((1 - float(naive[header.index("top1")])) * int(float(naive[header.index("n")])))
            assert wrong > 0
            # picked by a click, no Escape after it (Escape clears a picker that starts empty)
            page.locator('[data-testid="stSelectbox"]').filter(has_text="Questions a profile got wrong") \
                .locator("input").first.click()
            page.keyboard.press("ArrowDown")            # opens the list
            choice = page.locator('[role="option"]').filter(has_text="naive (").first
            assert choice.inner_text().strip() == f"naive ({wrong} wrong)"
            choice.click()
            _settled(page)
            title = page.get_by_text(re.compile(rf"^{wrong} question\(s\) naive answered wrongly at rank 1 .* by type: "))
            title.first.wait_for(timeout=60_000)
            shot = tmp_path / "evaluation_paper.png"
            page.screenshot(path=str(shot), full_page=False)
            assert shot.stat().st_size > 10_000
        finally:
            browser.close()
