"""Answer confidence as a model of evidence (DESIGN.md "Confidence is a model of evidence").

A result's evidence is a row of named features (:data:`FEATURES`, :func:`evidence`), all read
from what the query already computed: the raw cosine and its gap to the pool's best, the
profile's score, the margins over the best result of another document or chain (on the score, on
the raw cosine, on the content-time match; the cosine's also against a rival a time or version
rule removed), rank, lexical support, coverage and name support, whether the question
names a time and whether the passage's time fits, validity, trust, conflict and agreement among
the pool's best results. The model that turns them into a probability::

    z_j        = (f_j − mean_j) / scale_j                     (standardised on the fit data)
    certainty  = σ(b + Σ_j w_j · z_j)                         (L2-regularised logistic regression,
                                                               each w_j of the sign of DIRECTION)
    confidence = iso(certainty)                               (isotonic map, :mod:`.calibration`)

Logistic regression is monotone in every feature, and each weight is held to the direction the
evidence should move it (:data:`DIRECTION`: more support never lowers the confidence);
standardised and regularised, it is stable across corpora; the isotonic map on top corrects what is left of its calibration and is the part
a store refits from its operators' verdicts (``calibration.refit_knots`` on the logged
certainty). The knots of the map sit at the centres of the isotonic blocks and are joined by
straight lines (:func:`.confidence_fitting.isotonic_knots`): still non-decreasing, but two different certainties
keep two different confidences (sklearn's own thresholds make flat steps, which is how a prior
collapses into a handful of values).

**Factors** (:func:`factors`): the log-odds each feature adds to the result against an average
result of the fit data, ``w_j · z_j``; the two or three largest in size, in words
(:data:`FACTOR_WORDS`), are what moved this confidence most.

Evaluated per query on the whole result list at once with numpy; SciPy and scikit-learn are
needed only to fit (:mod:`.confidence_fitting`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import InputError

FEATURES = (
    "cosine",          # raw cosine of the passage
    "cosine_gap",      # raw cosine − the pool's best raw cosine (≤ 0)
    "cosine_margin",   # raw cosine − best raw cosine of another document / chain, kept or removed by a time or
                       # version rule (gated_margin), clipped
    "score",           # the profile's score
    "margin",          # score − best score of a result of another document / chain, clipped
    "first",           # 1 for rank 1
    "support",         # share of the question's content words found, specifically, in the passage
    "names_missing",   # share of the question's names the passage does not contain
    "period_asked",    # the question names a year
    "period_in_text",  # share of the question's years written in the passage
    "range_asked",     # the question names a period with explicit dates ("from 2004 to 2005")
    "range_unmatched", # it does, and none of its years is written in the passage
    "time_asked",      # the question names a period, a date to judge at, or a version
    "version_missed",  # the question names a version and the result is not of it
    "temporal",        # the temporal signal of the result (validity, freshness, window fit)
    "content_time",    # the content-time signal (periods written in the passage), when scored
    "time_margin",     # content_time − the best content_time of a kept result of another document / chain
    "range_ignored",   # the named period held no relevant document: answered without it
    "chain",           # the result was chosen among several versions of one chain
    "trust",           # the document's trust at the moment of judgement
    "current",         # VALID or TEMPORAL at the moment of judgement
    "conflict",        # severity of a changed fact against the previous version
    "agreement",       # share of the best kept results' score from this result's document / chain
    "recency_asked",   # the question asks for the latest ("latest", "this week", "who won")
    "log_age",         # log(1 + age in days) at the moment of judgement
    "coverage",        # share of the question's content words found in the passage (specific or not)
    "support_margin",  # support − the best support of another document / chain among the best kept results
    "period_ties",     # top result: share of the best kept of other groups writing its years as fully
    "time_ties",       # top result: the same on content_time (their period fits at least as well)
)
MODEL_VERSION = 6             # the feature set and the model's form (bumped when either changes; 6: trees)
MARGIN_CLIP = 0.3             # ours: margins beyond ±0.3 say nothing more (clear win / clear loss)
AGREEMENT_TOP = 10            # ours: the best kept results whose agreement is measured (and word margins)
WORD_MARGIN_CLIP = 0.5        # ours: a word-share margin beyond ±0.5 says nothing more
FACTORS_SHOWN = 3             # the factors a result card lists
FACTOR_FLOOR = 0.15           # ours: a factor moving the log-odds by less than this is not listed
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")

# (when it raises the confidence, when it lowers it); one line per feature
FACTOR_WORDS: dict[str, tuple[str, str]] = {
    "cosine": ("the passage is very similar to the question", "the passage is only loosely similar to the question"),
    "cosine_gap": ("it is the closest passage to the question", "other passages are closer to the question"),
    "cosine_margin": ("no passage of another source is as close, kept or ruled out by time",
                      "a passage of another source is as close or closer (kept, or ruled out by the question's time)"),
    "score": ("it scores high on every signal", "its overall score is low"),
    "margin": ("no other answer comes close", "a close second answer disagrees"),
    "first": ("it is the top answer", "it is not the top answer"),
    "support": ("the question's words are found in the passage", "few of the question's words are in the passage"),
    "names_missing": ("the passage names what the question names", "the passage does not name what the question names"),
    "period_asked": ("the question names a year", "the question names a year"),
    "period_in_text": ("the question's period is written in this passage", "the question's period is not in this passage"),
    "range_asked": ("the question names a period", "the question names a period"),
    "range_unmatched": ("the question's period is written in this passage",
                        "the question names a period this passage does not mention"),
    "time_asked": ("the question names a time or version", "the question names a time or version"),
    "version_missed": ("it is the version the question names", "it is not the version the question names"),
    "temporal": ("it holds at the moment asked", "its time fits the question poorly"),
    "content_time": ("the question's period matches this passage", "the question's period does not match this passage"),
    "time_margin": ("no other source matches the question's period as well", "another source matches the question's period as well"),
    "range_ignored": ("the named period held a relevant document", "nothing relevant falls in the named period"),
    "chain": ("chosen from its version chain for this moment", "chosen from its version chain for this moment"),
    "trust": ("its source is trusted", "its source has lost trust"),
    "current": ("it is in force at this moment", "it is not in force at this moment"),
    "conflict": ("no conflicting change", "its fact changed against the previous version"),
    "agreement": ("the best passages agree with it", "the best passages point elsewhere"),
    "recency_asked": ("the question asks for the latest", "the question asks for the latest"),
    "log_age": ("it is recent", "it is old"),
    "coverage": ("the passage contains the question's words", "the passage lacks most of the question's words"),
    "support_margin": ("it holds the question's specific words more than any other source",
                       "another source holds as many of the question's specific words"),
    "period_ties": ("no other source writes the question's period as fully", "other sources write the question's period as fully"),
    "time_ties": ("no other source fits the question's period as well", "other sources fit the question's period as well"),
}


@dataclass(frozen=True)
class ConfidenceModel:
    """A fitted model: feature names, scaler (mean, scale), logistic weights and intercept."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def logit(self, x: np.ndarray) -> np.ndarray:
        """b + Σ_j w_j · (x_j − mean_j) / scale_j per row of ``x`` (n, len(features))."""
        return self.intercept + self.contributions(x).sum(axis=1)

    def contributions(self, x: np.ndarray) -> np.ndarray:
        """w_j · z_j per row and feature: the log-odds each feature adds against an average result."""
        x = np.asarray(x, dtype=np.float64).reshape(-1, len(self.features))
        return (x - self.mean) / self.scale * self.coef

    def certainty(self, x: np.ndarray) -> np.ndarray:
        """σ(logit) per row, in (0, 1)."""
        return 1.0 / (1.0 + np.exp(-np.clip(self.logit(x), -30.0, 30.0)))

    def certainty_and_contributions(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`certainty`, :meth:`contributions`) of ``x``, the contributions worked out once."""
        contrib = self.contributions(x)
        return 1.0 / (1.0 + np.exp(-np.clip(self.intercept + contrib.sum(axis=1), -30.0, 30.0))), contrib

    def to_dict(self) -> dict:
        return {"features": list(self.features), "mean": _floats(self.mean), "scale": _floats(self.scale),
                "coef": _floats(self.coef), "intercept": float(self.intercept)}

    @classmethod
    def from_dict(cls, data: dict, *, where: str = "calibration.json") -> ConfidenceModel:
        try:
            names = tuple(data["features"])
            arrays = [np.asarray(data[key], dtype=np.float64) for key in ("mean", "scale", "coef")]
            intercept = float(data["intercept"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: confidence model is incomplete ({exc})", field="model") from exc
        if any(a.shape != (len(names),) for a in arrays):
            raise InputError(f"{where}: expected {len(names)} values per array for features {names}",
                             field="model")
        return cls(names, arrays[0], np.where(arrays[1] > 0, arrays[1], 1.0), arrays[2], intercept)

    def aligned(self, x: np.ndarray, names: tuple[str, ...] = FEATURES) -> np.ndarray:
        """``x`` (columns ``names``) reordered to this model's features (a missing one: its mean)."""
        return align(x, names, self.features, self.mean)


def align(x: np.ndarray, names: tuple[str, ...], features: tuple[str, ...], fill: np.ndarray) -> np.ndarray:
    """``x`` (columns ``names``) reordered to ``features``; a feature ``names`` lacks: its ``fill``."""
    x = np.asarray(x, dtype=np.float64).reshape(-1, len(names))
    if tuple(names) == tuple(features):
        return x
    at = {n: i for i, n in enumerate(names)}
    idx = np.array([at.get(n, -1) for n in features], dtype=np.intp)
    out = x[:, np.maximum(idx, 0)] if len(idx) else np.zeros((len(x), 0))
    return np.where(idx >= 0, out, fill)


def model_from_dict(data: dict, *, where: str = "calibration.json"):
    """A prior's model from its JSON: boosted trees (``"kind": "trees"``,
    :class:`.confidence_trees.TreeModel`) or the logistic model (:class:`ConfidenceModel`)."""
    if isinstance(data, dict) and data.get("kind") == "trees":
        from .confidence_trees import TreeModel

        return TreeModel.from_dict(data, where=where)
    return ConfidenceModel.from_dict(data, where=where)


def _floats(a: np.ndarray) -> list[float]:
    return [float(v) for v in np.asarray(a, dtype=np.float64)]


def scoring_version(config_repr: str) -> str:
    """What a certainty was computed with: the model's form and the scoring configuration
    (``repr`` of the engine config and the profiles), as 12 hex digits of SHA-1. A store's
    verdicts logged under another version pair certainties the current prior does not produce."""
    text = f"model {MODEL_VERSION}; features {','.join(FEATURES)}; {config_repr}"
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


# ------------------------------------------------------------------------------- evidence
@dataclass(frozen=True)
class QuestionWords:
    """What :func:`evidence` reads of the question, parsed once: content words, names (each a
    tuple of lower-case terms), years; and its time intent as flags."""

    words: tuple[str, ...]
    names: tuple[tuple[str, ...], ...]
    years: tuple[str, ...]
    time_asked: bool = False
    recency_asked: bool = False
    version: str | None = None
    range_asked: bool = False
    topic: tuple[str, ...] = ()     # the content words less the time: what the question is about


def question_words(question: str, intent=None) -> QuestionWords:
    """The question's content words (:func:`calibration.content_words`), names
    (:func:`lexical.subject_terms`, split into words), years, and from ``intent`` whether it
    names a period, a date to judge at or a version, and whether it asks for the latest.
    ``topic``: the content words that are not its time: not a year, nor a word of the period,
    judgement moment or version ``intent`` read ("API rate limit as of March 2025": api, limit,
    rate)."""
    from ..words import content_words
    from .lexical import subject_terms

    words = tuple(sorted(content_words(question)))
    timed = " ".join(str(t) for t in (getattr(intent, "judged_text", ""), getattr(intent, "range_text", ""),
                                      getattr(intent, "version", None) or "") if t)
    untimed = content_words(timed) if timed else set()
    topic = tuple(w for w in words if w not in untimed and not _YEAR.fullmatch(w))
    names = tuple(t for t in (tuple(_WORDS.findall(n.lower())) for n in subject_terms(question)) if t)
    years = tuple(dict.fromkeys(_YEAR.findall(str(question))))
    time_asked = bool(intent is not None and (intent.time_range is not None or intent.judged_at is not None
                                              or intent.version or intent.version_rank))
    return QuestionWords(words, names, years, time_asked, bool(intent is not None and intent.recency_words),
                         intent.version if intent is not None and intent.version else None,
                         bool(intent is not None and intent.hard_range_us is not None), topic)


_WORDS = re.compile(r"[a-z0-9]+")


def word_presence(texts, terms: tuple[str, ...], *, prefix: bool) -> np.ndarray:
    """(len(terms), len(texts)) booleans: term ``w`` occurs in text as a word (``prefix``: as a
    5-letter prefix when ``len(w) >= 5``, the rule of :func:`calibration.lexical_support`).
    ``texts``: strings, Arrow strings, or their :func:`calibration.text_words` (read once per
    text and kept): :func:`calibration.word_presence_ids`."""
    from .calibration import TextWords, text_words, word_presence_ids

    words = texts if isinstance(texts, TextWords) else text_words(texts)
    return word_presence_ids(words, terms, prefix=prefix)


def evidence(asked: QuestionWords, *, top: np.ndarray, kept: np.ndarray, raw_cosine: np.ndarray,
             score: np.ndarray, margins: np.ndarray, groups_kept: np.ndarray, texts, trust: np.ndarray,
             current: np.ndarray, severity: np.ndarray, temporal: np.ndarray | None,
             content_time: np.ndarray | None, range_ignored: bool, chain: np.ndarray, age_days: np.ndarray,
             versions: np.ndarray | None = None, generic_share: float = 0.25,
             groups: np.ndarray | None = None, gated: np.ndarray | None = None) -> np.ndarray:
    """Feature rows (len(top), len(FEATURES)) of the results ``top`` (indices into the pool).

    ``kept``: the pool's kept rows in rank order; ``raw_cosine``, ``score``, ``chain``: per pool
    row; ``groups_kept``: the agreement group (chain, else document) of each kept row;
    ``margins``, ``trust``, ``current``, ``severity``, ``age_days``: per result; ``temporal``,
    ``content_time``: the signals per pool row (None: not scored); ``texts``: title and text per
    pool row (Arrow strings); ``versions``: each pool row's document version (a version the question names matches
    it exactly or as a prefix of its dotted parts: "2.2" is "2.2.1"). A word the question shares
    with more than ``generic_share`` of the pool is not specific support (the rule of
    :func:`calibration.lexical_support`); ``coverage`` counts every content word found.
    ``groups``: the agreement group of every pool row; ``gated``: per pool row, whether a time or
    version rule removed it (None: none did). ``cosine_margin`` is against the best rival of
    another group whether it was kept or removed by time (:func:`gated_margin`)."""
    n = len(top)
    cos = np.asarray(raw_cosine, dtype=np.float64)
    out = np.zeros((n, len(FEATURES)), dtype=np.float64)
    col = {name: j for j, name in enumerate(FEATURES)}
    out[:, col["cosine"]] = cos[top]
    out[:, col["cosine_gap"]] = cos[top] - (cos.max() if len(cos) else 0.0)
    out[:, col["cosine_margin"]] = _rival_margin(cos, kept, groups_kept, top)
    out[:, col["score"]] = _finite(np.asarray(score, dtype=np.float64)[top])
    out[:, col["margin"]] = np.clip(_finite(margins, MARGIN_CLIP), -MARGIN_CLIP, MARGIN_CLIP)
    out[:, col["first"]] = np.arange(n) == 0
    from .calibration import text_words

    texts = text_words(texts)
    if asked.words:
        found = word_presence(texts, asked.words, prefix=True)          # (words, pool)
        specific = found.sum(axis=1) <= max(generic_share * found.shape[1], 1)
        out[:, col["support"]] = (found[:, top] & specific[:, None]).mean(axis=0)
        out[:, col["coverage"]] = found[:, top].mean(axis=0)
        out[:, col["support_margin"]] = support_margin(found, specific, top=top, kept=kept, groups_kept=groups_kept)
    terms = tuple(dict.fromkeys([*(t for name in asked.names for t in name), *asked.years]))
    if terms:                          # names and years, as whole words of the results' texts
        at = {t: i for i, t in enumerate(terms)}
        found = word_presence(texts, terms, prefix=False)[:, top]   # the pool's rows: kept on ``texts``
        if asked.names:
            named = np.stack([found[[at[t] for t in name]].all(axis=0) for name in asked.names])
            out[:, col["names_missing"]] = 1.0 - named.mean(axis=0)
        if asked.years:
            out[:, col["period_asked"]] = 1.0
            out[:, col["period_in_text"]] = found[[at[y] for y in asked.years]].mean(axis=0)
            shares = word_presence(texts, asked.years, prefix=False)[:, kept[:AGREEMENT_TOP]].mean(axis=0)
            out[:1, col["period_ties"]] = period_ties(out[:1, col["period_in_text"]], shares, top=top[:1], kept=kept,
                                                      groups_kept=groups_kept)
    if asked.range_asked:
        out[:, col["range_asked"]] = 1.0
        out[:, col["range_unmatched"]] = out[:, col["period_in_text"]] == 0
    out[:, col["time_asked"]] = asked.time_asked
    if asked.version and versions is not None:
        mine = np.asarray(versions, dtype=object)[top].astype(str)
        hit = (mine == asked.version) | np.char.startswith(mine, asked.version + ".")
        out[:, col["version_missed"]] = ~hit
    if temporal is not None:
        out[:, col["temporal"]] = _finite(np.asarray(temporal, dtype=np.float64)[top])
    if content_time is not None:
        ct = np.nan_to_num(np.asarray(content_time, dtype=np.float64))
        out[:, col["content_time"]] = ct[top]
        out[:, col["time_margin"]] = _rival_margin(ct, kept, groups_kept, top)
        out[:1, col["time_ties"]] = period_ties(ct[top[:1]], ct[kept[:AGREEMENT_TOP]], top=top[:1], kept=kept,
                                                groups_kept=groups_kept)
    out[:, col["range_ignored"]] = bool(range_ignored)
    chain = np.asarray(chain)
    top_chain = chain[top]             # a chain with more than one kept row: a version chain answers
    out[:, col["chain"]] = (top_chain >= 0) & ((chain[kept][None, :] == top_chain[:, None]).sum(axis=1) > 1)
    out[:, col["trust"]] = np.clip(_finite(trust, 1.0), 0.0, 1.0)
    out[:, col["current"]] = current
    out[:, col["conflict"]] = _finite(severity)
    best = np.maximum(_finite(np.asarray(score, dtype=np.float64)[kept[:AGREEMENT_TOP]]), 0.0)
    where = np.empty(int(max(kept.max(initial=-1), top.max(initial=-1))) + 1, dtype=np.intp)
    where[kept] = np.arange(len(kept))
    mine = groups_kept[where[top]]
    same = groups_kept[:AGREEMENT_TOP][None, :] == mine[:, None]
    out[:, col["agreement"]] = (same * best).sum(axis=1) / max(best.sum(), 1e-12)
    out[:, col["recency_asked"]] = asked.recency_asked
    out[:, col["log_age"]] = np.log1p(np.maximum(_finite(age_days), 0.0))
    if gated is not None and groups is not None:    # a rival the time rules removed is a rival too
        removed = gated_margin(cos, top, np.asarray(groups), np.asarray(gated, dtype=bool))
        out[:, col["cosine_margin"]] = np.minimum(out[:, col["cosine_margin"]], removed)
    return out


_LARGEST = float(np.finfo(np.float64).max)


def _finite(x, nan: float = 0.0) -> np.ndarray:
    """``np.nan_to_num(x, nan=nan)`` as float64 (±inf -> ±the largest float) in three ufuncs, not
    its dozen Python steps (the evidence's arrays hold k values)."""
    x = np.asarray(x, dtype=np.float64)
    return np.minimum(np.maximum(np.where(np.isnan(x), nan, x), -_LARGEST), _LARGEST)


def support_margin(found: np.ndarray, specific: np.ndarray, *, top: np.ndarray, kept: np.ndarray,
                   groups_kept: np.ndarray) -> np.ndarray:
    """Per result ``top``: its share of the question's specific words (``support``) minus the best
    share of a passage of another group (chain, else document) among the best
    :data:`AGREEMENT_TOP` kept results, clipped to ±:data:`WORD_MARGIN_CLIP` (no such rival:
    ``WORD_MARGIN_CLIP``). ``found``: (question words, pool) presence; ``specific``: per word,
    whether it is specific (in at most ``generic_share`` of the pool).

    Whether this passage holds the question's specific words *more than its rivals do*: a level
    of support says a passage is about the subject, the margin whether it is the one that
    answers (a page's paragraphs all name its subject; a wrong answer shares the question's words
    with a better passage of another source). The same margin on ``coverage`` (every content
    word) was tried: paper AUROC 0.942 → 0.723 on its report part; not kept."""
    other = _other_best(top, kept, groups_kept)
    shares = (found & specific[:, None]).mean(axis=0)
    rival = np.where(other, shares[kept[:AGREEMENT_TOP]][None, :], -np.inf).max(axis=1, initial=-np.inf)
    margin = np.where(np.isfinite(rival), shares[top] - rival, WORD_MARGIN_CLIP)
    return np.clip(margin, -WORD_MARGIN_CLIP, WORD_MARGIN_CLIP)


def _other_best(top: np.ndarray, kept: np.ndarray, groups_kept: np.ndarray) -> np.ndarray:
    """(results ``top``, best :data:`AGREEMENT_TOP` kept): whether that best result is of another
    group (chain, else document) than the result."""
    where = np.full(int(max(kept.max(initial=-1), top.max(initial=-1))) + 1, -1, dtype=np.intp)
    where[kept] = np.arange(len(kept))
    mine = groups_kept[np.maximum(where[top], 0)]
    return groups_kept[:AGREEMENT_TOP][None, :] != mine[:, None]


def period_ties(own: np.ndarray, values: np.ndarray, *, top: np.ndarray, kept: np.ndarray,
                groups_kept: np.ndarray) -> np.ndarray:
    """Per result ``top``: the share of the best :data:`AGREEMENT_TOP` kept results of another
    group (chain, else document) whose ``values`` (one per such result: the share of the
    question's years written, or content_time) are positive and at least ``own`` (the result's;
    no such result: 0).

    How many other sources claim the question's period as well as the answer does (issue 28): a
    page's paragraphs write the same years ("Which institution did X work for from 2004 to
    2005?": its other paragraphs name 2004 too), and the more of them do, the less the period
    tells which one answers. :func:`evidence` reads it for the top result only: at lower ranks
    the rivals include the answers above, and there it goes the other way (SituatedQA's right
    results below rank 1, univariate AUROC 0.61 on years, 0.68 on content_time)."""
    other = _other_best(top, kept, groups_kept)
    hit = other & (values[None, :] >= own[:, None]) & (values[None, :] > 0)
    return hit.sum(axis=1) / np.maximum(other.sum(axis=1), 1)


def gated_margin(cosine: np.ndarray, top: np.ndarray, groups: np.ndarray, gated: np.ndarray) -> np.ndarray:
    """Per result ``top``: its raw cosine minus the best raw cosine of a pool row that a time or
    version rule removed (``gated``) and that is of another group (``groups``: chain, else
    document), clipped to ±:data:`MARGIN_CLIP` (none: ``MARGIN_CLIP``).

    Negative where the question was closer to an answer the time rules removed than to this
    survivor: "the API rate limit as of March 2025" answered by a data-retention policy because
    every rate-limit document came later. A removed version of the result's own chain or
    document is not a rival (the older version the question asked for beat its successor)."""
    out = np.full(len(top), MARGIN_CLIP)
    if not gated.any() or not len(top):
        return out
    values, labels = cosine[gated], groups[gated]
    if np.isnan(values).any():      # a NaN never counts as the best: the per-group maxima
        labels, inverse = np.unique(labels, return_inverse=True)
        best = np.full(len(labels), -np.inf)
        np.maximum.at(best, inverse.reshape(-1), values)
        order = np.argsort(-best, kind="stable")
        first, value = labels[order[0]], best[order[0]]
        second = best[order[1]] if len(order) > 1 else -np.inf
    else:                           # the best removed row's group, and the best removed outside it
        at = int(np.argmax(values))
        first, value = labels[at], values[at]
        second = np.where(labels == first, -np.inf, values).max(initial=-np.inf)
    rival = np.where(groups[top] == first, second, value)
    margin = np.where(np.isfinite(rival), cosine[top] - rival, MARGIN_CLIP)
    return np.clip(margin, -MARGIN_CLIP, MARGIN_CLIP)


def _rival_margin(values: np.ndarray, kept: np.ndarray, groups_kept: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Per result ``top``: its ``values`` (per pool row) minus the best of a kept result of another
    group (:func:`calibration.disagreeing_margins`), clipped to ±:data:`MARGIN_CLIP` (no rival:
    ``MARGIN_CLIP``, a clear win)."""
    from .calibration import disagreeing_margins

    if not len(kept):
        return np.full(len(top), MARGIN_CLIP)
    rivals = disagreeing_margins(values[kept], groups_kept)
    where = np.full(len(values), -1, dtype=np.intp)
    where[kept] = np.arange(len(kept))
    pos = where[top]
    rival = np.where(pos >= 0, rivals[np.maximum(pos, 0)], np.nan)
    return np.clip(_finite(rival, MARGIN_CLIP), -MARGIN_CLIP, MARGIN_CLIP)


POSITIONAL = frozenset({"first"})   # where the result stands, not evidence about it: never listed as a factor
# Features that say something is there (a period asked, a name missing, a conflict): listed only
# when it is (their absence moving a confidence is not something to tell an operator)
PRESENCE = frozenset({"names_missing", "period_asked", "range_asked", "range_unmatched", "time_asked", "version_missed",
                      "range_ignored", "chain", "conflict", "recency_asked", "period_ties", "time_ties"})


def factors(model: ConfidenceModel, x: np.ndarray, names: tuple[str, ...] = FEATURES,
            contributions: np.ndarray | None = None) -> list[list[str]]:
    """Per row, the up to :data:`FACTORS_SHOWN` features that moved its log-odds most against an
    average result (``|w_j · z_j| ≥ FACTOR_FLOOR``), largest first, in words; rank itself
    (:data:`POSITIONAL`) is not listed, nor a :data:`PRESENCE` feature whose thing is absent.
    ``contributions``: the model's of these rows, when the caller has them (read, not changed)."""
    values = model.aligned(x, names)
    contrib = model.contributions(values) if contributions is None else np.array(contributions, dtype=np.float64)
    contrib[:, [j for j, n in enumerate(model.features) if n in POSITIONAL]] = 0.0
    absent = np.array([n in PRESENCE for n in model.features], dtype=bool)[None, :] & (values <= 0)
    contrib[absent] = 0.0
    order = np.argsort(-np.abs(contrib), axis=1, kind="stable")[:, :FACTORS_SHOWN]
    out: list[list[str]] = []
    for row, picks in zip(contrib.tolist(), order.tolist(), strict=True):     # per result (k of them)
        words = []
        for j in picks:
            if abs(row[j]) >= FACTOR_FLOOR:
                up, down = FACTOR_WORDS.get(model.features[j], (model.features[j], model.features[j]))
                words.append(up if row[j] > 0 else down)
        out.append(list(dict.fromkeys(words)))
    return out


# ------------------------------------------------------------------------------- fitting
# The direction each feature may move the confidence (+1 up, -1 down, 0 either): the fit is
# constrained to it, so more evidence never lowers the confidence (a monotone model).
# ``range_asked`` and ``period_asked`` only down: a period or a year the question names is one
# more thing the answer must meet, never evidence that it is right. Free, a flag takes the sign
# of the few such questions of the other corpora, all answered right (``range_asked`` +0.24 on a
# flag on in 4 % of the rows: +1.25 of log-odds on a corpus where every question names a range;
# TimeQA left out: ECE 0.585 → 0.515; the paper suite left out: 0.313 → 0.291).
DIRECTION: dict[str, int] = {
    "cosine": 1, "cosine_gap": 1, "cosine_margin": 1, "score": 1, "margin": 1, "first": 1, "support": 1, "names_missing": -1,
    "period_in_text": 1, "temporal": 1, "content_time": 1, "time_margin": 1, "range_ignored": -1, "trust": 1, "current": 1,
    "conflict": -1, "agreement": 1, "version_missed": -1, "range_unmatched": -1, "coverage": 1,
    "support_margin": 1, "range_asked": -1, "period_asked": -1, "period_ties": -1,
    "time_ties": -1,
}


# ------------------------------------------------------------------------------- the prior
@lru_cache(maxsize=1)
def _shipped() -> tuple[dict[str, ConfidenceModel], dict]:
    from .calibration import KNOTS_FILE

    if not KNOTS_FILE.exists():
        return {}, {}
    data = json.loads(KNOTS_FILE.read_text(encoding="utf-8"))
    models = {name: model_from_dict(v["model"], where=f"{KNOTS_FILE.name}: profile {name}")
              for name, v in data.get("profiles", {}).items() if "model" in v}
    return models, data.get("meta", {})


def prior_model(profile: str) -> ConfidenceModel | None:
    """The shipped prior's model of ``profile`` (None: none shipped)."""
    return _shipped()[0].get(profile)


def prior_meta() -> dict:
    """What the shipped prior was fitted on, and with which scoring version."""
    return _shipped()[1]


def clear_cache() -> None:
    _shipped.cache_clear()
    _VERSIONS.clear()


_VERSIONS: dict[tuple[int, int], tuple[object, object, str]] = {}


def version_of(config, profile) -> str:
    """:func:`scoring_version` of an engine ``config`` and a ``profile`` (frozen dataclasses; kept
    per pair of objects, as their ``repr`` takes longer than a query's scoring)."""
    key = (id(config), id(profile))
    got = _VERSIONS.get(key)
    if got is None or got[0] is not config or got[1] is not profile:
        if len(_VERSIONS) > 64:
            _VERSIONS.clear()
        got = _VERSIONS[key] = (config, profile, scoring_version(f"{config!r}; {profile!r}"))
    return got[2]


def prior_version_warning(profile: str, version: str) -> str | None:
    """A warning when the shipped prior of ``profile`` was fitted with another scoring version
    than ``version`` (the prior then maps certainties it never saw: re-run the fit)."""
    fitted = prior_meta().get("scoring_versions", {}).get(profile)
    if fitted is None or fitted == version:
        return None
    return (f"the shipped confidence prior of {profile!r} was fitted with scoring version {fitted}, the engine "
            f"scores with {version}: re-fit it (make calibrate)")


def why_lower(model: ConfidenceModel, x: np.ndarray, probability: np.ndarray) -> str | None:
    """Why a later rank's own confidence (``probability``, before the rank cap of
    :func:`calibration.held_to_rank`) is above rank 1's (None when it is not): the feature whose
    log-odds contribution most favours that rank, in words. The later rank is shown at rank 1's."""
    if len(probability) < 2 or probability[0] >= probability[1:].max():
        return None
    j = int(np.argmax(probability[1:])) + 1
    contrib = model.contributions(model.aligned(x))
    f = int(np.argmax(contrib[j] - contrib[0]))
    words = FACTOR_WORDS.get(model.features[f], (model.features[f], model.features[f]))
    return (f"ranked first by score, but rank {j + 1}'s own evidence reads higher (its confidence is held "
            f"at rank 1's): for rank 1, {words[1]}")
