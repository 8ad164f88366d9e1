"""Facades over parts: a method of a facade class that calls the same method of one of the
parts it holds (:class:`smartvector_core.store.Store` over the store's parts,
:class:`smartvector_core.service.SmartVector` over the service's)."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def delegate(part: str, method: F) -> F:
    """A method of the facade that calls ``method`` on the part held in ``self.<part>``, with the
    part method's name, signature and docstring (``help(Store.search)`` shows them)."""
    held = operator.attrgetter(part)

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        return method(held(self), *args, **kwargs)
    return call  # type: ignore[return-value]
