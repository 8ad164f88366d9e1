"""A one-word edit re-embeds one chunk and keeps every other chunk's row (issue 20).

Row identity of an unchanged chunk is its ``chunk_id`` (document id + content hash +
occurrence), its vector and its ``ingested_at`` (when its data landed): an edit elsewhere in the
document leaves all three as they were; only the edited paragraph gets a new row, ingested at
the edit, and its old row is kept, retired at the edit.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from tests.conftest import NOW

FIRST, EDIT = NOW - timedelta(days=30), NOW
FULL = ("The archive team checks this class at the end of each quarter and records the outcome. " * 9).strip()
PARAGRAPHS = [f"Section {i}: the retention period for archive class {i} is {i + 10} days in every region. " + FULL
              for i in range(12)]                     # each as long as the chunk target: one chunk each
DOC = {"id": "handbook", "kind": "STATIC", "doc_type": "reference", "created_at": "2025-01-01"}


def _rows(app, *, current_only: bool) -> dict[str, dict]:
    table = app.store.chunks_for_docs(["handbook"], current_only=current_only, with_vectors=True)
    return {r["chunk_id"]: r for r in table.to_pylist()}


def test_one_word_edit_keeps_the_unchanged_rows_and_their_ingested_at(fake_app):
    fake_app.ingest_records([{**DOC, "text": "\n\n".join(PARAGRAPHS)}], now=FIRST)
    before = _rows(fake_app, current_only=True)
    assert len(before) == len(PARAGRAPHS)
    edited = PARAGRAPHS.copy()
    edited[5] = edited[5].replace("every", "each")
    report = fake_app.ingest_records([{**DOC, "text": "\n\n".join(edited)}], now=EDIT)
    assert (report.chunks_embedded, report.chunks_reused, report.chunks_retired) == (1, 11, 1)

    after = _rows(fake_app, current_only=True)
    old_text = {r["text"]: cid for cid, r in before.items()}
    gone = old_text[PARAGRAPHS[5]]
    kept = set(before) - {gone}
    assert kept <= set(after)                                   # same chunk ids
    for cid in kept:
        assert after[cid]["ingested_at"] == before[cid]["ingested_at"] == FIRST
        assert np.array_equal(np.asarray(after[cid]["vector"]), np.asarray(before[cid]["vector"]))
        assert after[cid]["text"] == before[cid]["text"]
    (new_id,) = set(after) - kept
    assert after[new_id]["text"] == edited[5] and after[new_id]["ingested_at"] == EDIT
    assert gone not in after

    every = _rows(fake_app, current_only=False)
    assert len(every) == len(PARAGRAPHS) + 1                    # no duplicate rows for kept chunks
    assert every[gone]["current"] is False and every[gone]["retired_at"] == EDIT
    assert every[gone]["ingested_at"] == FIRST


def test_reingesting_the_same_text_changes_no_row(fake_app):
    doc = {**DOC, "text": "\n\n".join(PARAGRAPHS)}
    fake_app.ingest_records([doc], now=FIRST)
    before = _rows(fake_app, current_only=False)
    report = fake_app.ingest_records([doc], now=EDIT)
    assert report.unchanged == ["handbook"] and report.chunks_embedded == 0
    after = _rows(fake_app, current_only=False)
    assert {c: r["ingested_at"] for c, r in after.items()} == {c: r["ingested_at"] for c, r in before.items()}
