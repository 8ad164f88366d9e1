"""A readers-writer lock: many readers at once, one writer alone (writers first).

The API answers queries in its worker threads at once (each reads one consistent knowledge
state: :class:`~smartvector_core.knowledge.KnowledgeCache` swaps whole snapshots) and runs an
operator's write alone, after the queries in flight and before those that arrive meanwhile (a
waiting writer holds new readers back, so a stream of queries cannot starve it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ReadWriteLock:
    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer: int | None = None    # the thread that holds it to write
        self._depth = 0                    # its nested write holds
        self._waiting = 0                  # writers waiting

    @contextmanager
    def reading(self) -> Iterator[None]:
        me = threading.get_ident()
        if self._writer == me:             # a writer may read what it writes
            yield
            return
        with self._cond:
            while self._writer is not None or self._waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._cond:
            if self._writer == me:
                self._depth += 1
            else:
                self._waiting += 1
                while self._writer is not None or self._readers:
                    self._cond.wait()
                self._waiting -= 1
                self._writer, self._depth = me, 1
        try:
            yield
        finally:
            with self._cond:
                self._depth -= 1
                if not self._depth:
                    self._writer = None
                    self._cond.notify_all()
