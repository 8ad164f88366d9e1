"""Citations found in older texts when the document they name arrives (consolidation's scan of
the texts that are not new), and the report of a run with nothing to do."""

from __future__ import annotations

from tests.conftest import NOW

CITED = "limits_v9"


def _notes(n: int, citing: set[int]) -> list[dict]:
    """``n`` short notes; those in ``citing`` open with the id of a document not yet ingested."""
    return [{"id": f"note_{i:02d}", "text": (f"{CITED} sets the quota. " if i in citing else "") + f"Note {i} on snow.",
             "created_at": "2026-01-01T00:00:00Z"} for i in range(n)]


def _depends_on(app) -> set[tuple[str, str]]:
    edges = app.store.edges().to_pylist()
    return {(e["src"], e["dst"]) for e in edges if e["edge_type"] == "DEPENDS_ON"}


def test_every_older_text_that_names_a_new_id_depends_on_it(fake_app):
    """The first text (the id at offset 0 of the joined texts), one in the middle and the last
    one cite the newcomer; short texts make any drift in the text offsets land on a wrong row."""
    citing = {0, 17, 39}
    fake_app.ingest_records(_notes(40, citing), now=NOW)
    assert not _depends_on(fake_app)          # the cited document does not exist yet
    fake_app.ingest_records([{"id": CITED, "text": "API calls are limited to 300 requests per minute.",
                              "created_at": "2026-02-01T00:00:00Z"}], now=NOW)
    assert _depends_on(fake_app) == {(f"note_{i:02d}", CITED) for i in citing}


def test_a_run_with_nothing_to_do_reports_zeros(fake_app):
    report = fake_app.consolidate(now=NOW)
    assert {k: report[k] for k in ("supersessions", "contradictions", "dependencies", "archived", "dormant")} == {
        "supersessions": 0, "contradictions": 0, "dependencies": 0, "archived": 0, "dormant": 0}
