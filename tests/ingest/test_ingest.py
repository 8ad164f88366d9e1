"""Ingest: validation before any write, chunk offsets, surgical re-embedding, exit codes."""

from __future__ import annotations

import json

import pytest

from smartvector_core.errors import InputError
from smartvector_core.ingest.chunking import chunk_document, chunk_spans
from tests.conftest import NOW, write_jsonl

GOOD = {"id": "policy_v1", "title": "Rate limits", "text": "API calls are limited to 100 requests per minute.",
        "created_at": "2025-06-01T00:00:00Z", "kind": "VERSIONED", "doc_type": "policy"}


BAD_LINES = [
    ("not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
    (json.dumps({"text": "x"}), "id: missing"),
    (json.dumps({"id": "  ", "text": "x"}), "id: missing"),
    (json.dumps({"id": "a"}), "text: missing"),
    (json.dumps({"id": "a", "text": "   "}), "text: empty"),
    (json.dumps({"id": "a", "text": "x", "created_at": "yesterday-ish"}), "created_at:"),
    (json.dumps({"id": "a", "text": "x", "valid_from": "2025-02-01", "valid_until": "2025-01-01"}), "valid_until:"),
    (json.dumps({"id": "a", "text": "x", "kind": "SOMETIMES"}), "kind: expected one of STATIC, VERSIONED, EVENT"),
    (json.dumps({"id": "a", "text": "x", "authority": 1.5}), "authority:"),
    (json.dumps({"id": "a", "text": "x", "authority": "high"}), "authority:"),
    (json.dumps({"id": "a", "text": "x", "depends_on": 7}), "depends_on:"),
    (json.dumps({"id": "a", "text": "x", "supersedes": "a"}), "supersedes: document 'a' cannot refer to itself"),
    (json.dumps({"id": "a", "text": "x", "metadata": [1]}), "metadata:"),
]


@pytest.mark.parametrize(("line", "expected"), BAD_LINES)
def test_bad_line_exits_2_names_file_line_field_and_writes_nothing(cli, tmp_path, line, expected):
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + line + "\n", encoding="utf-8")
    code, out, err = cli("ingest", str(path))
    assert code == 2
    assert err.count("\n") == 1 and f"{path}:2:" in err and expected in err
    assert "Traceback" not in err
    code, out, _ = cli("stats", "--json")
    assert json.loads(out)["documents"] == 0


def test_file_level_errors(cli, tmp_path):
    code, _, err = cli("ingest", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "no such file" in err
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"id": "a", "text": "caf\xe9"}\n')
    code, _, err = cli("ingest", str(latin))
    assert code == 2 and f"{latin}:1:" in err and "UTF-8" in err
    fake_pdf = tmp_path / "doc.pdf"
    fake_pdf.write_text("hello", encoding="utf-8")
    code, _, err = cli("ingest", str(fake_pdf))
    assert code == 2 and "not a PDF" in err
    binary = tmp_path / "notes.md"
    binary.write_bytes(b"\x00\x01\x02binary")
    code, _, err = cli("ingest", str(binary))
    assert code == 2 and "binary" in err


def test_duplicate_id_and_supersedes_cycle(cli, tmp_path):
    dup = write_jsonl(tmp_path / "dup.jsonl", [GOOD, GOOD])
    code, _, err = cli("ingest", str(dup))
    assert code == 2 and f"{dup}:2: id: duplicate id 'policy_v1'" in err
    cyc = write_jsonl(tmp_path / "cyc.jsonl", [
        {"id": "a", "text": "A", "supersedes": "b"}, {"id": "b", "text": "B", "supersedes": "a"}])
    code, _, err = cli("ingest", str(cyc))
    assert code == 2 and "cycle" in err


def test_ingest_json_counts_and_reingest_is_idempotent(cli, tmp_path):
    docs = [GOOD, {**GOOD, "id": "policy_v2", "text": "Now 1,000 requests per minute.", "supersedes": "policy_v1"}]
    path = write_jsonl(tmp_path / "c.jsonl", docs)
    code, out, _ = cli("ingest", str(path), "--json")
    first = json.loads(out)
    assert code == 0
    assert {k: first[k] for k in ("documents", "chunks", "chunks_embedded", "chunks_reused")} == \
        {"documents": 2, "chunks": 2, "chunks_embedded": 2, "chunks_reused": 0}
    events_after_first = json.loads(cli("stats", "--json")[1])["events"]
    code, out, _ = cli("ingest", str(path), "--json")
    again = json.loads(out)
    assert again["chunks_embedded"] == 0 and again["chunks_reused"] == 2 and again["unchanged"] == 2
    code, out, _ = cli("stats", "--json")
    stats = json.loads(out)
    # ingest consolidates incrementally: 2 INGEST events plus lifecycle moves; re-ingest adds none
    assert stats["documents"] == 2 and stats["chunks"] == 2 and stats["events"] == events_after_first >= 2
    assert stats["by_kind"] == {"VERSIONED": 2} and stats["by_lifecycle"].get("ARCHIVED") == 1
    assert "UNCONSOLIDATED" not in stats["by_lifecycle"]


def test_markdown_front_matter(fake_app, tmp_path):
    md = tmp_path / "refunds.md"
    md.write_text("---\nid: refund_v1\ncreated_at: 2024-01-01\nkind: VERSIONED\ndoc_type: policy\n---\n"
                  "# Refund policy\n\nRefunds are accepted within 30 days of purchase for all plans.\n",
                  encoding="utf-8")
    report = fake_app.ingest_paths([md], now=NOW)
    assert report.documents == 1
    doc = fake_app.store.documents().to_pylist()[0]
    assert doc["doc_id"] == "refund_v1" and doc["title"] == "Refund policy" and doc["dated"]


def test_undated_document_gets_ingest_time_and_is_marked_undated(fake_app):
    fake_app.ingest_records([{"id": "n", "text": "No dates here.", "kind": "STATIC", "doc_type": "reference"}],
                            now=NOW)
    doc = fake_app.store.documents().to_pylist()[0]
    assert doc["created_at"] == NOW and doc["dated"] is False


def test_chunk_offsets_point_into_the_source():
    text = "# Title\n\n" + "\n\n".join(f"Paragraph {i} talks about topic {i} at some length, enough to stand alone."
                                      for i in range(6)) + "\n\n" + "A long sentence here. " * 80
    chunks = chunk_document("d", text)
    assert len(chunks) >= 3                       # the packed paragraphs, then the long one's pieces
    for c in chunks:
        assert text[c.char_start:c.char_end] == c.text
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


FULL_PARAGRAPH = ("The archive team checks this class at the end of each quarter and records the outcome. " * 9).strip()


def test_one_word_edit_reembeds_one_chunk(fake_app):
    paragraphs = [f"Section {i}: the retention period for archive class {i} is {i + 10} days in every region. "
                  + FULL_PARAGRAPH for i in range(20)]   # each as long as the target: one chunk each
    doc = {"id": "handbook", "text": "\n\n".join(paragraphs), "kind": "STATIC", "doc_type": "reference",
           "created_at": "2025-01-01"}
    first = fake_app.ingest_records([doc], now=NOW)
    assert first.chunks == 20 and first.chunks_embedded == 20
    paragraphs[7] = paragraphs[7].replace("every", "each")
    second = fake_app.ingest_records([{**doc, "text": "\n\n".join(paragraphs)}], now=NOW)
    assert (second.chunks_embedded, second.chunks_reused, second.chunks_retired) == (1, 19, 1)
    assert fake_app.store.count_chunks() == 20
    assert fake_app.store.count_chunks(current_only=False) == 21  # the old chunk is kept, retired


def test_validation_error_type_is_value_error(fake_app):
    with pytest.raises(ValueError) as info:
        fake_app.ingest_records([{"id": "a", "text": "x", "kind": "nope"}], now=NOW)
    assert isinstance(info.value, InputError)


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF whose content stream shows ``text`` in Helvetica (hand-built, valid xref)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def test_pdf_is_read_with_its_text(fake_app, tmp_path):
    pdf = tmp_path / "refund-policy.pdf"
    pdf.write_bytes(minimal_pdf("Refunds are accepted within 30 days of purchase."))
    report = fake_app.ingest_paths([pdf], now=NOW)
    assert report.documents == 1 and report.chunks == 1
    doc = fake_app.store.chunks_for_docs(["refund-policy"]).to_pylist()[0]
    assert "within 30 days" in doc["text"] and doc["source"].endswith("refund-policy.pdf")


def test_short_paragraphs_join_until_the_chunk_holds_min_chars():
    """Hand-worked: paragraphs of 150, 150 and 150 characters, then one of 500, then 150 and 150.
    The first two together (302 with the blank line) are under 400, so the third joins them (454);
    the 500-character paragraph stands alone; the trailing run (302) joins the chunk before it,
    because 500 + 2 + 302 fits in the 1,200-character maximum."""
    short = ["a" * 149 + str(i) for i in range(4)]
    long = "b" * 500
    text = "\n\n".join([short[0], short[1], short[2], long, short[3], short[0]])
    spans = chunk_spans(text)
    assert [text[s:e] for s, e in spans] == ["\n\n".join(short[:3]), "\n\n".join([long, short[3], short[0]])]
    assert chunk_spans(text, min_chars=40) == [(s, s + len(p)) for s, p in zip(
        [0, 152, 304, 456, 958, 1110], [short[0], short[1], short[2], long, short[3], short[0]], strict=True)]


def test_an_indented_short_paragraph_ends_the_block_before_it_and_opens_the_next():
    """Hand-worked, a reStructuredText page: an entry's 450-character description, its indented
    ``Default:`` line (20 characters), then the next entry's heading and its 450-character
    description. The indented line is added to the end of the first chunk (470 + 2 < 1,200) and
    still opens the next run (under 400 with the heading, it joins the description after them), so
    both chunks hold it. An unindented short paragraph only opens the next run."""
    first = "    " + "d" * 446
    default = "    Default: ``None``"
    heading = ".. py:data:: TESTING"
    second = "    " + "e" * 446
    text = "\n\n".join([".. py:data:: DEBUG", first, default, heading, second])
    chunks = [text[s:e] for s, e in chunk_spans(text)]
    assert chunks == ["\n\n".join([".. py:data:: DEBUG", first, default]).strip(),
                      "\n\n".join([default, heading, second]).strip()]
    plain = "\n\n".join([".. py:data:: DEBUG", first, "Default: None", heading, second])
    assert [plain[s:e] for s, e in chunk_spans(plain)] == [
        "\n\n".join([".. py:data:: DEBUG", first]).strip(), "\n\n".join(["Default: None", heading, second]).strip()]
    # no room left in the chunk before (1,200 at most): the line only opens the next run
    big = "    " + "f" * 1190
    tight = "\n\n".join([big, default, heading, second])
    assert [tight[s:e] for s, e in chunk_spans(tight)][0] == big.strip()
