"""Query Lab: one question, two profiles side by side, every score broken into its signals.

Drawn for a warm round trip of at most half a second (what a question sends is what the
browser draws; each element costs it):

- the question's part of the page is a fragment (``st.fragment``): a question, a verdict or an
  opened expander reruns that part only, not the router, the sidebar, the title and the settings
  row (profiles, moment, k, charts: outside the fragment, read from the session state);
- both profiles are answered by one service call (``SmartVector.compare``: one embedding), over
  caches warmed when the store opened (``SmartVector.warm``);
- a card is one text (title, confidence and trust, the score as the sum of its signals'
  contributions, the answer passage, the reasons) and its verdict buttons, in one container;
- what is read on request is sent when opened, one expander each per side: every passage's full
  text, the verdict history, the Results table (contributions as bars, CSV), the rejections, the
  parsed intent (expanders with state); the Plotly charts are behind a toggle;
- widget keys stay the same from question to question (side and rank), so the browser updates
  the cards in place instead of building them anew.
"""

import time
from datetime import UTC, datetime, timedelta

import streamlit as st

from pages._common import (
    actor_name,
    as_utc,
    page_setup,
    require_write,
    service,
    show_figure,
    show_table,
    shown_errors,
    utc_now,
)
from smartvector_core.retrieval import PROFILES
from smartvector_core.ui import charts, views

page_setup()
st.title("Query Lab")
sv = service()
names = list(PROFILES)
if "lab_default_as_of" not in st.session_state:  # the picker starts at the minute the session opened
    st.session_state["lab_default_as_of"] = utc_now().replace(tzinfo=None, second=0, microsecond=0)


def settings_row() -> None:
    """The two profiles, the moment, k and the charts: outside the question's fragment, so a
    question does not send these widgets again (the heaviest to draw of the page: two selects,
    a date-time picker); changing one reruns the page, and the next question reads them."""
    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.selectbox("Left profile", names, index=names.index("naive"), key="lab_left")
    row.selectbox("Right profile", names, index=names.index("default"), key="lab_right")
    row.toggle("Pin", key="lab_pin", help="Off: each question is asked now. On: as of the moment set.")
    row.datetime_input("As of (UTC, when pinned)", value=st.session_state["lab_default_as_of"],
                       step=timedelta(minutes=1), key="lab_as_of", format="YYYY-MM-DD")
    row.number_input("Results", 1, 50, 5, key="lab_k", width=110)
    row.toggle("Score breakdown charts", key="lab_charts",
               help="One stacked bar per result (hover: value × weight). The cards show the same contributions "
                    "as a sum, the Results tables as bars in their `_contribution` columns.")
    st.caption("On a card, **Accept** confirms that version and **Correct** marks it wrong (the penalty ripples to "
               "the documents that depend on it); **Undo** appends a reversing event, the verdict stays in the history.")


def ask_form() -> None:
    """The question; on "Run side by side", both answers, under the settings of :func:`settings_row`."""
    with st.form("lab_form", border=False):
        row = st.container(horizontal=True, vertical_alignment="bottom")
        text = row.text_input("Question", key="lab_text", placeholder="What are the API rate limits?")
        run = row.form_submit_button("Run side by side", type="primary")
    state = st.session_state
    left, right, pinned, as_of, k = (state["lab_left"], state["lab_right"], state["lab_pin"], state["lab_as_of"],
                                     state["lab_k"])
    if not run:
        return
    if not text.strip():
        st.warning("Type a question first.")
        return
    with shown_errors("Query"):
        asked_at = datetime.now(UTC)
        moment = as_utc(as_of) if pinned else asked_at
        responses = [r.to_dict() for r in sv.compare(text, (left, right), as_of=moment, k=int(k), asked_at=asked_at)]
        st.session_state["lab_responses"] = responses
        # a query id is new at each question: no verdict names it yet (a verdict clears this)
        st.session_state["lab_verdicts"] = {(actor_name(), r["query_id"]): {} for r in responses}
        st.session_state.pop("lab_flash", None)


def standing_verdicts(query_id: str) -> dict[str, str]:
    """This operator's verdicts on ``query_id``'s answers, read once per question and after
    each verdict (``record`` forgets them), not at every rerun of the fragment."""
    known = st.session_state.setdefault("lab_verdicts", {})
    key = (actor_name(), query_id)
    if key not in known:
        known[key] = sv.standing_verdicts(query_id, actor_name())
    return known[key]


def record(verdict: str, doc_id: str, query_id: str) -> None:
    """Button callback (runs before the page redraws, so the card shows the new state at once):
    record, replace or undo this operator's verdict, then put the new trust on every card of
    that document."""
    if not require_write("Feedback"):
        return
    st.session_state.pop("lab_verdicts", None)
    with shown_errors("Feedback"):
        now = utc_now()
        if verdict == "undo":
            out = sv.feedback_undo(doc_id, now=now, query_id=query_id, actor=actor_name())
            message = f"{out['undone']} undone on {doc_id}"
        else:
            out = sv.feedback(doc_id, verdict, now=now, query_id=query_id, actor=actor_name())
            if not out.get("recorded", True):
                message = f"{verdict} was already recorded on {doc_id} for this question: nothing written"
            else:
                replaced = f" (replaces your {out['replaced']})" if out.get("replaced") else ""
                message = (f"{verdict} recorded on {doc_id}{replaced}; rippled to {len(out['rippled'])} "
                           "document(s)")
        after = out["trust_after"]
        st.session_state["lab_flash"] = {
            "doc": doc_id, "query_id": query_id,
            "text": f"{message}: trust {views.share_text(out['trust_before'])} → {views.share_text(after)}"}
        for response in st.session_state.get("lab_responses") or []:
            for result in response["results"]:
                if result["id"] == doc_id:
                    result["trust"] = after


def feedback_row(result: dict, query_id: str, side: str, verdict: str | None) -> None:
    """Accept and Correct, and Undo where this operator's verdict stands, drawn into the card (a
    horizontal container: the buttons share a row under its full-width text, no block of their
    own). No icon and no tooltip: twenty buttons a question, and without them the browser's
    work per round trip fell by ~15% (what each does is said once, under the settings). Keys
    name the side and rank only (the callback's arguments name the document and query)."""
    key = f"{side}_{result['rank']}"
    args = (result["id"], query_id)
    st.button("Accept", key=f"accept_{key}", on_click=record, args=("accept", *args),
              type="primary" if verdict == "accept" else "secondary")
    st.button("Correct", key=f"correct_{key}", on_click=record, args=("correct", *args),
              type="primary" if verdict == "correct" else "secondary")
    if verdict is not None:
        st.button("Undo", key=f"undo_{key}", on_click=record, args=("undo", *args))
    flash = st.session_state.get("lab_flash")
    if flash and flash["doc"] == result["id"]:   # an undo from the history names an earlier query
        st.success(flash["text"])


def verdict_history(box, docs: list[dict], current_query: str, side: str) -> None:
    """This operator's standing verdicts on the documents of one answer, one row per (document,
    question), each with an Undo (an earlier question's verdict included)."""
    rows = [(doc, item) for doc in docs for item in sv.verdict_history(doc["id"], actor_name())]
    if not rows:
        box.caption("None yet.")
    for i, (doc, item) in enumerate(rows):
        row = box.container(horizontal=True)
        here = " (this question)" if item["query_id"] == current_query else ""
        row.text(f"{doc['id']}: {item['verdict']} · query {item['query_id'] or '(none)'}{here} · "
                 f"{item['at'][:16].replace('T', ' ')} UTC")
        row.button("Undo", key=f"hist_undo_{side}_{i}", on_click=record, args=("undo", doc["id"], item["query_id"]))


def show_response(response: dict, side: str) -> None:
    """One profile's answer: a header, then one card per document (one text element: title,
    numbers, the score's breakdown, the answer passage, the reasons; its verdict buttons), then
    the details the operator opens (each sent when opened: :func:`details`)."""
    st.subheader(f"Profile: {response['profile']}")
    judged, judged_line = views.judged_moment(response)
    st.text(f"query id {response['query_id']} · {judged_line}")
    if response.get("abstained"):
        with st.container(border=True):
            st.markdown(f"**{views.abstention_heading(response)}**")
            st.text(response.get("abstain_reason") or "nothing in the store is about the question")
    if st.session_state.get("lab_charts"):
        show_figure(charts.score_breakdown(response["results"], title=f"Score breakdown · {response['profile']}"),
                    key=f"lab_chart_{side}", config={"displayModeBar": False})
    verdicts = standing_verdicts(response["query_id"])
    groups = [] if response.get("abstained") else views.passages_by_document(response["results"])
    for first, passages in groups:
        with st.container(border=True, horizontal=True):   # the text's full row, then the buttons
            reasons = [f"• {reason}" for reason in first.get("reasons") or []]
            more = [f"(+{len(passages) - 1} more passage(s) of this document: Full text, below)"] \
                if len(passages) > 1 else []
            st.text("\n".join([*views.result_card(first, judged), "", views.answer_text(first), *more, "",
                               *reasons]), width="stretch")   # one element per card: the answer on it
            if verdicts.get(first["id"]):
                st.caption(f"Your verdict: {verdicts[first['id']]}")
            feedback_row(first, response["query_id"], side, verdicts.get(first["id"]))
    details(response, side, groups)


def opened(label: str, key: str):
    """An expander whose content is sent only while it is open (``None`` while closed)."""
    box = st.expander(label, key=key, on_change="rerun")
    return box if box.open else None


def details(response: dict, side: str, groups: list) -> None:
    """What is read on request, one expander each, its content sent when opened: every passage's
    full text, the verdict history (with undo), the Results table (every signal's contribution,
    CSV), the rejections, the parsed intent. A table, an expander or a button row per card costs
    the browser more than the card's text: the cards carry only what is read at a glance."""
    profile, query_id = response["profile"], response["query_id"]
    if groups and (box := opened(f"Full text · {sum(len(p) for _, p in groups)} passage(s)", f"passages_{side}")):
        for first, passages in groups:
            for passage in passages:
                box.caption(f"{passage['rank']}. {first.get('title') or first['id']} · id {first['id']} · "
                            f"score {float(passage['score']):.3f}")
                box.text(passage["text"])
    if groups and (box := opened("Your verdicts on these documents, every question", f"history_{side}")):
        verdict_history(box, [first for first, _ in groups], query_id, side)
    if box := opened(f"Results · {profile}: every signal's contribution, CSV", f"table_{side}"):
        with box:
            results = views.results_frame(response)
            signals, low, high = views.contribution_columns(results)
            bars = {c: st.column_config.ProgressColumn(c, format="%.3f", min_value=low, max_value=high,
                                                       help="this signal's contribution to the score (value × weight)")
                    for c in signals}
            show_table(results, key=f"lab_res_{side}", wrap=("reasons",), column_config=bars,
                       title=f"Results · {profile}", file_name=f"results_{query_id}.csv")
    rejected = response["rejections"]
    if box := opened(f"Rejected ({len(rejected)}) · {profile}: id, code, reason", f"rejected_{side}"):
        with box:
            show_table(views.rejections_table(response), key=f"lab_rej_{side}", wrap=("reason",),
                       title=f"Rejected ({len(rejected)}) · {profile}", file_name=f"rejections_{query_id}.csv")
    intent = views.intent_summary(response.get("intent"))
    if len(intent) and (box := opened("Parsed intent (time range, recency weight, names…)", f"intent_{side}")):
        box.text("\n".join(f"{f}: {v}" for f, v in zip(intent["field"], intent["value"], strict=True)))


@st.fragment
def lab() -> None:
    """The question's part of the page: a question, a verdict or an opened expander reruns this
    only (the caption's "page run" is its server time)."""
    started, started_cpu = time.perf_counter(), time.thread_time()
    ask_form()
    responses = st.session_state.get("lab_responses")
    if not responses:
        st.info("Ask a question to compare two profiles.")
        return
    for column, response, side in zip(st.columns(2), responses, ("left", "right"), strict=True):
        with column:
            show_response(response, side)
    engine = sum(sum((r.get("timings_ms") or {}).values()) for r in responses)
    st.caption(f"engine {engine:.0f} ms for both profiles · page run {(time.perf_counter() - started) * 1000:.0f} ms"
               f" (CPU {(time.thread_time() - started_cpu) * 1000:.0f} ms; the query log is written in the background)")


settings_row()
lab()
