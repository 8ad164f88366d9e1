"""Overview: what the store holds, recent events, where it lives, and the demo loader."""

import streamlit as st

from pages._common import page_setup, require_write, service, show_counts, show_table, shown_errors, utc_now
from smartvector_core.settings import DEMO_CORPUS
from smartvector_core.ui import views

page_setup()
st.title("SmartVector Studio")
sv = service()
with shown_errors("Reading the store"):
    stats = sv.stats()
    cols = st.columns(6)
    for col, name in zip(cols, ("documents", "chunks", "chunks_retired", "edges", "events", "queries"), strict=True):
        col.metric(name.replace("_", " ").capitalize(), f"{stats.get(name, 0):,}")
    st.caption("Store location and model")
    st.code(f"store: {stats['store']}\nmodel: {stats['model']}", language=None)

    if stats["documents"] == 0:
        st.info("The store is empty. Load the demo corpus to explore the dashboard, or use the Ingest page.")
        if st.button("Load the demo corpus", type="primary", key="load_demo") and require_write("Loading the demo"):
            with shown_errors("Loading the demo corpus"), st.status("Loading the demo corpus…") as status:
                bar = st.progress(0.0)
                report = sv.ingest_paths([DEMO_CORPUS],
                                         now=utc_now(), actor="demo",
                                         progress=lambda done, total: bar.progress(done / max(total, 1)))
                status.update(label=f"Loaded {report.documents} documents ({report.chunks} chunks)",
                              state="complete")
                st.button("Refresh", key="after_demo")
    else:
        for column, (name, field, title) in zip(st.columns(3), (
                ("kind", "by_kind", "Kinds"), ("lifecycle", "by_lifecycle", "Lifecycle states"),
                ("doc_type", "by_doc_type", "Doc types")), strict=True):
            with column:
                show_counts(views.counts_frame(stats[field], name), key=f"ov_{field}", title=title,
                            file_name=f"{field}.csv")

    st.subheader("Recent events")
    events = sv.events_frame()
    present = sorted(events["event_type"].dropna().unique()) if len(events) else []
    chosen = st.multiselect("Event types", present, default=views.operator_event_types(present), key="ov_event_types",
                            help="ACCESS rows (one per returned document of every query) are left out by default")
    shown = views.filter_events(events, event_types=chosen or present).head(200)
    show_table(shown, key="ov_events", file_name="recent_events.csv", height=320,
               title=f"The {len(shown)} most recent events of the chosen types", wrap=("detail",))
    with st.expander("Table versions"):
        show_table(views.versions_frame(stats["table_versions"], {}), key="ov_versions",
                   file_name="table_versions.csv", title="Current version of each table")
