"""Query Lab: one question, two profiles side by side, every score broken into its signals."""

from datetime import UTC, datetime, timedelta

import streamlit as st

from pages._common import (
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
if "lab_default_as_of" not in st.session_state:  # the picker starts at "now" (UTC) for this session
    st.session_state["lab_default_as_of"] = utc_now().replace(tzinfo=None, second=0, microsecond=0)

with st.form("lab_form"):
    text = st.text_input("Question", key="lab_text", placeholder="What are the API rate limits?")
    c1, c2, c3, c4 = st.columns([2, 2, 3, 1])
    left = c1.selectbox("Left profile", names, index=names.index("naive"), key="lab_left")
    right = c2.selectbox("Right profile", names, index=names.index("default"), key="lab_right")
    as_of = c3.datetime_input("As of (UTC)", value=st.session_state["lab_default_as_of"], step=timedelta(minutes=1),
                              key="lab_as_of", format="YYYY-MM-DD")
    k = c4.number_input("Results", 1, 50, 5, key="lab_k")
    run = st.form_submit_button("Run side by side", type="primary")

if run:
    if not text.strip():
        st.warning("Type a question first.")
    else:
        with shown_errors("Query"), st.spinner("Querying both profiles…"):
            moment = as_utc(as_of)
            asked_at = datetime.now(UTC)
            vector = sv.embedder.encode([text])[0]          # embed once for both profiles
            st.session_state["lab_responses"] = [
                sv.query(text, as_of=moment, profile=p, k=int(k), asked_at=asked_at, vector=vector).to_dict()
                for p in (left, right)]


def feedback_buttons(result: dict, query_id: str, side: str) -> None:
    b1, b2 = st.columns(2)
    key = f"{side}_{query_id}_{result['rank']}_{result['id']}"
    verdict = None
    if b1.button("Accept", key=f"accept_{key}", icon=":material/thumb_up:"):
        verdict = "accept"
    if b2.button("Correct", key=f"correct_{key}", icon=":material/report:",
                 help="Marks this version wrong; the penalty ripples to documents that depend on it"):
        verdict = "correct"
    if verdict and require_write("Feedback"):
        with shown_errors("Feedback"):
            out = sv.feedback(result["id"], verdict, now=utc_now(), query_id=query_id, actor="dashboard")
            st.success(f"{verdict} recorded: confidence {out['confidence_before']:.3f} → "
                       f"{out['confidence_after']:.3f}; rippled to {len(out['rippled'])} document(s)")


def show_response(response: dict, side: str) -> None:
    st.subheader(f"Profile: {response['profile']}")
    st.text(f"query id {response['query_id']} · as of {response['as_of']}")
    intent = views.intent_summary(response.get("intent"))
    if len(intent):
        with st.expander("Parsed intent (time range, recency weight…)", expanded=False):
            st.dataframe(intent, hide_index=True)
    show_figure(charts.score_breakdown(response["results"], title=f"Score breakdown · {response['profile']}"),
                key=f"lab_chart_{side}")
    for result in response["results"]:
        with st.container(border=True):
            st.text(f"{result['rank']}. {result.get('title') or result['id']}")
            st.text(f"id {result['id']} · score {result['score']:.3f} · confidence {result['confidence']:.3f} "
                    f"({result['confidence_tier']}) · {result['validity_state']} · {result['kind']} · "
                    f"{result['action']}")
            if result.get("reasons"):
                st.text("\n".join(f"• {reason}" for reason in result["reasons"]))
            with st.expander("Text"):
                st.text(result["text"])
            feedback_buttons(result, response["query_id"], side)
    st.caption(f"Rejected ({len(response['rejections'])})")
    show_table(views.rejections_table(response), key=f"lab_rej_{side}",
               file_name=f"rejections_{response['query_id']}.csv")
    show_table(views.results_frame(response), key=f"lab_res_{side}", file_name=f"results_{response['query_id']}.csv")


responses = st.session_state.get("lab_responses")
if responses:
    for column, response, side in zip(st.columns(2), responses, ("left", "right"), strict=True):
        with column:
            show_response(response, side)
else:
    st.info("Ask a question to compare two profiles.")
