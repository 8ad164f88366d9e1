"""The same statement with a different value: evidence that a newer text replaces an older one.

Two texts are compared as word tokens (``\\w+`` runs and single punctuation marks, compared
case-blind). Take the longest common prefix and, from what is left, the longest common suffix;
what remains on each side is that side's *value*. The texts state the same thing with a different
value when

- both values are non-empty (a value changed; a text that only adds or drops words is not this),
- each value is at most ``MAX_VALUE_TOKENS`` tokens,
- the shared tokens (prefix + suffix) are at least ``MIN_SHARED_TOKENS`` and at least
  ``MIN_SHARED_SHARE`` of the longer text's tokens (the statement around the value is the same),
The kind of the new value is named in the evidence (:func:`value_kind`): "Who is the mayor?
A. Smith." -> "... B. Jones." (a name), "semi final ... ? 1990." -> "... ? 2018." (a date),
"limit: 100 requests" -> "limit: 1000 requests" (a number), "... governor? Democratic." ->
"... republican." (wording). Words only added ("allowed" -> "not allowed") leave one value empty:
that is a change of statement, not of value.

Worked example: "When did England last reach the semi final? 1990." against "... ? 2018.":
tokens ``when did england last reach the semi final ? 1990 .`` and ``... ? 2018 .``; prefix 9
tokens, suffix 1 (``.``), values ``1990`` and ``2018``; shared 10 of 11 (0.91 >= 0.5): a date
changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..config.consolidation import DEFAULT_CONSOLIDATION
from .quantities import MONTHS

# a value spans at most MAX_VALUE_TOKENS tokens (a name, a date, a number with its unit, a short
# list of names); the unchanged statement is at least MIN_SHARED_SHARE of the longer text (ours;
# set in ConsolidationConfig: changed_value_tokens, changed_value_shared)
MAX_VALUE_TOKENS = DEFAULT_CONSOLIDATION.changed_value_tokens
MIN_SHARED_SHARE = DEFAULT_CONSOLIDATION.changed_value_shared
MIN_SHARED_TOKENS = 3     # ours

_TOKEN = re.compile(r"\w+|[^\w\s]")
_YEAR = re.compile(r"^(?:1[5-9]|20)\d\d(?:s)?$")
_DIGIT = re.compile(r"\d")
_NUMBER_WORDS = frozenset({"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                           "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                           "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                           "eighty", "ninety", "hundred", "thousand", "million", "billion", "once", "twice"})
_MONTH_WORDS = frozenset(m.lower() for m in MONTHS) - {"may"}   # "may" is mostly the verb


@dataclass(frozen=True)
class ValueChange:
    """``old`` -> ``new``: the values that differ, ``kind`` of the new value, ``shared`` tokens."""

    old: str
    new: str
    kind: str          # "date", "number", "name" or "wording" (:func:`value_kind`)
    shared: int

    def evidence(self) -> str:
        return f"the same statement with a different {self.kind} ('{self.old}' -> '{self.new}')"


def value_kind(tokens: list[str]) -> str:
    """``date`` (a year, a month name), ``number`` (a digit or a number word), ``name`` (a
    capitalised word or an acronym), else ``wording``."""
    lower = [t.lower() for t in tokens]
    if any(_YEAR.match(t) for t in lower) or _MONTH_WORDS & set(lower):
        return "date"
    if any(_DIGIT.search(t) for t in tokens) or _NUMBER_WORDS & set(lower):
        return "number"
    if any(t[:1].isupper() for t in tokens if t[:1].isalpha()):
        return "name"
    return "wording"


def changed_value(old_text: str, new_text: str, *, max_value_tokens: int = MAX_VALUE_TOKENS,
                  min_shared_share: float = MIN_SHARED_SHARE) -> ValueChange | None:
    """The value change from ``old_text`` to ``new_text`` (module docstring), or None."""
    a, b = _TOKEN.findall(str(old_text or "")), _TOKEN.findall(str(new_text or ""))
    la, lb = [t.lower() for t in a], [t.lower() for t in b]
    limit = min(len(a), len(b))
    prefix = 0
    while prefix < limit and la[prefix] == lb[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and la[-1 - suffix] == lb[-1 - suffix]:
        suffix += 1
    old, new = a[prefix:len(a) - suffix], b[prefix:len(b) - suffix]
    shared = prefix + suffix
    if not old or not new or max(len(old), len(new)) > max_value_tokens:
        return None
    if shared < MIN_SHARED_TOKENS or shared < min_shared_share * max(len(a), len(b)):
        return None
    return ValueChange(" ".join(old), " ".join(new), value_kind(new), shared)
