"""View models of the Knowledge Graph page (pure: no Streamlit): which nodes and edges to draw
after the filters, where to put them (version chains left to right by time), their short labels,
and what a focused node brings forward. The figure itself: :func:`.charts.knowledge_graph`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import networkx as nx
import numpy as np
import pandas as pd

from .views import title_or_id_contains


def graph_view(docs: pd.DataFrame, edges: pd.DataFrame, *, title_query: str = "",
               doc_types: Iterable[str] = (), max_nodes: int = 400,
               with_neighbours: bool = True, connected_only: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The nodes and edges to draw after the filters, capped at ``max_nodes``.

    ``title_query`` matches title or id as a literal, case-insensitive substring (never a
    regex). Matching documents bring their direct neighbours along (``with_neighbours``), so a
    version chain stays visible. Over the cap, the best-connected nodes are kept (ties: id).
    """
    if docs.empty:
        return docs.iloc[0:0], edges.iloc[0:0] if len(edges) else pd.DataFrame(columns=["src", "dst", "edge_type"])
    if edges.empty:
        edges = pd.DataFrame(columns=["src", "dst", "edge_type"])
    mask = np.ones(len(docs), dtype=bool)
    types = [t for t in doc_types if t]
    if types:
        mask &= docs["doc_type"].isin(types).to_numpy()
    query = (title_query or "").strip()
    if query:
        mask &= title_or_id_contains(docs, query)
    keep = set(docs.loc[mask, "id"])
    if (query or types) and with_neighbours and len(edges):
        touch = edges["src"].isin(keep) | edges["dst"].isin(keep)
        keep |= set(edges.loc[touch, "src"]) | set(edges.loc[touch, "dst"])
    ids = set(docs["id"])
    keep &= ids
    sub_edges = edges[edges["src"].isin(keep) & edges["dst"].isin(keep)]
    degree = pd.concat([sub_edges["src"], sub_edges["dst"]]).value_counts()
    if connected_only:
        keep &= set(degree.index)
    nodes = docs[docs["id"].isin(keep)].copy()
    nodes["degree"] = nodes["id"].map(degree).fillna(0).astype(int)
    if len(nodes) > max_nodes:
        nodes = nodes.sort_values(["degree", "id"], ascending=[False, True]).head(max_nodes)
    nodes = nodes.sort_values("id", ignore_index=True)
    kept = set(nodes["id"])
    sub_edges = sub_edges[sub_edges["src"].isin(kept) & sub_edges["dst"].isin(kept)].reset_index(drop=True)
    return nodes, sub_edges


GRAPH_X_STEP = 3.0       # layout units between two versions of a chain (labels need the room)
GRAPH_ROW_WIDTH = 42.0   # layout units per shelf of packed components


def graph_layout(node_ids: Sequence[str], times_us: Sequence[int],
                 edges: Sequence[tuple[str, str, str]]) -> dict[str, tuple[float, float]]:
    """2-D positions in which every version chain reads left to right by time.

    ``edges``: ``(src, dst, edge_type)``. A chain is a connected set of SUPERSEDES edges (a
    document without one is a chain of its own); a component is a connected set of any edges.
    Inside a component each chain is one row, its versions placed ``GRAPH_X_STEP`` apart in
    order of ``times_us`` (oldest left), rows ordered by their first version; components are
    packed as blocks on shelves ``GRAPH_ROW_WIDTH`` wide, largest first, and documents without
    any relation go on a grid below. Deterministic, no force simulation: 400 or 4,000 nodes
    lay out in milliseconds and never overlap.
    """
    ids = list(dict.fromkeys(node_ids))
    when = dict(zip(node_ids, (int(t) for t in times_us), strict=True))
    known = set(ids)
    every, chains = nx.Graph(), nx.Graph()
    every.add_nodes_from(ids)
    chains.add_nodes_from(ids)
    for src, dst, etype in edges:
        if src != dst and src in known and dst in known:
            every.add_edge(src, dst)
            if str(etype) == "SUPERSEDES":
                chains.add_edge(src, dst)

    def by_time(members) -> list[str]:
        return sorted(members, key=lambda v: (when.get(v, 0), v))

    blocks, isolated = [], []
    for comp in nx.connected_components(every):
        if len(comp) == 1:
            isolated.extend(comp)
            continue
        rows = sorted((by_time(c) for c in nx.connected_components(chains.subgraph(comp))),
                      key=lambda row: (when.get(row[0], 0), row[0]))
        blocks.append(rows)
    blocks.sort(key=lambda rows: (-sum(map(len, rows)), rows[0][0]))
    positions: dict[str, tuple[float, float]] = {}
    x = y = shelf = 0.0
    for rows in blocks:
        width = GRAPH_X_STEP * max(len(r) for r in rows)
        if x > 0 and x + width > GRAPH_ROW_WIDTH:
            x, y, shelf = 0.0, y - shelf - 1.0, 0.0
        for r, row in enumerate(rows):
            positions.update({v: (x + GRAPH_X_STEP * c, y - r) for c, v in enumerate(row)})
        x += width + GRAPH_X_STEP          # blocks start on the step grid (labels alternate by column)
        shelf = max(shelf, float(len(rows)))
    if isolated:
        y = y - shelf - 1.0 if positions else 0.0
        cols = int(GRAPH_ROW_WIDTH // GRAPH_X_STEP)
        for i, v in enumerate(by_time(isolated)):
            positions[v] = (GRAPH_X_STEP * (i % cols), y - (i // cols))
    return positions


def short_labels(nodes: pd.DataFrame, limit: int = 64) -> dict[str, str]:
    """id -> a short label: the title cut to ``limit`` characters (the id when untitled).

    Collisions are handled: a label shared by several nodes (the versions of one document,
    mostly) gets the version, else the id, appended, so no two nodes read the same.
    """
    def cut(text: str, n: int) -> str:
        return text if len(text) <= n else text[: max(n - 1, 1)].rstrip() + "…"

    ids = [str(i) for i in nodes["id"]]
    titles = nodes["title"].fillna("").astype(str).tolist() if "title" in nodes else [""] * len(ids)
    versions = nodes["version"].fillna("").astype(str).tolist() if "version" in nodes else [""] * len(ids)
    base = [cut(t.strip() or i, limit) for i, t in zip(ids, titles, strict=True)]
    counts = pd.Series(base, dtype=object).value_counts()
    def tail(text: str, n: int) -> str:
        return text if len(text) <= n else "…" + text[-(n - 1):]

    keep = max(7, limit // 3)   # characters of the version or id that tell a shared title apart
    out = {i: b if counts[b] == 1 else f"{cut(b, limit - keep - 1)} {tail(v.strip() or i, keep)}"
           for i, b, v in zip(ids, base, versions, strict=True)}
    shared = pd.Series(list(out.values()), dtype=object).value_counts()
    if len(shared) < len(out):   # same title and version: the id decides
        out = {i: f"{cut(lab, limit - keep - 1)} {tail(i, keep)}" if shared[lab] > 1 else lab
               for i, lab in out.items()}
    return out


def focus_set(selected: str | None, chain: Iterable[str] = (), ripple: Iterable[str] = (),
              contradicts: Iterable[str] = ()) -> list[str]:
    """The documents a focused node brings forward: itself, its version chain, its ripple set and
    the other sides of its contradictions."""
    if not selected:
        return []
    return list(dict.fromkeys([selected, *chain, *ripple, *contradicts]))


def contradicting(selected: str | None, edges: pd.DataFrame) -> list[str]:
    """The other sides of ``selected``'s CONTRADICTS edges (open or settled), in edge order."""
    if not selected or not len(edges):
        return []
    mine = edges[(edges["edge_type"] == "CONTRADICTS") & ((edges["src"] == selected) | (edges["dst"] == selected))]
    return list(dict.fromkeys(d if s == selected else s for s, d in zip(mine["src"], mine["dst"], strict=True)))


def relations_in_focus(edges: pd.DataFrame, focus: Iterable[str]) -> pd.DataFrame:
    """The relations between documents of ``focus`` (all of ``edges`` when there is no focus)."""
    ids = list(focus)
    if not ids or not len(edges):
        return edges
    return edges[edges["src"].isin(ids) & edges["dst"].isin(ids)].reset_index(drop=True)
