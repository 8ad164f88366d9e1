"""Facts stated in texts: quantities, statements with subjects, and contradictions between them.

One home for reading what a text states (DESIGN.md, "Trust model"): :mod:`.quantities` (numbers
with units normalised, and what is not a quantity), :mod:`.statements` (subject, kind, value or
polarity), :mod:`.compare` (same subject, disagreement, contradictions), :mod:`.severity` (the
blog's conflict severity between versions), :mod:`.rules` (same time, and the less-trusted-side
rule shared by the consolidation agent and the query-time demotion).
"""

from .compare import (
    DEFAULT_TOLERANCE,
    Contradiction,
    PairVerdict,
    classify_pair,
    contradictions_between,
    disagree,
    find_contradiction,
    find_contradictions,
    same_subject,
)
from .quantities import UNITS, Quantity, extract_quantities
from .severity import Conflict, QuantityChange, conflict_severity
from .statements import ParsedText, Statement, parse_text

__all__ = [
    "DEFAULT_TOLERANCE", "UNITS", "Conflict", "Contradiction", "PairVerdict", "ParsedText", "Quantity",
    "QuantityChange", "Statement", "classify_pair", "conflict_severity", "contradictions_between", "disagree", "extract_quantities", "find_contradiction",
    "find_contradictions", "parse_text", "same_subject",
]
