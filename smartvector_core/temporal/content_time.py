"""Content time: the periods written in a passage, and how well they match the period a question
names (DESIGN.md "Three kinds of time": when the facts in the text hold).

At ingest, :func:`passage_spans` extracts every time expression of a chunk's text into
half-open spans ``[start, end)`` of int64 µs UTC, kept with the chunk (``content_start_us`` /
``content_end_us``, :mod:`smartvector_core.store.schema`). The grammar is the question
parser's (:func:`.intent.periods_in`): years, days, months, quarters, decades; ranges ("from
2004 to 2005", "between 1990 and 1995", "1916-1920"); one-ended ones ("since 1990": to the
passage's ``created_at``; "until 2019": from :data:`~.codes.NO_START`); and phrases relative to
``created_at`` ("last year", "this month", "today"), left out when the document is undated.
Measured on 150 TimeQA paragraphs (scratch venv, shared CPU): ``dateparser.search_dates`` 24.6
ms per chunk, points only, with false years ("at 3017"); ``timefhuman`` 22.2 ms, points only;
``datefinder`` 1.3 ms, points only (it reads "1916-1920" as "during 1916", and fills a missing
month and day from the wall clock); this grammar ~1.7 ms, with ranges. So the grammar is ours.

:func:`content_time_signal` is the ``content_time`` signal. The rule, per passage ``i`` with
spans ``s_ij = [a_ij, b_ij)`` and the question's period ``q = [qa, qb)`` (µs, as years of
365.25 days below):

- ``gap_ij = max(0, a_ij − qb, qa − b_ij)``: the distance between the two periods (0 when they
  overlap or touch);
- ``spec_ij = (|q| / |q ∪ s_ij|) ** specificity_power`` where ``|q ∪ s|`` is the length of the
  smallest period holding both: a span much wider than the question ("since 1900") says less
  about it than one as narrow;
- ``match_ij = 2 ** (−gap_ij / half_gap_years) · spec_ij``;
- ``content_time_i = max_j match_ij``, and ``unspanned`` for a passage with no span.

Values are in [0, 1]. It is a ranking signal only: it never rejects a passage (a passage
without spans, or whose spans speak of other periods, keeps its place among the candidates
and is scored lower). Hand-worked (``half_gap_years = 1``, ``specificity_power = 0.5``), with
the question "from 2004 to 2005", q = [2004, 2006), |q| = 2 years:

- span 2004 = [2004, 2005): gap 0, |q ∪ s| = 2, match 1.0;
- span 2007 = [2007, 2008): gap 1 year, |q ∪ s| = 4, match 0.5 · √(2/4) ≈ 0.354;
- span "since 1996" to a 2021 ``created_at``, [1996, 2021-…): gap 0, |q ∪ s| ≈ 25.1, match ≈ 0.282;
- no span: ``unspanned`` (0.0).

Parameters: :class:`~smartvector_core.config.temporal.ContentTimeConfig` (``TemporalConfig.content_time``).
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from ..clock import US_PER_DAY, ensure_utc, to_us
from ..config.temporal import DEFAULT_TEMPORAL, ContentTimeConfig
from .codes import NO_START
from .intent import OPEN_START, periods_in

US_PER_YEAR = 365.25 * US_PER_DAY
_FAR_FUTURE = datetime(9999, 12, 31, tzinfo=UTC)   # "since 1990" in an undated text: no end known

DEFAULT_CONTENT_TIME = DEFAULT_TEMPORAL.content_time


def passage_spans(text: object, created_at: datetime | None) -> tuple[list[int], list[int]]:
    """The periods written in ``text`` as (starts, ends), int64 µs, half-open, in text order.
    ``created_at``: the moment relative phrases are read at (None for an undated document:
    relative phrases are left out, and "since X" runs to no known end)."""
    anchor = ensure_utc(created_at) if created_at is not None else None
    found = periods_in(text if isinstance(text, str) else "", anchor if anchor is not None else _FAR_FUTURE,
                       relative=anchor is not None)
    starts = [NO_START if start == OPEN_START else to_us(start) for _, _, start, _ in found]
    ends = [to_us(end) for _, _, _, end in found]
    return starts, ends


def content_time_signal(period: tuple[int, int], offsets: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                        config: ContentTimeConfig = DEFAULT_CONTENT_TIME) -> np.ndarray:
    """The ``content_time`` signal of ``n`` passages (module docstring), in [0, 1].

    ``period``: the question's period ``[qa, qb)`` in µs (``qa`` may be ``NO_START``).
    ``offsets`` (n + 1): passage ``i`` owns spans ``offsets[i]:offsets[i+1]`` of ``starts`` /
    ``ends`` (int64 µs; the layout of an Arrow list column).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    n = len(offsets) - 1
    out = np.full(n, float(config.unspanned))
    if n <= 0 or offsets[-1] == offsets[0]:
        return out
    a = np.asarray(starts, dtype=np.float64)[offsets[0]:offsets[-1]] / US_PER_YEAR
    b = np.asarray(ends, dtype=np.float64)[offsets[0]:offsets[-1]] / US_PER_YEAR
    qa, qb = float(period[0]) / US_PER_YEAR, float(period[1]) / US_PER_YEAR
    q_len = max(qb - qa, 1e-9)
    gap = np.maximum(0.0, np.maximum(a - qb, qa - b))
    union = np.maximum(b, qb) - np.minimum(a, qa)
    spec = np.clip(q_len / np.maximum(union, 1e-9), 0.0, 1.0) ** config.specificity_power
    match = np.exp2(-gap / config.half_gap_years) * spec
    owner = np.repeat(np.arange(n), np.diff(offsets))
    best = np.full(n, -np.inf)
    np.maximum.at(best, owner, match)
    return np.where(np.isfinite(best), np.clip(best, 0.0, 1.0), out)
