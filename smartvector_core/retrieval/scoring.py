"""Signals and scores over the candidate set, as arrays (one value per candidate).

Every function is pure and vectorised; ``t_us`` is the moment of judgement (``as_of``, or the
date named in the question). Signals are in [0, 1], higher is better.

Formulas:

- ``semantic`` (all profiles): raw cosine similarity clipped to [0, 1].
- temporal-layer score (blog, "The Scoring Formula"), used by the ``temporal`` profile::

      final = semantic_penalty × [(1 − w)·vector + w·(decay × recency × validity × event_relevance)]

  with ``vector`` the cosine relative to the best candidate (cos / max cos: never sends a near
  tie to 0, unlike min-max), ``w`` the doc type's temporal weight raised to the query's recency
  weight when the question asks for recency, ``validity`` the blog's multiplier divided by its
  largest value (1.2) so the score stays in [0, 1] with the same order, ``event_relevance`` 0.5
  for an active EVENT whose raw cosine is under the floor, and ``semantic_penalty`` 0.3 when
  ``vector`` is under ``min_relative_similarity``.
- four-signal score (paper, section 2.3), ``smartvector`` and ``default`` profiles::

      score = Σ weight_s · S_s,  S ∈ {semantic, temporal, confidence, relational}

  S_temporal = validity × decay (0 outside the validity window; an active EVENT counts as
  fully fresh only if it passes the relevance floor); S_confidence = the document's trust at
  ``t`` (:func:`memory.live_trust`: C0 + feedback + access reinforcement + penalties, clamped,
  × the superseded factor), the same number as the result's ``trust``, with no age term: age
  is the temporal signal's business; S_relational = log-saturating degree over the newest
  versions (:meth:`memory.KnowledgeGraph.relational_importance`). ``default`` carries that
  trust as one ``trust`` signal whose weight is the confidence weight plus ``trust_weight``
  (``rerank._score``). ``default`` also adds S_lexical, the passage's BM25 relative to the query's best full-text hit
  (:func:`lexical.lexical_signal`, with the names it contains): a passage that names the question's subject (a service, a
  function, an error) outranks a generic one about the same attribute.
- soft time window (ours), the ``default`` temporal signal when the question names a
  period relative to ``as_of`` ("this week", "last month"): :func:`window_signal`.
- adaptive recency (ours), the ``default`` temporal weight: :func:`recency_factor`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..clock import US_PER_DAY
from ..config.scoring import (  # noqa: F401  (the scoring constants, re-exported)
    DEFAULT_SCORING,
    EVENT_BELOW_FLOOR_MULTIPLIER,
    EVENT_RELEVANCE_FLOOR,
    MIN_RELATIVE_SIMILARITY,
    NEWS_HALF_LIFE_DAYS,
    POOL_TOP_DOCUMENTS,
    RELEVANCE_GATE,
    SEMANTIC_PENALTY,
    ScoringConfig,
)
from ..config.temporal import DecayConfig, ValidityConfig
from ..temporal import (
    DEFAULT_TEMPORAL,
    KIND_EVENT,
    KIND_VERSIONED,
    STATE_EXPIRED,
    STATE_NOT_YET_VALID,
    STATE_TEMPORAL,
    decay_scores,
    recency_scores,
    validity_multiplier,
)


@dataclass
class SignalSet:
    """Per-candidate values, weights and contributions of each signal, and the total."""

    values: dict[str, np.ndarray]
    weights: dict[str, np.ndarray]
    score: np.ndarray

    def contributions(self) -> dict[str, np.ndarray]:
        return {name: self.values[name] * self.weights[name] for name in self.values}


def semantic_signal(raw_cosine: np.ndarray) -> np.ndarray:
    """S_sim = clip(cos, 0, 1)."""
    return np.clip(raw_cosine, 0.0, 1.0)


#: a title's item separators: ", ", "; ", ": " and ". " (RE2, for pyarrow.compute); " and " ends a
#: list only in a title that has a comma ("A, B and C"), elsewhere it joins two clauses
_TITLE_ITEM_SEPARATOR = r",\s|;\s|:\s|\.\s"
_TITLE_LIST_AND = r"\sand\s"
#: a title that announces a count of the day's stories: "Ten Things You Need to Know Today: 17 June
#: 2022", "5 things to know for June 3" (not "10 things you probably don't know about X": one subject)
_TITLE_COUNTED_STORIES = (r"(?i)\b(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
                          r"\s+things\s+(you\s+)?(need\s+|should\s+)?to\s+know\b")
ROUNDUP_TITLE_ITEMS = 3   # ours: a title listing this many items or more is a roundup's


def roundup_titles(titles: np.ndarray, min_items: int = ROUNDUP_TITLE_ITEMS) -> np.ndarray:
    """Which titles are a roundup's (ours): a title that lists ``min_items`` items or more,
    separated by ", ", "; ", ": ", ". ", or " and " after a comma ("Yellowstone floods, Fed meeting: 5
    things to know Wednesday"; "Justice Stephen Breyer, NATO and R. Kelly. It's Wednesday's news.").
    Without a comma " and " joins clauses of one story: "Sri Lanka is in chaos and its president
    has fled. Here's what we know" is two items (RealTimeQA 2022, tune weeks: that story's own
    article was demoted under its older neighbour). A title that announces a count of things to
    know ("Ten Things You Need to Know Today: 17 June 2022 | The Week UK") is a roundup whatever
    its separators. A
    roundup tells several stories of its day in a few lines each; a question about one of
    them is better answered by that story's own article, which it matches about as well (its
    few lines share the question's words). Counted with ``pyarrow.compute`` over the titles not
    seen yet at once, and kept (``TITLE_MEMO_SIZE`` titles); a title without separators ("Yellowstone still closed as flooding recedes") is
    one item.
    """
    if not len(titles):
        return np.zeros(0, dtype=bool)
    keys = [t if isinstance(t, str) else "" for t in titles]
    memo = _TITLE_ITEMS
    items = list(map(memo.get, keys))
    if None in items:
        missed = list(dict.fromkeys(t for t, n in zip(keys, items, strict=True) if n is None))
        arr = pa.array(missed, type=pa.string())
        separators = pc.count_substring_regex(arr, _TITLE_ITEM_SEPARATOR).to_numpy(zero_copy_only=False)
        listed = pc.match_substring(arr, ", ").to_numpy(zero_copy_only=False)
        ands = pc.count_substring_regex(arr, _TITLE_LIST_AND).to_numpy(zero_copy_only=False)
        counted = pc.match_substring_regex(arr, _TITLE_COUNTED_STORIES).to_numpy(zero_copy_only=False)
        listed_items = separators + np.where(listed, ands, 0) + 1
        fresh = dict(zip(missed, listed_items.tolist(), strict=True))
        for i in np.flatnonzero(counted):    # rare: the count it announces, where it says more
            fresh[missed[i]] = max(fresh[missed[i]], announced_count(missed[i]))
        items = [fresh[t] if n is None else n for t, n in zip(keys, items, strict=True)]
        memo.update(fresh)
        while len(memo) > TITLE_MEMO_SIZE:    # threads may evict at once: each drops what is there
            memo.pop(next(iter(memo), None), None)
    return np.asarray(items) >= min_items


_NUMBER_WORDS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}


def announced_count(title: str) -> int:
    """The count of things a roundup's title announces ("Ten Things You Need to Know" -> 10,
    "5 things to know" -> 5); 1 when it announces none."""
    found = re.search(_TITLE_COUNTED_STORIES, title)
    if found is None:
        return 1
    word = found.group(1).lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


_TITLE_ITEMS: dict[str, int] = {}   # title -> items it lists, each title counted once per process
TITLE_MEMO_SIZE = 65536


def relative_similarity(raw_cosine: np.ndarray) -> np.ndarray:
    """cos / max cos over the pool (blog's "normalized relative to the candidate pool"),
    clipped to [0, 1]. The best candidate gets 1; nobody is sent to 0 unless cos <= 0."""
    sim = np.clip(raw_cosine, 0.0, 1.0)
    best = sim.max(initial=0.0)
    return sim / best if best > 0 else sim


def event_relevance(kind: np.ndarray, states: np.ndarray, raw_cosine: np.ndarray,
                    config: ScoringConfig = DEFAULT_SCORING) -> np.ndarray:
    """1.0, or 0.5 for an active EVENT (TEMPORAL) whose raw cosine is under the floor (blog)."""
    weak_event = (kind == KIND_EVENT) & (states == STATE_TEMPORAL) & (raw_cosine < config.event_relevance_floor)
    return np.where(weak_event, config.event_below_floor_multiplier, 1.0)


def validity_factor(states: np.ndarray, validity: ValidityConfig = DEFAULT_TEMPORAL.validity) -> np.ndarray:
    """The blog's validity multiplier scaled into [0, 1]: TEMPORAL 1.0, VALID 1/1.2, others 0."""
    mult = validity_multiplier(states, validity)
    return mult / validity.temporal


def temporal_layer_score(raw_cosine, kind, states, decay, recency, weight,
                         config: ScoringConfig = DEFAULT_SCORING,
                         validity: ValidityConfig = DEFAULT_TEMPORAL.validity) -> SignalSet:
    """The blog's final score (module docstring), with its parts as signals."""
    vector = relative_similarity(raw_cosine)
    temporal = decay * recency * validity_factor(states, validity) * event_relevance(kind, states, raw_cosine, config)
    penalty = np.where(vector >= config.min_relative_similarity, 1.0, config.semantic_penalty)
    w = np.asarray(weight, dtype=np.float64) * np.ones_like(vector)
    score = np.clip(penalty * ((1.0 - w) * vector + w * temporal), 0.0, 1.0)
    return SignalSet(values={"semantic": vector, "temporal": temporal},
                     weights={"semantic": penalty * (1.0 - w), "temporal": penalty * w}, score=score)


def temporal_signal(kind, states, decay, raw_cosine, config: ScoringConfig = DEFAULT_SCORING) -> np.ndarray:
    """S_temporal = validity × decay; an active, relevant EVENT counts as fully fresh (1.0).

    Validity here is 0 for EXPIRED and NOT_YET_VALID (paper: "若超出时间窗口则分数极低", outside
    its window the score is very low), 1 otherwise.
    """
    inside = (states != STATE_EXPIRED) & (states != STATE_NOT_YET_VALID)
    live_event = (states == STATE_TEMPORAL) & (raw_cosine >= config.event_relevance_floor)
    return np.where(inside, np.where(live_event, 1.0, decay), 0.0)


def current_signal(kind, states, decay, raw_cosine, config: ScoringConfig = DEFAULT_SCORING,
                   validity: ValidityConfig = DEFAULT_TEMPORAL.validity) -> np.ndarray:
    """The ``default`` profile's temporal signal: how *current* a surviving candidate is.

    An active, relevant EVENT scores 1.0 (the blog's TEMPORAL multiplier 1.2 scaled into [0, 1]);
    a VERSIONED document in force at ``t`` scores 1/1.2 (the blog's VALID multiplier): for a
    version in force, age says nothing about truth (its chain does, and the gates removed
    superseded and expired versions). A STATIC document scores its floored decay / 1.2 (news
    fades, theorems do not). Outside the validity window: 0.
    """
    base = temporal_signal(kind, states, decay, raw_cosine, config)
    in_force = (kind == KIND_VERSIONED) & (states != STATE_EXPIRED) & (states != STATE_NOT_YET_VALID)
    live_event = (states == STATE_TEMPORAL) & (raw_cosine >= config.event_relevance_floor)
    valid = 1.0 / validity.temporal
    return np.where(live_event, 1.0, np.where(in_force, valid, base * valid))


def current_decay(created_us, dated, t_us: int, half_life_days, floors, *, news_half_life_days: float,
                  current_days: float, config: DecayConfig = DEFAULT_TEMPORAL.decay) -> np.ndarray:
    """The decay the ``default`` profile's temporal signal reads (ours): news of the question's
    last ``current_days`` is all current, older news decays from there:

        age' = max(0, age − D) for doc types with half-life <= ``news_half_life_days`` (news-like),
        age' = age otherwise;   decay = max(floor, 0.5 ** (age' / half-life))

    Articles of one week about neighbouring stories then compete on what they say, not on
    which came out a day later (RealTimeQA 2022, tune weeks: the right article at rank 2-4
    behind a newer one on a neighbouring story); last month's and last year's news still fade.
    """
    created = np.asarray(created_us, dtype=np.int64)
    shift = np.where(np.asarray(half_life_days) <= news_half_life_days, np.int64(round(current_days * US_PER_DAY)), 0)
    return decay_scores(created + shift, t_us, half_life_days, floors, dated, config=config)


def newest_release_signal(series: np.ndarray, created_us, alive: np.ndarray, t_us: int, half_life_days, floors,
                          dated, config: DecayConfig = DEFAULT_TEMPORAL.decay,
                          newest_by_series=None) -> tuple[np.ndarray, np.ndarray]:
    """The ``default`` temporal signal of release records when the question asks for the newest
    release (ours; :attr:`QueryIntent.asks_newest`): a release is as new as it is against the
    newest release of its own series (``series``: :func:`temporal.kinds.release_series`, "" for
    any other document) written by ``t``, not against ``t``: the newest in the store
    (``newest_by_series``: series -> created µs, :func:`.rerank.release_newest`) or among the
    candidates alive at ``t`` (``alive``), whichever is later::

        S = max(floor, 0.5 ** ((newest_series − created) / half-life))

    The newest release of each series scores 1 (the value of a live record: it *is* the latest
    release, however long ago it came out); older ones decay by how much older they are. Other
    documents keep their value: an in-force policy is current (1/1.2), yet no release, so the
    newest release of the subject asked outranks it on time. Returns (values, which rows it
    applies to)."""
    series = np.asarray(series, dtype=object)
    created = np.asarray(created_us, dtype=np.int64)
    applies = (series != "") & np.asarray(alive, dtype=bool)
    newest = np.full(len(created), np.int64(t_us))
    for key in set(series[applies].tolist()):
        members = applies & (series == key)
        newest[members] = max(int(created[members].max()), int((newest_by_series or {}).get(key, 0)))
    values = decay_scores(created + (np.int64(t_us) - newest), t_us, half_life_days, floors, dated, config=config)
    return np.where(applies, values, 0.0), applies


def window_signal(begin_us: np.ndarray, end_us: np.ndarray, window: tuple[int, int]) -> np.ndarray:
    """How well a document's time fits a soft window ``[start, end)`` named by the question:

        S_window = 2 ** (−d / L),   d = distance from the document's span [begin, end] to the
                                        window (0 when they overlap), L = the window's length

    (ours). Inside the window 1; one window-length outside 0.5; so "this week" keeps a
    15-day-old article at about 0.25 instead of rejecting it, while last year's scores ~0.
    ``begin_us``/``end_us``: publication time for a STATIC document (``end = begin``), the
    window of an EVENT, the period in force of a VERSIONED one (callers build them).
    """
    start, stop = window
    length = max(float(stop - start), float(US_PER_DAY))
    begin = np.asarray(begin_us, dtype=np.float64)
    end = np.maximum(np.asarray(end_us, dtype=np.float64), begin)
    distance = np.maximum(0.0, np.maximum(float(start) - end, begin - float(stop) + 1.0))
    return np.exp2(-distance / length)


def pool_time_sensitivity(raw_cosine: np.ndarray, first_rows: np.ndarray, live_event: np.ndarray,
                          half_life_days: np.ndarray, *, top: int, news_half_life_days: float) -> float:
    """τ in [0, 1]: how much the candidate pool is about news and events (ours).

        τ = Σ_i s_i · news_i / Σ_i s_i   over the ``top`` most similar documents (``first_rows``:
                                          each document's best passage, most similar first)

    with ``s_i`` the clipped cosine and ``news_i`` = 1 for an EVENT inside its window at ``t``
    (``live_event``) or a doc type whose half-life is at most ``news_half_life_days`` (the blog's
    ``news`` 7 d and ``breaking_news`` 1 d), else 0. Policies in force, references, research and
    release notes (records of their own moment, half-life two years) count 0: their currency is
    their chain's or their version's business, not their age.
    """
    rows = np.asarray(first_rows, dtype=np.intp)[:top]
    if not rows.size:
        return 0.0
    s = np.clip(raw_cosine[rows], 0.0, 1.0)
    news = np.asarray(live_event, dtype=bool)[rows] | (half_life_days[rows] <= news_half_life_days)
    total = s.sum()
    return float((s * news).sum() / total) if total > 0 else 0.0


def recency_factor(question: float, tau: float, *, gain: float, cap: float) -> float:
    """The factor on the ``default`` profile's temporal weight (ours):

        factor = min(cap, q · (1 + gain · τ)),   q = recency weight / baseline (1 without words)

    It follows the question (q: "latest" 0.70/0.20 = 3.5, "recently", "this week", "who won"
    0.55/0.20 = 2.75) *and* the candidates (τ, :func:`pool_time_sensitivity`): a pool of news
    and events raises the weight of freshness, a pool of policies in force leaves it alone
    (factor = q). ``gain`` and ``cap`` were swept on a tune split only (README, "Adaptive recency").
    """
    return float(min(cap, max(1.0, question) * (1.0 + gain * max(0.0, min(1.0, tau)))))


def weighted_sum(values: dict[str, np.ndarray], weights: dict[str, float | np.ndarray]) -> SignalSet:
    """Σ w_s · S_s (weights used as given: the paper's sum to 1); a weight is one number or one
    per candidate."""
    n = len(next(iter(values.values())))
    wv = {name: _per_candidate(weights.get(name, 0.0), n) for name in values}
    score = np.zeros(n)
    for name, v in values.items():
        score += wv[name] * v
    return SignalSet(values=values, weights=wv, score=np.clip(score, 0.0, 1.0))


def _per_candidate(weight: float | np.ndarray, n: int) -> np.ndarray:
    """``weight`` as a new float64 array of ``n`` (one number repeated, or a copy of one per candidate)."""
    w = np.asarray(weight, dtype=np.float64)
    return np.full(n, w) if w.ndim == 0 else np.broadcast_to(w, (n,)).copy()


def recency_and_decay(created_us, dated, t_us, half_life, floors,
                      config: DecayConfig = DEFAULT_TEMPORAL.decay) -> tuple[np.ndarray, np.ndarray]:
    return (decay_scores(created_us, t_us, half_life, floors, dated, config=config),
            recency_scores(created_us, dated, config=config))
