"""Statements of a text: what it says about which subject (DESIGN.md, "Trust model": a
contradiction needs the same subject, "same entity, same attribute or quantity kind").

A text is cut into clauses (at ``. ; ! ?`` and line breaks). Two kinds of statement:

- **quantity** (one per :class:`~.quantities.Quantity`): the subject is the content words of
  its window: the words since the previous quantity of its clause (at most
  ``LEFT_WORDS``; from the last colon, dash or comma on when that part holds a subject word),
  plus up to ``RIGHT_WORDS`` words after it up to the next comma, plus the modifiers of a
  counted noun ("1,000 *API* calls"). The unit, the bound words ("within", "at least") and
  a few words that name no subject (``SOFT``: "get", "include", "full", "standard" ...) are
  not subject words.
- **polarity** (from the marker words of five families, as the consolidation agent's
  negation rule had them: permission "allowed / prohibited / can / may", requirement
  "required / mandatory / must / optional", enablement, support, acceptance; a negator
  within three words before a marker flips it; "must not" forbids): the subject is the
  clause's content words without the markers and negators, plus one token per quantity of
  the clause (``q:<bound>:<kind>:<value>``), so "allowed within 30 days" and "not allowed
  after 30 days" are about different things.

The text's proper names (words capitalised inside a sentence, or a sentence's first word
before another capitalised one) are kept beside its statements:
two texts that each name something the other never mentions ("Cobalt Backup" against "Zephyr
HR") are about different entities whatever their sentences share.

Words are stemmed (:func:`~.quantities.stem`); ``left`` keeps the window's token order so that
a modifier in front of a shared word ("*Enterprise* limit", "*Orders* API") can be told from
a complement ("within 60 days *of purchase*").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

from ..words import FACT_STOP_WORDS
from .quantities import MONTHS, UNITS, Quantity, extract_quantities, stem

__all__ = ["LEFT_WORDS", "RIGHT_WORDS", "SOFT", "ParsedText", "Statement", "parse_text"]

LEFT_WORDS = 8    # ours: the old contradiction rules' left window
RIGHT_WORDS = 4   # ours: same

def _W(text: str) -> frozenset[str]:   # noqa: N802 - a word-set literal
    return frozenset(text.split())


#: words that name no subject: generic verbs and adjectives that paraphrases swap freely
SOFT = frozenset(stem(w) for w in _W("""
be get gets got give gives given include includes included accept accepts accepted allow allows
offer offers provide provides take takes make makes set use uses used receive receives keep keeps
apply applies remain remains stay stays currently current new full total standard default normal
regular usual general overall typical only now still also please note just same
"""))
_QUALIFIERS = _W("""within after before under over up least most max min maximum minimum until than
more less fewer below above capped limited exceed exceeds no not never""")
_NEGATORS = _W("not no never neither nor")   # "without receipts" negates no marker
_NUMBER_WORDS = _W("""one two three four five six seven eight nine ten eleven twelve thirteen fourteen
fifteen sixteen eighteen twenty thirty forty fifty sixty ninety hundred thousand million billion once
twice times""")

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\w.]*\w|\d")   # words, and the digits of names ("topic 21")
_PRONOUNS = frozenset({"it", "they", "this", "these", "that", "those", "its", "their"})
QUANTITY_MARK = "<q>"
_CLAUSE_SPLIT = re.compile(r"[;!?\n]+|\.(?=\s|$)")


@dataclass(frozen=True)
class Statement:
    """One thing a text states. ``kind``: ``q:<quantity kind>`` or ``p:<family>``; a quantity's
    ``[lo, hi]`` and ``bound``, a polarity's ``positive``; ``terms``: subject words; ``left``:
    the stemmed tokens in front of it, in order; ``surface`` as written; ``clause`` it is in."""

    kind: str
    lo: float
    hi: float
    bound: str
    positive: bool
    terms: frozenset[str]
    left: tuple[str, ...]
    surface: str
    clause: str

    @property
    def numeric(self) -> bool:
        return self.kind.startswith("q:")


@dataclass(frozen=True)
class ParsedText:
    """The statements of one text, quantities first, each group in reading order. Parse a
    text once with :func:`parse_text` when comparing it with many others."""

    statements: tuple[Statement, ...]
    names: frozenset[str] = frozenset()   # stems of words capitalised inside a sentence ("Cobalt Backup")
    proper: frozenset[str] = frozenset()  # the names that are words, not acronyms ("cobalt", not "api")
    words: frozenset[str] = frozenset()   # stems of every word of the text

    @property
    def quantities(self) -> tuple[Statement, ...]:
        return tuple(s for s in self.statements if s.numeric)

    @property
    def stances(self) -> tuple[Statement, ...]:
        return tuple(s for s in self.statements if not s.numeric)

    @cached_property
    def quantity_kinds(self) -> frozenset[str]:
        """The kinds of its quantities (a number compares only with one of its kind)."""
        return frozenset(s.kind for s in self.statements if s.numeric)

    @cached_property
    def has_stances(self) -> bool:
        return any(not s.numeric for s in self.statements)


def _is_term(token: str) -> bool:
    if token[:1].isdigit():
        return True           # outside a quantity's span a number names something: part of the subject
    return (len(token) > 1 and token not in FACT_STOP_WORDS and token not in _QUALIFIERS and token not in _NEGATORS
            and token not in _NUMBER_WORDS and token not in UNITS and token not in MONTHS)


def _tokens(text: str) -> list[str]:
    return [stem(w.strip("'’-")) for w in _TOKEN.findall(text) if w.strip("'’-")]


def _terms(tokens: list[str], drop: frozenset[str] = frozenset()) -> frozenset[str]:
    return frozenset(t for t in tokens if _is_term(t) and t not in SOFT and t not in drop)


def _left_window(text: str) -> str:
    window = " ".join(text.split()[-LEFT_WORDS:])
    for mark in (":", "—", " - ", ","):      # "Heads up: refunds are ...", "As our FAQ says, refunds ..."
        if mark in window:
            tail = window.rsplit(mark, 1)[1]
            if _terms(_tokens(tail)):
                return tail
    return window


def _right_window(text: str) -> str:
    return " ".join(re.split(r"[,(]", text, maxsplit=1)[0].split()[:RIGHT_WORDS])


def _unit_words(q: Quantity) -> frozenset[str]:
    """Stems of the words that spell the unit, the rate's denominator and the counted noun."""
    words = set(_tokens(q.surface))
    kinds = q.kind.replace("/", " ").split()
    nouns = {k[2:] for k in kinds if k.startswith("n:")}
    out = {w for w in words if w in UNITS or w.rstrip("s") in UNITS or w in nouns}
    out |= {"per", "each", "every", "a", "an"}
    return frozenset(out)


def _quantity_statements(clause: str) -> list[Statement]:
    found = extract_quantities(clause)
    out = []
    for i, q in enumerate(found):
        start, end = q.span
        left_limit = found[i - 1].span[1] if i else 0
        right_limit = found[i + 1].span[0] if i + 1 < len(found) else len(clause)
        left = _left_window(clause[left_limit:start])
        right = _right_window(clause[end:right_limit])
        unit_words = _unit_words(q)
        modifiers = [t for t in _tokens(q.surface) if t not in unit_words and not t[:1].isdigit()]  # "API" calls
        left_tokens = _tokens(left)
        right_tokens = _tokens(right)
        terms = _terms(left_tokens + right_tokens + modifiers, unit_words)
        out.append(Statement(f"q:{q.kind}", q.lo, q.hi, q.bound, True, terms,
                             tuple(left_tokens + modifiers + [QUANTITY_MARK] + right_tokens), q.surface, clause))
    return out


# --- polarity ---------------------------------------------------------------------------------------
_MARKERS: dict[str, tuple[str, bool]] = {}
for _family, _positive, _negative in (
    ("permission", "allowed permitted authorized authorised may can", "prohibited forbidden disallowed banned "
     "unauthorized unauthorised"),
    ("requirement", "required mandatory must obligatory compulsory", "optional"),
    ("enablement", "enabled", "disabled"),
    ("support", "supported", "unsupported"),
    ("acceptance", "accepted", "rejected refused"),
):
    for _w in _positive.split():
        _MARKERS[_w] = (_family, True)
    for _w in _negative.split():
        _MARKERS[_w] = (_family, False)
# a clause holds a marker word only if its lower case holds the marker's letters (contractions
# only split words): a clause without any is skipped before the rewriting (a fast path, same statements)
_ANY_MARKER = re.compile("|".join(sorted(_MARKERS, key=len, reverse=True)))
_MODALS = frozenset({"can", "may", "must"})
_CONTRACTIONS = ((re.compile(r"\bcannot\b", re.I), "can not"), (re.compile(r"\bcan[’']t\b", re.I), "can not"),
                 (re.compile(r"\bwon[’']t\b", re.I), "will not"), (re.compile(r"n[’']t\b", re.I), " not"),
                 (re.compile(r"\bno longer\b", re.I), "not"))


def _polarity_statements(clause: str) -> list[Statement]:
    if not _ANY_MARKER.search(clause.lower()):
        return []
    text = clause
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    words = [w.lower().strip("'’-") for w in _WORD.findall(text)]
    if not any(w in _MARKERS for w in words):
        return []
    found = extract_quantities(text)
    for q in found:   # a quantity is one token of the subject, not its digits and unit words
        text = text[:q.span[0]] + " " * (q.span[1] - q.span[0]) + text[q.span[1]:]
    tokens = _tokens(text)
    quantity_tokens = frozenset(f"q:{q.bound}:{q.kind}:{q.lo:g}-{q.hi:g}" for q in found)
    terms = _terms(tokens, frozenset(stem(m) for m in _MARKERS) | frozenset(_MARKERS)) | quantity_tokens
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
        out.append(Statement(f"p:{family}", 0.0, 0.0, "", positive != negated, terms, tuple(tokens), phrase,
                             clause))
    return out


@lru_cache(maxsize=16384)
def _clause_statements(clause: str) -> tuple[tuple[Statement, ...], tuple[Statement, ...]]:
    return tuple(_quantity_statements(clause)), tuple(_polarity_statements(clause))


def clauses(text: str) -> list[str]:
    """The clauses of ``text`` (stripped, non-empty)."""
    return [c.strip() for c in _CLAUSE_SPLIT.split(text) if c and c.strip()]


def _carried(statements: tuple[Statement, ...], previous: str) -> tuple[Statement, ...]:
    """Statements of a clause that opens with a pronoun ("It accepts 5000 calls a minute") take
    the subject words of the clause before it ("The Orders API is rate limited")."""
    context = _terms(_tokens(previous))
    return tuple(replace(s, terms=s.terms | context, left=tuple(_tokens(previous)) + s.left) for s in statements)


def parse_text(text: object) -> ParsedText:
    """Every statement of ``text`` (anything but a string is read as ``str(text)``; None as "").
    A clause opening with a pronoun carries the subject words of the clause before it.
    Memoised (pure): the query path meets the same passages again."""
    return _parse("" if text is None else str(text))


@lru_cache(maxsize=8192)
def _parse(text: str) -> ParsedText:
    parts = clauses(text)
    quantities: list[Statement] = []
    stances: list[Statement] = []
    for i, clause in enumerate(parts):
        q, p = _clause_statements(clause)
        first = _WORD.match(clause)
        if i and first and first.group().lower() in _PRONOUNS:
            q, p = _carried(q, parts[i - 1]), _carried(p, parts[i - 1])
        quantities += q
        stances += p
    return ParsedText(tuple(quantities) + tuple(stances), *_names_and_words(parts))


_NAME = re.compile(r"(?<=[A-Za-z0-9,;'’)] )[A-Z][A-Za-z]+|^[A-Z][A-Za-z]+(?= [A-Z])")


def _names_and_words(parts: list[str]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Proper names (words capitalised inside a sentence; a sentence's first word when the next
    one is capitalised too: "Cobalt Backup ..."), the names that are no acronyms, and all words;
    stemmed."""
    names, words = set(), set()
    for clause in parts:
        words.update(stem(w) for w in _WORD.findall(clause))
        for q in extract_quantities(clause):   # "1 GB" names no product
            clause = clause[:q.span[0]] + " " * (q.span[1] - q.span[0]) + clause[q.span[1]:]
        names.update((stem(m.group()), not m.group().isupper()) for m in _NAME.finditer(clause))
    kept = {(n, word) for n, word in names if len(n) > 1 and n not in FACT_STOP_WORDS}
    return frozenset(n for n, _ in kept), frozenset(n for n, word in kept if word), frozenset(words)

