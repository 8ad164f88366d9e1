"""A knowledge base over a test store under a given engine configuration."""

from __future__ import annotations

from smartvector_core.config import DEFAULT_ENGINE, EngineConfig
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings


def configured_app(store_dir, config: EngineConfig = DEFAULT_ENGINE) -> SmartVector:
    """The service over ``store_dir`` with the hashing embedder and ``config``."""
    return SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder(), config=config)
