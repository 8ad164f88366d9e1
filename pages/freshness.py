"""Review worklist: the documents an editor should look at, most urgent first, and what to do.

One row a live document (the service's freshness report, flagged and ordered by
``temporal.review``: grade, why, trust, open contradictions, dependents, last confirmation). The
actions work on the documents ticked in the table or picked by name: confirm still valid
(accept), archive, unarchive, a new version (title, ``supersedes`` and authority taken from the one
it replaces) and open in the graph. "Now" is read at each run unless a moment is pinned.
"""

from datetime import timedelta

import streamlit as st

from pages._common import (
    actor_name,
    as_utc,
    page_setup,
    require_write,
    service,
    show_counts,
    show_figure,
    show_table,
    shown_errors,
    utc_now,
)
from smartvector_core import clock
from smartvector_core.config import decay_profile
from smartvector_core.temporal.freshness import GRADES
from smartvector_core.ui import charts, views, worklist

page_setup()
st.title("Review worklist")
sv = service()
DONE = "fresh_done"   # the message of the last action, shown once after its rerun


def act(label: str, ids: list[str], fn) -> None:
    """Run ``fn(id)`` for each id, keep one message, refresh the worklist at once."""
    if not ids or not require_write(label):
        return
    lines = []
    with shown_errors(label):
        for doc_id in ids:
            lines.append(fn(doc_id))
        st.session_state[DONE] = f"{label}: " + "; ".join(lines)
        st.rerun()


def confirm(doc_id: str) -> str:
    out = sv.feedback(doc_id, "accept", now=utc_now(), actor=actor_name())
    return f"{doc_id} confirmed (trust {out['trust_after']:.3f}, review clock restarted)"


def archive(doc_id: str) -> str:
    sv.archive(doc_id, now=utc_now(), reason=st.session_state.get("fresh_reason", ""), actor=actor_name())
    return f"{doc_id} archived: it leaves answers from now on"


def unarchive(doc_id: str) -> str:
    sv.unarchive(doc_id, now=utc_now(), actor=actor_name())
    return f"{doc_id} unarchived: it answers again"


def open_in_graph(doc_id: str) -> None:
    st.session_state["graph_query"] = doc_id
    st.session_state["graph_node"] = doc_id
    st.switch_page("pages/knowledge_graph.py")


def new_version(old: dict, taken: set[str]) -> None:
    """The form of a new version of ``old``: pasted or uploaded text; it supersedes ``old``."""
    key = f"fresh_new_{old['id']}"
    with st.form(key):
        st.markdown(f"**A new version of `{old['id']}`** (it will supersede it; the old one is archived)")
        c1, c2, c3 = st.columns([2, 3, 1])
        new_id = c1.text_input("New id", value=worklist.next_version_id(str(old["id"]), taken), key=f"{key}_id")
        title = c2.text_input("Title", value=str(old.get("title") or ""), key=f"{key}_title")
        authority = c3.number_input("Authority", 0.0, 1.0, value=round(float(old.get("authority") or 0.7), 3),
                                    step=0.05, format="%.2f",
                                    key=f"{key}_authority")
        text = st.text_area("Text of the new version", key=f"{key}_text", height=160)
        upload = st.file_uploader("…or upload it (.txt, .md)", type=["txt", "md"], key=f"{key}_file")
        sent = st.form_submit_button("Ingest as the new version", type="primary")
    if not sent:
        return
    body = upload.getvalue().decode("utf-8", errors="replace") if upload is not None else text
    if not body.strip():
        st.warning("Paste or upload the text of the new version first.")
        return
    if not require_write("A new version"):
        return
    with shown_errors("A new version"):
        now = utc_now()
        record = worklist.successor_record(old, body, new_id.strip(), created_at=clock.iso(now), title=title,
                                           authority=round(float(authority), 3))
        sv.ingest_records([record], now=now, actor=actor_name())
        st.session_state[DONE] = f"{record['id']} now supersedes {old['id']} (authority {authority:.2f})"
        st.rerun()


with shown_errors("Review worklist"):
    p1, p2 = st.columns([1, 3])
    pinned = p1.toggle("Pin a moment", key="fresh_pin", help="Off: the worklist is as of now, read at each refresh.")
    if pinned:
        as_of = as_utc(p2.datetime_input("As of (UTC)", value=utc_now().replace(tzinfo=None, second=0, microsecond=0),
                                         step=timedelta(minutes=1), key="fresh_as_of", format="YYYY-MM-DD"))
    else:
        as_of = utc_now()
        p2.caption(f"As of now: {as_of:%Y-%m-%d %H:%M} UTC")
    if DONE in st.session_state:
        st.success(st.session_state.pop(DONE))
    report = sv.freshness(as_of=as_of)
    if report.empty:
        st.info("No documents yet.")
        st.stop()
    summary = worklist.worklist_summary(report)
    st.markdown(f"**{summary['live']} live documents** (of {summary['documents']} versions): "
                f"{summary['live_f']} graded F, {summary['flagged']} flagged for low trust or an open contradiction.")
    c1, c2, c3, c4, c5 = st.columns([2, 2, 2, 2, 3])
    show_all = c1.toggle("Archived and superseded too", key="fresh_all")
    grades = c2.multiselect("Grades", list(GRADES), key="fresh_grades")
    doc_types = c3.multiselect("Doc types", sorted(report["doc_type"].dropna().unique()), key="fresh_types")
    sources = c4.multiselect("Sources", sorted(set(report["source"].fillna(""))), key="fresh_sources",
                             format_func=lambda s: s or "(none)")
    text = c5.text_input("Title or id contains", key="fresh_text")
    table = worklist.worklist_table(report, live_only=not show_all, grades=grades, doc_types=doc_types,
                                    sources=sources, text=text)
    st.caption(f"{len(table)} of {summary['documents'] if show_all else summary['live']} "
               f"{'documents' if show_all else 'live documents'}, most urgent first")
    event = show_table(table, key="fresh", file_name="freshness.csv", title="Worklist, most urgent first",
                       wrap=("advice",), select=True, column_config={
                           "advice": st.column_config.TextColumn("why / what to do", width="large"),
                           "trust": st.column_config.NumberColumn("trust", format="%.3f"),
                           "freshness": st.column_config.NumberColumn("freshness", format="%.3f"),
                           "open_contradictions": st.column_config.TextColumn("open contradictions"),
                           "last_confirmed": st.column_config.TextColumn("last confirmed")})

    ticked = [table["id"].iloc[i] for i in (event.selection.rows if event is not None else [])
              if i < len(table)]
    a1, a2 = st.columns([3, 1])
    names = dict(zip(table["id"], table["title"], strict=True))
    picked = a1.multiselect("Act on", list(table["id"]), key="fresh_pick",
                            format_func=lambda d: f"{d} — {names[d]}" if names.get(d) else d,
                            placeholder="Tick rows above, or pick documents here (most urgent first)")
    every = a2.checkbox(f"All {len(table)} shown", key="fresh_every")
    chosen = list(table["id"]) if every else list(dict.fromkeys([*ticked, *picked]))
    st.caption(f"Selected: {', '.join(chosen) if chosen else 'none'}")
    b1, b2, b3, b4 = st.columns(4)
    if b1.button("Confirm still valid", key="fresh_confirm", disabled=not chosen):
        act("Confirmed", chosen, confirm)
    st.text_input("Reason for archiving (kept in the audit)", key="fresh_reason")
    if b2.button("Archive", key="fresh_archive", disabled=not chosen):
        act("Archived", chosen, archive)
    if b3.button("Unarchive", key="fresh_unarchive", disabled=not chosen):
        act("Unarchived", chosen, unarchive)
    if b4.button("Open in graph", key="fresh_graph", disabled=len(chosen) != 1):
        open_in_graph(chosen[0])
    if len(chosen) == 1:
        new_version(report.set_index("id").loc[chosen[0]].to_dict() | {"id": chosen[0]},
                    set(report["id"]))

    g1, g2 = st.columns([1, 2])
    with g1:
        show_counts(views.grade_counts(table["grade"]), key="fresh_grades_count", title="Documents per grade",
                    file_name="freshness_grades.csv")
    with g2:
        if st.toggle("Decay curves by doc type", key="fresh_curves_on"):
            types = sorted(set(report["doc_type"].dropna()))
            show_figure(charts.decay_curves({t: decay_profile(t).half_life_days for t in types}),
                        key="fresh_curves")
            st.caption("Curves before the kind-specific floors (timeless STATIC documents keep a floor).")
