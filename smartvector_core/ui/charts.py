"""Pure chart builders for the dashboard: explicit arguments in, a Plotly ``Figure`` out.

No store, no clock, no Streamlit. Every piece of user text placed in a figure (titles, ids)
goes through :func:`plain`, which HTML-escapes it: Plotly renders a small HTML subset in
labels and hover text, and a document title must always read as the literal text it is.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

SIGNAL_COLORS = {
    "semantic": "#4C78A8",
    "temporal": "#F58518",
    "confidence": "#54A24B",
    "relational": "#B279A2",
    "decay": "#E45756",
    "recency": "#72B7B2",
}
EDGE_STYLES = {  # edge type -> (colour, dash, width)
    "SUPERSEDES": ("#4C78A8", "solid", 2.0),
    "DEPENDS_ON": ("#54A24B", "dash", 1.5),
    "CONTRADICTS": ("#E45756", "dot", 2.0),
}
GRADE_ORDER = ("A", "B", "C", "D", "F")
GRADE_COLORS = {"A": "#2E7D32", "B": "#7CB342", "C": "#FBC02D", "D": "#FB8C00", "F": "#C62828"}
PALETTE = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#FF9DA6", "#9D755D",
           "#BAB0AC", "#EECA3B")
LAYOUT = {"margin": {"l": 10, "r": 10, "t": 40, "b": 10}, "template": "plotly_white"}


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
    fig = go.Figure()
    for k, name in enumerate(names):
        parts = [r.get("signals", {}).get(name) or {} for r in results]
        fig.add_trace(go.Bar(
            name=name, orientation="h", y=labels,
            x=[float(p.get("contribution", 0.0)) for p in parts],
            customdata=[[float(p.get("value", 0.0)), float(p.get("weight", 0.0))] for p in parts],
            marker_color=SIGNAL_COLORS.get(name, PALETTE[k % len(PALETTE)]),
            hovertemplate=f"{name}: value %{{customdata[0]:.3f}} × weight %{{customdata[1]:.2f}}"
                          " = %{x:.3f}<extra></extra>",
        ))
    fig.update_layout(title=title, barmode="relative", height=175 + 34 * len(results),
                      legend={"orientation": "h", "x": 0.0, "xanchor": "left", "y": -0.32, "yanchor": "top"},
                      **LAYOUT)
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title={"text": "contribution to score", "font": {"size": 11}})
    return fig


def count_bars(counts: Mapping[str, int], title: str) -> go.Figure:
    """One bar per category (kinds, lifecycle states, doc types)."""
    if not counts:
        return _empty(title)
    keys = list(counts)
    fig = go.Figure(go.Bar(x=[plain(k) for k in keys], y=[int(counts[k]) for k in keys],
                           marker_color=[PALETTE[i % len(PALETTE)] for i in range(len(keys))]))
    fig.update_layout(title=title, height=260, **LAYOUT)
    return fig


# ------------------------------------------------------------------------------------- graph
def knowledge_graph(nodes: pd.DataFrame, edges: pd.DataFrame, positions: Mapping[str, tuple[float, float]],
                    *, color_by: str = "lifecycle", selected: str | None = None,
                    title: str = "Knowledge graph") -> go.Figure:
    """Nodes coloured by ``color_by`` (one trace per category) and sized by confidence; one
    line trace per edge type, styled by :data:`EDGE_STYLES`.

    ``nodes``: columns ``id``, ``title``, ``confidence`` and ``color_by``; ``edges``: ``src``,
    ``dst``, ``edge_type``. Nodes without a position are skipped, and so are their edges. Each
    node point carries its id in ``customdata`` (for selection events).
    """
    if nodes.empty:
        return _empty(title, "no documents match")
    fig = go.Figure()
    for etype, group in (edges.groupby("edge_type", sort=True) if len(edges) else []):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for src, dst in zip(group["src"], group["dst"], strict=True):
            if src in positions and dst in positions:
                (x0, y0), (x1, y1) = positions[src], positions[dst]
                xs += [x0, x1, None]
                ys += [y0, y1, None]
        if not xs:
            continue
        colour, dash, width = EDGE_STYLES.get(str(etype), ("#999999", "solid", 1.0))
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=str(etype).lower(), hoverinfo="skip",
                                 line={"color": colour, "dash": dash, "width": width}))
    placed = nodes[nodes["id"].isin(list(positions))]
    conf = placed["confidence"].fillna(0.0).clip(0.0, 1.0).to_numpy(dtype=float)
    placed = placed.assign(_size=8.0 + 22.0 * conf)
    for k, (category, group) in enumerate(placed.groupby(color_by, sort=True, dropna=False)):
        xy = np.array([positions[i] for i in group["id"]], dtype=float).reshape(-1, 2)
        hover = [f"{plain(t, 80)}<br>{plain(i)}<br>{plain(color_by)}: {plain(category)}"
                 f"<br>confidence {c:.2f}"
                 for i, t, c in zip(group["id"], group["title"], group["confidence"].fillna(0.0), strict=True)]
        fig.add_trace(go.Scatter(
            x=xy[:, 0], y=xy[:, 1], mode="markers", name=plain(category),
            marker={"size": group["_size"].to_numpy(), "color": PALETTE[k % len(PALETTE)],
                    "line": {"width": 0.5, "color": "#333333"}},
            customdata=group["id"].to_numpy(dtype=object), hovertext=hover, hoverinfo="text",
        ))
    if selected is not None and selected in positions:
        x, y = positions[selected]
        fig.add_trace(go.Scatter(x=[x], y=[y], mode="markers", name="selected", hoverinfo="skip",
                                 marker={"size": 34, "color": "rgba(0,0,0,0)",
                                         "line": {"width": 3, "color": "#000000"}}))
    fig.update_layout(title=title, height=560, showlegend=True, dragmode="pan", **LAYOUT)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x")
    return fig


# --------------------------------------------------------------------------------- freshness
def grade_histogram(grades: Sequence[str], title: str = "Freshness grades") -> go.Figure:
    """Documents per grade, always the five grades A, B, C, D, F in that order."""
    values = pd.Series(list(grades), dtype=object).value_counts()
    fig = go.Figure(go.Bar(x=list(GRADE_ORDER), y=[int(values.get(g, 0)) for g in GRADE_ORDER],
                           marker_color=[GRADE_COLORS[g] for g in GRADE_ORDER]))
    fig.update_layout(title=title, height=280, **LAYOUT)
    fig.update_xaxes(title="grade")
    fig.update_yaxes(title="documents")
    return fig


def decay_curves(half_lives: Mapping[str, float], *, horizon_days: float = 730.0, points: int = 120,
                 floors: Mapping[str, float] | None = None, title: str = "Decay by doc type") -> go.Figure:
    """``max(floor, 0.5 ** (age / half_life))`` over ``[0, horizon_days]``, one line per doc type."""
    if not half_lives:
        return _empty(title)
    age = np.linspace(0.0, float(horizon_days), int(points))
    fig = go.Figure()
    for name, half in sorted(half_lives.items(), key=lambda kv: kv[1]):
        floor = float((floors or {}).get(name, 0.0))
        fig.add_trace(go.Scatter(x=age, y=np.maximum(floor, np.exp2(-age / float(half))), mode="lines",
                                 name=f"{plain(name)} ({half:g} d)"))
    fig.update_layout(title=title, height=320, **LAYOUT)
    fig.update_xaxes(title="age (days)")
    fig.update_yaxes(title="decay", range=[0, 1.02])
    return fig


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
def confidence_over_time(history: pd.DataFrame, events: pd.DataFrame | None = None,
                         title: str = "Confidence over time") -> go.Figure:
    """The confidence line (``at``, ``confidence``) with one marker per event (``at``, ``event_type``)."""
    if history.empty:
        return _empty(title)
    fig = go.Figure(go.Scatter(x=history["at"], y=history["confidence"], mode="lines", name="confidence"))
    if events is not None and len(events):
        at = pd.to_datetime(events["at"], utc=True)
        level = np.interp(at.astype("int64"), pd.to_datetime(history["at"], utc=True).astype("int64"),
                          history["confidence"].to_numpy(dtype=float))
        fig.add_trace(go.Scatter(x=at, y=level, mode="markers", name="events",
                                 text=[plain(t) for t in events["event_type"]], hoverinfo="text+x",
                                 marker={"size": 9, "symbol": "diamond"}))
    fig.update_layout(title=title, height=320, **LAYOUT)
    fig.update_yaxes(range=[0, 1.02], title="confidence")
    return fig


# ---------------------------------------------------------------------------- evaluation
def metric_bars(metrics: pd.DataFrame, columns: Sequence[str] = ("top1", "stale_at_1", "ece"),
                title: str = "Metrics per profile") -> go.Figure:
    """Grouped bars: ``metrics`` indexed by profile, one group per metric column."""
    cols = [c for c in columns if c in metrics.columns]
    if metrics.empty or not cols:
        return _empty(title)
    fig = go.Figure()
    for k, profile in enumerate(metrics.index):
        fig.add_trace(go.Bar(x=cols, y=[float(metrics.loc[profile, c]) for c in cols], name=plain(profile),
                             marker_color=PALETTE[k % len(PALETTE)]))
    fig.update_layout(title=title, barmode="group", height=320, **LAYOUT)
    fig.update_yaxes(range=[0, 1.0])
    return fig


def reliability_diagram(curves: Mapping[str, pd.DataFrame], title: str = "Reliability diagram") -> go.Figure:
    """Accuracy against mean confidence per bin, one line per profile, and the diagonal.

    Each frame has columns ``confidence`` (mean in the bin), ``accuracy`` and ``count``.
    """
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect calibration",
                               line={"dash": "dash", "color": "#888888"}))
    for k, (profile, bins) in enumerate(curves.items()):
        if bins is None or bins.empty:
            continue
        fig.add_trace(go.Scatter(x=bins["confidence"], y=bins["accuracy"], mode="lines+markers",
                                 name=plain(profile), marker={"color": PALETTE[k % len(PALETTE)]},
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
