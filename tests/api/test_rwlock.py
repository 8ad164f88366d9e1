"""The API's readers-writer lock: readers overlap, a writer runs alone and is not starved."""

from __future__ import annotations

import threading

from smartvector_core.api.rwlock import ReadWriteLock

WAIT = 5.0


def test_readers_hold_it_together():
    lock, inside, go = ReadWriteLock(), threading.Barrier(3, timeout=WAIT), threading.Event()

    def reader():
        with lock.reading():
            inside.wait()     # all three readers are inside at once, or the barrier breaks
            go.wait(WAIT)
    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    go.set()
    for t in threads:
        t.join(WAIT)
    assert not inside.broken


def test_a_writer_waits_for_readers_and_holds_new_readers_back():
    lock, log = ReadWriteLock(), []
    reading, release = threading.Event(), threading.Event()

    def first_reader():
        with lock.reading():
            reading.set()
            release.wait(WAIT)
            log.append("reader 1 out")

    def writer():
        with lock.writing():
            log.append("writer")
            with lock.reading():     # a writer may read what it writes
                log.append("writer reads")

    def late_reader():
        with lock.reading():
            log.append("reader 2")
    r1 = threading.Thread(target=first_reader)
    r1.start()
    reading.wait(WAIT)
    w = threading.Thread(target=writer)
    w.start()
    while not lock._waiting:        # the writer is queued behind reader 1
        threading.Event().wait(0.001)
    r2 = threading.Thread(target=late_reader)
    r2.start()
    threading.Event().wait(0.05)
    assert log == []                 # the writer waits for reader 1; reader 2 waits for the writer
    release.set()
    for t in (r1, w, r2):
        t.join(WAIT)
    assert log == ["reader 1 out", "writer", "writer reads", "reader 2"]
