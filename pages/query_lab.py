"""Query Lab: one question, two profiles side by side, every score broken into its signals.

Drawn for a warm round trip of at most half a second:

- the question's part of the page is a fragment (``st.fragment``): a question, a verdict or an
  opened expander reruns that part only, not the router, the sidebar and the title;
- both profiles are answered by one service call (``SmartVector.compare``: one embedding);
- each score's breakdown is a bar in each ``<signal>_contribution`` cell of the Results table
  (the Plotly charts are behind a toggle);
- what is read on request is sent when opened: a card's passages, the parsed intent, the
  rejections, the verdict history (expanders with state);
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


def ask_form() -> None:
    """The question, the two profiles, the moment and k; on "Run side by side", both answers."""
    with st.form("lab_form"):
        text = st.text_input("Question", key="lab_text", placeholder="What are the API rate limits?")
        c1, c2, c3, c4, c5 = st.columns([2, 2, 1, 3, 1])
        left = c1.selectbox("Left profile", names, index=names.index("naive"), key="lab_left")
        right = c2.selectbox("Right profile", names, index=names.index("default"), key="lab_right")
        pinned = c3.toggle("Pin", key="lab_pin", help="Off: each question is asked now. On: as of the moment set.")
        as_of = c4.datetime_input("As of (UTC, when pinned)", value=st.session_state["lab_default_as_of"],
                                  step=timedelta(minutes=1), key="lab_as_of", format="YYYY-MM-DD")
        k = c5.number_input("Results", 1, 50, 5, key="lab_k")
        run = st.form_submit_button("Run side by side", type="primary")
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
    """Accept and Correct, and Undo where this operator's verdict stands. Keys name the side and
    rank only (the callback's arguments name the document and query)."""
    key = f"{side}_{result['rank']}"
    row = st.container(horizontal=True)      # one row of buttons (fewer elements than columns)
    args = (result["id"], query_id)
    row.button("Accept", key=f"accept_{key}", icon=":material/thumb_up:", on_click=record, args=("accept", *args),
              type="primary" if verdict == "accept" else "secondary")
    row.button("Correct", key=f"correct_{key}", icon=":material/report:", on_click=record, args=("correct", *args),
              type="primary" if verdict == "correct" else "secondary",
              help="Marks this version wrong; the penalty ripples to documents that depend on it")
    if verdict is not None:
        row.button("Undo", key=f"undo_{key}", icon=":material/undo:", on_click=record, args=("undo", *args),
                   help="Appends a reversing event; the verdict stays in the history")
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
    st.subheader(f"Profile: {response['profile']}")
    judged, judged_line = views.judged_moment(response)
    st.text(f"query id {response['query_id']} · {judged_line}")
    if response.get("abstained"):
        with st.container(border=True):
            st.markdown(f"**{views.abstention_heading(response)}**")
            st.text(response.get("abstain_reason") or "nothing in the store is about the question")
    intent = views.intent_summary(response.get("intent"))
    if len(intent):
        shown = st.expander("Parsed intent (time range, recency weight, names…)", key=f"intent_{side}",
                            on_change="rerun")
        if shown.open:
            shown.text("\n".join(f"{f}: {v}" for f, v in zip(intent["field"], intent["value"], strict=True)))
    if st.session_state.get("lab_charts"):
        show_figure(charts.score_breakdown(response["results"], title=f"Score breakdown · {response['profile']}"),
                    key=f"lab_chart_{side}", config={"displayModeBar": False})
    verdicts = standing_verdicts(response["query_id"])
    groups = [] if response.get("abstained") else views.passages_by_document(response["results"])
    for first, passages in groups:
        with st.container(border=True):
            reasons = [f"• {reason}" for reason in first.get("reasons") or []]
            st.text("\n".join([*views.result_card(first, judged), "", views.answer_text(first), "",
                               *reasons]))   # one element per card: the answer passage's text on it
            if verdicts.get(first["id"]):
                st.caption(f"Your verdict: {verdicts[first['id']]}")
            label = "Full text" if len(passages) == 1 else f"{len(passages)} passages"
            shown = st.expander(label, key=f"passages_{side}_{first['rank']}", on_change="rerun")
            if shown.open:         # the text is sent when the operator opens it
                for passage in passages:
                    if len(passages) > 1:
                        shown.caption(f"rank {passage['rank']} · score {float(passage['score']):.3f}")
                    shown.text(passage["text"])
            feedback_row(first, response["query_id"], side, verdicts.get(first["id"]))
    if groups:   # one history per answer (an element per card cost the browser ~0.1 s a run)
        history = st.expander("Your verdicts on these documents, every question", key=f"history_{side}",
                              on_change="rerun")
        if history.open:       # read when opened: one row per (document, question), each with its undo
            verdict_history(history, [first for first, _ in groups], response["query_id"], side)
    rejected = st.expander(f"Rejected ({len(response['rejections'])}) · {response['profile']}: id, code, reason",
                           key=f"rejected_{side}", on_change="rerun")
    if rejected.open:     # a table costs the browser most of a card's drawing: sent when opened
        with rejected:
            show_table(views.rejections_table(response), key=f"lab_rej_{side}", wrap=("reason",),
                       title=f"Rejected ({len(response['rejections'])}) · {response['profile']}",
                       file_name=f"rejections_{response['query_id']}.csv")
    results = views.results_frame(response)
    signals, low, high = views.contribution_columns(results)
    bars = {c: st.column_config.ProgressColumn(c, format="%.3f", min_value=low, max_value=high,
                                               help="this signal's contribution to the score (value × weight)")
            for c in signals}
    show_table(results, key=f"lab_res_{side}", wrap=("reasons",), column_config=bars,
               title=f"Results · {response['profile']}", file_name=f"results_{response['query_id']}.csv")


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
    st.toggle("Score breakdown charts", key="lab_charts",
              help="One stacked bar per result (hover: value × weight). The Results tables show the same "
                   "contributions as bars in their `_contribution` columns.")
    for column, response, side in zip(st.columns(2), responses, ("left", "right"), strict=True):
        with column:
            show_response(response, side)
    engine = sum(sum((r.get("timings_ms") or {}).values()) for r in responses)
    st.caption(f"engine {engine:.0f} ms for both profiles · page run {(time.perf_counter() - started) * 1000:.0f} ms"
               f" (CPU {(time.thread_time() - started_cpu) * 1000:.0f} ms; the query log is written in the background)")


lab()
