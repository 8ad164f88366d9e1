"""The explain stage: the ranked rows as results with their reasons, and the rejected documents
with theirs. Every threshold a reason states is read from the query's :class:`EngineConfig`, the
same object the gates read."""

from __future__ import annotations

import numpy as np

from ..clock import from_us, iso, iso_us
from ..config import DEFAULT_ENGINE, EngineConfig
from ..models import (
    Action,
    ConfidenceTier,
    DocumentKind,
    Rejection,
    RejectionCode,
    Result,
    Signal,
    ValidityState,
)
from ..temporal import STATE_TEMPORAL, remaining_window_hours
from ..temporal.codes import state_names
from .calibration import TextWords
from .candidates import (
    KIND_NAMES,
    PASSAGES_PER_DOCUMENT,
    Candidates,
    first_per_document,
    relevant_passages,
    select_passages,
)
from .confidence import result_confidence
from .confidence_model import QuestionWords
from .content_match import content_time_reason
from .lexical import names_reason
from .profiles import Profile
from .query_cache import Knots
from .rerank import CODES, Ranked, age_days


def build_results(cands: Candidates, ranked: Ranked, profile: Profile, k: int, t_us: int, *,
                  knots: Knots | None = None, abstained: bool = False, per_document: int = PASSAGES_PER_DOCUMENT,
                  config: EngineConfig = DEFAULT_ENGINE, asked: QuestionWords | None = None,
                  words: TextWords | None = None) -> list[Result]:
    """The top ``k`` kept rows as explained results. ``confidence`` is the calibrated
    probability of :func:`.confidence.result_confidence` (the profile's confidence model on each
    result's evidence, :mod:`.confidence_model`, with the question ``asked``; ``knots``: the
    store's refit of the profile when it has operator verdicts, else the shipped prior), capped at
    ``config.abstention.cap`` when the answer abstains; tiers are thresholds on it. The rows are up
    to ``k`` passages, at most ``per_document`` of one document, grouped under their document
    (:func:`candidates.select_passages`). ``words``: the candidates' words
    (:func:`.confidence.pool_words`) when the caller has them."""
    top = select_passages(cands.doc_code, ranked.order, k, per_document,
                          relevant_passages(cands.doc_code, cands.raw_cosine))
    if not len(top):
        return []
    conf = result_confidence(cands, ranked, top, profile, knots=knots, abstained=abstained, config=config,
                             asked=asked, t_us=t_us, words=words)
    sig = ranked.signals     # each signal's (value, weight, contribution) at the results, as floats
    parts = {name: tuple(np.asarray(a, dtype=np.float64).tolist() for a in
                         (sig.values[name][top], sig.weights[name][top], sig.values[name][top] * sig.weights[name][top]))
             for name in sig.values}
    severity = conf.severity
    boost = config.temporal.conflict.boost_per_severity * severity if profile.conflict_boost else np.zeros(len(top))
    penalty = config.calibration.conflict_penalty
    conflict_notes = [f"fact changed against the previous version: severity {sv:.3f} (score +{b:.3f}; "
                      f"confidence lowered: a conflict counts as a race with no margin, and -{penalty * sv:.3f})"
                      if sv > 0 else None for sv, b in zip(severity, boost, strict=True)]
    behind = (conf.why_lower() if conf.features is not None
              else _why_rank_one_is_not_highest(conf.own if conf.own is not None else conf.probability,
                                                conf.trust, conf.current, severity))
    hours_left = remaining_window_hours(cands.valid_until_us[top], t_us)
    # per result as Python values, read once (no numpy scalar, no Enum call a row)
    states = [_STATES[s] for s in state_names(ranked.states[top]).tolist()]
    tiers = [_TIERS[t] for t in np.asarray(conf.tiers).tolist()]
    actions = [_ACTIONS[a] for a in ranked.action[top].tolist()]
    partners = ranked.partner[top].tolist()
    scores, probability = conf.scores.tolist(), conf.probability.tolist()
    trust, certainty = np.asarray(conf.trust, dtype=np.float64).tolist(), conf.certainty.tolist()
    evidence = [()] * len(top) if conf.features is None else list(map(tuple, conf.features.tolist()))
    created = [iso_us(us) for us in cands.created_us[top].tolist()]
    rivals = None      # per result, the pool's rows of its chain from another document (one pass for all)
    if profile.chains:
        chain, code = ranked.chain, cands.doc_code
        rivals = (chain[None, :] == chain[top][:, None]) & (code[None, :] != code[top][:, None])
    out: list[Result] = []
    for j, i in enumerate(top.tolist()):
        signals = {name: Signal(v[j], w[j], c[j]) for name, (v, w, c) in parts.items()}
        reasons = _reasons(cands, ranked, i, t_us, hours_left[j], profile, config,
                           rivals[j] if rivals is not None else None)
        held = cands.lexical_names[i] if cands.lexical_names is not None and "lexical" in parts else None
        if held is not None and parts["lexical"][1][j] > 0:
            reasons.append(names_reason(*held))
        if conflict_notes[j]:
            reasons.append(conflict_notes[j])
        if j == 0 and behind:
            reasons.append(behind)
        partner, action = partners[j], actions[j]
        if action is Action.PAIR and partner >= 0:
            reasons.append(f"weak alone (decay {ranked.decay[i]:.3f}): pair with {cands.doc_id[partner]} "
                           f"(gain +{ranked.decay[partner] - ranked.decay[i]:.3f})")
        out.append(Result(
            id=cands.doc_id[i], chunk_id=cands.chunk_id[i], text=cands.text[i], rank=j + 1,
            score=scores[j], confidence=probability[j], trust=trust[j], certainty=certainty[j],
            confidence_tier=tiers[j], confidence_factors=conf.factors[j], evidence=evidence[j],
            validity_state=states[j], kind=DocumentKind(KIND_NAMES[cands.kind[i]]), signals=signals,
            reasons=reasons, title=cands.title[i], doc_type=cands.doc_type[i], action=action,
            lifecycle=cands.lifecycle[i], created_at=created[j],
            paired_with=cands.doc_id[partner] if partner >= 0 else None))
    return out


_STATES = {s.value: s for s in ValidityState}
_TIERS = {t.value: t for t in ConfidenceTier}
_ACTIONS = {a.value: a for a in Action}


def _why_rank_one_is_not_highest(probability: np.ndarray, trust: np.ndarray, current: np.ndarray,
                                 severity: np.ndarray) -> str | None:
    """The reason rank 1 carries less confidence than a later rank (None when it does not)."""
    if len(probability) < 2 or probability[0] >= probability[1:].max():
        return None
    j = int(np.argmax(probability[1:])) + 1
    if severity[0] > severity[j]:
        why = f"its fact changed against the previous version (severity {severity[0]:.3f})"
    elif not current[0] and current[j]:
        why = "it is not in force at this moment"
    else:
        why = f"its trust {trust[0]:.2f} is below rank {j + 1}'s {trust[j]:.2f}"
    return f"ranked first by score, but rank {j + 1}'s own evidence reads higher (its confidence is held at rank 1's): {why}"


def _reasons(cands: Candidates, ranked: Ranked, i: int, t_us: int, hours_left: float, profile: Profile,
             config: EngineConfig, rivals: np.ndarray | None = None) -> list[str]:
    """Why row ``i`` is where it is, in words; ``rivals``: the rows of its version chain from
    another document (read here when None)."""
    kind = KIND_NAMES[cands.kind[i]].value
    reasons = [f"{kind} ({cands.kind_reason[i] or 'declared'}); cosine {cands.raw_cosine[i]:.3f}"]
    if ranked.states[i] == STATE_TEMPORAL:
        reasons.append(f"active EVENT window ({hours_left:.0f}h remaining)")
    if cands.dated[i]:
        reasons.append(f"age {age_days(int(cands.created_us[i]), t_us):.0f} d, decay {ranked.decay[i]:.3f} "
                       f"({cands.doc_type[i]} profile)")
    else:
        reasons.append(f"undated: neutral freshness (decay {config.temporal.decay.undated_decay})")
    if profile.chains:
        if rivals is None:
            rivals = (ranked.chain == ranked.chain[i]) & (cands.doc_code != cands.doc_code[i])
        others = sorted(set(cands.doc_id[rivals].tolist()))
        if others:
            reasons.append("chosen from its version chain over " + ", ".join(map(str, others[:4])))
    floor = config.scoring.event_relevance_floor
    if ranked.states[i] == STATE_TEMPORAL and profile.scorer != "cosine" and cands.raw_cosine[i] < floor:
        reasons.append(f"EVENT signal present but low query relevance (raw sim {cands.raw_cosine[i]:.3f} < "
                       f"{floor}): temporal boost withheld")
    weights = ranked.signals.weights if ranked.signals is not None else {}
    if "content_time" in weights and weights["content_time"][i] > 0 and ranked.named_period is not None:
        reasons.append(content_time_reason(cands, int(i), ranked.named_period,
                                           float(ranked.signals.values["content_time"][i])))
    reasons.extend(ranked.notes.get(int(i), []))
    return reasons


def build_rejections(cands: Candidates, ranked: Ranked, t_us: int, *, limit: int,
                     config: EngineConfig = DEFAULT_ENGINE) -> list[Rejection]:
    """One rejection per document none of whose passages was kept (its most similar passage's
    code and chunk): the ones an operator archived first, then most similar first."""
    rejected = ranked.rejected()
    code = cands.doc_code
    has_kept = np.zeros(int(code.max()) + 1 if len(code) else 0, dtype=bool)   # per document code
    has_kept[code[ranked.order]] = True
    rejected = rejected[~has_kept[code[rejected]]]
    archived = ranked.reject_code[rejected] == CODES.index(RejectionCode.ARCHIVED)   # an operator's first
    rejected = first_per_document(cands.doc_code, rejected[np.lexsort((-cands.raw_cosine[rejected], ~archived))])
    rejected = rejected[:limit]
    at = iso(from_us(t_us))
    codes = [CODES[c] for c in ranked.reject_code[rejected].tolist()]   # Python ints: no numpy scalar a row
    until = cands.valid_until_us[rejected].tolist()
    return [Rejection(id=cands.doc_id[i], code=code, reason=_rejection_reason(cands, ranked, i, at, config, code, end),
                      chunk_id=cands.chunk_id[i])
            for i, code, end in zip(rejected.tolist(), codes, until, strict=True)]


_EXPIRED = frozenset((RejectionCode.EXPIRED_VERSIONED_DOC, RejectionCode.HARD_EXPIRED_EVENT, RejectionCode.EXPIRED_DOC))


def _rejection_reason(cands: Candidates, ranked: Ranked, i: int, at: str, config: EngineConfig,
                      code: RejectionCode, valid_until_us: int) -> str:
    if code in _EXPIRED:
        return f"valid_until {iso_us(valid_until_us)} is not after {at}: no longer true"
    if code is RejectionCode.NOT_YET_VALID:
        return f"not yet true at {at} (created or valid from a later date)"
    if code is RejectionCode.SUPERSEDED_IN_CHAIN:
        return f"a newer version of the same document was in force at {at}"
    if code is RejectionCode.BELOW_RELEVANCE_GATE:
        return f"raw cosine {cands.raw_cosine[i]:.3f} below the relevance gate {config.scoring.relevance_gate}"
    if code is RejectionCode.OUT_OF_TIME_RANGE:
        return "outside the time range named in the question"
    if code is RejectionCode.STALE_STATIC_DOC:
        return f"decay {ranked.decay[i]:.3f} below {config.temporal.freshness.drop_below}: too stale to retrieve"
    if code is RejectionCode.PAIR_PARTNER_NOT_FOUND:
        return f"decay {ranked.decay[i]:.3f}: weak alone and no fresher source of the same type"
    if code is RejectionCode.VERSION_MISMATCH:
        return "the question names another version of this document"
    if code is RejectionCode.ARCHIVED:
        return ranked.archived.get(cands.doc_id[i], "archived by a person")
    return code.value
