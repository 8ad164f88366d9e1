"""A run's inputs held by a warm process and caught up per write, not read from the whole store.

A consolidation run (:func:`.runner.consolidate`) reads every document, every current chunk
with its vector and text, each document's centroid, and, for the citation scan, every stored
text that might name a new document (``.neighbours._citation_hits``). At 100k chunks those reads
and their preparation cost seconds, against milliseconds for the work one new document causes
(its chunks' neighbours, its title's versions, its citations). :class:`ConsolidationCache`
keeps them in the process and applies each write instead:

- the rows of the chunks table as *slots* (append-only): LanceDB writes every new or rewritten
  row into a new fragment above every row id already seen (``Store.chunk_rows_after``, the rule
  :meth:`retrieval.text_index.TextIndex.caught_up` relies on), so the rows above the highest row
  id held are the rows written since; each replaces the slot of its chunk id. Deleted rows (the
  table then holds fewer rows than the live slots) or a share of new rows above
  ``CATCH_UP_SHARE`` (a bulk load, a compaction) make it read the table afresh. A merge that
  writes some columns only (``Store.update_doc_fields``: ``lifecycle``, ``superseded_at``) may
  update rows in place, keeping their row ids, so those two columns are read and compared: of
  the documents the commits since name, where this process made every commit since
  (``Store.commits_between``), else of every row (two narrow columns: ~30 ms at 100k rows);
- per document, its :class:`.documents.Documents` row, its first current chunk's columns (the
  row :meth:`Store.documents` returns) and its chunks' vector sum (the centroid before
  normalising), recomputed for the documents a write touched only;
- an inverted index of the current texts' id tokens and words, which gives the citation scan
  the texts that can cite a new id or title (a superset: the scan itself then decides).

The inputs equal the store's: the same documents in the same order (by the scan position of
their first chunk: new rows come after every row read before, as in a scan), the same current
chunks in ``chunk_id`` order (``Store.current_chunks``), the same centroid sums (each
document's chunk vectors added in ``chunk_id`` order, as :func:`.documents.vector_sums` over all chunks does),
so a run on them writes what a run reading the store writes
(tests/consolidation/test_incremental.py compares the two on the same writes).
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass, field, fields
from itertools import chain

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..store.schema import DOC_COLUMNS, vector_matrix
from .documents import Documents, vector_sums
from .neighbours import _ID_TOKEN, _WORDS, citable_id

CATCH_UP_SHARE = 0.5   # ours, as TextIndex's: past this share of new rows the table is read afresh
CATCH_UP_ROUNDS = 3    # ours, as TextIndex's: reads while another process keeps committing, before a full read
_SLOT_COLUMNS = list(dict.fromkeys([*DOC_COLUMNS, "ordinal", "chunk_id"]))
_READ_COLUMNS = [*_SLOT_COLUMNS, "text", "current", "vector"]
UPDATED_IN_PLACE = ("lifecycle", "superseded_at")   # what Store.update_doc_fields writes


class RowView:
    """Rows of a kept matrix in a run's order, gathered only where read: ``view[rows]`` is
    ``data[slots[rows]]`` (normalised per row when ``unit``: ``x / max(|x|, 1e-12)``, the
    runner's centroid rule, the same float32 operations on each row as over the whole matrix).
    ``row_of[slot]``: the run row of a slot, -1 for a slot the run does not hold (a retired
    or replaced chunk). Saves the copy of every vector into the run's order (150 MB at 100k
    chunks: 0.15 s wall on this machine) where a run reads a few rows and one product over
    all (:func:`.neighbours.top_neighbours`)."""

    def __init__(self, data: np.ndarray, slots: np.ndarray, *, unit: bool = False) -> None:
        self.data, self.slots, self.unit = data, slots, unit
        self.shape = (len(slots), data.shape[1])
        self.dtype = data.dtype
        self.row_of = np.full(len(data), -1, np.int64)
        self.row_of[slots] = np.arange(len(slots))

    def __len__(self) -> int:
        return len(self.slots)

    def __getitem__(self, rows) -> np.ndarray:
        out = self.data[self.slots[rows]]
        if self.unit:
            out = out / np.maximum(np.linalg.norm(out, axis=-1, keepdims=True), 1e-12)
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self[np.arange(len(self.slots))]
        return out if dtype is None else out.astype(dtype)


@dataclass
class RunInputs:
    """What one run reads, as :meth:`Store.documents` and :meth:`Store.current_chunks` give it:
    ``doc_table`` and ``docs`` (one row per document, store order), the current chunks in
    ``chunk_id`` order (``chunk_doc``: each one's row of ``docs``; ``chunk_doc_ids``,
    ``texts``, ``vectors``: a :class:`RowView`), each document's unit centroid (``centroids``,
    a :class:`RowView` over the chunk vector sums, rows of ``docs``), and
    ``citation_rows(ids, titles)``: the chunk rows whose text holds one of ``ids`` as an id
    token or every word of one of ``titles``."""

    doc_table: pa.Table
    docs: Documents
    chunk_doc: np.ndarray
    chunk_doc_ids: np.ndarray
    texts: np.ndarray
    vectors: RowView
    centroids: RowView
    citation_rows: object
    id_like: list = field(default_factory=list)       # the ids a text can cite (``citable_id``)
    title_words: list = field(default_factory=list)   # each distinct title's words


def _id_tokens(text: str) -> set[str]:
    """The id tokens of ``text`` as the citation scan reads them (``_ID_TOKEN``, trailing
    ``.:/-`` stripped)."""
    return {t.rstrip(".:/-") for t in _ID_TOKEN.findall(text)}


def _word_tokens(text: str) -> set[str]:
    return set(_WORDS.findall(text.lower()))


def _docs_concat(parts: list[Documents]) -> Documents:
    return Documents(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Documents)})


def _docs_take(docs: Documents, rows: np.ndarray) -> Documents:
    return Documents(**{f.name: getattr(docs, f.name)[rows] for f in fields(Documents)})


class _Grown:
    """An (n, dim) float32 array that grows by appends (capacity doubled)."""

    def __init__(self, dim: int) -> None:
        self.data = np.zeros((0, dim), np.float32)
        self.n = 0

    def append(self, rows: np.ndarray) -> None:
        need = self.n + len(rows)
        if need > len(self.data):
            grown = np.zeros((max(need, 2 * len(self.data), 1024), self.data.shape[1]), np.float32)
            grown[:self.n] = self.data[:self.n]
            self.data = grown
        self.data[self.n:need] = rows
        self.n = need

    def view(self) -> np.ndarray:
        return self.data[:self.n]


class ConsolidationCache:
    """The inputs of a run over one store, caught up per write (see the module docstring).
    Thread-safe: :meth:`inputs` catches up under a lock."""

    def __init__(self, *, chunks: bool = True) -> None:
        """``chunks=False``: the documents only (:meth:`documents`: no texts, vectors, sums or
        citation index are held)."""
        self._lock = threading.Lock()
        self._dim = 0
        self._chunks = chunks
        self._columns = _READ_COLUMNS if chunks else [c for c in _READ_COLUMNS if c not in ("text", "vector")]
        self._reset()

    def _reset(self) -> None:
        self._top = -1                         # highest row id held
        self._seq = 0                          # next scan position
        self.row_id = np.zeros(0, np.int64)    # per slot
        self.order = np.zeros(0, np.int64)     # per slot: its scan position
        self.chunk_id = np.zeros(0, object)
        self.doc_id = np.zeros(0, object)
        self.slot_code = np.zeros(0, np.int64)      # per slot: its document's code (code_of)
        self.code_of: dict[str, int] = {}           # doc id -> a number of its own, never reused
        self.text = np.zeros(0, object)
        self.ordinal = np.zeros(0, np.int64)
        self.current = np.zeros(0, bool)
        self.alive = np.zeros(0, bool)         # the row is in the table now
        self.columns: pa.Table | None = None   # per slot: _SLOT_COLUMNS
        self.vectors = _Grown(self._dim)
        self.slot_of: dict[str, int] = {}      # chunk id -> its live slot
        self.doc_slots: dict[str, list[int]] = {}
        self.sorted_slots = np.zeros(0, np.int64)   # live current slots by chunk_id
        self.id_post: dict[str, array] = {}
        self.word_post: dict[str, array] = {}
        # per document slot (append-only; a touched document gets a new one)
        self.docs: Documents | None = None
        self.doc_first = np.zeros(0, np.int64)      # its first current chunk's slot
        self.doc_code = np.zeros(0, np.int64)       # its code (code_of)
        self.doc_alive = np.zeros(0, bool)
        self.doc_sums = _Grown(self._dim)
        self.doc_slot_of: dict[str, int] = {}
        self.id_like: set[str] = set()                      # live document ids a text can cite
        self.title_words: dict[tuple[str, ...], int] = {}   # live documents per title's words
        self.reads = 0                              # fresh reads of the table (tests)
        self.field_scans = 0                        # reads of the in-place fields of every row (tests)
        self._version = -1                          # the chunks table's version caught up to

    # ------------------------------------------------------------------------------ catch up
    def inputs(self, store) -> RunInputs:
        """The run's inputs as of the store now."""
        with self._lock:
            self._catch_up(store)
            return self._run_inputs()

    def documents(self, store) -> pa.Table:
        """:meth:`Store.documents` as of the store now (the same rows, columns and order)."""
        with self._lock:
            self._catch_up(store)
            if not len(self.doc_first):
                return store.documents()
            live = self._live_docs()
            return self.columns.take(pa.array(self.doc_first[live]))

    def _catch_up(self, store) -> None:
        if self._dim != store.dim:
            self._dim = store.dim
            self._reset()
        version = store.version("chunks")   # before the reads: a commit after it is seen next time
        if version == self._version:
            return
        if not self._caught_up(store, version):
            self._reset()
            self.reads += 1
            self._apply(store.chunk_rows(self._columns))
        self._version = version

    def _live_docs(self) -> np.ndarray:
        live = np.flatnonzero(self.doc_alive)
        return live[np.argsort(self.order[self.doc_first[live]], kind="stable")]

    def _caught_up(self, store, version: int) -> bool:
        if self.columns is None:
            return False
        most = int(CATCH_UP_SHARE * max(int(self.alive.sum()), 1)) + 1
        for _ in range(CATCH_UP_ROUNDS):   # TextIndex.caught_up's rule: a commit between read and count is read too
            rows = store.chunk_rows_after(self._top, self._columns, limit=most + 1)
            if rows.num_rows > most:
                return False
            if rows.num_rows:
                self._apply(rows)
            live, table_rows = int(self.alive.sum()), store.count_rows("chunks")
            if live >= table_rows:
                break
        if live != table_rows:   # rows deleted outright, or another writer faster than the reads
            return False
        changed = store.commits_between(self._version, version)
        if changed is None:   # a commit not of this process's: any row may have changed in place
            self.field_scans += 1
            return self._fields_patched(store.chunk_rows(list(UPDATED_IN_PLACE)))
        return self._fields_patched(store.chunk_rows(list(UPDATED_IN_PLACE), sorted(changed))) if changed else True

    def _fields_patched(self, rows: pa.Table) -> bool:
        """Apply the document fields LanceDB updated in place (``Store.update_doc_fields`` writes a
        subset of the columns; the rows keep their row ids): ``rows``, the fields and ``_rowid``
        of every row that may have changed, are compared with the slots of the same row ids.
        False when a row id is not held (only a fresh read knows)."""
        row_id = rows.column("_rowid").to_numpy().astype(np.int64)
        by_id = np.argsort(self.row_id, kind="stable")
        at = np.searchsorted(self.row_id[by_id], row_id)
        at = np.minimum(at, len(by_id) - 1)
        if not len(by_id) or (self.row_id[by_id[at]] != row_id).any():
            return False
        slots = by_id[at]
        changed = np.zeros(len(slots), bool)
        for name in UPDATED_IN_PLACE:
            held = self.columns.column(name).take(pa.array(slots))
            fresh = rows.column(name).cast(held.type)
            differ = pc.fill_null(pc.not_equal(held, fresh), False).to_numpy(zero_copy_only=False).astype(bool)
            nulls = pc.is_null(held).to_numpy(zero_copy_only=False) != pc.is_null(fresh).to_numpy(zero_copy_only=False)
            changed |= differ | nulls
        if not changed.any():
            return True
        where = slots[changed]
        mask = np.zeros(len(self.row_id), bool)
        mask[where] = True
        for name in UPDATED_IN_PLACE:
            values = np.full(len(self.row_id), None, object)
            values[where] = rows.column(name).take(pa.array(np.flatnonzero(changed))).to_pylist()
            i = self.columns.schema.get_field_index(name)
            column = self.columns.column(i).combine_chunks()
            patched = pc.replace_with_mask(column, pa.array(mask),
                                           pa.array(values[where].tolist(), type=column.type))
            self.columns = self.columns.set_column(i, self.columns.schema.field(i), patched)
        self._touch(set(self.doc_id[where].tolist()))
        return True

    def _apply(self, rows: pa.Table) -> None:
        """Append ``rows`` (columns of ``_READ_COLUMNS`` and ``_rowid``) as new slots, each
        replacing the live slot of its chunk id; then rebuild the touched documents."""
        m, start = rows.num_rows, len(self.row_id)
        if self.columns is None:
            self.columns = rows.select(_SLOT_COLUMNS).slice(0, 0)
        if m == 0:
            self._touch(set())
            return
        chunk_id = np.asarray(rows.column("chunk_id").to_pylist(), dtype=object)
        doc_id = np.asarray(rows.column("doc_id").to_pylist(), dtype=object)
        text = (np.asarray(rows.column("text").fill_null("").to_pylist(), dtype=object) if self._chunks
                else np.full(m, "", dtype=object))
        current = rows.column("current").fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
        touched = set(doc_id.tolist())
        dead = [self.slot_of[c] for c in chunk_id.tolist() if c in self.slot_of]
        alive = np.r_[self.alive, np.ones(m, bool)]
        if dead:
            alive[dead] = False
            touched.update(self.doc_id[dead].tolist())
        self.alive = alive
        self.row_id = np.r_[self.row_id, rows.column("_rowid").to_numpy().astype(np.int64)]
        self.order = np.r_[self.order, np.arange(self._seq, self._seq + m)]
        self._seq += m
        self._top = int(self.row_id.max())
        self.chunk_id = np.r_[self.chunk_id, chunk_id]
        self.doc_id = np.r_[self.doc_id, doc_id]
        self.slot_code = np.r_[self.slot_code, np.fromiter(
            (self.code_of.setdefault(d, len(self.code_of)) for d in doc_id.tolist()), np.int64, m)]
        self.text = np.r_[self.text, text]
        self.ordinal = np.r_[self.ordinal, rows.column("ordinal").fill_null(0).to_numpy(zero_copy_only=False)]
        self.current = np.r_[self.current, current]
        self.columns = pa.concat_tables([self.columns, rows.select(_SLOT_COLUMNS).cast(self.columns.schema)])
        if self._chunks:
            self.vectors.append(vector_matrix(rows.column("vector")))
        for k, (c, d) in enumerate(zip(chunk_id.tolist(), doc_id.tolist(), strict=True)):
            slot = start + k
            self.slot_of[c] = slot
            self.doc_slots.setdefault(d, []).append(slot)
            if current[k] and self._chunks:
                self._index_text(slot, text[k])
        if self._chunks:
            self._resort(start, dead)
        self._touch(touched)

    def _index_text(self, slot: int, text: str) -> None:
        for token in _id_tokens(text):
            self.id_post.setdefault(token, array("q")).append(slot)
        for word in _word_tokens(text):
            self.word_post.setdefault(word, array("q")).append(slot)

    def _resort(self, start: int, dead: list[int]) -> None:
        """``sorted_slots`` without the dead slots, with the new live current ones in place."""
        kept = self.sorted_slots[self.alive[self.sorted_slots]] if dead else self.sorted_slots
        new = np.arange(start, len(self.row_id))
        new = new[self.current[new] & self.alive[new]]
        if not len(new):
            self.sorted_slots = kept
            return
        new = new[np.argsort(self.chunk_id[new], kind="stable")]   # str order: UTF-8 byte order, as Arrow sorts
        place = np.searchsorted(self.chunk_id[kept], self.chunk_id[new])
        self.sorted_slots = np.insert(kept, place, new)

    def _touch(self, doc_ids: set) -> None:
        """New document slots for ``doc_ids`` (their first current chunk, Documents row and
        chunk vector sum); the old ones die."""
        old = [self.doc_slot_of.pop(d) for d in doc_ids if d in self.doc_slot_of]
        if old:
            self.doc_alive[old] = False
            if self._chunks:
                self.id_like.difference_update(doc_ids)
                for title in self.docs.titles[old].tolist():
                    words = tuple(title.split())
                    self.title_words[words] -= 1
                    if not self.title_words[words]:
                        del self.title_words[words]
        lists = [self.doc_slots[d] for d in doc_ids if d in self.doc_slots]
        slots = np.fromiter(chain.from_iterable(lists), np.int64) if lists else np.zeros(0, np.int64)
        slots = slots[self.alive[slots] & self.current[slots]]
        if not len(slots):
            return
        codes, names = pd.factorize(self.doc_id[slots], sort=True)
        # Store.documents: per document its lowest ordinal, the earlier scan position among equals
        by_first = np.lexsort((self.order[slots], self.ordinal[slots], codes))
        lead = np.r_[True, codes[by_first][1:] != codes[by_first][:-1]]
        firsts = slots[by_first[lead]]                  # per document, in the order of ``names``
        n0 = len(self.doc_first)
        self.doc_first = np.r_[self.doc_first, firsts]
        self.doc_code = np.r_[self.doc_code, self.slot_code[firsts]]
        self.doc_alive = np.r_[self.doc_alive, np.ones(len(names), bool)]
        self.doc_slot_of.update(zip(names.tolist(), range(n0, n0 + len(names)), strict=True))
        if not self._chunks:
            return
        new_docs = Documents.from_table(self.columns.take(pa.array(firsts)))
        self.docs = new_docs if self.docs is None else _docs_concat([self.docs, new_docs])
        self.id_like.update(d for d in names.tolist() if citable_id(d))
        for title in new_docs.titles.tolist():
            words = tuple(title.split())
            self.title_words[words] = self.title_words.get(words, 0) + 1
        rank = np.zeros(len(self.row_id), np.int64)      # place in chunk_id order (the run's order)
        rank[self.sorted_slots] = np.arange(len(self.sorted_slots))
        by_id = np.argsort(rank[slots], kind="stable")   # chunk_id order, as the run's (vector_sums groups them)
        self.doc_sums.append(vector_sums(codes[by_id], self.vectors.view()[slots[by_id]], len(names)))

    # ------------------------------------------------------------------------------ the run's view
    def _run_inputs(self) -> RunInputs:
        if self.docs is None:
            empty = self.columns.slice(0, 0) if self.columns is not None else pa.table({})
            none = np.zeros(0, np.int64)
            vectors = RowView(np.zeros((0, self._dim), np.float32), none)
            return RunInputs(empty, Documents.of([]), none, np.zeros(0, object), np.zeros(0, object),
                             vectors, vectors, lambda ids, titles: none)
        live = self._live_docs()
        slots = self.sorted_slots
        vectors = RowView(self.vectors.view(), slots)
        row_of = vectors.row_of
        alive = self.alive
        code_row = np.full(len(self.code_of), -1, np.int64)   # a live document's code -> its row
        code_row[self.doc_code[live]] = np.arange(len(live))

        def citation_rows(ids, titles) -> np.ndarray:
            found = [np.frombuffer(self.id_post[d], np.int64) for d in ids if d in self.id_post]
            for title in titles:
                words = set(title)
                posts = [self.word_post.get(w) for w in words]
                if not posts or any(p is None for p in posts):
                    continue
                held = np.zeros(len(alive), np.int64)   # per slot: how many of the title's words it holds
                for p in posts:
                    held[np.frombuffer(p, np.int64)] += 1   # a text's words are distinct: no repeats
                found.append(np.flatnonzero(held == len(words)))
            if not found:
                return np.zeros(0, np.int64)
            hit = np.unique(np.concatenate(found))
            hit = row_of[hit[alive[hit]]]
            return np.sort(hit[hit >= 0])

        return RunInputs(
            doc_table=self.columns.take(pa.array(self.doc_first[live])), docs=_docs_take(self.docs, live),
            chunk_doc=code_row[self.slot_code[slots]], chunk_doc_ids=self.doc_id[slots], texts=self.text[slots],
            vectors=vectors, centroids=RowView(self.doc_sums.view(), live, unit=True), citation_rows=citation_rows,
            id_like=sorted(self.id_like), title_words=list(self.title_words))
