"""The editor's worklist over the freshness report: flags that lower a grade, and the order.

The freshness grade (:func:`.freshness.freshness_report`) is review urgency from time: the review
clock, the window, the decay profile. Two facts about a live document make it urgent whatever its
clock says (DESIGN.md "Trust model": trust moves with verdicts and contradictions):

- **low trust**: its trust at ``as_of`` is below ``low_trust`` (0.2, ours: a forum post at 0.3
  corrected once by an operator falls to about 0.09): grade F, advice to update or archive it;
- **open contradiction**: it is one side of a CONTRADICTS edge still open: grade at best
  ``contested_grade`` (D), the advice names the other side.

:func:`most_urgent_first` is the one order of the worklist, of ``freshness`` on the command line and
of its ``--json``: live documents first, worst grade first, then lowest freshness, then id.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .freshness import GRADES

LOW_TRUST = 0.2        # ours: below this trust a live document is flagged (grade F)
CONTESTED_GRADE = "D"  # ours: the best grade of a live document with an open contradiction


@dataclass(frozen=True)
class ReviewConfig:
    low_trust: float = LOW_TRUST
    contested_grade: str = CONTESTED_GRADE


DEFAULT_REVIEW = ReviewConfig()
FLAG_LOW_TRUST, FLAG_CONTESTED = "low trust", "open contradiction"


def flag_for_review(report: pd.DataFrame, config: ReviewConfig = DEFAULT_REVIEW) -> pd.DataFrame:
    """A copy of ``report`` whose live rows with low ``trust`` or any ``open_contradictions`` (a
    list of the other sides' ids per row) get the worse grade and advice of the module's rules,
    and a ``flag`` column naming them ("" where none). Either column may be absent."""
    out = report.copy()
    n = len(out)
    live = out["live"].to_numpy(dtype=bool) if n else np.zeros(0, dtype=bool)
    trust = out["trust"].to_numpy(dtype=np.float64) if "trust" in out else np.full(n, np.nan)
    others = out["open_contradictions"].tolist() if "open_contradictions" in out else [[] for _ in range(n)]
    contested = live & np.array([bool(o) for o in others], dtype=bool)
    low = live & (trust < config.low_trust)
    rank = {g: i for i, g in enumerate(GRADES)}
    grades = out["grade"].to_numpy(dtype=object).copy()
    advice = out["advice"].to_numpy(dtype=object).copy()
    flags = np.full(n, "", dtype=object)
    for i in np.flatnonzero(contested):
        if rank.get(grades[i], 0) < rank[config.contested_grade]:
            grades[i] = config.contested_grade
        advice[i] = (f"Open contradiction with {', '.join(sorted(others[i]))}: resolve it in the review queue. "
                     f"{advice[i]}")
        flags[i] = FLAG_CONTESTED
    for i in np.flatnonzero(low):
        grades[i] = "F"
        advice[i] = (f"Low trust ({trust[i]:.3f}, below {config.low_trust}): corrected by operators or "
                     f"outweighed by a more trusted source: update it, or archive it")
        flags[i] = FLAG_LOW_TRUST if not flags[i] else f"{FLAG_LOW_TRUST}, {flags[i]}"
    out["grade"], out["advice"], out["flag"] = grades, advice.tolist(), flags
    return out


def most_urgent_first(report: pd.DataFrame) -> pd.DataFrame:
    """``report`` in worklist order: live first, then worst grade, lowest ``freshness``, id."""
    if not len(report):
        return report.reset_index(drop=True)
    rank = report["grade"].map({g: i for i, g in enumerate(GRADES)}).fillna(-1)
    keys = pd.DataFrame({"live": ~report["live"].astype(bool), "grade": -rank,
                         "freshness": report["freshness"].astype(float), "id": report["id"].astype(str)},
                        index=report.index)
    order = keys.sort_values(["live", "grade", "freshness", "id"], kind="stable").index
    return report.loc[order].reset_index(drop=True)
