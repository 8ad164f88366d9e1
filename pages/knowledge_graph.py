"""Knowledge Graph: supersedes / depends_on / contradicts, with a node's chain and ripple."""

import pandas as pd
import streamlit as st

from pages._common import page_setup, service, show_figure, show_table, shown_errors, utc_now
from smartvector_core.ui import charts, views

page_setup()
st.title("Knowledge Graph")
sv = service()


@st.cache_data(show_spinner="Laying out the graph…", max_entries=32)
def layout(node_ids: tuple[str, ...], edge_pairs: tuple[tuple[str, str], ...]) -> dict:
    return views.layout_positions(node_ids, edge_pairs)


def selected_from_chart() -> str | None:
    state = st.session_state.get("graph_chart")
    try:
        points = state["selection"]["points"] if state else []
    except (KeyError, TypeError):
        return None
    for point in points:
        custom = point.get("customdata")
        if isinstance(custom, str):
            return custom
        if isinstance(custom, list) and custom and isinstance(custom[0], str):
            return custom[0]
    return None


selected = None
sub = pd.DataFrame(columns=["src", "dst", "edge_type"])
with shown_errors("Drawing the graph"):
    now = utc_now()
    docs = sv.documents_frame(as_of=now)
    edges = sv.edges_frame()
    c1, c2, c3, c4 = st.columns([3, 3, 2, 2])
    query = c1.text_input("Filter by title or id", key="graph_query")
    types = c2.multiselect("Doc types", sorted(docs["doc_type"].dropna().unique()) if len(docs) else [],
                           key="graph_types")
    color_by = c3.radio("Colour by", ["lifecycle", "kind"], horizontal=True, key="graph_color")
    max_nodes = c4.number_input("Max nodes", 10, 5000, 400, step=50, key="graph_max")
    connected = st.checkbox("Only documents with relations", key="graph_connected")
    nodes, sub = views.graph_view(docs, edges, title_query=query, doc_types=types, max_nodes=int(max_nodes),
                                  connected_only=connected)
    st.caption(f"{len(nodes)} of {len(docs)} documents, {len(sub)} relations · edges: supersedes (solid), "
               "depends on (dashed), contradicts (dotted) · size: confidence")
    positions = layout(tuple(nodes["id"]), tuple(zip(sub["src"], sub["dst"], strict=True)))
    options = views.node_options(nodes)
    chart_pick = selected_from_chart()
    if chart_pick in options and st.session_state.get("graph_node") != chart_pick:
        st.session_state["graph_node"] = chart_pick
    if st.session_state.get("graph_node") not in options:
        st.session_state.pop("graph_node", None)
    selected = st.selectbox("Document", list(options), index=None, format_func=options.get, key="graph_node",
                            placeholder="Choose a document (or click a node)")
    fig = charts.knowledge_graph(nodes, sub, positions, color_by=color_by, selected=selected)
    show_figure(fig, key="graph_chart", on_select="rerun", selection_mode="points")

if selected:
    with shown_errors("Reading the document"):
        row = docs[docs["id"] == selected].iloc[0]
        st.subheader("Details")
        details = pd.DataFrame({"field": row.index.astype(str), "value": [str(v) for v in row.to_numpy()]})
        st.dataframe(details, hide_index=True)
        c1, c2 = st.columns(2)
        with c1:
            st.subheader("Version chain")
            chain_frame = pd.DataFrame(sv.version_chain(selected))
            show_table(chain_frame, key="graph_chain", file_name=f"chain_{selected}.csv")
        with c2:
            st.subheader("A correction would ripple to")
            ripple = pd.DataFrame(sv.ripple_preview(selected), columns=["doc_id", "hop", "penalty", "via"])
            if ripple.empty:
                st.text("no dependent documents")
            show_table(ripple, key="graph_ripple", file_name=f"ripple_{selected}.csv")

st.subheader("Relations")
show_table(sub, key="graph_edges", file_name="relations.csv")
