"""Integer codes for document kinds and validity states, and the missing-time sentinels.

Inside arrays the temporal layer works on int8 codes, not strings, so that every signal is a
few numpy operations. Times are int64 microseconds since the epoch, UTC (``clock.to_us``).
A missing ``valid_from`` is :data:`NO_START` (the smallest int64), a missing ``valid_until``
is :data:`NO_END` (the largest int64), so "no bound" compares the right way without masks.
A moment that is simply absent (no review yet, no ``created_at``) inside arrays that are
subtracted from is :data:`NO_TIME` (-2**62: before any real date, yet ``as_of - NO_TIME`` does
not overflow int64). Any date before 1970 is a real (negative) time, never a sentinel.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..models import DocumentKind, ValidityState

NO_START: int = int(np.iinfo(np.int64).min)
NO_END: int = int(np.iinfo(np.int64).max)
NO_TIME: int = -(2 ** 62)

KIND_CODES: Mapping[DocumentKind, int] = MappingProxyType({
    DocumentKind.STATIC: 0, DocumentKind.VERSIONED: 1, DocumentKind.EVENT: 2,
})
KIND_STATIC, KIND_VERSIONED, KIND_EVENT = 0, 1, 2

STATE_CODES: Mapping[ValidityState, int] = MappingProxyType({
    ValidityState.VALID: 0, ValidityState.TEMPORAL: 1, ValidityState.EXPIRED: 2,
    ValidityState.NOT_YET_VALID: 3,
})
STATE_VALID, STATE_TEMPORAL, STATE_EXPIRED, STATE_NOT_YET_VALID = 0, 1, 2, 3

_KIND_NAMES = np.array([k.value for k in sorted(KIND_CODES, key=KIND_CODES.get)])
_STATE_NAMES = np.array([s.value for s in sorted(STATE_CODES, key=STATE_CODES.get)])


def encode_kinds(kinds: Iterable[object]) -> np.ndarray:
    """Kind names or :class:`DocumentKind` values -> int8 codes (:data:`KIND_CODES`).

    Missing kinds (None / NaN / "") become STATIC: the blog's fallback for documents without
    metadata ("documents without any metadata fall back to STATIC/VALID"). An unknown name
    raises :class:`~smartvector_core.errors.InputError` listing the valid ones.
    """
    values = np.asarray(list(kinds) if not isinstance(kinds, np.ndarray) else kinds, dtype=object).ravel()
    if values.size == 0:
        return np.zeros(0, dtype=np.int8)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    table = np.array([KIND_CODES[DocumentKind.parse(u, field_name="kind")] if str(u).strip() else KIND_STATIC
                      for u in uniques] + [KIND_STATIC], dtype=np.int8)
    return table[np.where(codes < 0, len(uniques), codes)]


def kind_names(codes: np.ndarray) -> np.ndarray:
    """int8 kind codes -> array of kind names ("STATIC", "VERSIONED", "EVENT")."""
    return _KIND_NAMES[np.asarray(codes, dtype=np.intp)]


def state_names(codes: np.ndarray) -> np.ndarray:
    """int8 state codes -> array of :class:`ValidityState` values ("VALID", "TEMPORAL", ...)."""
    return _STATE_NAMES[np.asarray(codes, dtype=np.intp)]
