"""Quantities stated in a text: the number, its unit normalised to a base, and what is not one.

The one quantity reader of the engine (it replaces the two that disagreed: the blog's conflict
severity and the consolidation agent's contradiction rules). Choices, ours:

- **Value**: an interval ``[lo, hi]`` in the base unit of its kind. A range ("3-5 days") is
  its two ends; a unit of varying length is the range of its lengths (a month is 28–31 days,
  a year 365–366 days, a gigabyte 10^9–2^30 bytes), so "1 month" agrees with "30 days" and
  "1 GB" with "1024 MB", while "1 month" and "14 days" disagree. Scale words multiply:
  "2 million" = 2,000,000, "1.5k" = 1,500; "1,000" reads as 1000.
- **Number words** ("thirty days", "five failed attempts", "twice a day") count with a unit
  or a plural noun; "five times the limit" and "two-factor" are no quantities.
- **Kind**: the dimension, and for a rate its denominator: ``time`` (base: seconds),
  ``data`` (bytes), ``%``, ``usd`` / ``eur`` / ``gbp``, ``business_day``, ``mass`` (kg),
  ``length`` (m), ``n:<noun>`` for a count of things ("1,000 API calls" -> ``n:call``), ``""``
  for a bare number. A rate is ``<kind>/<kind>`` per base unit of the denominator, so
  "100 requests per minute" = "6,000 requests per hour" (``n:request/time``, 1.667 a second).
- **Not quantities**: dates and years ("15 November 2025", "2024-03-15", "in 2019"), clock
  times ("10:30", "9am"), version numbers ("20.19.0", "v3.5", "version 5", "Python 3.11"),
  ordinals ("21st"), numbers glued to letters ("H100", "S3"), and identifiers or counts in
  names: a number right after a label word ("Document number 3", "error code 1900",
  "port 2020", "section 4", "day 20") or right after a name with no unit following it
  ("topic 21", "Windows 11", "HTTP 429").
- **Bound**: "at least" / "minimum" make a lower bound (``min``), "up to" / "at most" /
  "within" / "maximum" / "under" an upper one (``max``); a minimum and a maximum are different
  attributes, never compared.

Every function here is pure and total: any string gives a (possibly empty) tuple.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..temporal.intent import PERIOD_PATTERN
from ..words import FACT_STOP_WORDS

__all__ = ["Quantity", "UNITS", "extract_quantities", "stem"]

# --- the table of units: surface form (lower case) -> (kind, low factor, high factor) -------------
_SECOND, _DAY = 1.0, 86_400.0
_UNIT_ROWS = (
    # kind            factor to base (low, high)        surface forms
    ("time", (0.001, 0.001), "ms millisecond milliseconds msec"),
    ("time", (1.0, 1.0), "s sec secs second seconds"),
    ("time", (60.0, 60.0), "min mins minute minutes"),
    ("time", (3600.0, 3600.0), "h hr hrs hour hours"),
    ("time", (_DAY, _DAY), "d day days calendar-day calendar-days"),
    ("time", (7 * _DAY, 7 * _DAY), "wk wks week weeks"),
    ("time", (28 * _DAY, 31 * _DAY), "mo month months"),
    ("time", (365 * _DAY, 366 * _DAY), "yr yrs year years"),
    ("business_day", (1.0, 1.0), "business-day business-days working-day working-days"),
    ("%", (1.0, 1.0), "% percent pct per-cent"),
    ("usd", (1.0, 1.0), "$ usd dollar dollars"),
    ("usd", (0.01, 0.01), "cent cents"),
    ("eur", (1.0, 1.0), "€ eur euro euros"),
    ("gbp", (1.0, 1.0), "£ gbp"),
    ("data", (1.0, 1.0), "b byte bytes"),
    ("data", (1e3, 2.0 ** 10), "kb kib kilobyte kilobytes"),
    ("data", (1e6, 2.0 ** 20), "mb mib megabyte megabytes"),
    ("data", (1e9, 2.0 ** 30), "gb gib gigabyte gigabytes"),
    ("data", (1e12, 2.0 ** 40), "tb tib terabyte terabytes"),
    ("mass", (0.001, 0.001), "g gram grams"),
    ("mass", (1.0, 1.0), "kg kgs kilogram kilograms kilo kilos"),
    ("mass", (0.45359237, 0.45359237), "lb lbs pound pounds"),
    ("length", (0.01, 0.01), "cm centimetre centimetres centimeter centimeters"),
    ("length", (1.0, 1.0), "metre metres meter meters"),
    ("length", (1000.0, 1000.0), "km kilometre kilometres kilometer kilometers"),
    ("length", (1609.344, 1609.344), "mi mile miles"),
)
UNITS: dict[str, tuple[str, float, float]] = {
    name: (kind, lo, hi) for kind, (lo, hi), names in _UNIT_ROWS for name in names.split()}
_TIME_KINDS = frozenset({"time", "business_day"})
_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "mil": 1e6, "million": 1e6, "b": 1e9,
           "bn": 1e9, "billion": 1e9}
_NOUN_ALIASES = {"req": "request", "reqs": "request", "msg": "message", "msgs": "message", "char": "character",
                 "chars": "character"}
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "eighteen": 18, "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60,
    "ninety": 90, "hundred": 100, "once": 1, "twice": 2,
}

# --- words around a number ------------------------------------------------------------------------
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: a number after one of these names or numbers something; it is not an amount
LABELS = _words("""
section sections step steps version versions v ver release build article chapter page item rule no
number num id code room floor phase tier level grade iso rfc table figure fig appendix clause
paragraph part line issue ticket pr port topic document doc case incident order invoice account
model type status error gate platform route bus flight lane zone region exhibit schedule form
day week month quarter year q episode season volume vol round stage slot seat row unit batch
python node java windows ios android http https api option question chapter kb iphone
""")
#: before a bare number these say "an amount follows" (the number is not a name)
_AMOUNT_WORDS = _words("""
is are was were be been equals equal of to at by from about around approximately roughly nearly
limit limits cap caps quota max maximum min minimum total totals costs cost takes take lasts last
allows allow accepts accept gets get keeps keep receives receive reaches reach exceeds exceed
than under over below above within until least most some only just fee fees price prices rate
""")
MONTHS = _words("""january february march april may june july august september october november
december jan feb mar apr jun jul aug sep sept oct nov dec""")
_MAX_WORDS = (("up", "to"), ("at", "most"), ("no", "more", "than"), ("not", "more", "than"),
              ("less", "than"), ("fewer", "than"), ("within",), ("maximum",), ("max",), ("under",),
              ("below",), ("until",), ("capped", "at"), ("limited", "to"), ("not", "exceed"))
_MIN_WORDS = (("at", "least"), ("no", "less", "than"), ("no", "fewer", "than"), ("more", "than"),
              ("minimum",), ("min",), ("over",), ("above",), ("after",), ("from",), ("starting", "at"))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude, consistent stemmer: lower case, plural and -ed/-ing endings ("refunds" ->
    "refund", "policies" -> "policy", "accepted" -> "accept")."""
    w = word.lower().removesuffix("'s").removesuffix("’s")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "xes", "zes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 5 and w.endswith("ed"):
        return w[:-1] if w.endswith(("ised", "ized", "ared", "ured")) else w[:-2]
    return w


@dataclass(frozen=True)
class Quantity:
    """A number the text states: ``[lo, hi]`` in the base unit of ``kind``, ``bound`` ("", "min",
    "max"), ``surface`` as written and its ``span`` in the text."""

    lo: float
    hi: float
    kind: str
    bound: str
    surface: str
    span: tuple[int, int]

    @property
    def value(self) -> float:
        """The middle of the interval (the value itself when exact)."""
        return (self.lo + self.hi) / 2


# --- masks: what is never a quantity ----------------------------------------------------------------
_MASKS = [re.compile(p, re.I) for p in (
    PERIOD_PATTERN,                                                   # dates and years
    r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b",                            # 15/11/2025, 11-15-25
    r"(?<![\w.])v?\d+(?:\.\d+){2,}\b",                                 # 20.19.0, 10.0.0.1
    r"(?<![\w.])v\d+(?:\.\d+)*\b",                                     # v3.5
    r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?\b)?",           # 10:30, 9:00 pm
    r"(?<![\w.])\d{1,2}\s*[ap]\.?m\.?(?![a-z])",                       # 9am, 5 pm
    r"(?<![\w.])\d+(?:st|nd|rd|th)\b",                                 # 21st
    r"[A-Za-z]+\d[\w]*|#\s?\d+",                                       # H100, S3, IPv6, #12
    r"\b\d+(?:\s+|-)(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b",  # 15 November
)]
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_NUMBER = re.compile(
    rf"(?<![\w.,/])(?P<cur>[$€£])?\s?(?P<a>{_NUM})(?:\s*(?:-|–|to)\s*(?:[$€£])?(?P<b>{_NUM}))?"
    r"(?P<glued>[A-Za-z%]+\b|%)?")
_NUMBER_WORDS = "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True))   # longest first
_WORD_QUANTITY = re.compile(rf"\b(?P<w>{_NUMBER_WORDS})\b", re.I)
_SCALE_AFTER = re.compile(r"\A\s+(?P<w>thousand|million|billion|mn|bn)\b", re.I)
_UNIT_AFTER = re.compile(r"\A(?:\s+|-)(?P<u1>[A-Za-z€$£%][A-Za-z'-]*|%)(?:(?:\s+|-)(?P<u2>[A-Za-z]+))?")
_PER_CENT = re.compile(r"\A\s*(?:%|per\s?cent\b|percent\b|pct\b)", re.I)
_RATE = re.compile(r"\A\s*(?:/\s*|\s(?P<link>per|each|every|an?)\s+)(?P<w>[A-Za-z]+)", re.I)
_PREV_WORD = re.compile(r"(?P<w>[A-Za-z][A-Za-z.'-]*)(?P<gap>\s*)\Z")


_DIGIT = re.compile(r"\d")
_ANY_NUMBER_WORD = re.compile(rf"\b(?:{_NUMBER_WORDS})\b")   # for lower-cased text: no re.I (3x faster)


def _mask(text: str) -> str:
    if not _DIGIT.search(text):   # every mask needs a digit: nothing to blank (a fast path)
        return text
    for mask in _MASKS:
        text = mask.sub(lambda m: " " * len(m.group()), text)
    return text


def _unit(word: str) -> tuple[str, float, float] | None:
    w = word.lower()
    return UNITS.get(w) or UNITS.get(w.rstrip("s") if len(w) > 3 else w)


def _read_unit(rest: str) -> tuple[str, float, float, int]:
    """(kind, low factor, high factor, characters read) of the unit right after a number;
    a count of things is ``n:<head noun>`` ("5 paid seats" -> ``n:seat``); ("", 1, 1, 0) when
    the next word is no unit."""
    m = _UNIT_AFTER.match(rest)
    if not m:
        return "", 1.0, 1.0, 0
    u1, u2 = m.group("u1"), (m.group("u2") or "")
    if u2 and (hit := _unit(f"{u1}-{u2}")):
        return hit[0], hit[1], hit[2], m.end()
    if hit := _unit(u1):
        return hit[0], hit[1], hit[2], m.end("u1")
    low1, low2 = _NOUN_ALIASES.get(u1.lower(), u1.lower()), u2.lower()
    if low1 in FACT_STOP_WORDS or low1 in _AMOUNT_WORDS or low1 in MONTHS or len(low1) < 2:
        return "", 1.0, 1.0, 0
    # a singular modifier then a plural noun: the plural is the thing counted ("API calls")
    if (u2 and low2 not in FACT_STOP_WORDS and not _unit(u2) and low2.endswith("s") and stem(low2) != low2
            and not low1.endswith("s")):
        return "n:" + stem(low2), 1.0, 1.0, m.end("u2")
    return "n:" + stem(low1), 1.0, 1.0, m.end("u1")


def _read_rate(rest: str) -> tuple[str, float, float, int]:
    """The denominator of a rate right after a unit: "per minute" -> ("time", 60, 60, n);
    "/order" -> ("n:order", 1, 1, n). "a"/"an" link only a time ("5000 calls a minute";
    "30 days a refund" is no rate)."""
    m = _RATE.match(rest)
    if not m:
        return "", 1.0, 1.0, 0
    word = m.group("w")
    if hit := _unit(word):
        kind, lo, hi = hit
    elif word.lower() in FACT_STOP_WORDS or len(word) < 2:
        return "", 1.0, 1.0, 0
    else:
        kind, lo, hi = "n:" + stem(word), 1.0, 1.0
    if (m.group("link") or "").lower() in {"a", "an"} and kind not in _TIME_KINDS:
        return "", 1.0, 1.0, 0
    return kind, lo, hi, m.end()


def _bound(before: str) -> str:
    words = tuple(w.lower() for w in re.findall(r"[A-Za-z]+", before[-40:]))
    if words[-1:] == ("of",):                      # "a minimum of 8"
        words = words[:-1]
    for phrases, name in ((_MIN_WORDS, "min"), (_MAX_WORDS, "max")):
        for phrase in phrases:
            if words[-len(phrase):] == phrase:
                return name
    return ""


def _is_name(before: str, number: str, has_unit: bool, has_sign: bool) -> bool:
    """A number that names or numbers something: right after a label word ("section 4"); right
    after a word that is no amount word when no unit follows ("topic 21"); right after a
    capitalised word inside a clause ("Windows 11 machines"), or anywhere when it has a decimal
    point ("PostgreSQL 15.4 hosts"). A currency sign always makes an amount."""
    m = _PREV_WORD.search(before)
    if not m or has_sign:
        return False
    word = m.group("w").lower().rstrip(".")
    if word in LABELS or word in MONTHS:
        return True
    if word in FACT_STOP_WORDS or word in _AMOUNT_WORDS:
        return False
    clause_start = not before[:m.start()].strip() or before[:m.start()].rstrip()[-1] in ".;:!?("
    named = m.group("w")[0].isupper()
    return not has_unit or (named and ("." in number or not clause_start))


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@lru_cache(maxsize=16384)
def extract_quantities(text: str) -> tuple[Quantity, ...]:
    """Every quantity in ``text``, left to right (see the module docstring for the rules).

    >>> [(q.lo, q.kind) for q in extract_quantities("2 million requests per day")]
    [(2000000.0, 'n:request/time')]
    """
    if not isinstance(text, str) or not text:
        return ()
    if text.isascii() and not _DIGIT.search(text) and not _ANY_NUMBER_WORD.search(text.lower()):
        return ()   # a fast path: no digit, no number word (in ASCII, lower case is what re.I matches)
    scratch = _mask(text)
    found: list[Quantity] = []
    for m in _NUMBER.finditer(scratch):
        lo = _number(m.group("a"))
        hi = _number(m.group("b")) if m.group("b") else lo
        end = m.end("a") if m.group("b") is None else m.end("b")
        glued = m.group("glued") or ""
        kind, f_lo, f_hi, scale = "", 1.0, 1.0, 1.0
        if m.group("cur"):
            kind, f_lo, f_hi = UNITS[m.group("cur")]
        if glued == "%":
            kind, end = "%", m.end()
        elif glued.lower() in _SCALES and not (glued == "m" and not m.group("cur")):
            scale, end = _SCALES[glued.lower()], m.end()
        elif glued and (hit := _unit(glued)):
            (kind, f_lo, f_hi), end = hit, m.end()
        elif glued:
            continue                                  # "3x", "2nd"-like glue we do not read
        rest = scratch[end:]
        if s := _SCALE_AFTER.match(rest):
            scale, end = _SCALES[s.group("w").lower()], end + s.end()
        if not kind and (p := _PER_CENT.match(scratch[end:])):
            kind, end = "%", end + p.end()
        if not kind:
            kind, f_lo, f_hi, read = _read_unit(scratch[end:])
            end += read
        plain_int = m.group("b") is None and scale == 1.0 and re.fullmatch(r"\d+", m.group("a"))
        if (_is_name(scratch[:m.start()], m.group("a"), bool(kind), bool(m.group("cur")))
                or (plain_int and not kind and 1900 <= lo <= 2100)):
            continue
        if kind and (rate := _read_rate(scratch[end:]))[3]:
            d_kind, d_lo, d_hi, read = rate
            kind, f_lo, f_hi, end = f"{kind}/{d_kind}", f_lo / d_hi, f_hi / d_lo, end + read
        found.append(Quantity(lo * scale * f_lo, hi * scale * f_hi, kind, _bound(scratch[:m.start()]),
                              text[m.start():end].strip(), (m.start(), end)))
    for m in _WORD_QUANTITY.finditer(scratch):
        word = m.group("w").lower()
        kind, f_lo, f_hi, read = _read_unit(scratch[m.end():])
        counted = kind.startswith("n:") and kind != "n:time" and word != "one" \
            and scratch[m.end():m.end() + read].rstrip().endswith("s")    # "five failed attempts"
        if word in ("once", "twice"):
            kind, f_lo, f_hi, read = "n:time", 1.0, 1.0, 0
        elif not kind or (kind.startswith("n:") and not counted):
            continue                                   # "five times the limit", "two-factor login"
        end = m.end() + read
        if (rate := _read_rate(scratch[end:]))[3]:
            d_kind, d_lo, d_hi, r = rate
            kind, f_lo, f_hi, end = f"{kind}/{d_kind}", f_lo / d_hi, f_hi / d_lo, end + r
        elif word in ("once", "twice"):
            continue
        value = float(_WORD_NUMBERS[word])
        found.append(Quantity(value * f_lo, value * f_hi, kind, _bound(scratch[:m.start()]),
                              text[m.start():end].strip(), (m.start(), end)))
    found.sort(key=lambda q: q.span)
    return tuple(found)
