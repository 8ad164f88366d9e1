"""Precision and recall of the contradiction classifier on labelled statement pairs.

The set (``data/eval/contradiction_pairs.jsonl``, ours, hand-written) holds one pair a line:
``{"a": str, "b": str, "same_subject": bool, "contradicts": bool, "note": str}``. It covers
different-entity near-duplicates, unit conversions that agree and that do not, identifiers and
counts in names, version numbers, dates, polarity, tolerance, paraphrases of one value and
different attributes of one entity.

For the ``contradicts`` label: precision = TP / (TP + FP), recall = TP / (TP + FN) (1.0 when
the denominator is 0); the same for ``same_subject``. The errors are listed for reading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import InputError
from ...facts import classify_pair
from ...settings import REPO_ROOT

DEFAULT_PAIRS = REPO_ROOT / "data" / "eval" / "contradiction_pairs.jsonl"
_FIELDS = {"a": str, "b": str, "same_subject": bool, "contradicts": bool}


@dataclass(frozen=True)
class PairScores:
    """Scores of one label; ``errors``: (line, note, expected, found) of each miss."""

    n: int
    tp: int
    fp: int
    fn: int
    errors: tuple[tuple[int, str, bool, bool], ...] = field(default=())

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def load_pairs(path: str | Path = DEFAULT_PAIRS) -> list[dict]:
    """The labelled pairs of ``path``; a malformed line is an :class:`InputError` naming it."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"expected a JSON object, found {line[:40]!r} ({exc.msg})", file=str(path),
                                 line=number) from exc
            for name, kind in _FIELDS.items():
                if not isinstance(row.get(name), kind):
                    raise InputError(f"expected {kind.__name__}, found {row.get(name)!r}", file=str(path),
                                     line=number, field=name)
            rows.append({**row, "line": number})
    return rows


def _scores(rows: list[dict], label: str, found: list[bool]) -> PairScores:
    tp = fp = fn = 0
    errors = []
    for row, got in zip(rows, found, strict=True):
        want = row[label]
        tp += want and got
        fp += got and not want
        fn += want and not got
        if want != got:
            errors.append((row["line"], row.get("note", ""), want, got))
    return PairScores(len(rows), tp, fp, fn, tuple(errors))


def score_pairs(path: str | Path = DEFAULT_PAIRS) -> dict[str, PairScores]:
    """``{"contradicts": PairScores, "same_subject": PairScores}`` of :func:`facts.classify_pair`."""
    rows = load_pairs(path)
    verdicts = [classify_pair(row["a"], row["b"]) for row in rows]
    return {"contradicts": _scores(rows, "contradicts", [v.contradicts for v in verdicts]),
            "same_subject": _scores(rows, "same_subject", [v.same_subject for v in verdicts])}
