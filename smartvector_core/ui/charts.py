"""Pure chart builders for the dashboard: explicit arguments in, a Plotly ``Figure`` out.

No store, no clock, no Streamlit. Every piece of user text placed in a figure (titles, ids)
goes through :func:`plain`, which HTML-escapes it: Plotly renders a small HTML subset in
labels and hover text, and a document title must always read as the literal text it is.
"""

from __future__ import annotations

import html
import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

SIGNAL_COLORS = {
    "semantic": "#4C78A8",
    "temporal": "#F58518",
    "confidence": "#54A24B",   # the paper profile's name for the trust signal
    "trust": "#54A24B",
    "relational": "#B279A2",
    "decay": "#E45756",
    "recency": "#72B7B2",
}
EDGE_STYLES = {  # edge type -> (colour, dash, width)
    "SUPERSEDES": ("#4C78A8", "solid", 2.0),
    "DEPENDS_ON": ("#54A24B", "dash", 1.5),
    "CONTRADICTS": ("#E45756", "dot", 2.0),
}
PALETTE = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6", "#9D755D",
           "#BAB0AC", "#EECA3B")
DISTINCT = ("#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F", "#BCBD22",
            "#17BECF", "#393B79", "#AD494A", "#637939", "#E7BA52", "#3182BD", "#843C39")   # 16 distinguishable hues
#: One colour per profile on every chart (naive is never blue here and orange there).
PROFILE_COLORS = {"naive": "#7F7F7F", "temporal": "#F58518", "smartvector": "#B279A2", "default": "#2E7D32",
                  "bm25": "#4C78A8", "hybrid": "#72B7B2", "langchain": "#E45756", "llamaindex_fixed": "#9D755D",
                  "llamaindex_time": "#EECA3B"}


def profile_color(name: object) -> str:
    """The colour of a profile (:data:`PROFILE_COLORS`; any other name gets a fixed hue from its
    CRC-32, so it too keeps its colour from chart to chart)."""
    key = str(name)
    return PROFILE_COLORS.get(key) or DISTINCT[zlib.crc32(key.encode("utf-8")) % len(DISTINCT)]


# No "template": resolving a named Plotly template costs 20-30 ms per figure (most of a score
# breakdown's build time); the dashboard's st.plotly_chart styles every figure with its theme.
LAYOUT = {"margin": {"l": 10, "r": 10, "t": 40, "b": 10}}


def plain(text: object, limit: int | None = None) -> str:
    """``text`` as literal characters inside a Plotly label (HTML-escaped, optionally cut)."""
    value = "" if text is None else str(text)
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    return html.escape(value, quote=False)


def _empty(title: str, message: str = "nothing to show") -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title=title, annotations=[{"text": message, "showarrow": False, "xref": "paper",
                                                  "yref": "paper", "x": 0.5, "y": 0.5}], **LAYOUT)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


# --------------------------------------------------------------------------------- query lab
def score_breakdown(results: Sequence[Mapping], title: str = "Score breakdown") -> go.Figure:
    """Stacked horizontal bars: one bar per result, one segment per signal's contribution.

    ``results`` are CONTRACT.md result dicts (``rank``, ``id``, ``signals`` {name: {value,
    weight, contribution}}). Rank 1 is drawn at the top. Negative contributions stack to the
    left (``barmode="relative"``).
    """
    if not results:
        return _empty(title, "no results")
    labels = [f"{r.get('rank', i + 1)}. {plain(r.get('id'), 40)}" for i, r in enumerate(results)]
    names: list[str] = []
    for r in results:
        names.extend(n for n in r.get("signals", {}) if n not in names)
    weighted = [n for n in names if any(float((r.get("signals", {}).get(n) or {}).get("weight", 0.0))
                                        for r in results)]
    names = weighted or names   # a signal shown for information only (weight 0) draws no segment
    traces = []
    for k, name in enumerate(names):
        parts = [r.get("signals", {}).get(name) or {} for r in results]
        traces.append({
            "type": "bar", "name": name, "orientation": "h", "y": labels,
            "x": [float(p.get("contribution", 0.0)) for p in parts],
            "customdata": [[float(p.get("value", 0.0)), float(p.get("weight", 0.0))] for p in parts],
            "marker": {"color": SIGNAL_COLORS.get(name, PALETTE[k % len(PALETTE)])},
            "hovertemplate": f"{name}: value %{{customdata[0]:.3f}} × weight %{{customdata[1]:.2f}}"
                             " = %{x:.3f}<extra></extra>"})
    # one constructor call with plain dicts: Plotly validates once (a tenth of add_trace + update_*)
    return go.Figure(data=traces, layout={
        "title": {"text": title}, "barmode": "relative", "height": 175 + 34 * len(results),
        "legend": {"orientation": "h", "x": 0.0, "xanchor": "left", "y": -0.32, "yanchor": "top"},
        "yaxis": {"autorange": "reversed"},
        "xaxis": {"title": {"text": "contribution to score", "font": {"size": 11}}}, **LAYOUT})


# ------------------------------------------------------------------------------------- graph
LIFECYCLE_COLORS = {"ACTIVE": "#2E7D32", "UNCONSOLIDATED": "#1E88E5", "DORMANT": "#F9A825", "ARCHIVED": "#9E9E9E"}
KIND_COLORS = {"VERSIONED": "#4C78A8", "STATIC": "#54A24B", "EVENT": "#E45756"}
EDGE_LABELS = {"SUPERSEDES": "supersedes", "DEPENDS_ON": "depends on", "CONTRADICTS": "contradicts"}


def _category_colour(color_by: str, category: object, k: int) -> str:
    fixed = LIFECYCLE_COLORS if color_by == "lifecycle" else KIND_COLORS if color_by == "kind" else {}
    return fixed.get(str(category), PALETTE[k % len(PALETTE)])


def _edge_hover(row: Mapping, labels: Mapping[str, str]) -> str:
    src, dst, etype = str(row["src"]), str(row["dst"]), str(row["edge_type"])
    evidence = plain(row.get("evidence") or "", 160) or "(none)"
    status = plain(row.get("status") or "") or "open" if etype == "CONTRADICTS" else plain(row.get("status") or "")
    return (f"<b>{plain(labels.get(src, src))}</b> {EDGE_LABELS.get(etype, etype.lower())} "
            f"<b>{plain(labels.get(dst, dst))}</b><br>type: {plain(etype)}"
            f"<br>origin: {plain(row.get('origin') or 'declared')}<br>evidence: {evidence}"
            f"<br>status: {status or 'in force'}")


def knowledge_graph(nodes: pd.DataFrame, edges: pd.DataFrame, positions: Mapping[str, tuple[float, float]],
                    *, color_by: str = "lifecycle", selected: str | None = None, focus: Sequence[str] = (),
                    labels: Mapping[str, str] | None = None, title: str = "Knowledge graph") -> go.Figure:
    """A readable relation graph: labelled nodes, directed edges with arrowheads and hover.

    ``nodes``: columns ``id``, ``title``, ``trust`` (``SmartVector.documents_frame``) and
    ``color_by``; optional ``created_at``. ``edges``: ``src``, ``dst``, ``edge_type`` and
    optionally ``origin`` (declared / inferred), ``evidence``, ``status``. ``positions`` from
    :func:`smartvector_core.ui.graph_views.graph_layout`; nodes without one are skipped, and so are
    their edges. ``labels``: id -> short label (:func:`graph_views.short_labels`), else the id.

    Traces: per edge type one line trace whose points end in an arrowhead (marker ``arrow``
    turned along the edge, ``angleref="previous"``; an edge ``src -> dst`` reads "src
    supersedes / depends on dst"; a contradiction, which reads the same both ways, has none), styled by :data:`EDGE_STYLES`, in the legend
    group "Relations"; one invisible marker per edge midpoint carrying its hover (type, origin,
    evidence, status); per ``color_by`` category one node trace (fixed colours per lifecycle
    state or kind, legend group "Lifecycle"/"Kind"), sized by trust, labelled with text, with
    the id in ``customdata`` for selection events; node labels wrapped whole (:func:`wrapped`), the
    full title in the hover, dark text on white. With ``focus`` (a node, its chain and
    ripple set), everything else is faded and unlabelled; ``selected`` gets a ring.
    """
    if nodes.empty:
        return _empty(title, "no documents match")
    labels = dict(labels or {})
    focus_ids = set(focus)
    # plain dicts, one go.Figure call at the end (validated once)
    traces = _edge_traces(edges, positions, labels, focus_ids)
    traces += _node_traces(nodes, positions, labels, focus_ids, color_by)
    if selected is not None and selected in positions:
        traces.append(_selection_ring(positions[selected]))
    return go.Figure(data=traces, layout=_graph_frame(positions, title))


UNDIRECTED = ("CONTRADICTS",)   # relations that read the same both ways: drawn without an arrowhead


def _edge_name(etype: object) -> str:
    name = EDGE_LABELS.get(str(etype), str(etype).lower())
    return name if str(etype) in UNDIRECTED else f"{name} →"


def wrapped(text: object, width: int = 18) -> str:
    """``text`` escaped for a Plotly label and wrapped at word boundaries into lines of about
    ``width`` characters (``<br>`` between them): a node label shown whole, never cut."""
    words, lines, line = str(text or "").split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        lines.append(line)
    return "<br>".join(html.escape(x, quote=False) for x in lines)


def _edge_traces(edges: pd.DataFrame, positions: Mapping[str, tuple[float, float]], labels: Mapping[str, str],
                 focus_ids: set[str]) -> list[dict]:
    """Edges: per edge type (sorted) its arrows (in focus, then faded), its legend entry (the
    first titled "Relations") and its hover points; edges with an end out of ``positions`` are
    not drawn."""
    traces: list[dict] = []
    drawn = edges[edges["src"].isin(list(positions)) & edges["dst"].isin(list(positions))] if len(edges) else edges
    for k, (etype, group) in enumerate(drawn.groupby("edge_type", sort=True) if len(drawn) else []):
        style = EDGE_STYLES.get(str(etype), ("#999999", "solid", 1.0))
        for faded in (False, True):
            part = group
            if focus_ids:
                touches = group["src"].isin(focus_ids) & group["dst"].isin(focus_ids)
                part = group[~touches] if faded else group[touches]
            elif faded:
                continue
            if len(part):
                traces.append(_arrows(part, positions, etype, style, faded=faded))
        traces.append(_edge_legend_entry(etype, style, titled=k == 0))
        traces.append(_edge_hover_points(group, positions, labels, etype))
    return traces


def _arrows(part: pd.DataFrame, positions: Mapping[str, tuple[float, float]], etype: object,
            style: tuple[str, str, float], *, faded: bool) -> dict:
    """One line trace for ``part``'s edges, each ``src -> dst`` ending in an arrowhead (marker
    ``arrow`` turned along the edge) whose tip stops short of the ``dst`` node."""
    colour, dash, width = style
    directed = str(etype) not in UNDIRECTED
    xs: list[float | None] = []
    ys: list[float | None] = []
    sizes: list[float] = []
    for src, dst in zip(part["src"], part["dst"], strict=True):
        (x0, y0), (x1, y1) = positions[src], positions[dst]
        length = float(np.hypot(x1 - x0, y1 - y0)) or 1.0
        stop = max(0.0, 1.0 - 0.42 / length) if directed else 1.0   # the arrow's tip stops short of the node
        xs += [x0, x0 + (x1 - x0) * stop, None]
        ys += [y0, y0 + (y1 - y0) * stop, None]
        sizes += [0.0, 11.0 if directed and not faded else 0.0, 0.0]
    return dict(type="scatter",
                x=xs, y=ys, mode="lines+markers", name=_edge_name(etype), hoverinfo="skip", showlegend=False,
                legendgroup=f"edge_{etype}", opacity=0.18 if faded else 1.0,
                line={"color": colour, "dash": dash, "width": width},
                marker={"symbol": "arrow", "angleref": "previous", "size": sizes, "color": colour})


def _edge_legend_entry(etype: object, style: tuple[str, str, float], *, titled: bool) -> dict:
    """The legend entry of an edge type (drawn whatever is faded)."""
    colour, dash, width = style
    size = [0, 0] if str(etype) in UNDIRECTED else [0, 11]
    return dict(type="scatter",
                x=[None], y=[None], mode="lines+markers", legendgroup=f"edge_{etype}", name=_edge_name(etype),
                legendgrouptitle={"text": "Relations"} if titled else None,
                line={"color": colour, "dash": dash, "width": width},
                marker={"symbol": "arrow", "angleref": "previous", "size": size, "color": colour})


def _edge_hover_points(group: pd.DataFrame, positions: Mapping[str, tuple[float, float]],
                       labels: Mapping[str, str], etype: object) -> dict:
    """One invisible marker per edge midpoint carrying its hover (:func:`_edge_hover`)."""
    pairs = list(zip(group["src"], group["dst"], strict=True))
    mid = group.assign(_x=[(positions[s][0] + positions[d][0]) / 2 for s, d in pairs],
                       _y=[(positions[s][1] + positions[d][1]) / 2 for s, d in pairs])
    return dict(type="scatter",
                x=mid["_x"], y=mid["_y"], mode="markers", name=f"{str(etype).lower()} details", showlegend=False,
                legendgroup=f"edge_{etype}", marker={"size": 12, "color": "rgba(0,0,0,0)"}, hoverinfo="text",
                hovertext=[_edge_hover(row, labels) for row in mid.to_dict("records")])


def _node_traces(nodes: pd.DataFrame, positions: Mapping[str, tuple[float, float]], labels: Mapping[str, str],
                 focus_ids: set[str], color_by: str) -> list[dict]:
    """Nodes: per ``color_by`` category (sorted, missing last) its legend entry (the first
    titled "Lifecycle"/"Kind") and its nodes, sized by trust; out of ``focus_ids`` faded and
    unlabelled."""
    traces: list[dict] = []
    placed = nodes[nodes["id"].isin(list(positions))]
    weight = placed["trust"] if "trust" in placed else placed.get("confidence", pd.Series(0.0, index=placed.index))
    placed = placed.assign(_size=8.0 + 14.0 * weight.fillna(0.0).clip(0.0, 1.0).to_numpy(dtype=float),
                           _trust=weight.fillna(0.0).to_numpy(dtype=float))
    group_title = {"lifecycle": "Lifecycle", "kind": "Kind"}.get(color_by, color_by)
    for k, (category, group) in enumerate(placed.groupby(color_by, sort=True, dropna=False)):
        colour = _category_colour(color_by, category, k)
        traces.append(dict(type="scatter", x=[None], y=[None], mode="markers", name=plain(category),   # legend entry
                           legendgroup=f"node_{category}", marker={"size": 12, "color": colour},
                           legendgrouptitle={"text": group_title} if k == 0 else None))
        traces.append(_nodes(group, positions, labels, focus_ids, color_by, category, colour))
    return traces


def _nodes(group: pd.DataFrame, positions: Mapping[str, tuple[float, float]], labels: Mapping[str, str],
           focus_ids: set[str], color_by: str, category: object, colour: str) -> dict:
    """One category's nodes: labelled (above / below by column, so neighbours in a row do not
    collide), hover with title, id, category, created day and trust; the id in ``customdata``."""
    xy = np.array([positions[i] for i in group["id"]], dtype=float).reshape(-1, 2)
    lit = [not focus_ids or i in focus_ids for i in group["id"]]
    created = group["created_at"] if "created_at" in group else pd.Series([None] * len(group))
    hover = [f"<b>{wrapped(t or i, 50)}</b><br>id {plain(i)}<br>{plain(color_by)}: {plain(category)}"
             f"<br>created {plain(str(c)[:10]) if c is not None and not pd.isna(c) else '?'}<br>trust {w:.3f}"
             for i, t, c, w in zip(group["id"], group["title"].fillna(""), created, group["_trust"], strict=True)]
    column = np.rint(xy[:, 0] / 3.0).astype(int)      # neighbours in a row put labels above / below
    return dict(type="scatter",
                x=xy[:, 0], y=xy[:, 1], mode="markers+text", name=plain(category), legendgroup=f"node_{category}",
                showlegend=False,
                text=[wrapped(labels.get(i, i)) if on else "" for i, on in zip(group["id"], lit, strict=True)],
                textposition=["bottom center" if c % 2 == 0 else "top center" for c in column],
                textfont={"size": 10, "color": "#222222"},
                marker={"size": group["_size"].to_numpy(), "color": colour,
                        "opacity": [1.0 if on else 0.2 for on in lit], "line": {"width": 0.6, "color": "#333333"}},
                customdata=group["id"].to_numpy(dtype=object), hovertext=hover, hoverinfo="text")


def _selection_ring(at: tuple[float, float]) -> dict:
    return dict(type="scatter", x=[at[0]], y=[at[1]], mode="markers", name="selected", hoverinfo="skip",
                marker={"size": 30, "color": "rgba(0,0,0,0)", "line": {"width": 3, "color": "#000000"}})


def _graph_frame(positions: Mapping[str, tuple[float, float]], title: str) -> dict:
    """The layout: height from the rows the positions span, axes hidden with room for the end
    labels, pan by default, legend groups toggled together."""
    xs = [p[0] for p in positions.values()] or [0.0]
    ys = [p[1] for p in positions.values()] or [0.0]
    rows = max(ys) - min(ys) + 1
    return {"title": {"text": title}, "height": int(min(2600, max(420, 150 + 52 * rows))), "showlegend": True,
            "dragmode": "pan",
            "hoverlabel": {"align": "left", "bgcolor": "#FFFFFF", "bordercolor": "#333333",
                           "font": {"color": "#111111", "size": 13}}, "legend": {"groupclick": "togglegroup"},
            "xaxis": {"visible": False, "range": [min(xs) - 2.2, max(xs) + 2.2]},   # room for the end labels
            "yaxis": {"visible": False, "range": [min(ys) - 1.1, max(ys) + 1.0]}, **LAYOUT}   # wrapped labels


# --------------------------------------------------------------------------------- freshness
def decay_curves(half_lives: Mapping[str, float], *, horizon_days: float = 730.0, points: int = 120,
                 floors: Mapping[str, float] | None = None, title: str = "Decay by doc type") -> go.Figure:
    """``max(floor, 0.5 ** (age / half_life))`` over ``[0, horizon_days]``, one line per doc type."""
    if not half_lives:
        return _empty(title)
    age = np.linspace(0.0, float(horizon_days), int(points))
    dashes = ("solid", "dash", "dot", "dashdot")
    traces = []
    for k, (name, half) in enumerate(sorted(half_lives.items(), key=lambda kv: kv[1])):
        floor = float((floors or {}).get(name, 0.0))
        traces.append({"type": "scatter", "x": age, "y": np.maximum(floor, np.exp2(-age / float(half))),
                       "mode": "lines", "name": f"{plain(name)} ({half:g} d)",
                       "line": {"color": DISTINCT[k % len(DISTINCT)],
                                "dash": dashes[(k // len(DISTINCT)) % len(dashes)]}})
    return go.Figure(data=traces, layout={
        "title": {"text": title}, "height": 320, "xaxis": {"title": {"text": "age (days)"}},
        "yaxis": {"title": {"text": "decay"}, "range": [0, 1.02]}, **LAYOUT})


# ---------------------------------------------------------------------------- rejections
def rejections_over_time(frame: pd.DataFrame, *, freq: str = "D",
                         title: str = "Rejections by code over time") -> go.Figure:
    """Stacked bars: rejections per period (``asked_at`` floored to ``freq``) and code."""
    if frame.empty:
        return _empty(title, "no rejections logged")
    when = pd.to_datetime(frame["asked_at"], utc=True).dt.floor(freq)
    counts = frame.assign(period=when).groupby(["period", "code"]).size().unstack(fill_value=0)
    fig = go.Figure()
    for k, code in enumerate(counts.columns):
        fig.add_trace(go.Bar(x=counts.index, y=counts[code].to_numpy(), name=str(code),
                             marker_color=PALETTE[k % len(PALETTE)]))
    fig.update_layout(title=title, barmode="stack", height=320, **LAYOUT)
    return fig


# --------------------------------------------------------------------------------- audit
def trust_over_time(history: pd.DataFrame, events: pd.DataFrame | None = None,
                    title: str = "Trust over time") -> go.Figure:
    """The trust line (``at``, ``trust``: ``SmartVector.trust_history``), drawn as steps (trust
    changes at events, in one step, and holds in between), with one marker per event (``at``,
    ``event_type``) at the trust it left."""
    if history.empty:
        return _empty(title)
    fig = go.Figure(go.Scatter(x=history["at"], y=history["trust"], mode="lines", name="trust",
                               line={"shape": "hv"}, hovertemplate="%{x|%Y-%m-%d %H:%M} UTC: trust %{y:.3f}"
                                                                   "<extra></extra>"))
    if events is not None and len(events):
        at = pd.to_datetime(events["at"], utc=True)
        times = pd.to_datetime(history["at"], utc=True).astype("int64").to_numpy()
        after = np.clip(np.searchsorted(times, at.astype("int64").to_numpy(), side="right") - 1, 0, len(times) - 1)
        level = history["trust"].to_numpy(dtype=float)[after]
        fig.add_trace(go.Scatter(x=at, y=level, mode="markers", name="events",
                                 text=[plain(t) for t in events["event_type"]], hoverinfo="text+x",
                                 marker={"size": 9, "symbol": "diamond"}))
    fig.update_layout(title=title, height=360, **LAYOUT)
    fig.update_yaxes(range=[0, 1.02], title="trust")
    fig.update_xaxes(rangeslider={"visible": True, "thickness": 0.08}, rangeselector={"buttons": [
        {"count": 7, "label": "1w", "step": "day", "stepmode": "backward"},
        {"count": 1, "label": "1m", "step": "month", "stepmode": "backward"},
        {"count": 1, "label": "1y", "step": "year", "stepmode": "backward"},
        {"step": "all", "label": "all"}]})
    window = latest_changes_window(history, events)
    if window is not None:
        fig.update_xaxes(range=list(window))
    return fig


def latest_changes_window(history: pd.DataFrame, events: pd.DataFrame | None, *, last: int = 8):
    """The x range that opens the trust chart on its latest changes: from the earliest of the
    ``last`` most recent events that move trust (not ACCESS) to the end of the history, padded
    by 10% (at least a day). None when there are no such events."""
    if events is None or not len(events):
        return None
    moving = events[events["event_type"] != "ACCESS"] if "event_type" in events else events
    if not len(moving):
        return None
    at = pd.to_datetime(moving["at"], utc=True).sort_values()
    end = pd.to_datetime(history["at"], utc=True).max()
    start = at.iloc[-last:].min()
    pad = max((end - start) * 0.1, pd.Timedelta(days=1))
    return start - pad, end + pad / 4


# ---------------------------------------------------------------------------- evaluation
HIGHER_IS_BETTER = ("top1", "auroc", "containment_at_5", "answer_containment_at_5")
LOWER_IS_BETTER = ("stale_at_1", "ece")


def metric_bars(metrics: pd.DataFrame, higher: Sequence[str] = HIGHER_IS_BETTER,
                lower: Sequence[str] = LOWER_IS_BETTER, title: str = "Metrics per profile") -> go.Figure:
    """Grouped bars of ``metrics`` (indexed by profile) in two panels that are never mixed: the
    metrics where higher is better (top-1, AUROC, containment) and those where lower is better
    (stale@1, ECE). Per profile one trace per panel, in the profile's colour; a metric no profile
    has a value of (answer containment where no question carries answers) is left out."""
    from plotly.subplots import make_subplots

    up = [c for c in higher if c in metrics.columns and metrics[c].notna().any()]
    down = [c for c in lower if c in metrics.columns and metrics[c].notna().any()]
    if metrics.empty or not (up or down):
        return _empty(title)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("higher is better", "lower is better"),
                        column_widths=[max(len(up), 1), max(len(down), 1)])
    for profile in metrics.index:
        for col, cols in ((1, up), (2, down)):
            values = [None if pd.isna(metrics.loc[profile, c]) else float(metrics.loc[profile, c]) for c in cols]
            fig.add_trace(go.Bar(x=list(cols), y=values, name=plain(profile), legendgroup=plain(profile),
                                 showlegend=col == 1, marker_color=profile_color(profile)), row=1, col=col)
    fig.update_layout(title=title, barmode="group", height=340, **LAYOUT)
    fig.update_yaxes(range=[0, 1.0])
    return fig


def reliability_diagram(curves: Mapping[str, pd.DataFrame], title: str = "Reliability diagram") -> go.Figure:
    """Accuracy against mean answer confidence per bin, one line per profile, and the diagonal.

    Each frame has columns ``confidence`` (mean in the bin), ``accuracy`` and ``count``.
    """
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect calibration",
                               line={"dash": "dash", "color": "#888888"}))
    for profile, bins in curves.items():
        if bins is None or bins.empty:
            continue
        fig.add_trace(go.Scatter(x=bins["confidence"], y=bins["accuracy"], mode="lines+markers",
                                 name=plain(profile), marker={"color": profile_color(profile)},
                                 line={"color": profile_color(profile)},
                                 text=[f"n={int(n)}" for n in bins["count"]]))
    fig.update_layout(title=title, height=360, **LAYOUT)
    fig.update_xaxes(title="confidence", range=[0, 1])
    fig.update_yaxes(title="accuracy", range=[0, 1])
    return fig


def ablation_bars(frame: pd.DataFrame, metric: str = "top1", title: str = "Ablations") -> go.Figure:
    """One horizontal bar per variant (``variant`` column, or the index) for ``metric``."""
    if frame.empty or metric not in frame.columns:
        return _empty(title)
    names = frame["variant"] if "variant" in frame.columns else frame.index
    fig = go.Figure(go.Bar(y=[plain(n) for n in names], x=frame[metric].astype(float), orientation="h",
                           marker_color=PALETTE[0]))
    fig.update_layout(title=f"{title}: {metric}", height=80 + 28 * len(frame), **LAYOUT)
    fig.update_yaxes(autorange="reversed")
    return fig


def sweep_heatmap(frame: pd.DataFrame, x: str, y: str, z: str, title: str = "Weight sweep") -> go.Figure:
    """Heatmap of ``z`` over the grid of weights ``x`` × ``y`` (mean over the other weights)."""
    if frame.empty or not {x, y, z} <= set(frame.columns):
        return _empty(title)
    grid = frame.pivot_table(index=y, columns=x, values=z, aggfunc="mean").sort_index()
    fig = go.Figure(go.Heatmap(x=[float(v) for v in grid.columns], y=[float(v) for v in grid.index],
                               z=grid.to_numpy(dtype=float), colorscale="Viridis", colorbar={"title": z}))
    fig.update_layout(title=f"{title}: {z}", height=380, **LAYOUT)
    fig.update_xaxes(title=f"weight {x}")
    fig.update_yaxes(title=f"weight {y}")
    return fig
