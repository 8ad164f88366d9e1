"""Contradictions between two texts, found by rules: numeric and negation.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt`` section 2.2 "Consolidation":
the background agent detects contradictions; section 1: a policy changed from "30 days" to
"60 days" must not be answered with the old value).

Two kinds, each conservative (a missed contradiction costs a review; a false one costs trust):

- ``numeric``: the same kind of quantity with different values, about the same subject —
  "Refunds are accepted within 30 days" vs "Refunds are accepted within 14 days" gives
  "30 days vs 14 days". Units are normalised (day/days, %/percent, $/USD ...); time
  lengths from seconds to weeks are converted exactly ("2 weeks" equals "14 days"); months and
  years are not converted (their length varies). A quantity is compared only with quantities of
  the same unit whose nearby words (the words since the previous quantity of its sentence,
  plus a few after it) share a subject word. A number with no unit is compared only when two
  subject words are shared. Years (1900–2100 with no unit), version numbers (20.19.0),
  dates, times, ordinals and labelled numbers ("section 4") are not quantities; "1,000" reads
  as 1000. A rate keeps its denominator ("per minute", "/min", "a day", "each order"): time
  denominators from seconds to weeks are converted, so "100 requests per minute" equals "6,000
  requests per hour" and differs from "100 requests per hour"; other denominators must match.
  Not handled yet: scale words are read as the unit ("2 million" is 2 of "million", never equal
  to 2,000,000).
- ``negation``: the same predicate with opposite polarity (allowed vs not allowed, permitted vs
  prohibited, required vs optional, enabled vs disabled, can vs cannot, supported vs
  unsupported) in two sentences sharing at least half of the smaller sentence's subject
  words (at least one).

The quantity extraction here is private on purpose: ``smartvector_core/temporal/conflicts.py``
has its own ``extract_quantities``; the two are to be merged into one module later.
Nothing here raises on odd input: None gives no contradiction, anything else is read as text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Contradiction", "ContradictionConfig", "ParsedText", "contradictions_between", "find_contradiction",
           "find_contradictions", "parse_text"]


@dataclass(frozen=True)
class ContradictionConfig:
    """Thresholds of the rules (ours; the paper gives none)."""

    min_shared_terms: int = 1           # numeric, quantities with a unit
    min_shared_terms_unitless: int = 2  # numeric, bare numbers
    negation_min_overlap: float = 0.5   # share of the smaller sentence's subject words
    left_window_words: int = 8
    right_window_words: int = 4
    rel_tol: float = 1e-9


DEFAULT_CONTRADICTION = ContradictionConfig()


@dataclass(frozen=True)
class Contradiction:
    """``kind``: 'numeric' or 'negation'; ``evidence``: e.g. "30 days vs 14 days"."""

    kind: str
    evidence: str
    excerpt_a: str
    excerpt_b: str
    shared_terms: tuple[str, ...] = ()


# --- words ---------------------------------------------------------------------------------
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOPWORDS = _words("""
a an the and or but if then else of in on at to for from by with as is are was were be been being
it its this that these those there here their them they we you your our us he she his her i me my
do does did done have has had having will would shall should could than so such any all each every
some more most less least only also very just about into onto over under up down out within after
before during until till per via via upon while when where which who whom whose what how why not
no never nor neither maximum minimum max min approximately around roughly least most up than
""")
_QUALIFIERS = _words("within after before under over up least most max min maximum minimum until "
                     "than more less")
_NEGATORS = frozenset({"not", "no", "never", "without", "neither", "nor"})
_MONTHS = _words("""january february march april may june july august september october november
december jan feb mar apr jun jul aug sep sept oct nov dec""") - {"may"}
_LABELS = _words("""section sections step steps version versions v article articles chapter chapters
page pages item items rule rules no number id code room floor phase tier level grade iso rfc
python node release build figure fig table appendix clause paragraph part line lines issue
ticket pr""")
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15,
    "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60,
    "ninety": 90, "hundred": 100,
}
_SECOND = 1.0
# surface unit (lower case) -> (canonical unit, factor to that unit's base)
_UNITS: dict[str, tuple[str, float]] = {}
for _names, _canon, _factor in (
    ("second seconds sec secs s", "time", _SECOND),
    ("minute minutes min mins", "time", 60 * _SECOND),
    ("hour hours hr hrs h", "time", 3600 * _SECOND),
    ("day days calendar-day calendar-days", "time", 86400 * _SECOND),
    ("week weeks wk wks", "time", 7 * 86400 * _SECOND),
    ("business-day business-days working-day working-days", "business day", 1.0),
    ("month months", "month", 1.0),
    ("year years yr yrs", "year", 1.0),
    ("% percent pct per-cent", "%", 1.0),
    ("$ usd dollar dollars", "usd", 1.0),
    ("€ eur euro euros", "eur", 1.0),
    ("£ gbp pound pounds", "gbp", 1.0),
    ("kb", "kb", 1.0), ("mb", "mb", 1.0), ("gb", "gb", 1.0), ("tb", "tb", 1.0),
    ("ms millisecond milliseconds", "time", 0.001),
):
    for _name in _names.split():
        _UNITS[_name] = (_canon, _factor)
_DISPLAY_UNIT = {"time": "seconds"}


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A crude, consistent stemmer: plural and -ed/-ing endings."""
    w = word.lower().removesuffix("'s")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 5 and w.endswith("ed"):
        return w[:-2]
    return w


_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _subject_terms(text: str, drop: frozenset[str] = frozenset()) -> set[str]:
    terms = set()
    for raw in _WORD.findall(text):
        word = raw.lower().strip("'-")
        if not word or word in _STOPWORDS or word in drop or word in _UNITS or word in _WORD_NUMBERS:
            continue
        terms.add(_stem(word))
    return terms - {""}


# --- sentences -----------------------------------------------------------------------------
_CLAUSE_SPLIT = re.compile(r"[;!?\n]+|\.(?=\s|$)")


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_SPLIT.split(text) if c and c.strip()]


# --- quantities ----------------------------------------------------------------------------
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_QUANTITY = re.compile(
    rf"(?<![\w.,:/#-])(?P<cur>[$€£])?\s?(?P<a>{_NUM})"
    rf"(?:\s*(?:-|–|to)\s*(?P<b>{_NUM}))?"
    r"(?![\w]|[.,:/]\d|-\d)(?P<pct>\s?%)?"
)
_WORD_QUANTITY = re.compile(r"\b(?P<w>" + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True))
                            + r")\b", re.IGNORECASE)
_UNIT_AFTER = re.compile(r"^(?:\s+|-)(?P<u1>[A-Za-z€$£]+)(?:(?:\s+|-)(?P<u2>[A-Za-z]+))?")


@dataclass(frozen=True)
class _Quantity:
    value: tuple[float, ...]   # one value, or (low, high) of a range, in the unit's base
    unit: str                  # canonical unit; a stemmed noun for counts; '' for a bare number
    surface: str               # as written, for evidence
    terms: frozenset[str]      # subject words near it
    qualifiers: frozenset[str] # "within", "up to", "at least" ... near it
    clause: str


def _read_unit(rest: str) -> tuple[str, float, str]:
    """(canonical unit, factor, surface) of the words right after a number."""
    match = _UNIT_AFTER.match(rest)
    if not match:
        return "", 1.0, ""
    u1, u2 = match.group("u1").lower(), (match.group("u2") or "").lower()
    if u2 and f"{u1}-{u2}" in _UNITS:
        canon, factor = _UNITS[f"{u1}-{u2}"]
        return canon, factor, match.group(0)
    if u1 in _UNITS:
        canon, factor = _UNITS[u1]
        return canon, factor, rest[:match.end("u1")]
    if u1 in _STOPWORDS or u1 in _NEGATORS or len(u1) < 2:
        return "", 1.0, ""
    # a count of things: the unit is the noun counted. "5 paid seats", "1,000 API calls": a
    # singular word then a plural one -> the plural one is the head noun.
    if (u2 and u2 not in _STOPWORDS and u2 not in _UNITS and u2.endswith("s")
            and not u1.endswith("s") and _stem(u2) != u2):
        return "n:" + _stem(u2), 1.0, rest[:match.end("u2")]
    return "n:" + _stem(u1), 1.0, rest[:match.end("u1")]


_RATE = re.compile(r"^\s*(?:/\s*|\s(?P<link>per|each|every|an?)\s+)(?P<w>[A-Za-z]+)", re.IGNORECASE)
_TIME_CANONS = frozenset({"time", "business day", "month", "year"})


def _read_rate(rest: str) -> tuple[str, float, str]:
    """(canonical denominator, its factor, surface) of a rate right after a quantity's unit:
    "per minute" -> ("time", 60, " per minute"); "/order" -> ("n:order", 1, "/order"). "a"/"an"
    link only a time ("twice a day"; "30 days a refund" is no rate). ("", 1, "") when none."""
    match = _RATE.match(rest)
    if not match:
        return "", 1.0, ""
    word = match.group("w").lower()
    if word in _UNITS:
        canon, factor = _UNITS[word]
    elif word in _STOPWORDS or word in _NEGATORS:
        return "", 1.0, ""
    else:
        canon, factor = "n:" + _stem(word), 1.0
    if (match.group("link") or "").lower() in {"a", "an"} and canon not in _TIME_CANONS:
        return "", 1.0, ""
    return canon, factor, match.group(0)


def _located(clause: str, start: int, end: int, values: list[float], canon: str, factor: float
             ) -> tuple[int, int, tuple[float, ...], str, str, str]:
    """(start, end, values in the unit's base, unit, rate surface, surface) of one quantity; a
    rate right after the unit makes the unit "unit/denominator" and the value per base one."""
    per, per_factor, rate = _read_rate(clause[end:]) if canon else ("", 1.0, "")
    if per:
        canon, factor, end = f"{canon}/{per}", factor / per_factor, end + len(rate)
    surface = clause[start:end].strip()
    return start, end, tuple(v * factor for v in values), canon, rate.strip() if per else "", surface


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _previous_word(text: str) -> str:
    words = _WORD.findall(text[-24:])
    return words[-1].lower().rstrip(".") if words else ""


@lru_cache(maxsize=8192)   # pure; the query path compares the same texts pairwise
def _quantities(clause: str, config: ContradictionConfig) -> list[_Quantity]:
    found: list[tuple[int, int, tuple[float, ...], str, float, str]] = []
    for m in _QUANTITY.finditer(clause):
        before = clause[:m.start()]
        if _previous_word(before) in _LABELS | _MONTHS or before.rstrip().endswith(("#", "v", "V")):
            continue
        values = [_number(m.group("a"))] + ([_number(m.group("b"))] if m.group("b") else [])
        if m.group("cur"):
            canon, factor = _UNITS[m.group("cur")]
            unit_surface = ""
        elif m.group("pct"):
            canon, factor, unit_surface = "%", 1.0, ""
        else:
            canon, factor, unit_surface = _read_unit(clause[m.end():])
        plain_int = "," not in m.group("a") and "." not in m.group("a") and not m.group("b")
        if plain_int and 1900 <= values[0] <= 2100 and canon not in {c for c, _ in _UNITS.values()}:
            continue  # a year, not an amount
        found.append(_located(clause, m.start(), m.end() + len(unit_surface), values, canon, factor))
    for m in _WORD_QUANTITY.finditer(clause):
        canon, factor, unit_surface = _read_unit(clause[m.end():])
        if canon in {c for c, _ in _UNITS.values()}:
            found.append(_located(clause, m.start(), m.end() + len(unit_surface),
                                  [_WORD_NUMBERS[m.group("w").lower()]], canon, factor))
    found.sort()
    out = []
    for i, (start, end, value, unit, rate, surface) in enumerate(found):
        left_limit = found[i - 1][1] if i else 0
        right_limit = found[i + 1][0] if i + 1 < len(found) else len(clause)
        left = " ".join(clause[left_limit:start].split()[-config.left_window_words:])
        right = " ".join(clause[end:right_limit].split()[:config.right_window_words])
        unit_words = [w.lower() for w in _WORD.findall(surface[:len(surface) - len(rate)])]
        if unit.startswith("n:"):  # a counted noun's modifier is a subject word ("login attempts")
            unit_words = unit_words[-1:]
        unit_words += [w.lower() for w in _WORD.findall(rate)]
        qualifiers = frozenset(w.lower() for w in _WORD.findall(left)) & _QUALIFIERS
        out.append(_Quantity(value, unit, surface,
                             frozenset(_subject_terms(f"{left} {right} {surface}", frozenset(unit_words))),
                             qualifiers,
                             clause))
    return out


def _same_value(a: tuple[float, ...], b: tuple[float, ...], tol: float) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=tol, abs_tol=1e-12) for x, y in zip(a, b, strict=True))


@lru_cache(maxsize=8192)
def _is_fragment(text: str) -> bool:
    """A bare quantity phrase ("within 14 days"): no subject word at all."""
    return not _subject_terms(text)


def _numeric(first: ParsedText, second: ParsedText, config: ContradictionConfig) -> list[Contradiction]:
    qb = second.quantities
    fragment = first.fragment or second.fragment
    out = []
    for a in first.quantities:
        need = config.min_shared_terms if a.unit else config.min_shared_terms_unitless
        if fragment and a.unit:
            # one side is only "within 14 days": its qualifier must match instead of a subject
            scored = [(1, b) for b in qb if b.unit == a.unit and a.qualifiers & b.qualifiers]
        else:
            scored = [(len(a.terms & b.terms), b) for b in qb if b.unit == a.unit]
        scored = [(s, b) for s, b in scored if s >= need]
        if not scored:
            continue
        best = max(s for s, _ in scored)
        tied = [b for s, b in scored if s == best]
        if any(_same_value(a.value, b.value, config.rel_tol) for b in tied):
            continue
        b = tied[0]
        out.append(Contradiction("numeric", f"{a.surface} vs {b.surface}", a.clause, b.clause,
                                 tuple(sorted(a.terms & b.terms))))
    return out


# --- negation ------------------------------------------------------------------------------
# marker word -> (family, polarity); a negator flips the polarity.
_MARKERS: dict[str, tuple[str, bool]] = {}
for _family, _positive, _negative in (
    ("permission", "allowed permitted authorized authorised may can", "prohibited forbidden "
     "disallowed banned unauthorized unauthorised"),
    ("requirement", "required mandatory must obligatory compulsory", "optional"),
    ("enablement", "enabled", "disabled"),
    ("support", "supported", "unsupported"),
    ("acceptance", "accepted", "rejected refused"),
):
    for _w in _positive.split():
        _MARKERS[_w] = (_family, True)
    for _w in _negative.split():
        _MARKERS[_w] = (_family, False)
_MODALS = frozenset({"can", "may", "must"})
_CONTRACTIONS = ((re.compile(r"\bcannot\b", re.I), "can not"), (re.compile(r"\bcan't\b", re.I), "can not"),
                 (re.compile(r"\bwon't\b", re.I), "will not"), (re.compile(r"n't\b", re.I), " not"),
                 (re.compile(r"\bno longer\b", re.I), "not"))


@dataclass(frozen=True)
class _Stance:
    family: str
    positive: bool
    phrase: str
    terms: frozenset[str]
    clause: str


@lru_cache(maxsize=8192)
def _stances(clause: str) -> list[_Stance]:
    text = clause
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    words = [w.lower().strip("'-") for w in _WORD.findall(text)]
    terms = frozenset(_subject_terms(text, frozenset(_MARKERS) | _NEGATORS))
    out = []
    for i, word in enumerate(words):
        if word not in _MARKERS:
            continue
        family, positive = _MARKERS[word]
        if word in _MODALS:
            negated = i + 1 < len(words) and words[i + 1] in _NEGATORS
            phrase = ("cannot" if word == "can" else f"{word} not") if negated else word
            if word == "must" and negated:  # "must not" forbids; it does not make optional
                family, positive, negated = "permission", False, False
        else:
            negated = any(w in _NEGATORS for w in words[max(0, i - 3):i])
            phrase = f"not {word}" if negated else word
        out.append(_Stance(family, positive != negated, phrase, terms, clause))
    return out


_CROSS_OPPOSED = frozenset({(("requirement", True), ("permission", False)),
                            (("permission", False), ("requirement", True))})


def _opposed(a: _Stance, b: _Stance) -> bool:
    """Same predicate, opposite polarity; or "required" against "prohibited"."""
    if a.family == b.family:
        return a.positive != b.positive
    return ((a.family, a.positive), (b.family, b.positive)) in _CROSS_OPPOSED


def _negation(first: ParsedText, second: ParsedText, config: ContradictionConfig) -> list[Contradiction]:
    out = []
    for a in first.stances:
        for b in second.stances:
            if not _opposed(a, b):
                continue
            shared = a.terms & b.terms
            smaller = min(len(a.terms), len(b.terms))
            if not shared or len(shared) < math.ceil(config.negation_min_overlap * smaller):
                continue
            out.append(Contradiction("negation", f"{a.phrase} vs {b.phrase}", a.clause, b.clause,
                                     tuple(sorted(shared))))
    return out


# --- public --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ParsedText:
    """What the rules read from one text (its quantities and stances, clause by clause).

    Parse each text once with :func:`parse_text` when comparing it with many others (the
    consolidation agent compares a chunk with each of its neighbours)."""

    quantities: tuple[_Quantity, ...]
    stances: tuple[_Stance, ...]
    fragment: bool


def parse_text(text: object, config: ContradictionConfig = DEFAULT_CONTRADICTION) -> ParsedText:
    clauses = _clauses(str(text))
    return ParsedText(tuple(q for c in clauses for q in _quantities(c, config)),
                      tuple(s for c in clauses for s in _stances(c)), _is_fragment(str(text)))


def contradictions_between(first: ParsedText, second: ParsedText,
                           config: ContradictionConfig = DEFAULT_CONTRADICTION) -> list[Contradiction]:
    """Every contradiction between two parsed texts: numeric ones first, then negations, each
    in reading order of the first text; duplicates (same kind and evidence) once."""
    seen: set[tuple[str, str]] = set()
    out = []
    for found in _numeric(first, second, config) + _negation(first, second, config):
        key = (found.kind, found.evidence)
        if key not in seen:
            seen.add(key)
            out.append(found)
    return out


def find_contradictions(text_a: object, text_b: object,
                        config: ContradictionConfig = DEFAULT_CONTRADICTION) -> list[Contradiction]:
    """Every contradiction found between ``text_a`` and ``text_b`` (see :func:`contradictions_between`)."""
    if text_a is None or text_b is None:
        return []
    return contradictions_between(parse_text(text_a, config), parse_text(text_b, config), config)


def find_contradiction(text_a: object, text_b: object,
                       config: ContradictionConfig = DEFAULT_CONTRADICTION) -> Contradiction | None:
    """The first contradiction between the two texts (numeric before negation), or None.

    >>> find_contradiction("Refunds are accepted within 30 days.",
    ...                    "Refunds are accepted within 14 days.").evidence
    '30 days vs 14 days'
    """
    found = find_contradictions(text_a, text_b, config)
    return found[0] if found else None
