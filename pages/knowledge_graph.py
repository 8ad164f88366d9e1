"""Knowledge Graph: who supersedes, depends on or contradicts whom; a node's chain and ripple."""

import pandas as pd
import streamlit as st

from pages._common import page_setup, service, show_figure, show_table, shown_errors, utc_now
from smartvector_core.ui import charts, graph_views, views

page_setup()
st.title("Knowledge Graph")
sv = service()


@st.cache_data(show_spinner="Laying out the graph…", max_entries=32)
def layout(node_ids: tuple[str, ...], times_us: tuple[int, ...], edges: tuple[tuple[str, str, str], ...]) -> dict:
    return graph_views.graph_layout(node_ids, times_us, edges)


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
focus: list[str] = []
docs = pd.DataFrame(columns=["id", "title"])
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
    o1, o2 = st.columns(2)
    show_isolated = o1.checkbox("Show documents without relations", key="graph_isolated")
    only_focus = o2.checkbox("Only the chosen document's chain and ripple set", key="graph_only_focus")
    nodes, sub = graph_views.graph_view(docs, edges, title_query=query, doc_types=types,
                                        max_nodes=int(max_nodes),
                                        connected_only=not (show_isolated or query.strip()))   # a search shows every match
    options = views.node_options(nodes)
    chart_pick = selected_from_chart()
    if chart_pick in options and st.session_state.get("graph_node") != chart_pick:
        st.session_state["graph_node"] = chart_pick
    if st.session_state.get("graph_node") not in options:
        st.session_state.pop("graph_node", None)
    selected = st.selectbox("Focus on a document", list(options), index=None, format_func=options.get,
                            key="graph_node", placeholder="Choose a document (or click a node)")
    chain = pd.DataFrame(sv.version_chain(selected)) if selected else pd.DataFrame(columns=["id"])
    ripple = pd.DataFrame(sv.ripple_preview(selected) if selected else [], columns=["doc_id", "hop", "penalty", "via"])
    focus = graph_views.focus_set(selected, chain["id"], ripple["doc_id"], graph_views.contradicting(selected, sub))
    if focus and only_focus:
        nodes = nodes[nodes["id"].isin(focus)]
        sub = sub[sub["src"].isin(focus) & sub["dst"].isin(focus)]
    times = pd.to_datetime(nodes["created_at"], utc=True).astype("int64") if len(nodes) else []
    positions = layout(tuple(nodes["id"]), tuple(int(t) for t in times),
                       tuple(zip(sub["src"], sub["dst"], sub["edge_type"], strict=True)))
    hidden = len(docs) - len(nodes)
    st.caption(f"{len(nodes)} of {len(docs)} documents, {len(sub)} relations"
               + (f" · {hidden} hidden (filters, no relations, or the node cap)" if hidden else "")
               + " · arrows point from the newer or dependent document to the one it supersedes or relies on"
               " (a contradiction has no direction)"
               " · versions of one document run left to right by time · size: trust · hover an edge's middle"
               " for its origin and evidence")
    fig = charts.knowledge_graph(nodes, sub, positions, color_by=color_by, selected=selected, focus=focus,
                                 labels=graph_views.short_labels(nodes))
    show_figure(fig, key="graph_chart", on_select="rerun", selection_mode="points")

if selected:
    with shown_errors("Reading the document"):
        row = docs[docs["id"] == selected].iloc[0]
        st.subheader("Details")
        details = views.document_details(row)
        show_table(details, key="graph_details", file_name=f"document_{selected}.csv", title=f"Document {selected}")
        c1, c2 = st.columns(2)
        with c1:
            st.subheader("Version chain")
            show_table(chain, key="graph_chain", file_name=f"chain_{selected}.csv",
                       title="Versions, oldest first")
        with c2:
            st.subheader("A correction would ripple to")
            if ripple.empty:
                st.text("no dependent documents")
            show_table(ripple, key="graph_ripple", file_name=f"ripple_{selected}.csv",
                       title="Dependent documents, hop and penalty")

st.subheader("Relations")
shown_relations = graph_views.relations_in_focus(sub, focus if selected else [])
show_table(shown_relations, key="graph_edges", file_name="relations.csv", wrap=("evidence",),
           title=f"Relations of {selected}'s chain, ripple set and contradictions" if selected else "Relations drawn above")
