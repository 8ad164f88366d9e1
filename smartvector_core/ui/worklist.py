"""The editor's review worklist: pure frames over the service's freshness report (no Streamlit).

The report comes ordered most urgent first (:func:`temporal.review.most_urgent_first`); these
builders filter it, keep that order and make every cell readable (dates as days, numbers at three
places, lists as text, nothing as an empty cell).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .views import title_or_id_contains

WORKLIST_COLUMNS = ["grade", "flag", "id", "title", "advice", "trust", "open_contradictions", "dependents",
                    "last_confirmed", "freshness", "doc_type", "source", "kind", "lifecycle", "review_due",
                    "superseded_by"]
_VERSION = re.compile(r"^(.*?)(\d+)$")


def _day(values: pd.Series, missing: str) -> list[str]:
    stamps = pd.to_datetime(values, utc=True)
    return [missing if pd.isna(t) else t.strftime("%Y-%m-%d") for t in stamps]


def worklist_table(report: pd.DataFrame, *, live_only: bool = True, grades: Iterable[str] = (),
                   doc_types: Iterable[str] = (), sources: Iterable[str] = (), text: str = "") -> pd.DataFrame:
    """One row a document of ``report`` (live ones only unless ``live_only`` is False), filtered
    by grade, doc type, source and a literal title/id match, in the report's order, with
    :data:`WORKLIST_COLUMNS` as text and numbers an editor reads."""
    out = report
    if live_only and "live" in out:
        out = out[out["live"].astype(bool)]
    for col, chosen in (("grade", grades), ("doc_type", doc_types), ("source", sources)):
        chosen = [c for c in chosen if c is not None]
        if chosen and col in out.columns:
            out = out[out[col].fillna("").isin(chosen)]
    if (text or "").strip():
        out = out[title_or_id_contains(out, text)]
    table = pd.DataFrame(index=out.index)
    for col in WORKLIST_COLUMNS:
        if col in out.columns:
            table[col] = out[col]
    if "open_contradictions" in out:
        table["open_contradictions"] = [", ".join(v) if isinstance(v, (list, tuple, np.ndarray)) and len(v) else ""
                                        for v in out["open_contradictions"]]
    table["last_confirmed"] = _day(out["confirmed_at"], "never") if "confirmed_at" in out else "never"
    if "review_due" in out:
        table["review_due"] = _day(out["review_due"], "")
    for col in ("trust", "freshness"):
        if col in table:
            table[col] = table[col].astype(float).round(3)
    for col in ("flag", "superseded_by", "source", "title"):
        if col in table:
            table[col] = table[col].fillna("").astype(str)
    if "dependents" in table:
        table["dependents"] = table["dependents"].fillna(0).astype(int)
    return table[[c for c in WORKLIST_COLUMNS if c in table.columns]].reset_index(drop=True)


def worklist_summary(report: pd.DataFrame) -> dict[str, int]:
    """``documents``, ``live``, ``live_f`` (live documents graded F) and ``flagged`` (live with a
    review flag): the counts ``freshness --json`` gives (``live``, ``live_f_share`` · ``live``)."""
    if not len(report):
        return {"documents": 0, "live": 0, "live_f": 0, "flagged": 0}
    live = report["live"].to_numpy(dtype=bool)
    flagged = report["flag"].fillna("").astype(bool).to_numpy() if "flag" in report else np.zeros(len(report), bool)
    return {"documents": len(report), "live": int(live.sum()),
            "live_f": int((report["grade"].to_numpy()[live] == "F").sum()), "flagged": int((flagged & live).sum())}


def next_version_id(old_id: str, taken: Iterable[str]) -> str:
    """An id for the version after ``old_id``: its trailing number plus one (``policy_v3`` ->
    ``policy_v4``), else ``old_id + "_v2"``; the next free one when that is taken."""
    known = set(taken)
    match = _VERSION.match(old_id)
    stem, number = (match.group(1), int(match.group(2)) + 1) if match else (f"{old_id}_v", 2)
    while f"{stem}{number}" in known:
        number += 1
    return f"{stem}{number}"


def successor_record(old: Mapping[str, Any], text: str, new_id: str, *, created_at: str, title: str | None = None,
                     authority: float | None = None) -> dict[str, Any]:
    """The corpus record of a new version of ``old`` (a report row) written at ``created_at``
    (ISO-8601): its title, doc type, kind, source and authority are taken from the version it
    replaces unless given, and it ``supersedes`` it."""
    def given(value) -> bool:
        return value is not None and not (isinstance(value, float) and np.isnan(value)) and value != ""

    record: dict[str, Any] = {"id": new_id, "text": text, "supersedes": str(old["id"]), "created_at": created_at,
                              "title": title if title is not None else str(old.get("title") or "")}
    for key in ("doc_type", "kind", "source"):
        if given(old.get(key)):
            record[key] = str(old[key])
    value = authority if authority is not None else old.get("authority")
    if given(value):
        record["authority"] = float(value)
    return record
