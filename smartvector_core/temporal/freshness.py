"""Freshness grades, SOLO/PAIR/DROP and the freshness report (blog, "When a document is too old
to stand alone but too useful to drop" and "Seeing inside the system"; DESIGN.md "Trust model":
the grade is how urgently an editor should review a document, see :func:`freshness_report`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from ..clock import US_PER_DAY, ensure_utc, to_us
from ..config.temporal import DEFAULT_TEMPORAL, FreshnessConfig
from ..models import without_undone
from .codes import (
    KIND_EVENT,
    KIND_VERSIONED,
    NO_END,
    NO_START,
    NO_TIME,
    STATE_EXPIRED,
    STATE_NOT_YET_VALID,
    STATE_TEMPORAL,
    encode_kinds,
    state_names,
)
from .decay import decay_scores, profile_arrays
from .validity import is_live, remaining_window_hours, validity_states

GRADES = ("A", "B", "C", "D", "F")   # best to worst: how urgently to review, least to most
_GRADES = np.array(GRADES)


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


def pairing_partners(decay: np.ndarray, *, actions: np.ndarray | None = None, groups: np.ndarray | None = None,
                     eligible: np.ndarray | None = None,
                     config: FreshnessConfig = DEFAULT_TEMPORAL.freshness) -> tuple[np.ndarray, np.ndarray]:
    """For each eligible PAIR candidate, its fresher partner and the gain (the rule the query
    path applies, :func:`smartvector_core.retrieval.rerank` ``_pair``).

    The partner is the freshest *eligible* candidate of the same group (the doc type at query
    time), whatever its own action; it counts when ``decay[partner] >= decay[i] + 0.10``
    (``min_pairing_gain``), and ``gain = decay[partner] − decay[i]`` (blog: 0.891 − 0.351 =
    +0.540). The partner index is -1 where the candidate is not an eligible PAIR or no partner
    counts: that is the blog's PAIR_PARTNER_NOT_FOUND. ``actions`` default to
    :func:`pairing_action`; ``groups`` to one group; ``eligible`` to every candidate not DROP.
    Vectorised: one lexsort.
    """
    d = np.asarray(decay, dtype=np.float64)
    act = pairing_action(d, config) if actions is None else np.asarray(actions)
    ok = (act != "DROP") if eligible is None else np.asarray(eligible, dtype=bool)
    partner = np.full(d.shape, -1, dtype=np.intp)
    if not len(d):
        return partner, np.zeros(0, dtype=np.float64)
    _, types = np.unique(np.zeros(len(d), np.int8) if groups is None else np.asarray(groups).astype(str),
                         return_inverse=True)
    fresh = np.where(ok, d, -np.inf)
    order = np.lexsort((-fresh, types))
    heads = order[np.r_[True, types[order][1:] != types[order][:-1]]]
    best_of_type = np.full(types.max() + 1, -1, dtype=np.intp)
    best_of_type[types[heads]] = heads
    best = best_of_type[types]
    found = ok & (act == "PAIR") & (fresh[best] >= d + config.min_pairing_gain)
    partner[found] = best[found]
    return partner, np.where(found, d[best] - d, 0.0)


def _times_us(column: pd.Series, missing: int) -> np.ndarray:
    """Aware datetimes (NaT/None allowed) -> int64 µs, ``missing`` where absent."""
    stamps = pd.to_datetime(column, utc=True)
    absent = stamps.isna().to_numpy()
    values = stamps.dt.tz_convert(None).dt.as_unit("us").to_numpy().astype("datetime64[us]").view(np.int64)
    return np.where(absent, np.int64(missing), values)



# ------------------------------------------------------------------ the report: review urgency
# How each document is graded (DESIGN.md "Trust model", freshness grade = review urgency):
BY_ARCHIVE, BY_REVIEW, BY_WINDOW, BY_DECAY = "archive", "review", "window", "decay"
ACCEPT_EVENTS = ("FEEDBACK_ACCEPT",)      # an operator's confirmation: restarts every clock
WRITE_EVENTS = ("INGEST", "UPDATE")       # a version written or edited: restarts the review clock
REPORT_COLUMNS = ["age_days", "half_life_days", "decay", "validity_state", "hours_left", "action", "in_force",
                  "live", "graded_by", "reviewed_at", "review_interval_days", "review_due", "freshness", "grade",
                  "superseded_by", "advice"]


def last_confirmations(events: pd.DataFrame, as_of_us: int,
                       event_types: tuple[str, ...] = ACCEPT_EVENTS) -> dict[str, int]:
    """Per document, the latest moment (µs) up to ``as_of`` of an event of ``event_types``: by
    default an operator's accept (FEEDBACK_ACCEPT) that no FEEDBACK_UNDO reversed; with
    :data:`WRITE_EVENTS`, its latest INGEST or UPDATE.

    ``events``: columns doc_id, event_type, at_us, detail (the knowledge state's event frame).
    An undo names the verdict it reverses in ``detail.undoes``: the verdict's ``detail.event_id``,
    or ``"{doc_id}@{at_us}"`` for verdicts written before ids existed (service.feedback_undo).
    """
    if events is None or not len(events):
        return {}
    ev = events[(events["at_us"].to_numpy() <= int(as_of_us))]
    ok = without_undone(ev[ev["event_type"].isin(event_types)], ev)
    if not len(ok):
        return {}
    latest = ok.groupby("doc_id")["at_us"].max()
    return dict(zip(map(str, latest.index), latest.to_numpy().tolist(), strict=True))




def replacing_versions(ids: np.ndarray, chain: np.ndarray, effective_us: np.ndarray,
                       superseded_us: np.ndarray, as_of_us: int) -> np.ndarray:
    """Per document, the version of its chain that replaces it (object array; None where nothing does).

    For a document superseded at ``as_of`` (``superseded_us <= as_of``): the chain's version in force
    then (the latest effective one not itself superseded at ``as_of``). For one in force whose successor
    is scheduled (``as_of < superseded_us < NO_END``): the chain's newest version. Chains, effective
    times and ``superseded_us`` come from :mod:`smartvector_core.memory.chains` (the knowledge index).
    """
    ids = np.asarray(ids, dtype=object)
    n = len(ids)
    out = np.full(n, None, dtype=object)
    if not n:
        return out
    chain = np.asarray(chain)
    eff = np.asarray(effective_us, dtype=np.int64)
    sup = np.asarray(superseded_us, dtype=np.int64)
    frame = pd.DataFrame({"chain": chain, "eff": eff, "row": np.arange(n)})
    in_force = (eff <= as_of_us) & (sup > as_of_us)
    current = frame[in_force].sort_values("eff").groupby("chain")["row"].last()
    newest = frame[sup == NO_END].sort_values("eff").groupby("chain")["row"].last()
    superseded = sup <= as_of_us
    scheduled = (sup > as_of_us) & (sup != NO_END)
    for mask, pick in ((superseded, current), (scheduled, newest)):
        rows = np.flatnonzero(mask)
        target = pd.Series(chain[rows]).map(pick).to_numpy()
        found = ~pd.isna(target)
        hit = rows[found]
        targets = target[found].astype(np.intp)
        keep = targets != hit
        out[hit[keep]] = ids[targets[keep]]
    return out


def freshness_report(docs: pd.DataFrame, as_of: datetime,
                     config: FreshnessConfig = DEFAULT_TEMPORAL.freshness) -> pd.DataFrame:
    """The freshness report: how urgently an editor should review each document at ``as_of``.

    DESIGN.md "Trust model" (freshness grade = review urgency); the blog's freshness report
    ("Seeing inside the system") gave the form, kind-aware advice per document. Rules, in order:

    0. **archived in force** — a version in force whose lifecycle is ARCHIVED (a person archived
       it): graded by its clock as below, advice "nothing to do" (it answers nothing); not *live*.
    1. **archive** — superseded at ``as_of`` (a newer version of its chain took effect) or EXPIRED
       (``as_of >= valid_until``): freshness 0, grade F, advice to archive it (or "nothing to do"
       when its lifecycle is ARCHIVED already). Such a document is not *in force*.
    2. **review** — a VERSIONED document in force: ``freshness = 0.5 ** (t / R)``, t = days since
       its review clock started (the latest of ``ingested_at`` (last ingest or update),
       ``confirmed_at`` (last accept) and ``created_at``, capped at ``as_of``), R = its doc type's
       review interval (``config.review_interval_days``).
       So A until 0.23 R, B until 0.51 R, C until R (review due), D until 1.74 R, F after. Its age
       does not count: a version in force is not stale for being old. It is never told to "check
       for a newer version"; a scheduled successor is named with the day it takes effect.
    3. **window** — an EVENT with an open window: 1.0 (A) inside it or before it starts, 0.75 (B)
       when it closes within ``closing_soon_hours`` (48 h: confirm or extend it).
    4. **decay** — STATIC (and an EVENT without an end): its decay profile, ``max(floor,
       0.5 ** (t / half_life))`` with t counted from ``created_at`` or the last accept, whichever
       is later (a confirmation restarts it; ingest does not: content ages from when it was
       written); a document held at a positive floor stays usable by
       design (blog, DECAY_FLOORS) and is graded D at worst. Undated: 0.5 (C), advice to date it.

    Grades are :func:`freshness_grades` of ``freshness``. ``docs`` columns: id, title, kind,
    doc_type, created_at, dated, valid_from, valid_until (NaT allowed); optional: lifecycle,
    ingested_at (last ingest or update), confirmed_at (last accept, :func:`last_confirmations`), superseded_at
    (when a newer version takes or took effect, NaT: never) and superseded_by
    (:func:`replacing_versions`). Returns a copy with :data:`REPORT_COLUMNS` added; ``live`` =
    in force and not ARCHIVED; ``decay`` and ``action`` (SOLO/PAIR/DROP) are retrieval's view.
    """
    out = docs.copy()
    as_of_us = to_us(ensure_utc(as_of))
    x = _report_inputs(out)
    r = _retrieval_view(x, as_of_us, config)
    g = _grading(x, r, as_of_us, config)
    is_review = g.basis == BY_REVIEW
    due_us = np.where(is_review, g.review_start + (g.interval * US_PER_DAY).astype(np.int64), _MISSING)
    out["age_days"] = np.where(x.dated, np.maximum(as_of_us - x.created, 0) / US_PER_DAY, np.nan)
    out["half_life_days"] = r.half_life
    out["decay"] = r.decay
    out["validity_state"] = r.names
    out["hours_left"] = r.hours
    out["action"] = r.actions
    out["in_force"] = g.in_force
    out["live"] = g.in_force & is_live(x.superseded_us <= as_of_us, x.lifecycle)
    out["graded_by"] = g.basis
    out["reviewed_at"] = _stamps(np.where(is_review, g.review_start, _MISSING), _MISSING)
    out["review_interval_days"] = np.where(is_review, g.interval, np.nan)
    out["review_due"] = _stamps(due_us, _MISSING)
    out["freshness"] = g.score
    out["grade"] = g.grades
    out["superseded_by"] = x.superseded_by
    out["advice"] = _advice_texts(x, r, g, due_us, as_of_us, config).tolist()
    return out


_MISSING = np.int64(NO_TIME)   # "no such time" inside this module's int64 µs arrays


@dataclass(frozen=True)
class _Inputs:
    """The report's input columns as arrays: times as int64 µs (``created`` 0, ``start``
    NO_START, ``end`` and ``superseded_us`` NO_END, the others :data:`_MISSING` where absent)."""

    kinds: np.ndarray          # int8 kind codes (temporal.codes)
    doc_types: np.ndarray
    created: np.ndarray
    known_created: np.ndarray  # created, _MISSING where created_at is absent
    dated: np.ndarray          # a usable created_at
    start: np.ndarray
    end: np.ndarray
    confirmed: np.ndarray
    ingested: np.ndarray
    superseded_us: np.ndarray
    lifecycle: np.ndarray      # upper case, "" where absent
    superseded_by: np.ndarray  # object: the replacing version's id or None


@dataclass(frozen=True)
class _Retrieval:
    """What retrieval sees at ``as_of``: decay, validity state, hours left, SOLO/PAIR/DROP."""

    half_life: np.ndarray
    floors: np.ndarray
    decay: np.ndarray
    states: np.ndarray         # int8 validity codes
    names: np.ndarray          # their names
    hours: np.ndarray
    actions: np.ndarray


@dataclass(frozen=True)
class _Grading:
    """The review urgency: which rule grades each document, its clocks, score and grade."""

    review_start: np.ndarray
    decay_start: np.ndarray
    interval: np.ndarray       # review interval, days
    in_force: np.ndarray
    basis: np.ndarray          # BY_ARCHIVE / BY_REVIEW / BY_WINDOW / BY_DECAY
    held: np.ndarray           # kept at a positive decay floor
    score: np.ndarray          # the report's ``freshness``
    grades: np.ndarray


def _report_inputs(docs: pd.DataFrame) -> _Inputs:
    """Step 1 of :func:`freshness_report`: read the columns it needs."""
    n = len(docs)
    created = _times_us(docs["created_at"], 0)
    no_created = docs["created_at"].isna().to_numpy()
    dated = docs["dated"].fillna(False).to_numpy(dtype=bool) if "dated" in docs else np.ones(n, dtype=bool)
    superseded_us = _optional_times(docs, "superseded_at")
    lifecycle = docs["lifecycle"].fillna("").astype(str).str.upper().to_numpy() if "lifecycle" in docs \
        else np.full(n, "", dtype=object)
    by = docs["superseded_by"].to_numpy(dtype=object) if "superseded_by" in docs else np.full(n, None, dtype=object)
    return _Inputs(
        kinds=encode_kinds(docs["kind"].to_numpy(dtype=object)) if n else np.zeros(0, dtype=np.int8),
        doc_types=docs["doc_type"].to_numpy(dtype=object), created=created,
        known_created=np.where(no_created, _MISSING, created), dated=dated & ~no_created,
        start=_times_us(docs["valid_from"], NO_START), end=_times_us(docs["valid_until"], NO_END),
        confirmed=_optional_times(docs, "confirmed_at"), ingested=_optional_times(docs, "ingested_at"),
        superseded_us=np.where(superseded_us == _MISSING, NO_END, superseded_us), lifecycle=lifecycle,
        superseded_by=by)


def _retrieval_view(x: _Inputs, as_of_us: int, config: FreshnessConfig) -> _Retrieval:
    """Step 2: decay from ``created_at`` (:mod:`.decay`), validity state and hours left
    (:mod:`.validity`), and the pairing action (DROP when expired or not yet valid)."""
    half_life, _, floors = profile_arrays(x.doc_types, x.kinds)   # one factorisation of the doc types
    decay = decay_scores(x.created, as_of_us, half_life, floors, x.dated)
    states = validity_states(x.kinds, x.start, x.end, as_of_us)
    actions = np.where(np.isin(states, (STATE_EXPIRED, STATE_NOT_YET_VALID)), "DROP", pairing_action(decay, config))
    return _Retrieval(half_life=half_life, floors=floors, decay=decay, states=states, names=state_names(states),
                      hours=remaining_window_hours(x.end, as_of_us), actions=actions)


def _grading(x: _Inputs, r: _Retrieval, as_of_us: int, config: FreshnessConfig) -> _Grading:
    """Step 3: the rules of :func:`freshness_report` (archive, review, window, decay), each
    document's clocks, its freshness score and grade."""
    # the clocks: review (VERSIONED) from ingest/update/accept/created; decay (STATIC) from created/accept
    review_start = np.minimum(np.maximum.reduce([x.confirmed, x.ingested, x.known_created]), as_of_us)
    decay_start = np.where(x.dated, np.minimum(np.maximum(x.created, x.confirmed), as_of_us), x.created)
    type_codes, types = pd.factorize(pd.Series(x.doc_types, dtype=object), use_na_sentinel=False)
    interval = config.review_intervals(np.asarray(types, dtype=object))[type_codes]   # once per doc type
    in_force = ~(x.superseded_us <= as_of_us) & ~(r.states == STATE_EXPIRED)
    basis = np.where(~in_force, BY_ARCHIVE, np.where(x.kinds == KIND_VERSIONED, BY_REVIEW, np.where(
        (x.kinds == KIND_EVENT) & (x.end != NO_END), BY_WINDOW, BY_DECAY)))
    review_days = np.maximum(as_of_us - review_start, 0) / US_PER_DAY
    review_score = 0.5 ** (review_days / interval)
    window_score = np.where((r.states == STATE_TEMPORAL) & (r.hours <= config.closing_soon_hours), 0.75, 1.0)
    held = (r.floors > 0) & x.dated
    decay_now = decay_scores(decay_start, as_of_us, r.half_life, r.floors, x.dated)
    decay_score = np.where(held, np.maximum(decay_now, config.grade_thresholds[-1]), decay_now)
    score = np.select([basis == BY_ARCHIVE, basis == BY_REVIEW, basis == BY_WINDOW],
                      [0.0, review_score, window_score], decay_score)
    return _Grading(review_start=review_start, decay_start=decay_start, interval=interval, in_force=in_force,
                    basis=basis, held=held, score=score, grades=freshness_grades(score, config))


def _optional_times(frame: pd.DataFrame, name: str) -> np.ndarray:
    """A time column as int64 µs (:data:`_MISSING` where absent or NaT); all missing without it."""
    return _times_us(frame[name], _MISSING) if name in frame else np.full(len(frame), _MISSING, dtype=np.int64)


def _stamps(values_us: np.ndarray, missing: int) -> pd.Series:
    """int64 µs -> aware datetimes, NaT where ``missing``."""
    values = pd.Series(pd.to_datetime(np.asarray(values_us, dtype=np.int64), unit="us", utc=True))
    return values.where(np.asarray(values_us) != missing)


def _as_text(values_us: np.ndarray, unit_us: int, unit: str) -> np.ndarray:
    """int64 µs -> ``np.datetime_as_string`` at ``unit``, formatted once per distinct ``unit_us``
    step (floored, as numpy floors), so 50,000 rows cost a few hundred conversions."""
    safe = np.clip(np.asarray(values_us, dtype=np.int64), -(2 ** 52), 2 ** 52)
    steps, inverse = np.unique(np.floor_divide(safe, unit_us), return_inverse=True)
    return np.datetime_as_string((steps * unit_us).astype("datetime64[us]"), unit=unit).astype(object)[inverse]


def _days(values_us: np.ndarray) -> np.ndarray:
    """int64 µs -> "YYYY-MM-DD" strings (meaningless where the value is a sentinel)."""
    return _as_text(values_us, US_PER_DAY, "D")


def _minutes(values_us: np.ndarray) -> np.ndarray:
    """int64 µs -> "YYYY-MM-DD HH:MM UTC" strings."""
    text = _as_text(values_us, 60_000_000, "m")
    return np.array([t.replace("T", " ") + " UTC" for t in text], dtype=object)


def _advice_texts(x: _Inputs, r: _Retrieval, g: _Grading, due_us: np.ndarray, as_of_us: int,
                  config: FreshnessConfig) -> np.ndarray:
    """Step 4: one actionable sentence per document (rules of :func:`freshness_report`).

    The rules are tried in order; each takes the rows no earlier rule took and fills its
    sentence for those rows at once (the dates and numbers formatted only for them).
    """
    n = len(g.basis)
    out = np.full(n, "", dtype=object)
    todo = np.ones(n, dtype=bool)

    def rule(when: np.ndarray, *parts) -> None:
        nonlocal todo
        rows = np.flatnonzero(todo & when)
        todo = todo & ~when
        if rows.size:
            text = np.full(rows.size, "", dtype=object)
            for part in parts:
                text = text + (part if isinstance(part, str) else part(rows))
            out[rows] = text

    def day(values_us):
        return lambda rows: _days(values_us[rows])

    def minute(values_us):
        return lambda rows: _minutes(values_us[rows])

    def whole(values):
        return lambda rows: np.array([f"{v:.0f}" for v in values[rows]], dtype=object)

    def named_or(default: str):
        return lambda rows: np.array([v or default for v in x.superseded_by[rows]], dtype=object)

    def type_name(rows):
        return np.array([t if isinstance(t, str) and t.strip() else "general" for t in x.doc_types[rows]],
                        dtype=object)

    grade, not_yet = g.grades, r.names == "NOT_YET_VALID"
    event = x.kinds == KIND_EVENT
    superseded, successor = x.superseded_us <= as_of_us, x.superseded_us != NO_END
    review_by = np.where(np.isfinite(r.half_life), g.decay_start + np.nan_to_num(r.half_life * US_PER_DAY),
                         NO_END).astype(np.int64)
    age = np.maximum(as_of_us - g.decay_start, 0) / US_PER_DAY

    archive = g.basis == BY_ARCHIVE
    archived = x.lifecycle == "ARCHIVED"
    for mine, head, tail in ((archived, "Archived (", "): nothing to do"), (~archived, "Archive it: ", "")):
        rule(archive & mine & superseded, head, "superseded by ", named_or("a newer version"), " on ",
             day(x.superseded_us), tail)
        rule(archive & mine & event, head, "its window closed on ", minute(x.end), tail)
        rule(archive & mine, head, "no longer valid since ", day(x.end), tail)

    rule(archived & g.in_force, "Archived (out of answers, though still in force): nothing to do; "
         "unarchive it to serve it again")

    review = g.basis == BY_REVIEW
    rule(review & successor, "In force until ", named_or("its successor"), " takes effect on ",
         day(x.superseded_us), ": archive it then")
    rule(review & not_yet, "Takes effect on ", day(x.start), ": check it before then (next review by ",
         day(due_us), ")")
    rule(review & np.isin(grade, ("A", "B")), "Current version: serve (next review by ", day(due_us), ")")
    rule(review & (grade == "C"), "Review due by ", day(due_us),
         ": confirm it is still right (accept) or update it")
    rule(review, "Review overdue since ", day(due_us), ": confirm it is still right (accept) or update it")

    window = g.basis == BY_WINDOW
    rule(window & not_yet, "Upcoming, from ", minute(x.start),
         ": confirm the schedule still holds before it starts")
    rule(window & (grade != "A"), "Window closes ", minute(x.end), " (in ", whole(r.hours),
         " h): confirm it ends then, or extend valid_until")
    rule(window, "Active until ", minute(x.end), ": serve with its window")

    rule(~x.dated, "Undated: add created_at so its age can be judged")
    rule(event & np.isin(grade, ("D", "F")), "Event without an end: set valid_until, or archive it if it is over")
    fresh = np.isin(grade, ("A", "B", "C"))
    rule(fresh & (r.floors >= config.pair_below), "Timeless for its type: serve")
    rule(fresh, "Fresh for a ", type_name, " document: serve (review by ", day(review_by), ")")
    rule(g.held, "Held at the ", type_name, " floor (", whole(age), " days old): check for newer ", type_name,
         " work, then confirm it (accept) or archive it")
    rule(grade == "D", "Ageing ", type_name, " document (", whole(age),
         " days old): confirm it is still accurate (accept) or update it")
    rule(todo, "Stale for a ", type_name, " document (", whole(age),
         " days old): update it, or archive it if it only records its moment")
    return out


def live_f_share(report: pd.DataFrame) -> float:
    """Share of live documents (in force, not ARCHIVED) graded F; 0.0 when none is live."""
    live = report["live"].to_numpy(dtype=bool) if len(report) else np.zeros(0, dtype=bool)
    return float((report["grade"].to_numpy()[live] == "F").mean()) if live.any() else 0.0


RECORD_COLUMNS = ["id", "title", "kind", "doc_type", "source", "lifecycle", "live", "graded_by", "grade", "flag",
                  "freshness", "trust", "open_contradictions", "dependents", "confirmed_at", "age_days", "decay",
                  "validity_state", "reviewed_at", "review_due", "superseded_by", "action", "advice"]


def report_records(report: pd.DataFrame, columns: list[str] = RECORD_COLUMNS) -> list[dict]:
    """The report as JSON-ready rows (``freshness --json``), in its order: times as ISO-8601 UTC,
    NaN/NaT as None, numbers rounded to 6 places."""
    cols = [c for c in columns if c in report.columns]
    out = report[cols].copy()
    for col in cols:
        if isinstance(out[col].dtype, pd.DatetimeTZDtype):
            out[col] = out[col].dt.strftime("%Y-%m-%dT%H:%M:%SZ")
        elif pd.api.types.is_float_dtype(out[col].dtype):
            out[col] = out[col].round(6)
    out = out.astype(object).where(out.notna(), None)
    return out.to_dict(orient="records")
