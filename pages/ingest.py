"""Ingest: upload files or paste text; validation per line before anything is written."""

import streamlit as st

from pages._common import page_setup, require_write, service, show_table, shown_errors, utc_now
from smartvector_core.config import DECAY_PROFILES
from smartvector_core.errors import InputError
from smartvector_core.ui import views

page_setup()
st.title("Ingest")
sv = service()
KINDS = ["(infer)", "STATIC", "VERSIONED", "EVENT"]
DOC_TYPES = ["(infer)", *DECAY_PROFILES, "general"]


def ingest(records: list[dict], label: str) -> None:
    """Write ``records`` with a progress bar and show what was added, updated and re-embedded."""
    if not require_write("Ingesting"):
        return
    with shown_errors("Ingest"), st.status(f"Ingesting {label}…", expanded=True) as status:
        bar = st.progress(0.0, text="embedding and writing")
        report = sv.ingest_records(records, now=utc_now(), actor="dashboard",
                                   progress=lambda done, total: bar.progress(min(done / max(total, 1), 1.0)))
        bar.progress(1.0, text="done")
        status.update(label=f"Ingested {label}", state="complete")
        summary = report.to_dict()
        cols = st.columns(6)
        for col, name in zip(cols, ("documents", "added", "updated", "unchanged", "chunks_embedded", "chunks_reused"),
                             strict=True):
            col.metric(name.replace("_", " "), summary[name])
        st.text(f"chunks retired: {summary['chunks_retired']}")
        for warning in report.warnings:
            st.warning(warning)


def preview(records: list[dict], key: str) -> bool:
    """Show the documents and every validation error; True when all records are valid."""
    docs, errors = views.validation_preview(records, now=utc_now())
    if len(errors):
        st.error(f"{len(errors)} problem(s) found; nothing will be written until they are fixed.")
        show_table(errors, key=f"{key}_errors", file_name="validation_errors.csv")
    st.caption(f"{len(docs)} valid document(s)")
    show_table(docs, key=f"{key}_docs", file_name="ingest_preview.csv")
    return len(errors) == 0 and len(docs) > 0


upload_tab, paste_tab = st.tabs(["Upload files", "Paste text"])
with upload_tab:
    files = st.file_uploader("JSONL corpus, Markdown, text or PDF", type=["jsonl", "ndjson", "json", "md",
                             "markdown", "txt", "text", "pdf"], accept_multiple_files=True, key="upload_files")
    if files:
        records: list[dict] = []
        failed = False
        for f in files:
            try:
                records.extend(views.parse_upload(f.name, f.getvalue(), max_file_bytes=sv.settings.max_file_bytes,
                                                  max_line_bytes=sv.settings.max_line_bytes))
            except InputError as exc:
                st.error(str(exc))
                failed = True
        ready = not failed and preview(records, "upload")
        if ready and st.button(f"Ingest {len(records)} document(s)", type="primary", key="ingest_upload"):
            ingest(records, f"{len(files)} file(s)")

with paste_tab, st.form("paste_form"):
    text = st.text_area("Text", height=180, key="paste_text")
    c1, c2, c3 = st.columns(3)
    title = c1.text_input("Title", key="paste_title")
    doc_id = c2.text_input("Id (optional)", key="paste_id", help="Default: the title's slug and a hash of the text")
    version = c3.text_input("Version", key="paste_version")
    c1, c2, c3 = st.columns(3)
    created_at = c1.text_input("Created at (UTC, ISO-8601)", key="paste_created", placeholder="2026-06-01T12:00:00Z")
    valid_from = c2.text_input("Valid from", key="paste_valid_from")
    valid_until = c3.text_input("Valid until", key="paste_valid_until")
    c1, c2, c3 = st.columns(3)
    kind = c1.selectbox("Kind", KINDS, key="paste_kind")
    doc_type = c2.selectbox("Doc type", DOC_TYPES, key="paste_doc_type")
    source = c3.text_input("Source", key="paste_source")
    c1, c2 = st.columns(2)
    supersedes = c1.text_input("Supersedes (ids, comma separated)", key="paste_supersedes")
    depends_on = c2.text_input("Depends on (ids, comma separated)", key="paste_depends_on")
    set_authority = st.checkbox("Set authority (initial confidence)", key="paste_set_authority")
    authority = st.slider("Authority", 0.0, 1.0, 0.7, 0.05, key="paste_authority")
    submitted = st.form_submit_button("Validate and ingest", type="primary")

if submitted:
    record = views.record_from_form(
        text=text, title=title, doc_id=doc_id, created_at=created_at, valid_from=valid_from,
        valid_until=valid_until, kind="" if kind == KINDS[0] else kind,
        doc_type="" if doc_type == DOC_TYPES[0] else doc_type, version=version, supersedes=supersedes,
        depends_on=depends_on, source=source, authority=authority if set_authority else None)
    with paste_tab:
        if preview([record], "paste"):
            ingest([record], f"document {record['id']}")
