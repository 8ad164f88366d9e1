"""Pure view-model functions for the dashboard pages (no Streamlit, no clock).

Each takes frames/records that the service returns and gives back what a page shows: filtered
tables, validation previews, result cards (the knowledge graph's: :mod:`.graph_views`). Time always comes in as an argument.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..clock import parse_time
from ..errors import InputError
from ..ingest import read_records, validate_records
from ..ingest.parse import JSONL_SUFFIXES, parse_jsonl
from ..ingest.validate import validate_record
from ..models import event_detail
from ..retrieval.calibration import reliability_bins  # noqa: F401  (re-exported for the pages)
from ..temporal.freshness import GRADES

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


def title_or_id_contains(frame: pd.DataFrame, text: str) -> np.ndarray:
    """Per row of ``frame`` (columns ``title``, ``id``): its title or id contains ``text``, as a
    literal, case-insensitive substring (never a regex): the one text filter of the pages."""
    query = (text or "").strip().lower()
    hay = (frame["title"].fillna("").astype(str) + "\n" + frame["id"].astype(str)).str.lower()
    return hay.str.contains(query, regex=False).to_numpy(dtype=bool)


# --------------------------------------------------------------------------------- ingest
def parse_upload(name: str, data: bytes, *, max_file_bytes: int, max_line_bytes: int) -> list[dict[str, Any]]:
    """Raw records of one uploaded file, read by the engine's own parser.

    The bytes are written to a temporary file named like the upload (so the parser picks the
    format by extension); origins and error messages name the upload, not the temporary path.
    """
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


def read_upload(name: str, data: bytes, *, max_file_bytes: int,
                max_line_bytes: int) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The records of one uploaded file and every problem reading it: ``(records, problems)``.

    A JSONL file is read line by line when it has a bad line, so every unreadable line is
    listed (``where``, ``field``, ``message`` rows, as :func:`validation_preview` gives), not
    only the first; the readable lines still go to validation, whose problems add to these.
    """
    try:
        return parse_upload(name, data, max_file_bytes=max_file_bytes, max_line_bytes=max_line_bytes), []
    except InputError as exc:
        first = {"where": f"{name}:{exc.line}" if exc.line else name, "field": exc.field or "", "message": exc.message}
        if Path(name).suffix.lower() not in JSONL_SUFFIXES or not exc.line:
            return [], [first]
    records, problems = [], []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            for record in parse_jsonl(line, name, max_line_bytes=max_line_bytes):
                record["_origin"] = f"{name}:{number}"
                records.append(record)
        except InputError as exc:
            problems.append({"where": f"{name}:{number}", "field": exc.field or "", "message": exc.message})
    return records, problems


def validation_preview(records: Sequence[dict[str, Any]], *, now: datetime) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Validate each record on its own and then the whole batch; nothing is written.

    Returns ``(documents, errors)``: one row per valid document (id, title, kind, doc_type,
    created_at, origin) and one row per error (where, field, message), so every bad line is
    shown at once instead of only the first.
    """
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


CONSOLIDATION_FINDINGS = {"supersessions": "documents newly superseded",
                          "contradictions": "new contradictions (review queue)",
                          "dependencies": "dependencies found", "archived": "archived", "dormant": "made dormant",
                          "activated": "made active", "rippled": "ripple penalties written",
                          "examined_pairs": "document pairs examined"}


def consolidation_findings(report: Mapping[str, Any] | None) -> pd.DataFrame:
    """What a consolidation run found, as (finding, count) rows (:data:`CONSOLIDATION_FINDINGS`)."""
    rows = [{"finding": label, "count": int(report.get(key) or 0)} for key, label in CONSOLIDATION_FINDINGS.items()
            if key in (report or {})]
    return pd.DataFrame(rows, columns=["finding", "count"])


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
RESULT_COLUMNS = ["rank", "id", "title", "score", "confidence", "confidence_tier", "trust", "validity_state",
                  "kind", "action", "doc_type"]


def results_frame(response: Mapping[str, Any]) -> pd.DataFrame:
    """The results of one CONTRACT.md response as a table. ``confidence`` and ``trust`` are the
    result's own (DESIGN.md "Trust model"); each signal's contribution to the score is a
    column ``<signal>_contribution`` (so the paper's ``confidence`` signal never shadows the
    answer confidence), placed right after ``score``: the score's breakdown reads beside it."""
    rows = []
    for r in response.get("results", []):
        row = {c: r.get(c) for c in RESULT_COLUMNS[:4]}
        for name, sig in (r.get("signals") or {}).items():
            row[f"{name}_contribution"] = (sig or {}).get("contribution")
        row.update({c: r.get(c) for c in RESULT_COLUMNS[4:]})
        row.update(confidence=share(r.get("confidence")), trust=share(r.get("trust")))
        row["reasons"] = "; ".join(r.get("reasons") or [])
        rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else RESULT_COLUMNS)


def contribution_columns(frame: pd.DataFrame) -> tuple[list[str], float, float]:
    """The ``<signal>_contribution`` columns of :func:`results_frame` and one common scale for
    their in-cell bars: from min(0, smallest) to the largest contribution (a negative
    contribution draws from the left end), so bars compare across signals and rows."""
    columns = [c for c in frame.columns if str(c).endswith("_contribution")]
    values = frame[columns].astype(float).to_numpy() if columns else np.empty(0)   # None -> NaN
    finite = values[np.isfinite(values)]
    low = min(0.0, float(finite.min())) if finite.size else 0.0
    high = float(finite.max()) if finite.size else 1.0
    return columns, low, high if high > low else low + 1.0


def rejections_table(response: Mapping[str, Any]) -> pd.DataFrame:
    rows = [{"id": r.get("id"), "code": r.get("code"), "reason": r.get("reason")}
            for r in response.get("rejections", [])]
    return pd.DataFrame(rows, columns=["id", "code", "reason"])


def intent_summary(intent: Mapping[str, Any] | None) -> pd.DataFrame:
    """The parsed intent as (field, value) rows; empty values left out, and ``judged_at`` too
    (the moment judged is shown once, in the answer's header: :func:`judged_moment`)."""
    rows = [{"field": k, "value": _readable(v)} for k, v in (intent or {}).items()
            if v not in (None, "", [], {}) and k != "judged_at"]
    return pd.DataFrame(rows, columns=["field", "value"])


def _readable(value: object) -> str:
    """A value as a person reads it: lists joined by commas, numbers at three places, mappings as
    ``key: value`` pairs (never Python's or JSON's brackets)."""
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".")
    if isinstance(value, (list, tuple)):
        return ", ".join(_readable(v) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {_readable(v)}" for k, v in value.items() if v not in (None, "", [], {}))
    return str(value)


DETAIL_HIDDEN = ("vector", "chunk_id", "ordinal", "content_hash")   # storage fields, not the document's


def document_details(row: pd.Series) -> pd.DataFrame:
    """One document's fields as ``field``, ``value`` rows a person reads: times as
    "YYYY-MM-DD HH:MM UTC", numbers at three places, lists joined, JSON objects as ``key: value``,
    and nothing (None, NaT, NaN, [], {}) as "—"."""
    rows = []
    for name, value in row.items():
        if str(name) in DETAIL_HIDDEN:
            continue
        rows.append({"field": str(name), "value": _detail_value(value)})
    return pd.DataFrame(rows, columns=["field", "value"])


def _detail_value(value: object) -> str:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, str) and value.strip().startswith("{"):
        value = event_detail(value) or value   # a JSON object (metadata) as its pairs
    if isinstance(value, (list, tuple, dict, Mapping, str)):
        if not value:
            return "—"
    elif value is None or pd.isna(value):
        return "—"
    if isinstance(value, (pd.Timestamp, datetime)):
        return pd.Timestamp(value).tz_convert("UTC").strftime("%Y-%m-%d %H:%M UTC") if pd.Timestamp(value).tzinfo \
            else pd.Timestamp(value).strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return _readable(float(value))
    return _readable(value) or "—"


ANSWER_CHARS = 600   # the answer passage's text on a card: up to this many characters


def answer_text(result: Mapping[str, Any], limit: int = ANSWER_CHARS) -> str:
    """The passage's text as the card shows it: whitespace folded, cut at a word near ``limit``."""
    text = " ".join(str(result.get("text") or "").split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


SHARE_DECIMALS = 3   # confidence and trust: the one rounding used on the card, in tables and in CSV


def share(value: object) -> float | None:
    """A confidence or trust as every surface shows it: rounded to :data:`SHARE_DECIMALS`
    (None when missing or NaN), so the card, the table and the CSV read the same number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if np.isnan(number) else round(number, SHARE_DECIMALS)


def share_text(value: object) -> str:
    number = share(value)
    return "—" if number is None else f"{number:.{SHARE_DECIMALS}f}"


def judged_moment(response: Mapping[str, Any]) -> tuple[datetime, str]:
    """The moment the question is judged at, and a line saying so.

    ``intent["judged_at"]`` when the question names a past moment ("as of March 2025"; the
    engine sets it to ``as_of`` otherwise); else, for a question about a past period ("in March
    2025": ``intent["time_range"]`` ending before ``as_of``), the end of that period; else
    ``as_of``. Ages on the cards count from this moment.
    """
    as_of = parse_time(response["as_of"], field="as_of")
    intent = response.get("intent") or {}
    judged = parse_time(intent["judged_at"], field="judged_at") if intent.get("judged_at") else as_of
    said = intent.get("judged_text") or ""
    rng = intent.get("time_range")
    if judged >= as_of and isinstance(rng, (list, tuple)) and len(rng) == 2 and rng[1]:
        end = parse_time(rng[1], field="time_range") - timedelta(microseconds=1)   # the range is [start, end)
        if end < as_of:
            judged, said = end, intent.get("range_text") or said
    if judged < as_of:
        quoted = f" (“{said}”)" if said else ""
        return judged, (f"judged at {judged:%Y-%m-%d %H:%M} UTC, the moment the question asks about{quoted}; "
                        f"asked as of {as_of:%Y-%m-%d %H:%M} UTC")
    return judged, f"judged as of {as_of:%Y-%m-%d %H:%M} UTC"


def abstention_heading(response: Mapping[str, Any]) -> str:
    """The heading of an abstaining answer: nothing in the store is about the question, or
    nothing about it was in force at the moment judged (the reason of
    :func:`smartvector_core.retrieval.confidence.out_of_force`)."""
    from ..retrieval.confidence import OUT_OF_FORCE

    reason = str(response.get("abstain_reason") or "")
    return "Nothing about this was in force at that moment" if reason.startswith(OUT_OF_FORCE) \
        else "Nothing relevant in the store"


def age_text(created_at: object, judged: datetime) -> str:
    """How old a document was at the moment of judgement ("12 days", "3.1 years")."""
    if created_at in (None, ""):
        return "age unknown"
    days = (judged - parse_time(created_at, field="created_at")).total_seconds() / 86400.0
    if days < 0:
        return "created after the moment judged"
    if days < 2:
        return f"{days * 24:.0f} hours old"
    return f"{days:.0f} days old" if days < 730 else f"{days / 365.25:.1f} years old"


def result_card(result: Mapping[str, Any], judged: datetime) -> list[str]:
    """The lines of one result's card: title, the two trust-model numbers, what moved the
    confidence most (``confidence_factors``, in words), the age at the moment judged, and where
    it stands (validity, kind, action, lifecycle)."""
    title = f"{result.get('rank')}. {result.get('title') or result.get('id')}"
    numbers = (f"confidence {share_text(result.get('confidence'))} ({result.get('confidence_tier')}) · "
               f"trust {share_text(result.get('trust'))} · score {float(result.get('score') or 0.0):.3f}")
    created = str(result.get("created_at") or "")[:10]
    where = (f"id {result.get('id')} · {result.get('validity_state')} · {result.get('kind')} · "
             f"{result.get('action')} · created {created or '?'}, {age_text(result.get('created_at'), judged)} "
             f"at the moment judged")
    factors = list(result.get("confidence_factors") or [])
    lines = [title, numbers]
    if factors:
        lines.append("confidence: " + "; ".join(factors))
    return [*lines, where]


def verdicts_line(report: Mapping[str, Any]) -> str:
    """One line on how the store's confidence fares against its operators' verdicts
    (``SmartVector.feedback_reliability``): ECE (lower is better) beside AUROC and the HIGH
    tier's precision (higher is better)."""
    def number(key: str) -> str:
        value = report.get(key)
        return "–" if value is None else f"{float(value):.3f}"
    return (f"{report.get('n', 0)} accept/correct verdicts on logged answers · lower is better: ECE {number('ece')}, "
            f"Brier {number('brier')} · higher is better: AUROC {number('auroc')}, HIGH-tier precision "
            f"{number('high_precision')} ({report.get('high_n', 0)} HIGH)")


def passages_by_document(results: Sequence[Mapping[str, Any]]) -> list[tuple[Mapping[str, Any], list[Mapping]]]:
    """Results grouped by document, in rank order of each document's best passage:
    ``[(first result of the document, [its passages, best first]), ...]``."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in results:
        groups.setdefault(str(r.get("id")), []).append(r)
    return [(items[0], items) for items in groups.values()]


# ------------------------------------------------------------------------------ pickers
def node_options(nodes: pd.DataFrame, *, text: str = "", limit: int | None = None) -> dict[str, str]:
    """id -> "id — title" labels for a selectbox: those whose title or id contains ``text``
    (literal, case-insensitive), at most ``limit`` of them (a picker of 50,000 options would
    cost the browser seconds on every run)."""
    if (text or "").strip() and len(nodes):
        nodes = nodes[title_or_id_contains(nodes, text)]
    if limit is not None:
        nodes = nodes.head(limit)
    return {i: f"{i} — {t}" if t else str(i) for i, t in zip(nodes["id"], nodes["title"].fillna(""), strict=True)}


# ---------------------------------------------------------------------------- freshness
def counts_frame(counts: Mapping[str, int], name: str) -> pd.DataFrame:
    """Counts per category (kinds, lifecycle states, doc types) as rows ``name``, ``documents``,
    in the order given."""
    return pd.DataFrame({name: [str(k) for k in counts], "documents": [int(v) for v in counts.values()]},
                        columns=[name, "documents"])


def grade_counts(grades: Iterable[str]) -> pd.DataFrame:
    """Documents per freshness grade, always the five grades A, B, C, D, F in that order
    (columns ``grade``, ``documents``)."""
    counts = pd.Series(list(grades), dtype=object).value_counts()
    return counts_frame({g: int(counts.get(g, 0)) for g in GRADES}, "grade")


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


def query_choices(log: pd.DataFrame, rejections: pd.DataFrame) -> tuple[dict[str, str], int]:
    """Labels for the per-query picker, newest first, and the index to open on.

    Each label names the moment, the profile, the question and how many documents it rejected;
    the picker opens on the newest query that rejected something (never on an empty run when
    one with rejections exists).
    """
    if not len(log):
        return {}, 0
    counts = rejections.groupby("query_id").size() if len(rejections) else pd.Series(dtype=int)
    labels = {}
    for qid, at, profile, text in zip(log["query_id"], log["asked_at"], log["profile"], log["query"], strict=True):
        n = int(counts.get(qid, 0))
        when = pd.Timestamp(at).strftime("%Y-%m-%d %H:%M") if at is not None and not pd.isna(at) else "?"
        labels[qid] = f"{when} · {profile} · {str(text)[:60]} · {n} rejected"
    first = next((i for i, qid in enumerate(labels) if int(counts.get(qid, 0)) > 0), 0)
    return labels, first


# ------------------------------------------------------------------------------- audit
#: What an operator acts on by default in an event list: everything but the per-query ACCESS rows.
OPERATOR_EVENT_TYPES = ("INGEST", "UPDATE", "FEEDBACK_ACCEPT", "FEEDBACK_CORRECT", "FEEDBACK_UNDO", "LIFECYCLE",
                        "RIPPLE", "CONTRADICTION", "REVIEW", "REEMBED", "RESTORE")


def operator_event_types(present: Iterable[str]) -> list[str]:
    """The default event-type filter: the operator-relevant types among those ``present``."""
    return [t for t in OPERATOR_EVENT_TYPES if t in set(present)]


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


def flatten_nested(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns holding dicts (an ablation's ``by_type``: {type: {metric: value}}) spread into one
    column per leaf, named ``"<metric> · <type>"``, so no raw dict reaches the screen."""
    out = frame.copy()
    for col in [c for c in out.columns if out[c].map(lambda v: isinstance(v, Mapping)).any()]:
        leaves = pd.json_normalize([v if isinstance(v, Mapping) else {} for v in out[col]], sep="\x1f")
        leaves.columns = [" · ".join(reversed(name.split("\x1f"))) for name in leaves.columns]
        leaves = leaves[[c for c in leaves.columns if pd.api.types.is_numeric_dtype(leaves[c])]]
        out = pd.concat([out.drop(columns=[col]).reset_index(drop=True), leaves.reset_index(drop=True)], axis=1)
    return out


