"""Calibration against operators' verdicts: the store's refit and its reliability.

Part of :class:`smartvector_core.service.SmartVector` (a mixin: ``self`` is the whole service)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from ..models import EventType, without_undone
from ..retrieval.calibration import expected_calibration_error, refit_knots, reliability_bins


class CalibrationOps:

    def feedback_certainty_pairs(self) -> dict[str, tuple[list[float], list[bool]]]:
        """Per profile, (certainty of the answer as it was scored, accepted?) for every FEEDBACK
        event tied to a logged query: the operators' verdicts as calibration data.

        The certainty is the one the logged result carries (``certainty``: what calibration
        mapped to its confidence); results logged before it was recorded are left out.
        """
        pairs: dict[str, tuple[list[float], list[bool]]] = {}
        for profile, response, doc_id, accepted in self._verdicts():
            hit = next((r for r in response.get("results", []) if r.get("id") == doc_id), None)
            if hit is None or hit.get("certainty") is None:
                continue
            x, right = pairs.setdefault(profile, ([], []))
            x.append(float(hit["certainty"]))
            right.append(accepted)
        return pairs

    def store_calibration(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per profile, this store's calibration knots: the shipped prior refitted on its
        operators' verdicts (:func:`retrieval.calibration.refit_knots`); profiles without
        verdicts are absent (they use the prior). Kept in the query cache of the knowledge state
        until verdicts are recorded; every query reads it (``QueryCache.calibration_knots``)."""
        return self._fit_store_calibration(self.query_caches.get(self.knowledge.get()))

    def _fit_store_calibration(self, cache) -> dict[str, tuple[np.ndarray, np.ndarray]]:
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
        self._settle()
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
        ``{"n", "ece", "by_profile": {profile: {"n", "ece", "bins": [...]}}}`` (bins as in
        :func:`retrieval.calibration.reliability_bins`).
        """
        pairs: dict[str, tuple[list[float], list[bool]]] = {}
        for profile, response, doc_id, accepted in self._verdicts():
            hit = next((r for r in response.get("results", []) if r.get("id") == doc_id), None)
            if hit is not None:
                conf, right = pairs.setdefault(profile, ([], []))
                conf.append(float(hit.get("confidence", 0.0)))
                right.append(accepted)
        by_profile = {name: {"n": len(c), "ece": expected_calibration_error(c, r, bins),
                             "bins": reliability_bins(c, r, bins).to_dict("records")}
                      for name, (c, r) in sorted(pairs.items())}
        all_conf = [x for c, _ in pairs.values() for x in c]
        all_right = [x for _, r in pairs.values() for x in r]
        return {"n": len(all_conf), "ece": expected_calibration_error(all_conf, all_right, bins) if all_conf else None,
                "by_profile": by_profile}
