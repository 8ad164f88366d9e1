"""Pure view-model functions for the dashboard pages (no Streamlit, no clock).

Each takes frames/records that the service returns and gives back what a page shows: filtered
tables, graph layouts, validation previews. Time always comes in as an argument.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..evaluation.metrics import reliability_bins  # noqa: F401  (re-exported for the pages)

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>&~$=:\"'])")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


# ----------------------------------------------------------------------------------- text
def escape_markdown(text: object) -> str:
    """Backslash-escape every Markdown/HTML special character so ``text`` renders literally."""
    return _MD_SPECIAL.sub(r"\\\1", "" if text is None else str(text))


def to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of ``frame`` (lists and dicts written as their text), for download buttons."""
    return frame.to_csv(index=False).encode("utf-8")


def table_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose list/array/dict cells are joined to text (Arrow-friendly for ``st.dataframe``)."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object:
            out[col] = [", ".join(map(str, v)) if isinstance(v, (list, tuple, np.ndarray))
                        else (str(v) if isinstance(v, dict) else v) for v in out[col]]
    return out


# --------------------------------------------------------------------------------- ingest
def parse_upload(name: str, data: bytes, *, max_file_bytes: int, max_line_bytes: int) -> list[dict[str, Any]]:
    """Raw records of one uploaded file, read by the engine's own parser.

    The bytes are written to a temporary file named like the upload (so the parser picks the
    format by extension); origins and error messages name the upload, not the temporary path.
    """
    from ..ingest import read_records

    safe = _SAFE_NAME.sub("_", Path(name).name) or "upload.txt"
    with tempfile.TemporaryDirectory(prefix="sv-upload-") as tmp:
        path = Path(tmp) / safe
        path.write_bytes(data)
        try:
            records = read_records(path, max_file_bytes=max_file_bytes, max_line_bytes=max_line_bytes)
        except InputError as exc:
            raise InputError(exc.message, file=name, line=exc.line, field=exc.field) from None
    for record in records:
        origin = str(record.get("_origin", ""))
        if origin.startswith(str(path)):
            record["_origin"] = name + origin[len(str(path)):]
    return records


def validation_preview(records: Sequence[dict[str, Any]], *, now: datetime) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Validate each record on its own and then the whole batch; nothing is written.

    Returns ``(documents, errors)``: one row per valid document (id, title, kind, doc_type,
    created_at, origin) and one row per error (where, field, message), so every bad line is
    shown at once instead of only the first.
    """
    from ..ingest import validate_records
    from ..ingest.validate import validate_record

    docs, errors = [], []
    for record in records:
        try:
            doc = validate_record(dict(record), ingest_time=now)
        except InputError as exc:
            where = f"{exc.file}:{exc.line}" if exc.file and exc.line else (exc.file or str(record.get("_origin", "")))
            errors.append({"where": where, "field": exc.field or "", "message": exc.message})
            continue
        docs.append({"id": doc.id, "title": doc.title, "kind": doc.kind.value if doc.kind else "(inferred)",
                     "doc_type": doc.doc_type or "(inferred)", "created_at": doc.created_at,
                     "supersedes": ", ".join(doc.supersedes), "depends_on": ", ".join(doc.depends_on),
                     "chars": len(doc.text), "origin": doc.origin})
    if not errors and records:
        try:
            validate_records([dict(r) for r in records], ingest_time=now)
        except InputError as exc:
            errors.append({"where": f"{exc.file}:{exc.line}" if exc.file else "", "field": exc.field or "",
                           "message": exc.message})
    return (pd.DataFrame(docs, columns=["id", "title", "kind", "doc_type", "created_at", "supersedes",
                                        "depends_on", "chars", "origin"]),
            pd.DataFrame(errors, columns=["where", "field", "message"]))


def _id_list(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"[,\n]", text or "") if part.strip()]


def record_from_form(*, text: str, title: str = "", doc_id: str = "", created_at: str = "",
                     valid_from: str = "", valid_until: str = "", kind: str = "", doc_type: str = "",
                     version: str = "", supersedes: str = "", depends_on: str = "", source: str = "",
                     authority: float | None = None) -> dict[str, Any]:
    """A corpus record (CONTRACT.md fields) from the paste form; empty fields are left out.

    Without an id, the id is the title's slug (or ``pasted``) plus 8 hex of the text's hash,
    so pasting the same text twice updates one document instead of creating two.
    """
    record: dict[str, Any] = {"text": text, "_origin": "pasted text:1"}
    if not doc_id.strip():
        slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:40] or "pasted"
        doc_id = f"{slug}_{hashlib.sha1(text.encode('utf-8')).hexdigest()[:8]}"
    record["id"] = doc_id.strip()
    optional = {"title": title, "created_at": created_at, "valid_from": valid_from, "valid_until": valid_until,
                "kind": kind, "doc_type": doc_type, "version": version, "source": source}
    record.update({k: v.strip() for k, v in optional.items() if v and v.strip()})
    for name, value in (("supersedes", supersedes), ("depends_on", depends_on)):
        ids = _id_list(value)
        if ids:
            record[name] = ids
    if authority is not None:
        record["authority"] = float(authority)
    return record


# ------------------------------------------------------------------------------ query lab
RESULT_COLUMNS = ["rank", "id", "title", "score", "confidence", "confidence_tier", "validity_state", "kind",
                  "action", "doc_type"]


def results_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """The results of one CONTRACT.md response as a table (signals flattened to contributions)."""
    rows = []
    for r in response.get("results", []):
        row = {c: r.get(c) for c in RESULT_COLUMNS}
        for name, sig in (r.get("signals") or {}).items():
            row[f"{name}"] = (sig or {}).get("contribution")
        row["reasons"] = "; ".join(r.get("reasons") or [])
        rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else RESULT_COLUMNS)


def rejections_table(response: Mapping[str, Any]) -> pd.DataFrame:
    rows = [{"id": r.get("id"), "code": r.get("code"), "reason": r.get("reason")}
            for r in response.get("rejections", [])]
    return pd.DataFrame(rows, columns=["id", "code", "reason"])


def intent_summary(intent: Mapping[str, Any] | None) -> pd.DataFrame:
    """The parsed intent as (field, value) rows; empty values left out."""
    rows = [{"field": k, "value": str(v)} for k, v in (intent or {}).items() if v not in (None, "", [], {})]
    return pd.DataFrame(rows, columns=["field", "value"])


# -------------------------------------------------------------------------------- graph
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
    query = (title_query or "").strip().lower()
    if query:
        hay = (docs["title"].fillna("").astype(str) + "\n" + docs["id"].astype(str)).str.lower()
        mask &= hay.str.contains(query, regex=False).to_numpy()
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


def _component_layout(graph, nodes: list[str], seed: int) -> np.ndarray:
    """Positions in [-1, 1]² for one connected component: a ring walked breadth-first for
    small ones (a chain reads as an arc; cheap), a spring layout for larger ones."""
    import networkx as nx

    n = len(nodes)
    if n <= 12:
        start = min(nodes, key=lambda v: (graph.degree(v), v))
        order = list(nx.bfs_tree(graph, start)) if n > 1 else nodes
        angle = np.pi * (0.15 + 1.7 * np.arange(n) / max(n - 1, 1))
        xy = np.column_stack([np.cos(angle), np.sin(angle)])
        index = {v: i for i, v in enumerate(order)}
        return xy[[index[v] for v in nodes]]
    iterations = 50 if n <= 300 else 30 if n <= 1000 else 15
    pos = nx.spring_layout(graph.subgraph(nodes), seed=seed, iterations=iterations, k=1.5 / np.sqrt(n))
    xy = np.array([pos[v] for v in nodes], dtype=float)
    span = np.abs(xy).max() or 1.0
    return xy / span


def layout_positions(node_ids: Sequence[str], edge_pairs: Sequence[tuple[str, str]], *,
                     seed: int = 7) -> dict[str, tuple[float, float]]:
    """2-D positions: each connected component laid out on its own (ring or spring layout)
    in a cell sized by √(its nodes), cells packed in rows, largest first; isolated nodes on a
    grid after them.

    A spring layout of the whole graph costs O(n²) per iteration (2,000 nodes: ~10 s); laying
    out components separately keeps a few thousand documents (mostly short version chains)
    around a second. Deterministic for a given input (fixed ``seed``, sorted components).
    """
    import networkx as nx

    ids = list(dict.fromkeys(node_ids))
    known = set(ids)
    graph = nx.Graph()
    graph.add_nodes_from(ids)
    graph.add_edges_from((a, b) for a, b in edge_pairs if a != b and a in known and b in known)
    components = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: (-len(c), c[0]))
    linked = [c for c in components if len(c) > 1]
    isolated = [c[0] for c in components if len(c) == 1]
    positions: dict[str, tuple[float, float]] = {}
    total = sum(len(c) for c in linked) + len(isolated)
    row_width = max(4.0, 1.6 * np.sqrt(max(total, 1)) * 1.3)
    x = y = row_height = 0.0
    for comp in linked:
        size = 1.3 * np.sqrt(len(comp))                   # cell edge
        if x > 0 and x + size > row_width:
            x, y, row_height = 0.0, y - row_height, 0.0
        xy = _component_layout(graph, comp, seed) * (size / 2.4) + np.array([x + size / 2, y - size / 2])
        positions.update({v: (float(a), float(b)) for v, (a, b) in zip(comp, xy, strict=True)})
        x += size
        row_height = max(row_height, size)
    if isolated:
        y -= row_height + 0.5
        cols = max(1, int(row_width / 0.8))
        for i, node in enumerate(isolated):
            positions[node] = (0.4 + 0.8 * (i % cols), y - 0.8 * (i // cols))
    return positions


def node_options(nodes: pd.DataFrame) -> dict[str, str]:
    """id -> "id — title" labels for a selectbox."""
    return {i: f"{i} — {t}" if t else str(i) for i, t in zip(nodes["id"], nodes["title"].fillna(""), strict=True)}


# ---------------------------------------------------------------------------- freshness
FRESHNESS_COLUMNS = ["id", "title", "kind", "doc_type", "grade", "graded_by", "freshness", "advice", "review_due",
                     "superseded_by", "decay", "age_days", "half_life_days", "validity_state", "hours_left", "action",
                     "confidence", "lifecycle"]


def freshness_table(report: pd.DataFrame, *, grades: Iterable[str] = (), kinds: Iterable[str] = (),
                    doc_types: Iterable[str] = (), text: str = "") -> pd.DataFrame:
    """The freshness report filtered (literal, case-insensitive title/id match), freshest first
    (by ``freshness``, the score its grade comes from, else by ``decay``)."""
    out = report
    for col, chosen in (("grade", grades), ("kind", kinds), ("doc_type", doc_types)):
        chosen = [c for c in chosen if c]
        if chosen and col in out.columns:
            out = out[out[col].isin(chosen)]
    query = (text or "").strip().lower()
    if query:
        hay = (out["title"].fillna("").astype(str) + "\n" + out["id"].astype(str)).str.lower()
        out = out[hay.str.contains(query, regex=False)]
    cols = [c for c in FRESHNESS_COLUMNS if c in out.columns]
    sort = next((c for c in ("freshness", "decay") if c in out.columns), "id")
    return out.sort_values(sort, ascending=sort == "id", ignore_index=True)[cols]


# --------------------------------------------------------------------------- rejections
def rejection_counts(rejections: pd.DataFrame) -> pd.DataFrame:
    """Rejections per code: code, rejections, queries, documents; most frequent first."""
    if rejections.empty:
        return pd.DataFrame(columns=["code", "rejections", "queries", "documents"])
    grouped = rejections.groupby("code").agg(rejections=("id", "size"), queries=("query_id", "nunique"),
                                              documents=("id", "nunique"))
    return grouped.reset_index().sort_values(["rejections", "code"], ascending=[False, True], ignore_index=True)


def rejection_drilldown(rejections: pd.DataFrame, code: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """For one code: (queries with how many documents each lost, documents with how often)."""
    sub = rejections[rejections["code"] == code]
    queries = (sub.groupby(["query_id", "query"]).agg(documents=("id", "nunique"), asked_at=("asked_at", "max"))
               .reset_index().sort_values("asked_at", ascending=False, ignore_index=True))
    docs = (sub.groupby("id").agg(times=("query_id", "size"), example_reason=("reason", "first"))
            .reset_index().sort_values(["times", "id"], ascending=[False, True], ignore_index=True))
    return queries, docs


# ------------------------------------------------------------------------------- audit
def filter_events(events: pd.DataFrame, *, doc_id: str = "", event_types: Iterable[str] = ()) -> pd.DataFrame:
    out = events
    if doc_id:
        out = out[out["doc_id"] == doc_id]
    types = [t for t in event_types if t]
    if types:
        out = out[out["event_type"].isin(types)]
    return out.reset_index(drop=True)


def versions_frame(current: Mapping[str, int], tags: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Current table versions and each tag's versions, one row per (label, table)."""
    rows = [{"label": "(current)", "table": t, "version": v} for t, v in current.items()]
    for table, entries in tags.items():
        for label, info in (entries or {}).items():
            version = info.get("version") if isinstance(info, Mapping) else info
            rows.append({"label": label, "table": table, "version": version})
    return pd.DataFrame(rows, columns=["label", "table", "version"])


def tag_labels(tags: Mapping[str, Mapping[str, Any]]) -> list[str]:
    return sorted({label for entries in tags.values() for label in (entries or {})})


# --------------------------------------------------------------------------- evaluation
def metrics_frame(bench: Mapping[str, Any]) -> pd.DataFrame:
    """``bench["profiles"]`` (CONTRACT.md bench JSON) as a table indexed by profile."""
    profiles = bench.get("profiles") or {}
    rows = {name: {k: v for k, v in m.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
            for name, m in profiles.items() if isinstance(m, Mapping)}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "profile"
    return frame


def as_frame(value: Any) -> pd.DataFrame:
    """A list of dicts, a dict of dicts or a frame, as a frame (empty when None)."""
    if value is None:
        return pd.DataFrame()
    if isinstance(value, pd.DataFrame):
        return value
    if isinstance(value, Mapping):
        frame = pd.DataFrame.from_dict(dict(value), orient="index")
        frame.index.name = "variant"
        return frame.reset_index()
    return pd.DataFrame(list(value))


def reliability_from_runs(runs: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]],
                          relevant: Mapping[str, Collection[str]], bins: int = 10) -> dict[str, pd.DataFrame]:
    """Per profile, :func:`reliability_bins` of each query's top result (confidence, is it relevant)."""
    out = {}
    for profile, by_query in runs.items():
        conf, hit = [], []
        for qid, results in by_query.items():
            if results:
                conf.append(float(results[0].get("confidence") or 0.0))
                hit.append(str(results[0].get("id")) in set(relevant.get(qid, ())))
        out[profile] = reliability_bins(conf, hit, bins)
    return out


def demo_bench(embedder, profiles: Sequence[str], *, k: int = 5) -> dict[str, Any]:
    """The benchmark on the demo corpus and queries (as ``bench --corpus --queries`` does), plus
    a reliability table per profile from the kept runs. Queries without ``as_of`` are asked at
    the latest moment of the data, as the CLI does."""
    from ..evaluation.runner import data_now, normalise_queries, run_bench
    from ..ingest import read_records
    from ..service import read_queries
    from ..settings import DEMO_CORPUS, DEMO_QUERIES

    unset = datetime(1970, 1, 1, tzinfo=UTC)
    corpus = read_records(DEMO_CORPUS)
    specs = read_queries(DEMO_QUERIES, now=unset)
    latest = data_now(corpus, normalise_queries([s for s in specs if s.as_of != unset]))
    for spec in specs:
        if spec.as_of == unset and latest is not None:
            spec.as_of = latest
    result = run_bench(corpus, specs, list(profiles), embedder=embedder, k=k)
    out = result.to_dict()
    out["reliability"] = reliability_from_runs(result.runs, {s.id: s.relevant for s in specs})
    return out
