"""Freshness: grade A–F (how urgently to review) and advice for every document at a chosen moment.

The report is the service's, kept per table version and moment (a page shown again costs no
new report); the grades are counted in a small table, the decay curves are drawn on request,
and the documents table loads its rows as the operator scrolls.
"""

from datetime import timedelta

import streamlit as st

from pages._common import (
    as_utc,
    page_setup,
    service,
    show_counts,
    show_figure,
    show_table,
    shown_errors,
    utc_now,
)
from smartvector_core.config import decay_profile
from smartvector_core.temporal.freshness import GRADES
from smartvector_core.ui import charts, views

page_setup()
st.title("Freshness")
sv = service()
if "fresh_default_as_of" not in st.session_state:
    st.session_state["fresh_default_as_of"] = utc_now().replace(tzinfo=None, second=0, microsecond=0)


with shown_errors("Freshness report"):
    as_of = as_utc(st.datetime_input("As of (UTC)", value=st.session_state["fresh_default_as_of"],
                                     step=timedelta(minutes=1), key="fresh_as_of", format="YYYY-MM-DD"))
    report = sv.freshness(as_of=as_of)
    if report.empty:
        st.info("No documents yet.")
    else:
        c1, c2, c3, c4 = st.columns(4)
        grades = c1.multiselect("Grades", list(GRADES), key="fresh_grades")
        kinds = c2.multiselect("Kinds", sorted(report["kind"].dropna().unique()), key="fresh_kinds")
        doc_types = c3.multiselect("Doc types", sorted(report["doc_type"].dropna().unique()), key="fresh_types")
        text = c4.text_input("Title or id contains", key="fresh_text")
        table = views.freshness_table(report, grades=grades, kinds=kinds, doc_types=doc_types, text=text)
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
        st.caption(f"{len(table)} of {len(report)} documents")
        show_table(table, key="fresh", file_name="freshness.csv", title="Documents, freshest first",
                   column_config={"decay": st.column_config.ProgressColumn("decay", min_value=0.0, max_value=1.0,
                                                                           format="%.2f")})
