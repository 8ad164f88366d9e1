"""Release records asked for as "the latest release" (ours): which release records a question
about the newest release prefers, and against what each is measured.

A question that asks for the newest release (:attr:`QueryIntent.asks_newest`: "What changed in
the latest release?") is answered by the newest release record of the subject asked, however
old it is, not by any document in force. Release records are those of
:data:`smartvector_core.temporal.kinds.RELEASE_DOC_TYPES` (release notes, changelog entries); a record's series
is its title without version strings (:func:`smartvector_core.temporal.kinds.release_series`). The newest of a
series is read over the whole store at the moment of judgement (:func:`release_newest`), so a
pool that missed it does not crown an older one; the value itself is
:func:`.scoring.newest_release_signal`. A Python loop runs over the store's release records once
per knowledge state (:func:`_series_dates`), and over the candidates' titles for such a question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..config.temporal import TemporalConfig
from ..temporal import DEFAULT_TEMPORAL, STATE_EXPIRED, STATE_NOT_YET_VALID
from ..temporal.kinds import LOG_DOC_TYPE_ALIASES, RELEASE_DOC_TYPES, release_series
from ..temporal.version_words import version_in_range
from .candidates import first_per_document
from .scoring import newest_release_signal

ANY_SERIES = "*"   # the one series of every release record, when the question names none


def release_newest(docs, t_us: int) -> dict[str, int]:
    """The ``created_at`` (µs) of the newest release record of each series
    (:func:`smartvector_core.temporal.kinds.release_series`) written by ``t_us``, and of all of them
    under :data:`ANY_SERIES`, over every document of the store (``docs``: ``KnowledgeState.docs``;
    None: none known): "the latest release" is the newest the store holds, not the newest the
    candidate pool happened to retrieve. Each series' dates are read once per ``docs`` table
    (:func:`_series_dates`, kept while the knowledge state holds that table), then one binary
    search per series finds the newest written by ``t_us``."""
    out: dict[str, int] = {}
    for series, dates in _series_dates(docs).items():
        at = int(np.searchsorted(dates, t_us, side="right"))
        if at:
            out[series] = int(dates[at - 1])
    return out


_SERIES_CACHE: dict[int, tuple[object, dict[str, np.ndarray]]] = {}
_SERIES_CACHE_SIZE = 4   # knowledge states alive at once (a reload replaces the docs table)


def _series_dates(docs) -> dict[str, np.ndarray]:
    """Per release series (and :data:`ANY_SERIES`), the sorted ``created_at`` (µs) of its release
    records in ``docs``, cached on the table's identity (the table is kept with its entry, so the
    identity is not reused while the entry lives). Filters the release doc types first (pyarrow)
    and reads the titles of those only."""
    if docs is None or not docs.num_rows:
        return {}
    hit = _SERIES_CACHE.get(id(docs))
    if hit is not None and hit[0] is docs:
        return hit[1]
    rel = docs.filter(pc.is_in(pc.utf8_lower(pc.fill_null(docs.column("doc_type"), "")),
                               value_set=pa.array(sorted(RELEASE_DOC_TYPES | set(LOG_DOC_TYPE_ALIASES)))))
    created = pc.cast(rel.column("created_at"), pa.int64()).to_numpy(zero_copy_only=False)
    found: dict[str, list[int]] = {}
    for doc_type, title, at in zip(rel.column("doc_type").to_pylist(), rel.column("title").to_pylist(),
                                   created.tolist(), strict=True):
        key = release_series(doc_type, title)
        for series in (key, ANY_SERIES) if key else ():
            found.setdefault(series, []).append(at)
    dates = {series: np.sort(np.asarray(ats, dtype=np.int64)) for series, ats in found.items()}
    while len(_SERIES_CACHE) >= _SERIES_CACHE_SIZE:
        _SERIES_CACHE.pop(next(iter(_SERIES_CACHE)))
    _SERIES_CACHE[id(docs)] = (docs, dates)
    return dates


def latest_release_notes(cands, temporal_values: np.ndarray) -> dict[int, list[str]]:
    """A note on each release record that :func:`newest_release` valued as the latest release
    (temporal value 1)."""
    top = np.flatnonzero(temporal_values >= 1.0 - 1e-9)
    return {int(i): ["the question asks for the latest release: the newest release of its series, temporal 1.0"]
            for i in top if cands.release_series[i]}


def _named_series(series: np.ndarray, subject: Sequence[str]) -> np.ndarray:
    """Per row: its release series holds a word of a name the question states (``subject``);
    each distinct series is tested once."""
    words = {w for name in subject for w in re.findall(r"[\w.+#-]+", str(name).lower())}
    rows = series.tolist()
    named = {key for key in set(rows) if key and words & set(key.split())}
    if not named:
        return np.zeros(len(rows), dtype=bool)
    return np.fromiter((key in named for key in rows), dtype=bool, count=len(rows))


def newest_release(pool, temporal_values: np.ndarray, subject: Sequence[str] = (),
                   temporal: TemporalConfig = DEFAULT_TEMPORAL, newest_by_series: Mapping[str, int] | None = None
                   ) -> np.ndarray:
    """The temporal signal when the question asks for the newest release ("What changed in the
    latest release?"): each release record of the subject asked (``pool``: the reranker's
    :class:`.rerank.Pool`) valued by :func:`.scoring.newest_release_signal` against the newest of
    its series written by ``t`` (``newest_by_series``: :func:`release_newest`; the candidates alive
    at ``t`` where later); every other document keeps ``temporal_values``. The subject
    asked: the series whose title holds a word of a name the question states (``subject``: "the
    most recent Python version that Requests dropped" -> the "Requests changelog"); when none does
    ("the latest release"), every release record is of one series, the store's."""
    cands = pool.cands
    series = cands.release_series
    named = _named_series(series, subject)
    if named.any():
        series = np.where(named, series, "")
    else:   # no subject named: every release is of one series ("the latest release" of the store)
        series = np.where(series != "", ANY_SERIES, "")
    alive = ((pool.states != STATE_EXPIRED) & (pool.states != STATE_NOT_YET_VALID) & (cands.created_us <= pool.t_us)
             & (pool.superseded_us > pool.t_us))
    values, applies = newest_release_signal(series, cands.created_us, alive, pool.t_us, pool.half_life, pool.floors,
                                            cands.dated, temporal.decay, newest_by_series)
    return np.where(applies, values, temporal_values)


def release_versions_asked(cands, hit: np.ndarray, subject: Sequence[str] = (),
                           version_range: tuple[str, str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A question that names a version, over release records (ours): ``(targeted, other)`` rows.

    Release records are no chain (each is a record of its own moment), yet the releases of one
    series (:func:`smartvector_core.temporal.kinds.release_series`) answer "What did Click 8.1.4
    change?" the way a chain's versions do: the one named, not its neighbours. So:

    - ``targeted``: the rows of ``hit`` (:func:`.rerank.version_matches`); for a range ("between
      2.0.0 and 3.1.0", ``version_range``) every release record whose version is after the first
      and at most the second (:func:`.version_words.version_in_range`);
    - when some targeted release is of a series the question names ("Werkzeug's ... 3.1.0"), the
      targeted rows of other series are not ("flask 3.1.0" is not Werkzeug's);
    - ``other``: the release records of a targeted series that are not targeted (the chain rule's
      VERSION_MISMATCH).

    Documents that are no release records keep ``hit`` as it is."""
    series = cands.release_series
    release = series != ""
    targeted = np.asarray(hit, dtype=bool).copy()
    if version_range is not None:
        low, high = version_range
        in_range = np.array([version_in_range(v, low, high) for v in cands.version], dtype=bool)
        targeted = np.where(release, in_range, targeted)
    named = _named_series(series, subject)
    if (targeted & release & named).any():
        targeted &= ~release | named
    aimed = np.isin(series, series[targeted & release]) & release
    return targeted, aimed & ~targeted


def other_products(cands, subject: Sequence[str]) -> tuple[np.ndarray, str]:
    """Release records of another product than the one the question names (ours): where the
    question states a name that is a word of some candidate's release series ("Which Python
    version did Click most recently drop support for?" -> the "click changelog"), the release
    records of the other series (Flask's entry on dropping Python 3.6 is no answer about
    Click). ``(mask, the series named)``; no mask when no series is named."""
    if not subject:
        return np.zeros(len(cands), dtype=bool), ""
    series = cands.release_series
    named = _named_series(series, subject)
    if not named.any():
        return np.zeros(len(cands), dtype=bool), ""
    return (series != "") & ~named, str(series[np.flatnonzero(named)[0]])


def first_versions_holding(cands, chain: np.ndarray, effective_us: np.ndarray) -> np.ndarray:
    """For a question that asks which version first held something
    (:attr:`QueryIntent.asks_first`: "In which Django release was the DEFAULT_AUTO_FIELD setting
    added?"), per chain of two or more documents among the candidates, the passage of its
    earliest version (by effective time) among those that hold the most of the question's names
    (``cands.lexical_names``: in its text or its title); a version counts its best passage. The
    newest version in force no longer says when a thing came (docs drop their "new in 3.2" notes
    after a few releases): the first version that names it does. A chain whose versions all hold
    as many names is left alone: nothing tells which version added it. Returns a bool mask of
    the chosen passages (none without the lexical search)."""
    n = len(cands)
    hit = np.zeros(n, dtype=bool)
    held = cands.lexical_names
    if held is None or not n:
        return hit
    count = np.fromiter((0 if h is None else len(set(h[0]) | set(h[1])) for h in held), dtype=np.int64, count=n)
    code = cands.doc_code
    for c in np.unique(chain):
        members = np.flatnonzero(chain == c)
        docs, at = np.unique(code[members], return_inverse=True)
        if len(docs) < 2:
            continue
        per_doc = np.zeros(len(docs), dtype=np.int64)    # a version counts its best passage
        np.maximum.at(per_doc, at, count[members])
        best = per_doc.max()
        if best == 0 or per_doc.min() == best:
            continue
        top = members[count[members] == best]
        hit[top[np.argmin(effective_us[top])]] = True
    return hit


def older_release_records(cands, kept: np.ndarray, score: np.ndarray, top_documents: int = 3) -> np.ndarray:
    """For a question about what holds now (no version, release, period or "which release" in it:
    "What is the minimum PostgreSQL version Django supports?"), the passages of the release
    records that a newer record of the same series follows among the ``top_documents`` best
    documents (by their best kept passage). Each release's notes state what held at its own
    moment ("Django 3.0 supports PostgreSQL 9.5 and higher", ... "Django 5.2 supports PostgreSQL
    14 and higher"), in near-identical words, so the oldest may embed closest; what holds now is
    told by the newest of them written by the moment of judgement (the pool holds no later one)."""
    flagged = np.zeros(len(cands), dtype=bool)
    series = cands.release_series
    if not (kept & (series != "")).any():        # most pools hold no release record: nothing to sort
        return flagged
    order = np.flatnonzero(kept)[np.argsort(-score[kept], kind="stable")]
    top = first_per_document(cands.doc_code, order)[:top_documents]
    top = top[series[top] != ""]
    newest: dict[str, int] = {}
    for i in top.tolist():
        newest[series[i]] = max(newest.get(series[i], cands.created_us[i]), cands.created_us[i])
    older = [i for i in top.tolist() if cands.created_us[i] < newest[series[i]]]
    if older:
        flagged = kept & np.isin(cands.doc_code, cands.doc_code[older])
    return flagged
