"""Feedback & Audit: review queue, feedback, trust over time, events, consolidation, restore."""

import pandas as pd
import streamlit as st

from pages._common import (
    actor_name,
    page_setup,
    require_write,
    service,
    show_figure,
    show_table,
    shown_errors,
    utc_now,
)
from pages._review import review_queue
from smartvector_core.ui import charts, views

page_setup()
st.title("Feedback & Audit")
sv = service()
docs = pd.DataFrame(columns=["id", "title"])
with shown_errors("Reading the store"):
    docs = sv.documents_frame(as_of=utc_now())
PICKER_LIMIT = 500
find = st.text_input("Find a document (title or id contains)", key="aud_doc_find") if len(docs) > PICKER_LIMIT else ""
doc_labels = views.node_options(docs, text=find, limit=PICKER_LIMIT) if len(docs) else {}
if len(docs) > PICKER_LIMIT:
    st.caption(f"The pickers below list {len(doc_labels)} of {len(docs):,} documents: type above to narrow them.")

review, feedback, history, events_tab, versions = st.tabs(
    ["Review queue", "Feedback", "Trust over time", "Event history", "Consolidation & restore"])

with review, shown_errors("Review queue"):
    review_queue(sv)

with feedback, shown_errors("Feedback"):
    with st.form("aud_feedback_form"):
        doc = st.selectbox("Document", list(doc_labels), index=None, format_func=doc_labels.get, key="aud_fb_doc",
                           placeholder="Choose a document")
        verdict = st.radio("Verdict", ["accept", "correct", "undo"], index=None, horizontal=True, key="aud_fb_verdict",
                           help="undo: appends an event reversing the verdict you gave on this document "
                                "(for this query id); the verdict stays in the history")
        query_id = st.text_input("Query id (optional)", key="aud_fb_query")
        sent = st.form_submit_button("Record feedback", type="primary")
    if doc:
        ripple = pd.DataFrame(sv.ripple_preview(doc), columns=["doc_id", "hop", "penalty", "via"])
        show_table(ripple, key="aud_ripple", file_name=f"ripple_{doc}.csv",
                   title="A correction of this document would ripple to")
    if sent and not (doc and verdict):
        st.warning("Choose a document and a verdict first.")
    elif sent and require_write("Feedback"):
        if verdict == "undo":
            out = sv.feedback_undo(doc, now=utc_now(), query_id=query_id.strip(), actor=actor_name())
            said = f"{out['undone']} undone for {doc}"
        else:
            out = sv.feedback(doc, verdict, now=utc_now(), query_id=query_id.strip(), actor=actor_name())
            said = (f"{verdict} recorded for {doc}; rippled to {len(out['rippled'])} document(s)"
                    if out.get("recorded", True) else f"{verdict} was already recorded for {doc}: nothing written")
        st.success(f"{said}: trust {views.share_text(out['trust_before'])} → {views.share_text(out['trust_after'])}")

with history, shown_errors("Trust history"):
    doc_h = st.selectbox("Document", list(doc_labels), index=None, format_func=doc_labels.get, key="aud_hist_doc",
                         placeholder="Choose a document to draw its trust from its events")
    if doc_h:
        with st.spinner("Replaying the document's events…"):
            series = sv.trust_history(doc_h, until=utc_now())
        doc_events = sv.events_frame(doc_h)
        show_figure(charts.trust_over_time(series, doc_events), key="aud_hist_chart")
        show_table(series.sort_values("at", ascending=False, ignore_index=True), key="aud_hist",
                   file_name=f"trust_{doc_h}.csv", title="Trust at each event and in between, newest first")

with events_tab, shown_errors("Event history"):
    events = sv.events_frame()
    c1, c2 = st.columns(2)
    ev_doc = c1.selectbox("Document", ["", *doc_labels], format_func=lambda d: doc_labels.get(d, "(all)"),
                          key="aud_ev_doc")
    present = sorted(events["event_type"].unique()) if len(events) else []
    ev_types = c2.multiselect("Event types", present, default=views.operator_event_types(present), key="aud_ev_types")
    show_table(views.filter_events(events, doc_id=ev_doc, event_types=ev_types), key="aud_events",
               file_name="events.csv", height=360, title="Events, newest first", wrap=("detail",))

with versions, shown_errors("Versions"):
    st.subheader("Consolidation")
    st.caption("Infers supersessions, contradictions and dependencies and moves lifecycle states.")
    if st.button("Run consolidation now", key="aud_consolidate") and require_write("Consolidation"):
        with st.status("Consolidating…") as status:
            counts = sv.consolidate(now=utc_now())
            status.update(label="Consolidation done", state="complete")
        show_table(views.consolidation_findings(counts), key="aud_consolidation", file_name="consolidation.csv",
                   title="What consolidation found")

    st.subheader("Table versions and tags")
    held = sv.versions()
    tags = held["tags"]
    show_table(views.versions_frame(held["versions"], tags), key="aud_versions", file_name="versions.csv",
               title="Current versions and tagged versions of each table")
    c1, c2 = st.columns(2)
    with c1, st.form("aud_tag_form"):
        label = st.text_input("New tag", key="aud_tag_label")
        if st.form_submit_button("Tag current versions") and label.strip() and require_write("Tagging"):
            st.success(f"Tagged {label.strip()}: {len(sv.tag(label.strip()))} table(s)")
    with c2, st.form("aud_restore_form"):
        labels = views.tag_labels(tags)
        restore_tag = st.selectbox("Restore to tag", labels, index=None, key="aud_restore_tag")
        confirm = st.checkbox("I understand the current versions stay in history", key="aud_restore_confirm")
        if st.form_submit_button("Restore") and require_write("Restore"):
            if not restore_tag or not confirm:
                st.warning("Choose a tag and tick the confirmation.")
            else:
                with st.spinner("Restoring…"):
                    restored = sv.restore(tag=restore_tag, now=utc_now())
                    st.success(f"Restored {len(restored)} table(s) to tag {restore_tag}")
