"""Rejection Log: what each query rejected and why, counts by code over time, drill-down."""

import streamlit as st

from pages._common import page_setup, service, show_figure, show_table, shown_errors
from smartvector_core.ui import charts, views

page_setup()
st.title("Rejection Log")
sv = service()

with shown_errors("Reading the query log"):
    rejections = sv.rejections_frame()
    log = sv.query_log()
    if log.empty:
        st.info("No queries logged yet: run some in the Query Lab.")
    st.subheader("Counts by code")
    counts = views.rejection_counts(rejections)
    c1, c2 = st.columns([2, 3])
    with c1:
        show_table(counts, key="rej_counts", file_name="rejection_counts.csv", title="Rejections per code")
    with c2:
        show_figure(charts.rejections_over_time(rejections), key="rej_time")

    st.subheader("Drill down from a code")
    code = st.selectbox("Code", counts["code"].tolist(), index=None, key="rej_code", placeholder="Choose a code")
    if code:
        queries, documents = views.rejection_drilldown(rejections, code)
        d1, d2 = st.columns(2)
        with d1:
            show_table(queries, key="rej_code_queries", file_name=f"{code}_queries.csv",
                       title=f"Queries that rejected with {code}")
        with d2:
            show_table(documents, key="rej_code_docs", file_name=f"{code}_documents.csv",
                       title=f"Documents rejected with {code}", wrap=("example_reason",))

    st.subheader("Per query")
    if len(log):
        labels, first = views.query_choices(log, rejections)
        query_id = st.selectbox("Query (asked at · profile · question · rejected)", list(labels), index=first,
                                format_func=labels.get, key="rej_query")
        show_table(rejections[rejections["query_id"] == query_id], key="rej_query_table",
                   file_name=f"rejections_{query_id}.csv", title=f"Rejections of query {query_id}", wrap=("reason",))
    st.subheader("All rejections")
    show_table(rejections, key="rej_all", file_name="rejections.csv", height=320, title="Every logged rejection",
               wrap=("reason",))
