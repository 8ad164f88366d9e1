"""Answer confidence: from a result's evidence to a probability that it is right and current.

DESIGN.md "Trust model": the answer confidence is "a function of the score, the margin over the
next candidates, trust, validity, and agreement among candidates", calibrated from a shipped
prior and refitted per store from operators' verdicts. Two steps:

1. **certainty**, the uncalibrated evidence in [0, 1]: the profile's confidence model
   (:mod:`.confidence_model`: logistic regression on each result's evidence, shipped in
   ``calibration.json`` beside this module and rebuilt by ``calibration --fit-prior``). Where the
   prior holds no model for a profile, :func:`certainty` gives the evidence formula::

       x = score · g(margin) · (0.5 + 0.5 · trust) · validity − 0.1 · severity

   - ``margin``: the result's score minus the best score of a result that does **not** agree
     with it (same document or same version chain agree); ``g(m) = clip(0.5 + 0.5 · m / 0.1,
     0, 1)`` (blog, "When the score looks good but the answer isn't certain"); a flagged
     conflict (severity ≥ 0.5) counts as a race with no margin, and any severity costs
     ``conflict_penalty · severity`` (blog: "conf_pen = −0.1 · severity"); ``validity`` 1 for a VALID or
     TEMPORAL result, 0.5 otherwise. The constants:
     :class:`~smartvector_core.config.query.CalibrationConfig`.
2. **calibration** (:func:`calibrate`): a non-decreasing map certainty → probability, the
   shipped prior's isotonic knots per profile. Per store, :func:`refit_knots` refits it on the
   operators' verdicts (accept = right, correct = wrong, each paired with the certainty the
   store logged with that answer), with the prior counting as ``CalibrationConfig.prior_weight`` verdicts, so
   a handful of verdicts nudges it and hundreds decide it. The map is non-decreasing, so
   calibration never reorders results.

``naive`` reports its cosine similarity unchanged: that is what plain RAG reports.

Abstention (:func:`abstains`): when nothing in the store is about the question the answer
abstains and no result keeps a confidence above ``AbstentionConfig.cap``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..config.query import DEFAULT_ABSTENTION, DEFAULT_CALIBRATION, AbstentionConfig, CalibrationConfig
from ..config.temporal import DEFAULT_TEMPORAL
from ..errors import InputError
from ..words import CONTENT_STOP_WORDS, content_words

KNOTS_FILE = Path(__file__).with_name("calibration.json")

def certainty(scores: np.ndarray, margins: np.ndarray, trust: np.ndarray | float = 1.0,
              current: np.ndarray | bool = True, severity: np.ndarray | float = 0.0,
              config: CalibrationConfig = DEFAULT_CALIBRATION) -> np.ndarray:
    """x = score · g(margin) · (0.5 + 0.5·trust) · validity − conflict_penalty·severity, clipped
    to [0, 1] (module docstring; the constants: ``config``, ``EngineConfig.calibration``).
    ``margins`` against the best disagreeing result; NaN (none) is a clear win. ``current``:
    VALID or TEMPORAL. ``severity``: the conflict severity against the previous version (0 when
    none)."""
    s = np.clip(np.asarray(scores, dtype=np.float64), 0.0, 1.0)
    m = np.nan_to_num(np.asarray(margins, dtype=np.float64), nan=config.margin_scale)
    sev = np.broadcast_to(np.asarray(severity, dtype=np.float64), s.shape)
    g = np.clip(0.5 + 0.5 * m / config.margin_scale, 0.0, 1.0)
    g = np.where(sev >= config.conflict_flag, np.minimum(g, 0.5), g)
    t = np.clip(np.broadcast_to(np.asarray(trust, dtype=np.float64), s.shape), 0.0, 1.0)
    valid = np.where(np.broadcast_to(np.asarray(current, dtype=bool), s.shape), 1.0, config.not_current_factor)
    return np.clip(s * g * (0.5 + 0.5 * t) * valid - config.conflict_penalty * sev, 0.0, 1.0)


def disagreeing_margins(scores: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per result, its score minus the best score among results of another group (NaN when
    every result is in its group). ``groups``: one label per result (its version chain, or its
    document); results of one group agree. The best group's maximum and the best score outside
    that group are enough (:func:`best_outside`): O(n), no sort."""
    s = np.asarray(scores, dtype=np.float64)
    if s.size == 0:
        return s.copy()
    rival = best_outside(s, np.asarray(groups))
    return np.where(np.isfinite(rival), s - rival, np.nan)


def best_outside(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per row, the largest of ``values`` over the rows of the other groups (``groups``: one label
    per row; -inf when there is none): the best row's group gets the best value outside it, every
    other row the best value. Ties between groups for the best give every row that value, whichever
    group is taken as the best. Values with a NaN go through the per-group maxima instead (a NaN
    never counts as the best)."""
    v = np.asarray(values, dtype=np.float64)
    g = np.asarray(groups)
    if np.isnan(v).any():
        labels, inverse = np.unique(g, return_inverse=True)
        inverse = inverse.reshape(-1)
        best = np.full(len(labels), -np.inf)
        np.maximum.at(best, inverse, v)
        order = np.argsort(-best)
        first, second = order[0], order[1] if len(order) > 1 else -1
        return np.where(inverse == first, best[second] if second >= 0 else -np.inf, best[first])
    top = int(np.argmax(v))
    mine = g == g[top]
    second = np.where(mine, -np.inf, v).max(initial=-np.inf)
    return np.where(mine, second, v[top])


@lru_cache(maxsize=1)
def _shipped() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    if not KNOTS_FILE.exists():
        return {}
    data = json.loads(KNOTS_FILE.read_text(encoding="utf-8"))
    return {name: (np.asarray(v["x"], dtype=np.float64), np.asarray(v["y"], dtype=np.float64))
            for name, v in data.get("profiles", {}).items()}


def prior_knots(profile: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The shipped prior's knots of ``profile`` (None: none shipped; certainty is used as is)."""
    return _shipped().get(profile)


def calibrate(profile: str, x: np.ndarray, knots: tuple[np.ndarray, np.ndarray] | None = None,
              *, raw_scores: np.ndarray | None = None) -> np.ndarray:
    """Probability per result that it is right and current: ``knots`` (a store's refit, else the
    shipped prior of ``profile``) applied to the certainty ``x`` with ``np.interp``; without
    knots, ``x`` itself. ``naive``: its raw score (cosine) unchanged."""
    if profile == "naive":
        return np.clip(np.asarray(raw_scores if raw_scores is not None else x, dtype=np.float64), 0.0, 1.0)
    x = np.asarray(x, dtype=np.float64)
    knots = knots if knots is not None else prior_knots(profile)
    if knots is None:
        return np.clip(x, 0.0, 1.0)
    return np.interp(x, knots[0], knots[1])


def held_to_rank(probability: np.ndarray, first: np.ndarray | None = None) -> np.ndarray:
    """Each result's confidence held to at most that of the result ranked above it:
    ``p'_r = min(p_1, ..., p_r)`` (a running minimum in rank order), so the confidences an
    operator reads never rise down the list. ``first``: where each answer's list begins
    (booleans, one per row, rows in rank order within each answer; None: one answer).

    Why: the ranking is the engine's claim that rank r is at least as good an answer as rank
    r + 1; a confidence that rises below it contradicts the claim on the same page. The model
    reads each passage alone, so its own probability for rank 2 can exceed rank 1's (rank 1
    stale, rank 2 in force); the cap keeps the ranking's order and keeps rank 1's confidence,
    which is what ECE and the tiers are measured on, unchanged. The certainty, which a store
    refits from verdicts, is not capped."""
    p = np.asarray(probability, dtype=np.float64)
    if first is None:
        return np.minimum.accumulate(p) if len(p) else p
    starts = np.flatnonzero(np.asarray(first, dtype=bool))
    if not len(starts) or starts[0] != 0:
        starts = np.r_[0, starts]
    return np.concatenate([np.minimum.accumulate(seg) for seg in np.split(p, starts[1:])]) if len(p) else p


def refit_knots(profile: str, x: np.ndarray, correct: np.ndarray, *,
                prior_weight: float = DEFAULT_CALIBRATION.prior_weight,
                prior: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The store's calibration of ``profile``: an isotonic fit on its operators' verdicts
    (certainty ``x``, accepted ``correct``) plus the prior (``prior``, default the shipped
    knots of ``profile``) as ``prior_weight`` pseudo-verdicts spread evenly over the prior's
    knots (their y as the observed rate). Without a prior, the identity (y = x at 0 and 1) plays
    that part. Knots at the ends of the isotonic blocks (:func:`confidence_fitting.isotonic_knots`
    ``at="ends"``): a block's rate holds over all of it, so an operator's wrong verdict never
    raises the confidence at its own certainty; between blocks the map stays strictly increasing."""
    from .confidence_fitting import isotonic_knots

    prior = prior if prior is not None else prior_knots(profile)
    px, py = prior if prior is not None else (np.array([0.0, 1.0]), np.array([0.0, 1.0]))
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(correct, dtype=np.float64)
    all_x = np.r_[px, x]
    all_y = np.r_[py, y]
    w = np.r_[np.full(len(px), prior_weight / max(len(px), 1)), np.ones(len(x))]
    return isotonic_knots(all_x, all_y, w, at="ends")


_STEM = 5               # ours: words sharing their first five letters count as one ("refund", "refunds")
_LONG_STOP_SET = frozenset(w for w in CONTENT_STOP_WORDS if len(w) >= _STEM)


def lexical_support(question: str, best, pool=None, generic_share: float = DEFAULT_ABSTENTION.generic_share) -> float:
    """Share of the question's content words that occur (as words, or by a 5-letter prefix) in
    the ``best`` candidates' texts and in at most ``generic_share`` of the ``pool`` (all
    candidates; default ``best``): a word that half the store contains ("time", "use") says
    nothing about what the question is about. 0 when the question has no content word.

    A question word ``w`` occurs in a text when one of the text's :func:`content_words` ``u``
    (:func:`smartvector_core.words.content_words`) shares a stem with it (``{w, w[:5]} ∩ {u, u[:5]} ≠ ∅``). That is: for ``len(w) >= 5``, some
    content word starts with ``w[:5]``; for a shorter ``w``, ``w`` itself is a word of the text.
    Both are tested on each text's words (:func:`text_words`: read once per text and kept, by
    :func:`_word_rows`), not re-read per question. ``best`` and ``pool``: sequences of strings
    or Arrow string arrays."""
    asked = sorted(content_words(question))
    if not asked:
        return 0.0
    pool_found = word_presence_ids(text_words(pool if pool is not None else best), asked, prefix=True)
    best_found = word_presence_ids(text_words(best), asked, prefix=True)
    limit = max(generic_share * max(pool_found.shape[1], 1), 1)
    return float(np.mean(best_found.any(axis=1) & (pool_found.sum(axis=1) <= limit)))


class _Vocabulary:
    """Every word :func:`text_words` has read, as an integer id (``ids``), and per id the id of
    its first five letters (``prefix``; -1 for a word under five letters or a long stop word);
    ``memo``: text -> its distinct word ids and prefix ids (:class:`TextWords`), oldest first
    (the ``WORDS_MEMO_SIZE`` latest texts)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.prefixes: dict[str, int] = {}
        self.prefix = np.zeros(0, dtype=np.int32)
        self.memo: dict = {}

    def encode(self, words: list[str]) -> np.ndarray:
        """The ids of ``words`` (distinct strings), new ones added."""
        ids, prefixes, new = self.ids, self.prefixes, []
        for u in words:                 # the distinct words of the texts not seen yet
            if u not in ids:
                ids[u] = len(ids)
                new.append(-1 if len(u) < _STEM or u in _LONG_STOP_SET else
                           prefixes.setdefault(u[:_STEM], len(prefixes)))
        if new:
            self.prefix = np.concatenate([self.prefix, np.asarray(new, dtype=np.int32)])
        return np.fromiter((ids[u] for u in words), dtype=np.int64, count=len(words))


class TextWords(list):
    """Per text its distinct word ids, then the distinct ids of their five-letter prefixes plus
    :data:`_HEAD_BASE` (int32 ``bytes``, each part ascending: a pool's texts are then joined end
    to end by one ``bytes.join``, and one pass over them finds both kinds of term), and the
    :class:`_Vocabulary` they are ids of. Made per query (:func:`text_words`); what
    :func:`word_presence_ids` works out over it (the joined ids, and each term's row of presence)
    is kept on it, so the confidence evidence and the out-of-force rule of one query read the
    pool's words once."""

    def __init__(self, vocabulary: _Vocabulary, ids: list[bytes]) -> None:
        super().__init__(ids)
        self.vocabulary = vocabulary
        self._flat: tuple[np.ndarray, np.ndarray] | None = None
        self._rows: dict[tuple[str, bool], np.ndarray] = {}

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """(every text's ids end to end, where each text's ids end), built once."""
        if self._flat is None:
            ends = np.cumsum(np.fromiter(map(len, self), dtype=np.intp, count=len(self))) // _ID_BYTES
            self._flat = (np.frombuffer(b"".join(self), dtype=np.int32), ends)
        return self._flat

    def presence(self, keys: list[tuple[str, bool]]) -> np.ndarray:
        """(len(keys), texts) booleans: whether each term occurs in each text, a key being (term,
        whether it is matched by its first five letters: the rule of :func:`word_presence_ids`).
        Each key's row is worked out once: the joined ids equal to one of the new keys' ids (word
        or prefix) are found in one pass, and each hit is placed at its id's row and its text (the
        texts' ends: a binary search per hit)."""
        new = [key for key in dict.fromkeys(keys) if key not in self._rows]
        if new:
            where, ends = self.flat()
            words, prefixes = self.vocabulary.ids, self.vocabulary.prefixes
            codes = [(None if (c := prefixes.get(t[:_STEM])) is None else c + _HEAD_BASE) if stem else words.get(t)
                     for t, stem in new]
            wanted = np.array(sorted({c for c in codes if c is not None}), dtype=np.int64)
            mask = np.zeros(len(where), dtype=bool)
            for code in wanted.tolist():
                mask |= where == code
            hits = mask.nonzero()[0]
            rows = np.zeros((len(wanted) + 1, len(self)), dtype=bool)     # per wanted id; the last: no id
            rows[np.searchsorted(wanted, where[hits]), np.searchsorted(ends, hits, side="right")] = True
            at = {c: j for j, c in enumerate(wanted.tolist())}
            for key, code in zip(new, codes, strict=True):
                self._rows[key] = rows[at.get(code, -1)]
        out = np.empty((len(keys), len(self)), dtype=bool)
        for j, key in enumerate(keys):
            out[j] = self._rows[key]
        return out


_ID_BYTES = 4                   # a word id is an int32 in TextWords
_HEAD_BASE = 1 << 30            # a prefix id's offset in TextWords (above every word id: VOCABULARY_SIZE)
_VOCABULARY = _Vocabulary()
_WORDS_LOCK = threading.Lock()
WORDS_MEMO_SIZE = 32768         # texts kept (their ids: 4 bytes a word)
VOCABULARY_SIZE = 500_000       # words kept; past it a fresh vocabulary (and memo) starts


def text_words(texts) -> TextWords:
    """The word ids (:class:`_Vocabulary`) of each text (strings, None as "", or Arrow strings):
    the words of :func:`_word_rows`, each text read once per process. The texts not seen yet go
    through :func:`_word_rows` together (one Arrow pass, split and dictionary-encoded), and their
    ids are kept for the next question. A :class:`TextWords` is returned as it is."""
    if isinstance(texts, TextWords):
        return texts
    if isinstance(texts, pa.Array | pa.ChunkedArray):
        texts = texts.to_pylist()
    vocabulary = _VOCABULARY
    out = list(map(vocabulary.memo.get, texts))
    if None in out:
        with _WORDS_LOCK:           # one reader at a time adds words: ids and prefixes stay aligned
            return _read_texts(texts)
    return TextWords(vocabulary, out)


def _read_texts(texts: list) -> TextWords:
    """:func:`text_words` for texts some of which are not in the memo yet (under its lock): each
    one's distinct word ids and prefix ids (:class:`TextWords`)."""
    global _VOCABULARY
    if len(_VOCABULARY.ids) > VOCABULARY_SIZE:
        _VOCABULARY = _Vocabulary()     # lists already handed out keep the vocabulary they read
    vocabulary = _VOCABULARY
    memo = vocabulary.memo
    out = [memo.get(t) for t in texts]
    if any(w is None for w in out):
        missed = list(dict.fromkeys(t for t, w in zip(texts, out, strict=True) if w is None))
        lists = pc.ascii_split_whitespace(_word_rows(pa.array(missed, pa.large_string())))
        encoded = lists.flatten().dictionary_encode()
        codes = vocabulary.encode(encoded.dictionary.to_pylist())[encoded.indices.to_numpy(zero_copy_only=False)]
        owner = np.repeat(np.arange(len(missed), dtype=np.int64), np.diff(lists.offsets.to_numpy()))
        heads = vocabulary.prefix[codes]
        has_head = heads >= 0
        ids, bounds = _distinct_per_text(np.concatenate([owner, owner[has_head]]),
                                         np.concatenate([codes, heads[has_head] + _HEAD_BASE]), len(missed))
        data = ids.tobytes()
        for text, start, end in zip(missed, bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
            memo[text] = data[start * _ID_BYTES:end * _ID_BYTES]
        out = [memo[t] for t in texts]
        while len(memo) > WORDS_MEMO_SIZE:
            del memo[next(iter(memo))]
    return TextWords(vocabulary, out)


def _distinct_per_text(owner: np.ndarray, ids: np.ndarray, texts: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``ids`` of each text (``owner``: each id's text), ascending, as int32
    end to end, and where each text's ids begin and end (``texts + 1`` offsets): one sort of the
    (text, id) keys (``np.sort`` and a mask: ``np.unique`` of 60k keys takes 25 times as long)."""
    keys = np.sort((owner << 32) | ids)
    if len(keys):
        keep = np.empty(len(keys), dtype=bool)
        keep[0] = True
        np.not_equal(keys[1:], keys[:-1], out=keep[1:])
        keys = keys[keep]
    bounds = np.searchsorted(keys >> 32, np.arange(texts + 1))
    return (keys & 0xFFFFFFFF).astype(np.int32), bounds


def word_presence_ids(words: TextWords, terms, *, prefix: bool) -> np.ndarray:
    """(len(terms), len(words)) booleans: per term and text (its :func:`text_words`), whether the
    term occurs in it: with ``prefix`` and ``len(term) >= 5``, a word of the text other than a
    long stop word begins with ``term[:5]`` (the pattern `` term[:5]`` over :func:`_word_rows`
    with its stop words removed); else ``term`` is a word of it (`` term ``). Stop words only
    ever take part in a prefix match, and are never shorter than five letters. Each term's row
    is kept on ``words`` (:meth:`TextWords.presence`)."""
    if not len(terms) or not len(words):
        return np.zeros((len(terms), len(words)), dtype=bool)
    return words.presence([(t, prefix and len(t) >= _STEM) for t in terms])


def clear_text_words() -> None:
    """Forget every text :func:`text_words` has read, and their words (the cold-cache benchmark)."""
    global _VOCABULARY
    with _WORDS_LOCK:
        _VOCABULARY = _Vocabulary()


_WORD_BYTE = np.full(256, ord(" "), dtype=np.uint8)   # every byte but a-z and 0-9 becomes a space
for _c in b"abcdefghijklmnopqrstuvwxyz0123456789":
    _WORD_BYTE[_c] = _c


def _spaced(lowered: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Lower-cased strings with every byte outside ``a-z0-9`` a space (each byte of a multi-byte
    character too: it is no ASCII letter or digit), one table lookup over the UTF-8 bytes; the
    strings keep their offsets. The same words between spaces as the regex ``[^a-z0-9]+`` -> " "
    gave, only with runs of spaces (which no match reads), at a fraction of its cost (1,000
    passages: 6–20 ms for the regex on the loaded test machine)."""
    arr = lowered.combine_chunks() if isinstance(lowered, pa.ChunkedArray) else lowered
    if not len(arr):
        return arr
    validity, offsets, data = arr.buffers()
    if data is None:
        return arr
    mapped = _WORD_BYTE[np.frombuffer(data, dtype=np.uint8)]
    return pa.LargeStringArray.from_buffers(len(arr), offsets, pa.py_buffer(mapped.tobytes()), validity, arr.null_count,
                                            arr.offset)


def _word_rows(texts) -> pa.Array:
    """``texts`` lower-cased (as Python's ``str.lower``: ``İ`` becomes ``i`` and a combining dot)
    with every byte outside ``a-z0-9`` a space (:func:`_spaced`): their words between spaces."""
    rows = texts if isinstance(texts, pa.Array | pa.ChunkedArray) else pa.array(list(texts), pa.large_string())
    return _spaced(pc.utf8_lower(pc.replace_substring(rows.cast(pa.large_string()).fill_null(""), "\u0130", "i\u0307")))


def support_decides(best_cosine: float, config: AbstentionConfig = DEFAULT_ABSTENTION) -> bool:
    """Whether :func:`abstains` reads the lexical support at this best cosine (from
    ``config.cosine`` up to ``config.supported_cosine``); elsewhere the cosine alone decides."""
    return bool(np.isfinite(best_cosine) and config.cosine <= best_cosine < config.supported_cosine)


def abstains(best_cosine: float, support: float, config: AbstentionConfig = DEFAULT_ABSTENTION) -> str | None:
    """Why the answer abstains, or None when something in the store is about the question.

    Nothing is about the question when the best raw cosine of any candidate that existed at
    ``as_of`` is under ``config.cosine``, or under ``config.supported_cosine`` while fewer than
    ``config.min_support`` of the question's content words occur specifically in the best
    candidates (:func:`lexical_support`). ``config``: ``EngineConfig.abstention``.
    """
    if not np.isfinite(best_cosine) or best_cosine < config.cosine:
        return (f"nothing in the store is about the question: best cosine similarity "
                f"{best_cosine:.3f} < {config.cosine}")
    if best_cosine < config.supported_cosine and support < config.min_support:
        return (f"nothing in the store is about the question: best cosine similarity {best_cosine:.3f} "
                f"< {config.supported_cosine} and only {support:.0%} of its words occur in the best candidates")
    return None


# ------------------------------------------------------------------ how well calibrated
def expected_calibration_error(confidences: Sequence[float] | np.ndarray,
                               correct: Sequence[bool] | np.ndarray, n_bins: int = 10) -> float:
    """Expected calibration error of the top result's confidence.

    Bins are ``n_bins`` equal-width intervals [0, 1/n), [1/n, 2/n), ..., [(n−1)/n, 1]
    (the last one closed, so a confidence of exactly 1.0 falls in it):

        ECE = Σ_b (|B_b| / N) · |acc(B_b) − conf(B_b)|

    acc(B_b) is the share of correct queries in bin b and conf(B_b) their mean confidence;
    empty bins add nothing. A query with no result is passed in as confidence 0, incorrect.
    Confidences must lie in [0, 1]. Zero queries give 0.0.
    """
    conf = np.asarray(confidences, dtype=np.float64)
    hits = np.asarray(correct, dtype=np.float64)
    if conf.shape != hits.shape or conf.ndim != 1:
        raise InputError(f"expected two equal-length 1-D sequences, found shapes {conf.shape} "
                         f"and {hits.shape}", field="confidences")
    if n_bins < 1:
        raise InputError(f"expected n_bins >= 1, found {n_bins}", field="n_bins")
    if conf.size == 0:
        return 0.0
    if not np.all((conf >= 0.0) & (conf <= 1.0)):
        bad = conf[~((conf >= 0.0) & (conf <= 1.0))][0]
        raise InputError(f"expected confidences in [0, 1], found {bad!r}", field="confidences")
    bins = np.minimum((conf * n_bins).astype(np.int64), n_bins - 1)
    conf_sum = np.bincount(bins, weights=conf, minlength=n_bins)
    hit_sum = np.bincount(bins, weights=hits, minlength=n_bins)
    # Σ_b (|B_b|/N)·|acc_b − conf_b| = (1/N)·Σ_b |Σ hits_b − Σ conf_b|
    return float(np.abs(hit_sum - conf_sum).sum() / conf.size)


def reliability_bins(confidence: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray,
                     bins: int = 10) -> pd.DataFrame:
    """Equal-width confidence bins (the reliability diagram's points): for each non-empty bin
    ``[b/bins, (b+1)/bins)`` (the last one closed), the mean confidence, the accuracy and the
    count. Perfect calibration puts every point on the diagonal; ECE is the count-weighted mean
    distance from it (:func:`expected_calibration_error`)."""
    conf = np.clip(np.asarray(confidence, dtype=float), 0.0, 1.0)
    hit = np.asarray(correct, dtype=float)
    if conf.size == 0:
        return pd.DataFrame(columns=["bin", "confidence", "accuracy", "count"])
    which = np.minimum((conf * bins).astype(int), bins - 1)
    frame = pd.DataFrame({"bin": which, "c": conf, "h": hit})
    out = frame.groupby("bin").agg(confidence=("c", "mean"), accuracy=("h", "mean"), count=("c", "size"))
    return out.reset_index()


def auroc(confidence: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray) -> float:
    """Area under the ROC curve of ``confidence`` separating right (``correct``) from wrong:
    the probability that a right answer gets a higher confidence than a wrong one, ties
    counting one half (Mann–Whitney U / (n₊·n₋), with average ranks for ties). NaN when
    every answer is right or every answer is wrong. 0.5: no better than a coin."""
    conf = np.asarray(confidence, dtype=np.float64)
    hit = np.asarray(correct, dtype=bool)
    pos, neg = int(hit.sum()), int((~hit).sum())
    if pos == 0 or neg == 0:
        return float("nan")
    values, inverse, counts = np.unique(conf, return_inverse=True, return_counts=True)
    starts = np.cumsum(counts) - counts               # 0-based first rank of each distinct value
    ranks = (starts + (counts + 1) / 2.0)[inverse]    # average 1-based rank
    return float((ranks[hit].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


def brier_decomposition(confidence: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray,
                        bins: int = 10) -> dict[str, float]:
    """Brier score ``BS = (1/N) Σ (c_i − o_i)²`` and Murphy's parts over the equal-width bins of
    :func:`reliability_bins` (Murphy 1973, "A new vector partition of the probability score")::

        reliability = (1/N) Σ_b n_b (c̄_b − ō_b)²     lower is better (calibration)
        resolution  = (1/N) Σ_b n_b (ō_b − ō)²       higher is better (telling right from wrong)
        uncertainty = ō (1 − ō)                      the base rate's own spread

    ``BS = reliability − resolution + uncertainty`` holds exactly when every bin holds one
    confidence value; otherwise it differs by the spread of the confidences within bins.
    Zero answers: every part 0."""
    conf = np.clip(np.asarray(confidence, dtype=np.float64), 0.0, 1.0)
    hit = np.asarray(correct, dtype=np.float64)
    n = conf.size
    if n == 0:
        return {"brier": 0.0, "reliability": 0.0, "resolution": 0.0, "uncertainty": 0.0}
    which = np.minimum((conf * bins).astype(np.int64), bins - 1)
    count = np.bincount(which, minlength=bins)
    mean_c = np.bincount(which, weights=conf, minlength=bins) / np.maximum(count, 1)
    mean_o = np.bincount(which, weights=hit, minlength=bins) / np.maximum(count, 1)
    base = hit.mean()
    return {"brier": float(np.mean((conf - hit) ** 2)),
            "reliability": float((count * (mean_c - mean_o) ** 2).sum() / n),
            "resolution": float((count * (mean_o - base) ** 2).sum() / n),
            "uncertainty": float(base * (1.0 - base))}


def tier_precision(confidence: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray,
                   threshold: float) -> tuple[float, int]:
    """(share of right answers, count) among answers with ``confidence >= threshold`` (the HIGH
    tier from its threshold); NaN precision when none reaches it."""
    conf = np.asarray(confidence, dtype=np.float64)
    hit = np.asarray(correct, dtype=bool)
    chosen = conf >= threshold
    n = int(chosen.sum())
    return (float(hit[chosen].mean()) if n else float("nan")), n


def distinct_per_100(confidence: Sequence[float] | np.ndarray, decimals: int = 6) -> float:
    """Distinct values (at ``decimals`` places, as results are shown) per 100 answers."""
    conf = np.asarray(confidence, dtype=np.float64)
    return float(len(np.unique(np.round(conf, decimals))) * 100.0 / conf.size) if conf.size else 0.0


def defined_or_none(value: float) -> float | None:
    """NaN (undefined) as None, so that JSON stays JSON."""
    return None if value != value else float(value)


def confidence_report(confidence: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray, *,
                      high: float = DEFAULT_TEMPORAL.tiers.high, bins: int = 10) -> dict[str, Any]:
    """How well one set of (top-1) confidences tells right from wrong: ECE, AUROC, the Brier
    score with its reliability and resolution parts, distinct values per 100 answers, and the
    precision (and size) of the HIGH tier (``confidence >= high``). Undefined values are None."""
    conf = np.asarray(confidence, dtype=np.float64)
    hit = np.asarray(correct, dtype=bool)
    precision, n_high = tier_precision(conf, hit, high)
    return {"ece": expected_calibration_error(conf, hit, bins), "auroc": defined_or_none(auroc(conf, hit)),
            **brier_decomposition(conf, hit, bins), "distinct_per_100": distinct_per_100(conf),
            "high_precision": defined_or_none(precision), "high_n": n_high}
