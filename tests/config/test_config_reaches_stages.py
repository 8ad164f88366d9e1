"""The service's :class:`EngineConfig` reaches the stages outside the query: the ripple of an
operator's correction (its preview and the events written), under one config shared by every
part of the service."""

from __future__ import annotations

from dataclasses import replace

import pytest

from smartvector_core.config import DEFAULT_ENGINE
from smartvector_core.config.consolidation import RippleConfig

from ..conftest import NOW
from .helpers import configured_app

# c depends on b, b depends on a: a correction of a reaches b at hop 1 and c at hop 2
CHAIN = [
    {"id": "a", "title": "Base rate limit", "created_at": "2026-01-01T00:00:00Z",
     "text": "The public API allows 100 requests per minute per key."},
    {"id": "b", "title": "SDK retry guide", "created_at": "2026-01-02T00:00:00Z", "depends_on": "a",
     "text": "The SDK retries after a 429 answer, staying under the per-key request limit."},
    {"id": "c", "title": "Batch export how-to", "created_at": "2026-01-03T00:00:00Z", "depends_on": "b",
     "text": "Batch exports use the SDK, whose retries keep them inside the limit."},
]
WIDE = replace(DEFAULT_ENGINE, consolidation=replace(DEFAULT_ENGINE.consolidation,
                                                    ripple=RippleConfig(penalty=0.3, hop_decay=0.2, max_hops=1)))


@pytest.fixture
def chain_store(store_dir):
    configured_app(store_dir).ingest_records(CHAIN, now=NOW, consolidate=False)
    return store_dir


def test_every_part_of_the_service_reads_the_one_config(chain_store):
    app = configured_app(chain_store, WIDE)
    parts = (app.ingest_service, app.query_service, app.feedback_service, app.review_service,
             app.calibration_service, app.frames_service, app.admin_service, app.archive_service, app.log)
    assert app.config is WIDE and all(part.config is WIDE for part in parts)


def test_the_ripple_of_a_correction_follows_the_configured_penalty_decay_and_hops(chain_store):
    default = configured_app(chain_store).ripple_preview("a", as_of=NOW)
    assert [(s["doc_id"], s["hop"]) for s in default] == [("b", 1), ("c", 2)]
    assert [s["penalty"] for s in default] == pytest.approx([0.10, 0.05])        # 0.10 · 0.5^(hop-1)
    wide = configured_app(chain_store, WIDE)
    assert [(s["doc_id"], s["hop"], s["penalty"]) for s in wide.ripple_preview("a", as_of=NOW)] == \
        [("b", 1, pytest.approx(0.3))]                                         # one hop, 0.3
    done = wide.feedback("a", "correct", now=NOW)
    assert [(s["doc_id"], s["penalty"]) for s in done["rippled"]] == [("b", pytest.approx(0.3))]
    events = wide.events_frame()
    ripple = events[events["event_type"] == "RIPPLE"]
    assert ripple["doc_id"].tolist() == ["b"] and ripple["delta"].tolist() == pytest.approx([-0.3])
