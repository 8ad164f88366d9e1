"""Ingest: upload files or paste text; validation per line before anything is written."""

import pandas as pd
import streamlit as st

from pages._common import actor_name, page_setup, require_write, service, show_table, shown_errors, utc_now
from smartvector_core.config import DECAY_PROFILES
from smartvector_core.ui import views

page_setup()
st.title("Ingest")
sv = service()
KINDS = ["(infer)", "STATIC", "VERSIONED", "EVENT"]
DOC_TYPES = ["(infer)", *DECAY_PROFILES, "general"]
COUNTS = ("documents", "added", "updated", "unchanged", "chunks_embedded", "chunks_reused")


def ingest(records: list[dict], label: str) -> None:
    """Write ``records`` with a progress bar; what it did stays on the page (``ingest_last``)."""
    if not require_write("Ingesting"):
        return
    with shown_errors("Ingest"), st.status(f"Ingesting {label}…", expanded=False) as status:
        bar = st.progress(0.0, text="embedding and writing")
        report = sv.ingest_records(records, now=utc_now(), actor=actor_name(),
                                   progress=lambda done, total: bar.progress(min(done / max(total, 1), 1.0)))
        bar.progress(1.0, text="done")
        status.update(label=f"Ingested {label}", state="complete")
        st.session_state["ingest_last"] = {"label": label, "summary": report.to_dict(),
                                           "consolidation": report.consolidation}


def consolidate_now() -> None:
    if not require_write("Consolidation"):
        return
    with shown_errors("Consolidation"):
        last = st.session_state.get("ingest_last") or {}
        last["consolidation"] = sv.consolidate(now=utc_now())
        st.session_state["ingest_last"] = last


def show_outcome() -> None:
    """The last ingest's counts, what consolidation found, and "consolidate now" when it did not run."""
    last = st.session_state.get("ingest_last")
    if not last or "summary" not in last:
        return
    summary = last["summary"]
    st.subheader(f"Ingested {last['label']}")
    for col, name in zip(st.columns(len(COUNTS)), COUNTS, strict=True):
        col.metric(name.replace("_", " "), summary[name])
    st.text(f"chunks retired: {summary['chunks_retired']}")
    for warning in summary.get("warnings") or []:
        st.warning(warning)
    if last.get("consolidation"):
        show_table(views.consolidation_findings(last["consolidation"]), key="ingest_consolidation",
                   file_name="consolidation.csv", title="What consolidation found")
    else:
        st.info("Consolidation did not run for this ingest (nothing new or changed): run it to infer "
                "supersessions, contradictions and dependencies.")
        st.button("Consolidate now", key="ingest_consolidate", on_click=consolidate_now)


def preview(records: list[dict], problems: list[dict], key: str) -> bool:
    """Show the documents and every problem found; True when all records are valid."""
    docs, errors = views.validation_preview(records, now=utc_now())
    every = pd.concat([pd.DataFrame(problems, columns=["where", "field", "message"]), errors], ignore_index=True)
    if len(every):
        st.error(f"{len(every)} problem(s) found. Nothing was written: fix them and upload again.")
        show_table(every, key=f"{key}_errors", file_name="validation_errors.csv", title="Problems, one per row",
                   wrap=("message",))
    show_table(docs, key=f"{key}_docs", file_name="ingest_preview.csv", title=f"{len(docs)} valid document(s)")
    return len(every) == 0 and len(docs) > 0


upload_tab, paste_tab = st.tabs(["Upload files", "Paste text"])
with upload_tab:
    files = st.file_uploader("JSONL corpus, Markdown, text or PDF", type=["jsonl", "ndjson", "json", "md",
                             "markdown", "txt", "text", "pdf"], accept_multiple_files=True, key="upload_files")
    if files:
        records: list[dict] = []
        problems: list[dict] = []
        for f in files:
            found, bad = views.read_upload(f.name, f.getvalue(), max_file_bytes=sv.settings.max_file_bytes,
                                           max_line_bytes=sv.settings.max_line_bytes)
            records.extend(found)
            problems.extend(bad)
        ready = preview(records, problems, "upload")
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
    set_authority = st.checkbox("Set authority (initial trust)", key="paste_set_authority")
    authority = st.slider("Authority", 0.0, 1.0, 0.7, 0.05, key="paste_authority")
    submitted = st.form_submit_button("Validate and ingest", type="primary")

if submitted:
    record = views.record_from_form(
        text=text, title=title, doc_id=doc_id, created_at=created_at, valid_from=valid_from,
        valid_until=valid_until, kind="" if kind == KINDS[0] else kind,
        doc_type="" if doc_type == DOC_TYPES[0] else doc_type, version=version, supersedes=supersedes,
        depends_on=depends_on, source=source, authority=authority if set_authority else None)
    with paste_tab:
        if preview([record], [], "paste"):
            ingest([record], f"document {record['id']}")

show_outcome()
