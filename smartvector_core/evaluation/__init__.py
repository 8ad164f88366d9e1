"""Evaluation: what the engine's answers are worth and how fast they come, run against the
service (this package sits above it; the service imports nothing from here).

- :mod:`.accuracy`: retrieval metrics, the rebuilt SmartVector paper benchmark, baseline rankers,
  the ``bench`` runner and report, ablations, the confidence prior's fit.
- :mod:`.perf`: the speed figures (``perf``): stores, one benchmark a figure, the PERF.md table,
  and the Ray ingest benchmark (:mod:`.perf.ray_bench`).

The accuracy names are re-exported here.
"""

from . import accuracy
from .accuracy import *  # noqa: F403  (the accuracy names, re-exported)

__all__ = list(accuracy.__all__)
