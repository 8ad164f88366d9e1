"""Freshness grades, SOLO/PAIR/DROP and the kind-aware freshness report (blog, "When a document
is too old to stand alone but too useful to drop" and "Seeing inside the system")."""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np
import pandas as pd

from ..clock import US_PER_DAY, ensure_utc, to_us
from ..models import DocumentKind, ValidityState
from .codes import NO_END, NO_START, encode_kinds, state_names
from .decay import decay_scores, floors_for, half_lives_for
from .settings import DEFAULT_TEMPORAL, FreshnessConfig
from .validity import remaining_window_hours, validity_states

_GRADES = np.array(list("ABCDF"))


def freshness_grades(decay: np.ndarray, config: FreshnessConfig = DEFAULT_TEMPORAL.freshness) -> np.ndarray:
    """Letter grade per decay score: A >= 0.85, B >= 0.70, C >= 0.50, D >= 0.30, else F (ours;
    the blog shows grades A, D, F without their cut-offs)."""
    ascending = np.sort(np.asarray(config.grade_thresholds, dtype=np.float64))
    passed = np.searchsorted(ascending, np.asarray(decay, dtype=np.float64), side="right")
    return _GRADES[len(ascending) - passed]


def pairing_action(decay: np.ndarray, config: FreshnessConfig = DEFAULT_TEMPORAL.freshness) -> np.ndarray:
    """'DROP' when decay < 0.15, 'PAIR' when decay < 0.50, else 'SOLO'.

    Blog: decay 0.100 -> DO NOT RETRIEVE; 0.351 -> PAIR WITH a fresher source; 0.891 -> RETRIEVE.
    """
    d = np.asarray(decay, dtype=np.float64)
    return np.where(d < config.drop_below, "DROP", np.where(d < config.pair_below, "PAIR", "SOLO"))


def pairing_partners(decay: np.ndarray, config: FreshnessConfig = DEFAULT_TEMPORAL.freshness
                     ) -> tuple[np.ndarray, np.ndarray]:
    """For each PAIR candidate, the freshest SOLO candidate of the pool and the gain.

    ``gain = decay[partner] − decay[i]`` (blog: 0.891 − 0.351 = +0.540). The partner index is
    -1 where the candidate is not PAIR, where the pool has no SOLO candidate, or where the gain
    is below ``min_pairing_gain`` (0.10): that is the blog's PAIR_PARTNER_NOT_FOUND. O(n).
    """
    d = np.asarray(decay, dtype=np.float64)
    actions = pairing_action(d, config)
    solo = actions == "SOLO"
    partner = np.full(d.shape, -1, dtype=np.intp)
    gain = np.zeros(d.shape, dtype=np.float64)
    if not solo.any():
        return partner, gain
    best = int(np.argmax(np.where(solo, d, -np.inf)))
    gain = np.where(actions == "PAIR", d[best] - d, 0.0)
    partner[(actions == "PAIR") & (gain >= config.min_pairing_gain)] = best
    return partner, np.where(partner >= 0, gain, 0.0)


def advice(kind: DocumentKind | str, grade: str, validity_state: ValidityState | str,
           hours_left: float | None = None, config: FreshnessConfig = DEFAULT_TEMPORAL.freshness) -> str:
    """Kind-aware advice for one document (blog freshness report: fresh EVENT -> "Verify before
    serving, window closes soon"; VERSIONED D -> "Check for a newer version"; STATIC F -> "May
    have been superseded"). Validity comes first: EXPIRED / NOT_YET_VALID are never served."""
    state, kind_name = str(validity_state).upper(), str(kind).upper()
    if state == ValidityState.EXPIRED:
        return "Expired: do not serve"
    if state == ValidityState.NOT_YET_VALID:
        return "Not yet in effect: do not serve before valid_from"
    fresh = grade in ("A", "B")
    if kind_name == DocumentKind.EVENT:
        if state == ValidityState.TEMPORAL:
            soon = hours_left is not None and not math.isinf(hours_left) and hours_left <= config.closing_soon_hours
            return ("Verify before serving, window closes soon" if soon
                    else "Active event: serve with its window")
        return "Recent event: check it is still ongoing" if fresh else "Old event: treat as history"
    if kind_name == DocumentKind.VERSIONED:
        if fresh:
            return "Current version: serve"
        return "Serve, but confirm it is the latest version" if grade == "C" else "Check for a newer version"
    if grade in ("A", "B", "C"):
        return "Timeless fact: serve"
    return "Old reference: confirm it is still accurate" if grade == "D" else "May have been superseded"


def _times_us(column: pd.Series, missing: int) -> np.ndarray:
    """Aware datetimes (NaT/None allowed) -> int64 µs, ``missing`` where absent."""
    stamps = pd.to_datetime(column, utc=True)
    absent = stamps.isna().to_numpy()
    values = stamps.dt.tz_convert(None).dt.as_unit("us").to_numpy().astype("datetime64[us]").view(np.int64)
    return np.where(absent, np.int64(missing), values)


def freshness_report(docs: pd.DataFrame, as_of: datetime,
                     config: FreshnessConfig = DEFAULT_TEMPORAL.freshness) -> pd.DataFrame:
    """The freshness report (blog, "Seeing inside the system").

    ``docs`` has columns id, title, kind, doc_type, created_at (aware datetimes), dated,
    valid_from, valid_until (NaT allowed). Returns a copy with: age_days (NaN when undated),
    half_life_days, decay (:func:`decay_scores`, floors applied), grade, validity_state,
    hours_left (inf without an end), action (SOLO/PAIR/DROP; DROP whenever the state is
    EXPIRED or NOT_YET_VALID) and advice. A missing kind counts as STATIC.
    """
    out = docs.copy()
    as_of_us = to_us(ensure_utc(as_of))
    n = len(out)
    kinds = encode_kinds(out["kind"].to_numpy(dtype=object)) if n else np.zeros(0, dtype=np.int8)
    doc_types = out["doc_type"].to_numpy(dtype=object)
    created = _times_us(out["created_at"], 0)
    dated = out["dated"].fillna(False).to_numpy(dtype=bool) if "dated" in out else np.ones(n, dtype=bool)
    dated = dated & ~out["created_at"].isna().to_numpy()
    start = _times_us(out["valid_from"], NO_START)
    end = _times_us(out["valid_until"], NO_END)
    half_life = half_lives_for(doc_types)
    decay = decay_scores(created, as_of_us, half_life, floors_for(doc_types, kinds), dated)
    states = validity_states(kinds, start, end, as_of_us)
    grades = freshness_grades(decay, config)
    hours = remaining_window_hours(end, as_of_us)
    actions = pairing_action(decay, config)
    actions = np.where(np.isin(states, (2, 3)), "DROP", actions)
    names = state_names(states)
    out["age_days"] = np.where(dated, np.maximum(as_of_us - created, 0) / US_PER_DAY, np.nan)
    out["half_life_days"] = half_life
    out["decay"] = decay
    out["grade"] = grades
    out["validity_state"] = names
    out["hours_left"] = hours
    out["action"] = actions
    kind_names = np.array(["STATIC", "VERSIONED", "EVENT"])[kinds] if n else np.array([], dtype=str)
    out["advice"] = [advice(k, g, s, h, config) for k, g, s, h in zip(kind_names, grades, names, hours, strict=True)]
    return out
