"""Do two statements contradict? Same subject, and disagreement beyond tolerance or in polarity.

DESIGN.md, "Trust model": "two statements about the same subject (same entity, same attribute
or quantity kind) [...] disagree (beyond tolerance after unit normalisation, or in polarity).
Identifiers, counts in names, dates and version numbers are not quantities." The *same time*
part (overlapping validity, neither superseded, not one version chain) is about documents, not
texts: :mod:`smartvector_core.facts.plan` applies it.

**Same subject** (:func:`same_subject`, ours):

1. the same kind: the same quantity kind (dimension, rate denominator, counted noun) with
   compatible bounds (a minimum is never compared with a maximum), or polarity markers of one
   family (and "required" against "prohibited");
2. at least one shared subject word;
3. not both sides with subject words of their own: "the *Orders API* accepts 5000 calls a
   minute" and "the *Mail Gateway* accepts 1000 calls a minute" name two entities; unless the
   two texts share a proper name (:func:`shared_entity`: "Ember Chat") and a subject word
   besides it, and no extra word narrows a shared one (rule 4 on both sides): "the session
   timeout is 10 minutes" and "idle sessions are signed out after 60 minutes" of one product;
4. when only one side has words of its own, none of them narrows a shared word: a modifier
   right in front of a shared word ("the *enterprise* limit" against "the limit", "the
   *Orders* API" against "the API") or a prepositional phrase after a shared word or the
   quantity ("requests *from enterprise accounts*", "4 replicas *in staging*"). Other extra
   words are complements or actors ("customers can ask for a refund", "within 60 days *of
   purchase*") and keep the subject. Numbers that are no quantities (ids, years, versions)
   are subject words: "topic 21" and "topic 22" are two subjects.

**Different entities** (:func:`different_entities`, per text pair): when each text names
something the other never mentions (proper names: words capitalised inside a sentence), no
statement of one is about the subject of the other.

**Disagreement** (:func:`disagree`): for quantities, the gap between the two intervals is more
than ``tolerance`` (relative, ``DEFAULT_TOLERANCE`` = 1%: "1.5k" = "1,500", "1 GB" = "1024 MB"
and "1 month" = "30 days" agree; "2 weeks" and "30 days" do not; percentages are compared
in points, so 99.9% and 99.5% disagree); for polarity, opposite
polarity. When a text states the same subject twice, a statement that agrees with any of its
best-matching partners is no contradiction ("refunds within 30 days and exchanges within 60"
against "refunds within 30 days").
"""

from __future__ import annotations

from dataclasses import dataclass

from .statements import QUANTITY_MARK, ParsedText, Statement, parse_text

__all__ = ["DEFAULT_TOLERANCE", "Contradiction", "PairVerdict", "classify_pair", "contradictions_between",
           "different_entities", "disagree", "find_contradiction", "find_contradictions", "same_subject",
           "shared_entity"]

DEFAULT_TOLERANCE = 0.01
_PREPOSITIONS = frozenset({"for", "from", "on", "in", "with", "at", "to", "by"})
_DETERMINERS = frozenset({"a", "an", "the", "all", "each", "every", "our", "your", "their", "its", "any"})
_CROSS_OPPOSED = frozenset({("p:requirement", True, "p:permission", False),
                            ("p:permission", False, "p:requirement", True)})


@dataclass(frozen=True)
class Contradiction:
    """``kind``: 'numeric' or 'negation'; ``evidence``: e.g. "30 days vs 14 days"; the two
    clauses; the subject words both share."""

    kind: str
    evidence: str
    excerpt_a: str
    excerpt_b: str
    shared_terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class PairVerdict:
    """What :func:`classify_pair` says of two texts."""

    same_subject: bool
    contradicts: bool
    evidence: str = ""


def _same_kind(a: Statement, b: Statement) -> bool:
    if a.numeric or b.numeric:
        return a.kind == b.kind and (a.bound == b.bound or not a.bound or not b.bound)
    return a.kind == b.kind or (a.kind, a.positive, b.kind, b.positive) in _CROSS_OPPOSED


def _narrows(tokens: tuple[str, ...], extras: frozenset[str], shared: frozenset[str]) -> bool:
    """Does an extra word narrow a shared one: right in front of it ("*Orders* API"), or in a
    prepositional phrase after a shared word or the quantity ("limit *for enterprise* plans",
    "4 replicas *in staging*"; "of" introduces a complement: "60 days *of purchase*")?"""
    seen_shared = False
    for i, token in enumerate(tokens):
        if token in shared or token == QUANTITY_MARK:
            seen_shared = True
            continue
        if token not in extras:
            continue
        if i + 1 < len(tokens) and tokens[i + 1] in shared:
            return True
        j = i - 1
        while j >= 0 and tokens[j] in _DETERMINERS:
            j -= 1
        if seen_shared and j >= 0 and tokens[j] in _PREPOSITIONS:
            return True
    return False


def same_subject(a: Statement, b: Statement, entity: frozenset[str] = frozenset()) -> bool:
    """Rules 1–4 of the module docstring. ``entity``: the proper names the two texts share
    (:func:`shared_entity`); with one, words of their own on both sides are allowed when a
    subject word besides the names is shared and no extra word narrows a shared one."""
    if not _same_kind(a, b):
        return False
    shared = a.terms & b.terms
    if not shared:
        return False
    only_a, only_b = a.terms - b.terms, b.terms - a.terms
    if only_a and only_b:
        return bool(entity) and bool(shared - entity) and not _narrows(a.left, only_a, shared) \
            and not _narrows(b.left, only_b, shared)
    if only_a:
        return not _narrows(a.left, only_a, shared)
    if only_b:
        return not _narrows(b.left, only_b, shared)
    return True


def shared_entity(first: ParsedText, second: ParsedText) -> frozenset[str]:
    """Proper names (no acronyms) both texts use: both are about that entity ("Ember Chat"), so
    their sentences need not repeat it."""
    return first.proper & second.proper


def different_entities(first: ParsedText, second: ParsedText) -> bool:
    """Each text names something (a word capitalised inside a sentence) that the other never
    mentions: "Passwords must be changed every 120 days ... the Cobalt Backup team" against
    "... every 180 days ... all Zephyr HR customers" are policies of two products."""
    return bool(first.names - second.words) and bool(second.names - first.words)


def disagree(a: Statement, b: Statement, tolerance: float = DEFAULT_TOLERANCE) -> bool:
    """Quantities: the gap between ``[lo, hi]`` intervals exceeds ``tolerance`` × the larger
    magnitude (for percentages: ``tolerance`` points); polarity: opposite (or "required" against "prohibited")."""
    if a.numeric:
        gap = max(a.lo, b.lo) - min(a.hi, b.hi)
        if a.kind == "q:%":   # percentages: points, not a share of the value (99.9% vs 99.5%)
            return gap > tolerance
        return gap > tolerance * max(abs(a.hi), abs(b.hi), abs(a.lo), abs(b.lo), 1e-12)
    if a.kind != b.kind:
        return True      # the cross-opposed pair: _same_kind let only that through
    return a.positive != b.positive


def _found(a: Statement, b: Statement) -> Contradiction:
    kind = "numeric" if a.numeric else "negation"
    return Contradiction(kind, f"{a.surface} vs {b.surface}", a.clause, b.clause, tuple(sorted(a.terms & b.terms)))


def contradictions_between(first: ParsedText, second: ParsedText,
                           tolerance: float = DEFAULT_TOLERANCE) -> list[Contradiction]:
    """Every contradiction between two parsed texts, numeric ones first, each in reading order
    of the first text; a statement is matched with the same-subject statements of the other
    text that share the most subject words, and contradicts when it agrees with none of them.
    Duplicates (same kind and evidence) once."""
    out: list[Contradiction] = []
    seen: set[tuple[str, str]] = set()
    if not (first.quantity_kinds & second.quantity_kinds or (first.has_stances and second.has_stances)):
        return out   # no two statements of one kind (_same_kind): nothing to compare
    if different_entities(first, second):
        return out
    entity = shared_entity(first, second)
    for a in first.statements:
        partners = [b for b in second.statements if same_subject(a, b, entity)]
        if not partners:
            continue
        best = max(len(a.terms & b.terms) for b in partners)
        tied = [b for b in partners if len(a.terms & b.terms) == best]
        if not all(disagree(a, b, tolerance) for b in tied):
            continue
        found = _found(a, tied[0])
        if (found.kind, found.evidence) not in seen:
            seen.add((found.kind, found.evidence))
            out.append(found)
    return sorted(out, key=lambda c: c.kind != "numeric")


def find_contradictions(text_a: object, text_b: object, tolerance: float = DEFAULT_TOLERANCE) -> list[Contradiction]:
    """Every contradiction between ``text_a`` and ``text_b`` (None: none)."""
    if text_a is None or text_b is None:
        return []
    return contradictions_between(parse_text(text_a), parse_text(text_b), tolerance)


def find_contradiction(text_a: object, text_b: object, tolerance: float = DEFAULT_TOLERANCE) -> Contradiction | None:
    """The first contradiction between the two texts (numeric before negation), or None.

    >>> find_contradiction("Refunds are accepted within 30 days.",
    ...                    "Refunds are accepted within 14 days.").evidence
    '30 days vs 14 days'
    """
    found = find_contradictions(text_a, text_b, tolerance)
    return found[0] if found else None


def classify_pair(text_a: object, text_b: object, tolerance: float = DEFAULT_TOLERANCE) -> PairVerdict:
    """Are two texts about one subject, and do they contradict? (the labelled pairs' two questions)."""
    first, second = parse_text(text_a), parse_text(text_b)
    entity = shared_entity(first, second)
    same = not different_entities(first, second) and any(
        same_subject(a, b, entity) for a in first.statements for b in second.statements)
    found = contradictions_between(first, second, tolerance) if same else []
    return PairVerdict(same, bool(found), found[0].evidence if found else "")
