"""SmartVector Studio: the operators' dashboard (``streamlit run app.py``).

A router: ``st.navigation`` over the pages in ``pages/``. Every page opens the same cached
service (``pages/_common.py``) on ``$SMARTVECTOR_STORE``.
"""

from pathlib import Path

import streamlit as st

from pages._common import actor_sidebar, settings, token_sidebar

# a local image: a ":material/…:" favicon is fetched from fonts.gstatic.com, which fails offline
FAVICON = Path(__file__).resolve().parent / "assets" / "favicon.png"
st.set_page_config(page_title="SmartVector Studio", page_icon=str(FAVICON), layout="wide")

PAGES = {
    "Store": [
        st.Page("pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
        st.Page("pages/ingest.py", title="Ingest", icon=":material/upload_file:"),
    ],
    "Explore": [
        st.Page("pages/query_lab.py", title="Query Lab", icon=":material/science:"),
        st.Page("pages/demo.py", title="Guided demo", icon=":material/slideshow:"),
        st.Page("pages/knowledge_graph.py", title="Knowledge Graph", icon=":material/hub:"),
        st.Page("pages/freshness.py", title="Review worklist", icon=":material/schedule:"),
        st.Page("pages/rejection_log.py", title="Rejection Log", icon=":material/block:"),
    ],
    "Operate": [
        st.Page("pages/feedback_audit.py", title="Feedback & Audit", icon=":material/fact_check:"),
        st.Page("pages/evaluation.py", title="Evaluation", icon=":material/leaderboard:"),
    ],
}

page = st.navigation(PAGES)
current = settings()
st.sidebar.caption("Store")
st.sidebar.code(current.store_uri, language=None)
st.sidebar.caption(f"Model: {current.model_name}")
actor_sidebar()
token_sidebar()
page.run()
