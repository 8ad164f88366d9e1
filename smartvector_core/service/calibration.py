"""Calibration against operators' verdicts: the store's refit and its reliability.

A part of :class:`smartvector_core.service.SmartVector`, over its :class:`.core.ServiceContext`."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from ..models import EventType, without_undone
from ..retrieval import confidence_model as cm
from ..retrieval.calibration import confidence_report, refit_knots, reliability_bins
from ..retrieval.query_cache import QueryCache
from .core import QueryLog, ServiceContext, ServicePart


class CalibrationService(ServicePart):
    """The store's calibration from operators' verdicts, and how well confidence matches them;
    ``log`` is written before the verdicts are read."""

    def __init__(self, ctx: ServiceContext, log: QueryLog) -> None:
        super().__init__(ctx)
        self.log = log

    def feedback_certainty_pairs(self) -> dict[str, tuple[list[float], list[bool]]]:
        """Per profile, (certainty of the answer as it was scored, accepted?) for every FEEDBACK
        event tied to a logged query: the operators' verdicts as calibration data.

        The certainty is the one the logged result carries (``certainty``: what calibration
        mapped to its confidence); results logged before it was recorded, and answers scored
        with another scoring version than the engine's (their certainties are not the
        model's), are left out (:meth:`scoring_warnings` counts them).
        """
        pairs: dict[str, tuple[list[float], list[bool]]] = {}
        for profile, response, doc_id, accepted in self._verdicts():
            hit = next((r for r in response.get("results", []) if r.get("id") == doc_id), None)
            if hit is None or hit.get("certainty") is None or not self._same_scoring(profile, response):
                continue
            x, right = pairs.setdefault(profile, ([], []))
            x.append(float(hit["certainty"]))
            right.append(accepted)
        return pairs

    def _scoring_version(self, profile: str) -> str | None:
        from ..retrieval.profiles import PROFILES

        return cm.version_of(self.config, PROFILES[profile]) if profile in PROFILES else None

    def _same_scoring(self, profile: str, response: dict) -> bool:
        logged = response.get("scoring_version")
        return not logged or logged == self._scoring_version(profile)

    def scoring_warnings(self) -> list[str]:
        """What an operator should know about this store's calibration: a shipped prior fitted
        with another scoring version than the engine's (re-fit it), and verdicts on answers
        scored with another version (left out of the refit)."""
        from ..retrieval.profiles import PROFILES

        out = [w for name in PROFILES if name != "naive"
               and (w := cm.prior_version_warning(name, self._scoring_version(name))) is not None]
        stale: dict[str, int] = {}
        for profile, response, _, _ in self._verdicts():
            if not self._same_scoring(profile, response):
                stale[profile] = stale.get(profile, 0) + 1
        out += [f"{n} verdicts on {p!r} answers were scored with another scoring version: left out of the refit"
                for p, n in sorted(stale.items())]
        return out

    def store_calibration(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per profile, this store's calibration knots: the shipped prior refitted on its
        operators' verdicts (:func:`retrieval.calibration.refit_knots`); profiles without
        verdicts are absent (they use the prior). Kept in the query cache of the knowledge state
        until verdicts are recorded; every query reads it (``QueryCache.calibration_knots``)."""
        return self.fit_store_calibration(self.query_caches.get(self.knowledge.get()))

    def fit_store_calibration(self, cache: QueryCache) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        knots = cache.calibration()
        if knots is None:
            events = cache.knowledge.events
            asked = events["event_type"].isin([EventType.FEEDBACK_ACCEPT.value, EventType.FEEDBACK_CORRECT.value]) \
                & (events["query_id"].fillna("") != "")
            pairs = self.feedback_certainty_pairs() if bool(asked.any()) else {}
            knots = cache.set_calibration({name: refit_knots(name, np.array(x), np.array(y, dtype=float),
                                                             prior_weight=self.config.calibration.prior_weight)
                                           for name, (x, y) in pairs.items() if x and name != "naive"})
        return knots

    def _verdicts(self):
        """(profile, logged response, doc id, accepted?) for each FEEDBACK event with a logged query
        (verdicts reversed since by a FEEDBACK_UNDO left out)."""
        self.log.settle()
        events = self.store.events().to_pandas()
        if not len(events):
            return
        events = events.assign(at_us=pd.to_datetime(events["at"], utc=True).astype("datetime64[us, UTC]")
                               .astype("int64"))
        fb = without_undone(events[events["event_type"].isin([EventType.FEEDBACK_ACCEPT.value,
                                                              EventType.FEEDBACK_CORRECT.value])
                                   & (events["query_id"].fillna("") != "")], events)
        if not len(fb):
            return
        logged = {r["query_id"]: r for r in self.store.queries(sorted(set(fb["query_id"]))).to_pylist()}
        for row in fb.itertuples(index=False):
            rec = logged.get(row.query_id)
            if rec is not None:
                response = json.loads(rec["response"] or "{}")
                yield (response.get("profile", rec["profile"]), response, row.doc_id,
                       row.event_type == EventType.FEEDBACK_ACCEPT.value)

    def feedback_reliability(self, *, bins: int = 10) -> dict[str, Any]:
        """How well the reported confidence matches operators' verdicts.

        Each FEEDBACK event that names a logged query is paired with the confidence that query
        reported for that document: accept counts as right (1), correct as wrong (0). Returns
        the store's :func:`retrieval.calibration.confidence_report` (ECE, AUROC, Brier score with
        its reliability and resolution parts, distinct values, HIGH-tier precision) over all
        verdicts and per profile (with ``bins`` as in
        :func:`retrieval.calibration.reliability_bins`), the :meth:`scoring_warnings`, and what
        the shipped prior was fitted on (``prior``).
        """
        pairs: dict[str, tuple[list[float], list[bool]]] = {}
        for profile, response, doc_id, accepted in self._verdicts():
            hit = next((r for r in response.get("results", []) if r.get("id") == doc_id), None)
            if hit is not None:
                conf, right = pairs.setdefault(profile, ([], []))
                conf.append(float(hit.get("confidence", 0.0)))
                right.append(accepted)
        by_profile = {name: {"n": len(c), **confidence_report(c, r, high=self.config.temporal.tiers.high, bins=bins),
                             "bins": reliability_bins(c, r, bins).to_dict("records")}
                      for name, (c, r) in sorted(pairs.items())}
        all_conf = [x for c, _ in pairs.values() for x in c]
        all_right = [x for _, r in pairs.values() for x in r]
        overall = (confidence_report(all_conf, all_right, high=self.config.temporal.tiers.high, bins=bins)
                   if all_conf else {"ece": None})
        return {"n": len(all_conf), **overall, "by_profile": by_profile, "warnings": self.scoring_warnings(),
                "prior": cm.prior_meta()}
