"""The Ray engine's encoder actor, kept apart so a worker imports only the encoder.

A worker process that starts an actor imports the module defining its class; this one needs
numpy and :mod:`smartvector_core.embedding` only (~0.3 s), not the store and LanceDB that
:mod:`.ray_ingest` pulls in (~2 s per worker).
"""

from __future__ import annotations

import os
import time

import numpy as np


class EncodeActor:
    """One per worker: the model is loaded once, then encodes whole batches of texts.

    ``env``: the driver's encoder settings (backend, threads), set before the model loads so
    that a worker on another machine encodes with the same encoder as the driver recorded.
    """

    def __init__(self, model_name: str, env: dict[str, str] | None = None) -> None:
        os.environ.update(env or {})
        from ..embedding import get_embedder

        self.embedder = get_embedder(model_name)

    def encoder_id(self) -> str | None:
        return getattr(self.embedder, "encoder_id", None)

    def encode(self, texts: list[str]) -> tuple[np.ndarray, float]:
        """``(len(texts), dim)`` float32 (one array: one object-store copy per batch) and the
        seconds the encoder took (the rest of a call's round trip is Ray's)."""
        t0 = time.perf_counter()
        vectors = np.asarray(self.embedder.encode(texts), dtype=np.float32).reshape(len(texts), self.embedder.dim)
        return vectors, time.perf_counter() - t0
