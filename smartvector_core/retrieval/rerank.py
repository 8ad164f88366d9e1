"""Gates, signals, profile score, version chains, pairing and tiers over one candidate set.

Input: :class:`Candidates` (one row per passage; gates and chains decide per document, since
every document-level field is the same on all of its rows), the moment of judgement, the parsed intent,
the knowledge state (chains, supersession, confidence). Output: ranked rows with their signal
breakdown and reasons, and the rejected rows with their codes. Gates, signals and scores are
numpy over every candidate. Python loops run over: the 2k best kept candidates (the pairs of
different chains among them for a contradiction, each one's previous version for a conflict:
:mod:`.conflicts`),
the candidates when the question names a version (:func:`version_matches`, a regex each), the
chains when it asks for the oldest or newest version, and the rows that get a note.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..clock import US_PER_DAY
from ..config.temporal import TemporalConfig
from ..memory.chains import effective_us
from ..models import RejectionCode
from ..temporal import (
    DEFAULT_TEMPORAL,
    KIND_EVENT,
    KIND_STATIC,
    KIND_VERSIONED,
    NO_END,
    STATE_EXPIRED,
    STATE_NOT_YET_VALID,
    STATE_TEMPORAL,
    QueryIntent,
    validity_states,
)
from ..temporal.decay import profile_arrays
from ..temporal.freshness import pairing_action, pairing_partners
from ..temporal.version_words import version_key
from .candidates import Candidates, first_per_document
from .conflicts import conflict_boost, demote_contradicted
from .content_match import content_time_values, judged_by_text
from .profiles import Profile
from .releases import (
    first_versions_holding,
    latest_release_notes,
    newest_release,
    older_release_records,
    other_products,
    release_newest,
    release_versions_asked,
)
from .scoring import (
    DEFAULT_SCORING,
    SignalSet,
    current_decay,
    current_signal,
    pool_time_sensitivity,
    recency_and_decay,
    recency_factor,
    relative_similarity,
    roundup_titles,
    semantic_signal,
    temporal_layer_score,
    temporal_signal,
    weighted_sum,
    window_signal,
)
from .windows import (
    day_asked,
    ended_in_window,
    events_in_window,
    in_range,
    later_reports_from_asking,
    recalled_at,
)

KEEP = -1
CODES = list(RejectionCode)
_CODE_INDEX = {code: i for i, code in enumerate(CODES)}
# the rules that remove a candidate for its time or version (not its relevance, a duplicate or
# an operator's archive): what confidence_model.gated_margin reads as "the answer time removed"
TIME_RULES = (RejectionCode.NOT_YET_VALID, RejectionCode.OUT_OF_TIME_RANGE, RejectionCode.EXPIRED_VERSIONED_DOC,
              RejectionCode.HARD_EXPIRED_EVENT, RejectionCode.EXPIRED_DOC, RejectionCode.SUPERSEDED_IN_CHAIN,
              RejectionCode.STALE_STATIC_DOC, RejectionCode.VERSION_MISMATCH)
TIME_RULE_CODES = np.array([_CODE_INDEX[c] for c in TIME_RULES], dtype=np.int64)
_TIME_RULE_TABLE = np.zeros(len(CODES) + 1, dtype=bool)   # per code, whether a time rule; the last: KEEP (-1)
_TIME_RULE_TABLE[TIME_RULE_CODES] = True


@dataclass
class Ranked:
    """The outcome of reranking: kept row indices in rank order, and rejected ones."""

    order: np.ndarray                    # indices into the candidates, best first
    score: np.ndarray                    # per candidate (NaN where rejected)
    signals: SignalSet | None
    states: np.ndarray
    decay: np.ndarray
    trust: np.ndarray                    # per candidate: the document's trust at t (memory.live_trust)
    reject_code: np.ndarray              # per candidate: KEEP or an index into CODES
    chain: np.ndarray
    partner: np.ndarray                  # per candidate: index of the pairing partner or -1
    action: np.ndarray
    notes: dict[int, list[str]] = field(default_factory=dict)
    severity: np.ndarray | None = None       # numeric change against the previous version (0..1)
    range_ignored: bool = False              # the named period held no relevant candidate
    named_period: tuple[int, int] | None = None   # the period the question names (content time)
    archived: Mapping[str, str] = field(default_factory=dict)   # doc id -> why an operator archived it
    window_answered: bool = False            # an EVENT of the soft window the question names was kept

    def rejected(self) -> np.ndarray:
        return (self.reject_code != KEEP).nonzero()[0]

    @cached_property
    def time_gated(self) -> np.ndarray:
        """Per candidate: rejected by a rule of :data:`TIME_RULES` (worked out once per query)."""
        return _TIME_RULE_TABLE[self.reject_code]      # a table look-up: np.isin of the codes, 15x faster

    @property
    def archived_any(self) -> bool:
        """Whether a candidate was rejected as ARCHIVED."""
        return bool((self.reject_code == _CODE_INDEX[RejectionCode.ARCHIVED]).any())


@dataclass(frozen=True)
class Pool:
    """One query's candidates and what the reranker has worked out for each of them at ``t_us``
    (every array has one entry per candidate row). The helpers below read it and return what
    they decide (rejection codes, scores, notes); :func:`rerank` alone puts the decisions together."""

    cands: Candidates
    t_us: int
    states: np.ndarray                   # validity state at t (temporal.validity_states)
    decay: np.ndarray                    # decay, 1 for an EVENT inside its window
    current: np.ndarray                  # the decay ``default`` reads (scoring.current_decay), same EVENT rule
    recency: np.ndarray                  # in-pool recency
    half_life: np.ndarray                # days, by doc type and kind (temporal.decay.profile_arrays)
    type_weight: np.ndarray
    floors: np.ndarray                   # decay floors, by doc type and kind (the same profile_arrays)
    chain: np.ndarray                    # version chain id (negative: a chain of its own)
    superseded_us: np.ndarray            # when a newer version took over (NO_END: never)
    effective_us: np.ndarray             # when the version took effect (created_at when unknown)
    relational: np.ndarray
    dependency_stale_us: np.ndarray      # when a document it relies on was superseded
    trust: np.ndarray                    # the document's trust at t (memory.live_trust)

    def __len__(self) -> int:
        return len(self.cands)

    @property
    def until_us(self) -> np.ndarray:
        """End of each candidate's own validity: its ``valid_until`` or its supersession."""
        return np.minimum(self.cands.valid_until_us, self.superseded_us)


def version_matches(cands: Candidates, version: str) -> np.ndarray:
    """Candidates whose version field, title or id names ``version`` (``v3`` == ``3``;
    ``22`` matches ``22.12.0`` at a component boundary)."""
    want = version_key(version)
    pattern = re.compile(rf"(?<![\w.])v?{re.escape(want)}(?![\w]|\.\d)", re.I)
    prefix = re.compile(rf"^{re.escape(want)}(\.|$)")
    out = np.zeros(len(cands), dtype=bool)
    for i in range(len(cands)):
        field_v = version_key(cands.version[i] or "")
        if field_v and (field_v == want or prefix.match(field_v)) or pattern.search(cands.title[i] or "") or pattern.search(str(cands.doc_id[i]).replace("_", " ")):
            out[i] = True
    return out


def reject(codes: np.ndarray, mask: np.ndarray, code: RejectionCode) -> np.ndarray:
    """``codes`` with ``code`` given to the rows of ``mask`` not yet rejected (first code wins)."""
    return np.where(mask & (codes == KEEP), codes.dtype.type(_CODE_INDEX[code]), codes)


def _with_notes(notes: dict[int, list[str]], more: dict[int, list[str]]) -> dict[int, list[str]]:
    """``notes`` and then ``more`` (each row's notes in the order they were made)."""
    for i, lines in more.items():
        notes.setdefault(i, []).extend(lines)
    return notes


def rerank(cands: Candidates, profile: Profile, *, t_us: int, intent: QueryIntent | None,
           knowledge, k: int, scoring=DEFAULT_SCORING, temporal: TemporalConfig = DEFAULT_TEMPORAL,
           archived: Mapping[str, str] | None = None, subject: Sequence[str] = (),
           asked_us: int | None = None) -> Ranked:
    """Gates, signals, profile score, chains, pairing over ``cands`` at ``t_us``; ``scoring`` and
    ``temporal``: the query's configuration (``EngineConfig.scoring`` / ``.temporal``);
    ``asked_us``: the moment the question is asked, when a date it names moved ``t_us``
    (:func:`.windows.later_reports_from_asking`).

    ``archived``: the documents an operator archived by the moment asked (doc id -> the reason
    shown), rejected as ARCHIVED under every profile, before any other gate: a person took them
    out of answers. ``subject``: the names the question states (:func:`.lexical.subject_terms`),
    which say whose releases "the latest release" asks for (:func:`.releases.newest_release`)
    and whose release a named version is (:func:`.releases.release_versions_asked`)."""
    n = len(cands)
    pool = _pool(cands, profile, t_us, knowledge, scoring, temporal)
    states, decay, superseded_us = pool.states, pool.decay, pool.superseded_us
    codes = np.full(n, KEEP, dtype=np.int16)
    archived = dict(archived or {})
    if archived:
        codes = reject(codes, np.isin(cands.doc_id, np.array(list(archived), dtype=object)), RejectionCode.ARCHIVED)
    notes: dict[int, list[str]] = {}
    soft = intent.soft_range_us if (intent is not None and profile.use_intent) else None
    recent = ended_in_window(cands, states, soft if soft is not None else day_asked(intent, profile.use_intent))
    rng = intent.hard_range_us if (intent is not None and profile.use_intent) else None
    range_ignored = False
    if rng is not None and profile.gates and not (in_range(cands, rng, superseded_us)
                                                  & (cands.raw_cosine >= scoring.relevance_gate)).any():
        rng, range_ignored = None, True        # nothing relevant in the period: a misread, not an answer
    bypass = np.zeros(n, dtype=bool)           # explicitly asked-for versions skip the validity gates
    window = np.zeros(n, dtype=bool)
    if profile.gates:
        if intent is not None and profile.use_intent and (intent.version or intent.version_rank or intent.asks_first):
            bypass, codes, notes = _target_versions(pool, intent, codes, subject)
        recalled = recalled_at(cands, intent, profile.use_intent) if rng is None else None
        window = events_in_window(cands, soft)
        codes = _gate(pool, codes, rng, bypass | recent, profile, scoring, recalled, window)
        if recalled is not None:
            later = recalled & (cands.created_us > t_us)
            pool = later_reports_from_asking(pool, later, asked_us, scoring, temporal.decay)
            notes = _with_notes(notes, {int(i): ["written after the moment the question names, and its text names "
                                                 "that moment: a later report of it, as recent as it is now"]
                                        for i in np.flatnonzero(later)})
        notes = _with_notes(notes, {int(i): ["an EVENT that ended inside the recent window or the day the question "
                                             "names: it answers it"] for i in np.flatnonzero(recent)})

    newest = (release_newest(knowledge.docs, t_us) if intent is not None and profile.use_intent
              and intent.asks_newest and profile.scorer == "default" else None)
    signals = _score(pool, profile, intent, scoring, temporal, recent, subject, newest)
    if newest is not None and "temporal" in signals.values:
        notes = _with_notes(notes, latest_release_notes(cands, signals.values["temporal"]))
    score = signals.score.copy()
    if rng is not None and profile.gates:   # inside an asked-for period freshness steps aside
        signals = _in_period(cands, profile, intent, temporal, pool, scoring, rng)
        score = signals.score.copy()

    severity = np.zeros(n)
    if profile.chains:
        codes = one_per_chain(pool, codes, score)
        boosted, severity = conflict_boost(pool, codes == KEEP, score, k, temporal.conflict)
        if profile.conflict_boost:
            score = boosted
    if profile.scorer == "default":
        version_named = intent is not None and bool(intent.version)
        now = intent is not None and profile.use_intent and not (
            intent.version or intent.version_rank or intent.asks_version or intent.asks_newest or intent.time_range)
        score, adjusted = _adjust(pool, profile, codes, score, bypass if version_named else None, k, scoring, subject,
                                  now)
        notes = _with_notes(notes, adjusted)

    action = np.full(n, "SOLO")                  # str per candidate ("<U4": read one row at a time)
    partner = np.full(n, -1, dtype=np.intp)
    if profile.pairing and rng is None:
        codes, action, partner = _pair(pool, codes, temporal.freshness)
    elif rng is None:
        action = np.where(cands.kind == KIND_STATIC, pairing_action(decay, temporal.freshness), "SOLO")

    kept = (codes == KEEP).nonzero()[0]
    order = kept[np.argsort(-score[kept], kind="stable")]
    final = np.where(codes == KEEP, score, np.nan)
    return Ranked(order=order, score=final, signals=signals, states=states, decay=decay,
                  trust=pool.trust, reject_code=codes, chain=pool.chain, partner=partner, action=action,
                  notes=notes, severity=severity, range_ignored=range_ignored,
                  named_period=intent.named_period_us if (intent is not None and profile.use_intent) else None,
                  archived=archived, window_answered=bool(profile.gates and (window & (codes == KEEP)).any()))


def _pool(cands: Candidates, profile: Profile, t_us: int, knowledge, scoring, temporal: TemporalConfig) -> Pool:
    """What the reranker works out for each candidate at ``t_us`` before any gate: validity,
    decay and recency by doc type and kind, its chain and supersession from the knowledge
    state, its trust (:class:`Pool`)."""
    n = len(cands)
    half_life, type_weight, floors = profile_arrays(cands.doc_type, cands.kind)
    states = validity_states(cands.kind, cands.valid_from_us, cands.valid_until_us, t_us)
    decay, recency = recency_and_decay(cands.created_us, cands.dated, t_us, half_life, floors, temporal.decay)
    # ours: an EVENT inside its window is as fresh as its window (the blog's live notice is the
    # most important document "while its window is open", whatever its half-life says)
    decay = np.where(states == STATE_TEMPORAL, 1.0, decay)
    current = np.where(states == STATE_TEMPORAL, 1.0, current_decay(
        cands.created_us, cands.dated, t_us, half_life, floors, news_half_life_days=scoring.news_half_life_days,
        current_days=scoring.news_current_days, config=temporal.decay))

    index = knowledge.doc_index(with_inferred=profile.consolidated)
    pos = index.lookup(cands.doc_id)
    known = pos >= 0
    at = np.maximum(pos, 0)
    superseded_us = np.where(known, index.superseded_us[at], NO_END)
    return Pool(
        cands=cands, t_us=t_us, states=states, decay=decay, current=current, recency=recency, half_life=half_life,
        type_weight=type_weight, floors=floors, chain=np.where(known, index.chain[at], -1 - np.arange(n)),
        superseded_us=superseded_us, effective_us=np.where(known, index.effective_us[at], cands.created_us),
        relational=np.where(known, index.relational[at], 0.0),
        dependency_stale_us=np.where(known, index.dependency_stale_us[at], NO_END),
        # trust (memory.live_trust); with gates, supersession is the gates' business: a superseded
        # version that survives them is asked about for its own period and is not held to its successor
        trust=knowledge.trust(cands.doc_id, cands.authority, t_us,
                              superseded=(superseded_us <= t_us) & (not profile.gates), ripple=profile.ripple,
                              doc_code=cands.doc_code))


def _gate(pool: Pool, codes: np.ndarray, rng, bypass: np.ndarray, profile: Profile, scoring,
          recalled: np.ndarray | None = None, asked_window: np.ndarray | None = None) -> np.ndarray:
    """The temporal layer's gates, each rejection with its code (first code wins), returned as
    the new codes: not existing yet at ``t`` (except ``recalled``: later records that speak of
    the moment judged, :func:`recalled_at`); outside a named period (VERSIONED: in force during
    it; others: published or, for EVENTs, their window in it; never a document dated by the
    periods its text names, :func:`.content_match.judged_by_text`, which content time ranks) —
    or, without a period, expired,
    not yet valid, superseded in its chain at ``t``; and raw cosine under the relevance gate,
    except for ``asked_window`` (:func:`events_in_window`)."""
    cands, states = pool.cands, pool.states
    exists = cands.created_us <= pool.t_us
    if recalled is not None:
        exists |= recalled
    codes = reject(codes, ~exists & ~bypass, RejectionCode.NOT_YET_VALID)
    if rng is not None:
        outside = ~in_range(cands, rng, pool.superseded_us) & ~judged_by_text(cands)
        codes = reject(codes, outside & ~bypass, RejectionCode.OUT_OF_TIME_RANGE)
    else:
        expired = (states == STATE_EXPIRED) & ~bypass
        codes = reject(codes, expired & (cands.kind == KIND_VERSIONED), RejectionCode.EXPIRED_VERSIONED_DOC)
        codes = reject(codes, expired & (cands.kind == KIND_EVENT), RejectionCode.HARD_EXPIRED_EVENT)
        codes = reject(codes, expired, RejectionCode.EXPIRED_DOC)
        codes = reject(codes, (states == STATE_NOT_YET_VALID) & ~bypass, RejectionCode.NOT_YET_VALID)
        if profile.chains:
            codes = reject(codes, (pool.superseded_us <= pool.t_us) & ~bypass, RejectionCode.SUPERSEDED_IN_CHAIN)
    weak = cands.raw_cosine < scoring.relevance_gate
    if asked_window is not None:
        weak &= ~asked_window
    return reject(codes, weak, RejectionCode.BELOW_RELEVANCE_GATE)


def one_per_chain(pool: Pool, codes: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Keep one version per chain: the document of the chain's best-scoring surviving passage
    (ties: the first row), with all of its surviving passages; the other versions' rows get
    SUPERSEDED_IN_CHAIN in the returned codes (documents compared by :attr:`Candidates.doc_code`).
    O(n) per-chain maxima, no sort of the pool."""
    chain, doc = pool.chain, pool.cands.doc_code
    alive = codes == KEEP
    rows = (alive & ~np.isnan(score)).nonzero()[0]
    winner = np.zeros(len(chain), dtype=bool)
    if rows.size:
        chains, at = np.unique(chain[rows], return_inverse=True)
        best = np.full(len(chains), -np.inf)
        np.maximum.at(best, at, score[rows])
        top = score[rows] == best[at]
        head = np.full(len(chains), len(chain), dtype=np.intp)   # each chain's first best row
        np.minimum.at(head, at[top], rows[top])
        won = np.zeros(int(doc.max()) + 1, dtype=bool)           # per document code: it won its chain
        won[doc[head]] = True
        winner = won[doc]
    return reject(codes, alive & ~winner, RejectionCode.SUPERSEDED_IN_CHAIN)


def _adjust(pool: Pool, profile: Profile, codes: np.ndarray, score: np.ndarray, version_hit: np.ndarray | None,
            k: int, scoring, subject: Sequence[str] = (), holds_now: bool = False
            ) -> tuple[np.ndarray, dict[int, list[str]]]:
    """The ``default`` profile's demotions, returned as (new scores, the notes that explain them
    in the result's reasons): candidates not carrying a version the question names
    (× ``ScoringConfig.version_not_named_factor``); another product's release records where the
    question names one (:func:`.releases.other_products`, × ``product_not_named_factor``);
    candidates that rely on a superseded version (the ripple, at query time); the lower-trust
    side of a contradiction; a news roundup (a news-like doc type, half-life <=
    ``ScoringConfig.news_half_life_days``, whose title lists several stories: :func:`scoring.roundup_titles`),
    × ``profile.roundup_demotion``, so that the story's own article, about as similar, ranks
    above the roundup that tells it in a few lines (a roundup alone still answers); for a question
    about what holds now (``holds_now``), a release record that a newer one of its series follows
    among the top answers (:func:`.releases.older_release_records`), × ``profile.older_release_demotion``."""
    notes: dict[int, list[str]] = {}
    kept = codes == KEEP
    if version_hit is not None and (version_hit & kept).any():
        score = np.where(version_hit, score, score * scoring.version_not_named_factor)
    if profile.stale_dependency_demotion < 1.0:
        flagged = (pool.dependency_stale_us <= pool.t_us) & kept
        score = np.where(flagged, score * profile.stale_dependency_demotion, score)
        for i in np.flatnonzero(flagged):
            notes.setdefault(int(i), []).append(
                "relies on a document that a newer version has replaced: flagged for review, "
                f"score x{profile.stale_dependency_demotion}")
    if profile.contradiction_demotion < 1.0:
        score, demoted = demote_contradicted(pool, codes == KEEP, score, k, profile.contradiction_demotion)
        notes = _with_notes(notes, demoted)
    if profile.roundup_demotion < 1.0:
        news = (kept & (pool.half_life <= scoring.news_half_life_days)).nonzero()[0]   # the titles read: these only
        roundup = np.zeros(len(kept), dtype=bool)
        roundup[news] = roundup_titles(pool.cands.title[news])
        score = np.where(roundup, score * profile.roundup_demotion, score)
        for i in np.flatnonzero(roundup):
            notes.setdefault(int(i), []).append(
                f"a roundup of several stories (its title lists them): score x{profile.roundup_demotion}")
    if holds_now and profile.older_release_demotion < 1.0:
        older = older_release_records(pool.cands, kept, score)
        score = np.where(older, score * profile.older_release_demotion, score)
        for i in np.flatnonzero(older):
            notes.setdefault(int(i), []).append("a newer release of its series is among the top answers, and tells "
                                                f"what holds now: score x{profile.older_release_demotion}")
    others, named = other_products(pool.cands, subject)
    if others.any():
        factor = scoring.product_not_named_factor
        score = np.where(others, score * factor, score)
        for i in np.flatnonzero(others):
            notes.setdefault(int(i), []).append(f"a release of another product than the one asked ({named}): score x{factor}")
    return score, notes


def _target_versions(pool: Pool, intent: QueryIntent, codes: np.ndarray, subject: Sequence[str] = ()
                     ) -> tuple[np.ndarray, np.ndarray, dict[int, list[str]]]:
    """The version a question names wins in its chain, even when superseded (the chain's other
    versions get VERSION_MISMATCH), and among the release records of its series
    (:func:`.releases.release_versions_asked`: the series' other releases get VERSION_MISMATCH;
    a range "between A and B" targets the releases after A up to B); a question that asks which
    version first held something wins the first version that names it
    (:func:`.releases.first_versions_holding`). Returns (the targeted rows, the new codes, their
    notes)."""
    cands, chain, eff = pool.cands, pool.chain, pool.effective_us
    n = len(cands)
    notes: dict[int, list[str]] = {}
    others = np.zeros(n, dtype=bool)
    if intent.version:
        hit, others = release_versions_asked(cands, version_matches(cands, intent.version), subject,
                                             intent.version_range)
    elif intent.version_rank:
        hit = np.zeros(n, dtype=bool)
        for c in np.unique(chain):
            members = np.flatnonzero(chain == c)
            pick = members[np.argmin(eff[members])]   # version_rank is "oldest" (recency words are none)
            hit[pick] = True
    else:   # asks_first: the first version that names what the question names
        hit = first_versions_holding(cands, chain, eff)
    if not hit.any():
        return np.zeros(n, dtype=bool), codes, notes
    hit = np.isin(cands.doc_id, cands.doc_id[hit])     # every passage of a targeted version
    targeted = np.isin(chain, chain[hit])
    codes = reject(codes, (targeted | others) & ~hit, RejectionCode.VERSION_MISMATCH)
    if intent.version or intent.version_rank:
        asked = ("releases after {} up to {}".format(*intent.version_range) if intent.version_range
                 else f"version {intent.version or intent.version_rank}")
        note = f"question names {asked}: judged against this version"
    else:
        note = "question asks which version first held it: the earliest version of its document that names it"
    for i in np.flatnonzero(hit):
        notes.setdefault(int(i), []).append(note)
    return hit, codes, notes


def _score(pool: Pool, profile: Profile, intent, scoring, temporal=DEFAULT_TEMPORAL,
           recent: np.ndarray | None = None, subject: Sequence[str] = (),
           newest_by_series: Mapping[str, int] | None = None) -> SignalSet:
    """The profile's score. The paper's ``confidence`` signal (``smartvector``) is the document's
    trust at ``t`` (memory/confidence.py): the same number as the result's ``trust``, with no age
    term (age is the temporal signal's business, DESIGN.md "Trust model"). ``default`` shows it
    as one ``trust`` signal carrying both the confidence weight and ``trust_weight``."""
    cands, states, decay, trust = pool.cands, pool.states, pool.decay, pool.trust
    if profile.scorer == "cosine":
        sem = semantic_signal(cands.raw_cosine)
        return SignalSet({"semantic": sem}, {"semantic": np.ones(len(sem))}, sem)
    if profile.scorer == "temporal":
        weight = pool.type_weight
        if intent is not None and profile.use_intent and intent.recency_words:
            weight = np.maximum(weight, intent.recency_weight)
        return temporal_layer_score(cands.raw_cosine, cands.kind, states, decay, pool.recency, weight, scoring,
                                    temporal.validity)
    signal = (current_signal(cands.kind, states, pool.current, cands.raw_cosine, scoring, temporal.validity)
              if profile.scorer == "default" else temporal_signal(cands.kind, states, decay, cands.raw_cosine, scoring))
    values = {
        "semantic": semantic_signal(cands.raw_cosine),
        "temporal": signal,
        "confidence": trust,
        "relational": pool.relational,
    }
    weights = dict(profile.weights.as_dict())
    if profile.scorer == "default":
        del values["confidence"]
        values["trust"] = trust
        weights["trust"] = profile.trust_weight + weights.pop("confidence")
        values["lexical"] = cands.lexical_signal()
        weights["lexical"] = _lexical_weight(profile, intent)
        soft = intent.soft_range_us if (intent is not None and profile.use_intent) else None
        if soft is not None:
            season = soft[1] - soft[0] > scoring.news_current_days * US_PER_DAY   # longer than news stays current
            values["temporal"] = _soft_window(pool, soft, recent,
                                              season & (pool.half_life <= scoring.news_half_life_days))
        elif recent is not None:   # an EVENT of the day asked is as current as a live one then
            values["temporal"] = np.where(recent, 1.0, values["temporal"])
        if soft is None and intent is not None and profile.use_intent and intent.asks_newest:
            values["temporal"] = newest_release(pool, values["temporal"], subject, temporal, newest_by_series)
        weights["temporal"] *= _recency_factor(pool, profile, intent, soft, scoring, temporal.intent)
        _add_content_time(values, weights, cands, profile, intent, temporal)
        total = sum(weights.values())          # keep the score in [0, 1] without clipping ties
        weights = {name: w / total for name, w in weights.items()}
    return weighted_sum(values, weights)


def _lexical_weight(profile: Profile, intent) -> float:
    """The lexical weight of ``default``: the profile's, raised to ``asks_version_lexical_weight``
    when the question asks which version or release did something (:attr:`QueryIntent.asks_version`):
    the one record of a log that names the thing asked shares its rare words (``urllib3``), which
    an embedding blurs (changelogs, tune split: BM25 alone 0.94 on these questions)."""
    if intent is not None and profile.use_intent and intent.asks_version:
        return max(profile.lexical_weight, profile.asks_version_lexical_weight)
    return profile.lexical_weight


def _soft_window(pool: Pool, window, recent: np.ndarray | None = None, news: np.ndarray | bool = False
                 ) -> np.ndarray:
    """The temporal signal under a soft window: :func:`scoring.window_signal` (a STATIC
    document by its publication time, an EVENT by its window, a VERSIONED one by the period it
    was in force) × the passage's similarity relative to the best (cos / max cos, as the blog's
    event relevance: being in the window is worth what the passage is worth to the question);
    0 outside its own validity (expired, not yet valid), except for an EVENT that ended inside
    the window (``recent``: :func:`ended_in_window`). A news-like row (``news``: half-life <=
    ``news_half_life_days``) is also × its current decay (:func:`scoring.current_decay`): a window
    longer than a week ("this year's US Open") names the story's season, and news in it still
    fades (RealTimeQA 2022, tune: a 17-day-old story beat yesterday's, the one asked about). The
    caller sets ``news`` only for a window longer than ``news_current_days``: inside "this week"
    the window signal alone says how far outside it an article lies."""
    cands, states = pool.cands, pool.states
    begin = effective_us(cands.valid_from_us, cands.created_us)
    end = np.where(cands.kind == KIND_STATIC, begin, np.minimum(pool.until_us, np.int64(window[1])))
    inside = (states != STATE_EXPIRED) & (states != STATE_NOT_YET_VALID)
    if recent is not None:
        inside |= recent
    fit = window_signal(begin, end, window) * np.where(news, pool.current, 1.0)
    return np.where(inside, fit * relative_similarity(cands.raw_cosine), 0.0)


def _recency_factor(pool: Pool, profile: Profile, intent, soft, scoring, cfg=DEFAULT_TEMPORAL.intent) -> float:
    """:func:`scoring.recency_factor` for this question and pool (q also at least the medium
    recency word's when the question names a soft window)."""
    question = 1.0
    if intent is not None and profile.use_intent and intent.recency_words:
        question = intent.recency_weight / profile.recency_baseline
    if soft is not None:
        question = max(question, cfg.medium / profile.recency_baseline)
    cands = pool.cands
    tau = pool_time_sensitivity(cands.raw_cosine, first_per_document(cands.doc_code, np.arange(len(cands))),
                                pool.states == STATE_TEMPORAL, pool.half_life, top=scoring.pool_top_documents,
                                news_half_life_days=scoring.news_half_life_days)
    return recency_factor(question, tau, gain=profile.recency_pool_gain, cap=max(profile.recency_cap, question))


def _add_content_time(values: dict, weights: dict, cands, profile: Profile, intent,
                      temporal: TemporalConfig = DEFAULT_TEMPORAL) -> None:
    """The ``content_time`` signal (:mod:`.content_match`) joins ``values`` and ``weights``, with
    the profile's weight where it applies (windowless documents) and 0 elsewhere, when the
    question names a period."""
    if profile.content_time_weight <= 0 or intent is None or not profile.use_intent:
        return
    signal, applies = content_time_values(cands, intent.named_period_us, temporal.content_time)
    if applies.any():
        values["content_time"] = signal
        weights["content_time"] = np.where(applies, profile.content_time_weight, 0.0)


def _in_period(cands, profile, intent, temporal: TemporalConfig, pool: Pool, scoring, rng) -> SignalSet:
    """Inside a period the question names (a hard range) freshness steps aside (``default``:
    semantic, lexical, content time in profile proportion), except that one holding the moment asked
    (``pool.t_us`` in ``rng``) is the present: news-like rows keep their temporal signal, weighted
    as outside a period (RealTimeQA 2022, tune: a May preview led the June report of the final)."""
    sem = semantic_signal(cands.raw_cosine)
    if profile.scorer != "default":
        return SignalSet(values={"semantic": sem}, weights={"semantic": np.ones(len(cands))}, score=sem)
    values = {"semantic": sem, "lexical": cands.lexical_signal()}
    weights = {"semantic": profile.weights.semantic, "lexical": _lexical_weight(profile, intent)}
    if rng[0] <= pool.t_us < rng[1]:
        news = pool.half_life <= scoring.news_half_life_days
        if news.any():
            values["temporal"] = current_signal(cands.kind, pool.states, pool.current, cands.raw_cosine,
                                                scoring, temporal.validity)
            weights["temporal"] = np.where(news, profile.weights.temporal * _recency_factor(
                pool, profile, intent, None, scoring, temporal.intent), 0.0)
    _add_content_time(values, weights, cands, profile, intent, temporal)
    total = sum(weights.values())
    return weighted_sum(values, {name: w / total for name, w in weights.items()})


def _pair(pool: Pool, codes: np.ndarray, freshness=DEFAULT_TEMPORAL.freshness
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SOLO / PAIR / DROP for STATIC documents (blog): a weak one needs a fresher partner of the
    same doc type among the kept candidates (gain >= 0.10), else it is dropped and logged.
    The partner rule: :func:`smartvector_core.temporal.freshness.pairing_partners`. Returns
    (the new codes, the action per candidate, its partner's index or -1)."""
    cands, decay = pool.cands, pool.decay
    static = cands.kind == KIND_STATIC
    act = np.where(static, pairing_action(decay, freshness), "SOLO")
    codes = reject(codes, static & (act == "DROP"), RejectionCode.STALE_STATIC_DOC)
    kept = codes == KEEP
    found, _ = pairing_partners(decay, actions=act, groups=cands.doc_type, eligible=kept, config=freshness)
    partner = np.where(found >= 0, found, -1).astype(np.intp)
    codes = reject(codes, kept & (act == "PAIR") & (found < 0), RejectionCode.PAIR_PARTNER_NOT_FOUND)
    return codes, act, partner


def age_days(created_us: int, t_us: int) -> float:
    return max(0.0, (t_us - created_us) / US_PER_DAY)
