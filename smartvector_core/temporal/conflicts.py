"""Did a fact change between two versions? (blog, "When the fact changed significantly between
versions"), plus a small negation heuristic for yes/no facts.

Replacing "100 requests per minute" with "1,000 requests per minute" is not a wording change.
:func:`conflict_severity` compares the numbers two texts state in the same unit; the winner's
score is raised by ``0.2·severity`` and its confidence lowered by ``0.1·severity``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .intent import PERIOD_PATTERN
from .settings import DEFAULT_TEMPORAL, ConflictConfig


@dataclass(frozen=True)
class Quantity:
    """A number the text states, with its unit ("request/minute", "day", "USD", "%", "" when bare)."""

    value: float
    unit: str
    span: tuple[int, int]


@dataclass(frozen=True)
class QuantityChange:
    old: Quantity
    new: Quantity
    severity: float


@dataclass(frozen=True)
class Conflict:
    """``severity`` in [0, 1]; ``boost`` to add to the newer version's score; ``confidence_penalty``
    (positive) to subtract from its confidence; ``pairs`` every compared pair, most changed first."""

    severity: float
    boost: float
    confidence_penalty: float
    pairs: tuple[QuantityChange, ...] = ()


# --- extraction -------------------------------------------------------------------------------
_MASKS = [
    re.compile(PERIOD_PATTERN, re.I),                                  # years and dates
    re.compile(r"(?<![\w.])v?\d+(?:\.\d+){2,}", re.I),                 # 20.19.0
    re.compile(r"(?<![\w.])v\d+(?:\.\d+)*\b", re.I),                   # v3.5
    re.compile(r"\b(?:version|release)\s+v?\d+(?:\.\d+)*", re.I),      # version 5.3
    re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)"),              # 10:30
]
_NUMBER = re.compile(r"(?<![\w.,/])(?P<cur>[$€£])?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                     r"(?P<glued>[A-Za-z%]+)?")
_PERCENT = re.compile(r"\A\s*(?:%|per\s?cent\b)", re.I)
_SCALE = re.compile(r"\A\s+(?P<w>thousand|million|billion)\b", re.I)
_WORD = re.compile(r"\A\s+(?P<w>[A-Za-z][A-Za-z-]*)")
_PER = re.compile(r"\A\s*(?:/|\s(?:per|an?|each|every)\s+)\s*(?P<w>[A-Za-z]+)", re.I)
_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9}
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP", "dollar": "USD", "usd": "USD", "euro": "EUR",
             "eur": "EUR", "pound": "GBP", "gbp": "GBP"}
_ALIASES = {"req": "request", "min": "minute", "mins": "minute", "sec": "second", "secs": "second",
            "s": "second", "hr": "hour", "hrs": "hour", "h": "hour", "d": "day", "wk": "week",
            "mo": "month", "yr": "year", "yrs": "year", "percent": "%", "pct": "%"}
_STOPWORDS = frozenset(["a", "an", "the", "and", "or", "but", "nor", "to", "in", "into", "of", "for", "is", "are", "was", "were", "be", "been", "being", "on", "at", "by", "with", "from", "as", "it", "its", "that", "this", "these", "those", "than", "then", "if", "so", "not", "no", "yes", "we", "you", "they", "he", "she", "i", "our", "your", "their", "has", "have", "had", "do", "does", "did", "will", "would", "should", "can", "could", "may", "might", "must", "also", "more", "less", "most", "least", "over", "under", "about", "after", "before", "since", "until", "per", "each", "every"])


def _singular(word: str) -> str:
    word = word.lower()
    word = _ALIASES.get(word, word)
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return _ALIASES.get(word, word)


def extract_quantities(text: str) -> list[Quantity]:
    """Every number in ``text`` with its unit, left to right.

    Reads "1,000" as 1000, "1.5k" / "2 million" with their scale, "$5" / "5 dollars" as USD,
    "12%" / "12 percent" as "%", and "100 requests per minute" / "100 req/min" as
    ``100 request/minute``. Units are singular and lower case; a number followed by a plain
    word ("the", "and") is bare (unit ""). Ignored: years 1900–2100 standing alone or inside a
    date ("2024-03-15", "March 2024"), version numbers ("20.19.0", "v3.5"), clock times ("10:30")
    and digits glued to letters ("H100").
    """
    if not isinstance(text, str) or not text:
        return []
    scratch = text
    for mask in _MASKS:
        scratch = mask.sub(lambda m: " " * len(m.group()), scratch)
    out = []
    for m in _NUMBER.finditer(scratch):
        value = float(m.group("num").replace(",", ""))
        end = m.end()
        unit = _CURRENCY.get(m.group("cur") or "", "")
        glued = (m.group("glued") or "").lower()
        if glued == "%":
            unit = "%"
        elif glued in _SCALES:
            value *= _SCALES[glued]
        elif glued:
            unit = _singular(glued)
        rest = scratch[end:]
        if (p := _PERCENT.match(rest)) and not unit:
            unit, end = "%", end + p.end()
        elif s := _SCALE.match(rest):
            value *= _SCALES[s.group("w").lower()]
            end += s.end()
        if not unit and (w := _WORD.match(scratch[end:])) and w.group("w").lower() not in _STOPWORDS:
            word = _singular(w.group("w"))
            unit, end = _CURRENCY.get(word, word), end + w.end()
        if per := _PER.match(scratch[end:]):
            unit, end = f"{unit}/{_singular(per.group('w'))}", end + per.end()
        out.append(Quantity(value, unit, (m.start(), end)))
    return out


# --- severity ---------------------------------------------------------------------------------
@lru_cache(maxsize=8192)
def _cached_quantities(text: str) -> tuple[Quantity, ...]:
    """``extract_quantities`` memoised (pure): the query path meets the same texts again."""
    return tuple(extract_quantities(text))


def _pair_severity(a: float, b: float) -> float:
    hi, lo = max(abs(a), abs(b)), min(abs(a), abs(b))
    return 0.0 if hi == 0 else 1.0 - lo / hi


def conflict_severity(old_text: str, new_text: str,
                      config: ConflictConfig = DEFAULT_TEMPORAL.conflict) -> Conflict:
    """How much the stated numbers changed between two versions (blog, same section).

    Quantities of the same unit are paired in order of appearance (the i-th "request/minute"
    of the old text with the i-th of the new). For a pair ``severity = 1 − min/max`` of the
    absolute values; the conflict's severity is that of the most-changed pair (0 when no unit
    is shared). ``boost = 0.2·severity``, ``confidence_penalty = 0.1·severity``.
    Blog: '100' → '5000' severity 0.980, boost +0.196, penalty 0.098; '1000' → '500' 0.500;
    '1000' → '1000' 0.0.
    """
    old_q, new_q = _cached_quantities(old_text), _cached_quantities(new_text)
    by_unit: dict[str, list[Quantity]] = {}
    for q in new_q:
        by_unit.setdefault(q.unit, []).append(q)
    seen: dict[str, int] = {}
    pairs = []
    for q in old_q:
        i = seen.get(q.unit, 0)
        partners = by_unit.get(q.unit, [])
        if i < len(partners):
            pairs.append(QuantityChange(q, partners[i], _pair_severity(q.value, partners[i].value)))
        seen[q.unit] = i + 1
    pairs.sort(key=lambda p: -p.severity)
    severity = pairs[0].severity if pairs else 0.0
    return Conflict(severity, config.boost_per_severity * severity,
                    config.penalty_per_severity * severity, tuple(pairs))


# --- negation ---------------------------------------------------------------------------------
_POLARITY = {   # concept: (negative forms, positive forms); negatives are looked for first
    "allow": (r"not\s+(?:be\s+)?(?:allowed|permitted)|disallowed|prohibited|forbidden|banned"
              r"|(?:does|do)\s*(?:not|n't)\s+(?:allow|permit)",
              r"allowed|permitted|allows?|permits?"),
    "require": (r"(?:not|no\s+longer)\s+(?:be\s+)?(?:required|mandatory|needed)|optional",
                r"required|mandatory"),
    "enable": (r"disabled|not\s+(?:be\s+)?enabled|turned\s+off|switched\s+off",
               r"enabled|turned\s+on|switched\s+on"),
    "can": (r"cannot|can\s*(?:not|'t|’t)|unable\s+to", r"can|able\s+to"),
    "support": (r"unsupported|(?:not|no\s+longer)\s+supported", r"supported"),
    "available": (r"unavailable|not\s+(?:be\s+)?available", r"available"),
}
_POLARITY_RES = {c: (re.compile(rf"\b(?:{neg})\b", re.I), re.compile(rf"\b(?:{pos})\b", re.I))
                 for c, (neg, pos) in _POLARITY.items()}
_SENTENCE = re.compile(r"[^.;!?\n]+")
_TOKEN = re.compile(r"[a-z0-9]+")
_NEGATION_WORDS = frozenset({"not", "no", "never", "longer", "n't", "don", "doesn", "t"})


def _statements(text: str) -> list[tuple[str, bool, frozenset[str]]]:
    """(concept, positive?, subject words) for every polar statement, sentence by sentence."""
    out = []
    for sentence in _SENTENCE.findall(text or ""):
        found = []
        scratch = sentence
        for concept, (neg, pos) in _POLARITY_RES.items():
            for polarity, regex in ((False, neg), (True, pos)):
                found.extend((concept, polarity) for _ in regex.finditer(scratch))
                scratch = regex.sub(lambda m: " " * len(m.group()), scratch)
        if found:
            words = frozenset(_singular(t) for t in _TOKEN.findall(scratch.lower())
                              if t not in _STOPWORDS and t not in _NEGATION_WORDS and len(t) > 1)
            out.extend((concept, polarity, words) for concept, polarity in found)
    return out


def negation_conflict(a: str, b: str) -> bool:
    """True when one text asserts and the other denies the same thing about the same subject.

    Heuristic (ours, documented): split each text into sentences; in each, find polar terms of
    six concepts (allowed/not allowed/prohibited, required/not required/optional,
    enabled/disabled, can/cannot, supported/unsupported, available/unavailable); the subject is
    the sentence's remaining content words (stop words dropped, plurals folded). Two statements
    conflict when they concern the same concept with opposite polarity and share at least
    ``min(2, size of the smaller subject)`` words (at least one). So "API keys are allowed in
    URLs" vs "API keys are not allowed in URLs" conflict; "Smoking is allowed in the lobby" vs
    "Pets are not allowed in the lobby" do not (one shared word of two).
    """
    left, right = _statements(a), _statements(b)
    for concept, polarity, words in left:
        for other_concept, other_polarity, other_words in right:
            if concept != other_concept or polarity == other_polarity:
                continue
            need = max(1, min(2, len(words), len(other_words)))
            if len(words & other_words) >= need:
                return True
    return False
