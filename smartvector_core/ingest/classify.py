"""Document kind and doc type: declared in the record, else inferred (with the reason shown).

The inference rules live in :mod:`smartvector_core.temporal.kinds`; logs (release notes,
changelog entries, meeting minutes, incident reports) are inferred as EVENT records of their own
moment with a log doc type, never as versions of one document.
"""

from __future__ import annotations

from ..models import Document, DocumentKind
from ..temporal.kinds import infer_doc_type, infer_kind


def classify(doc: Document) -> tuple[DocumentKind, str, str, str]:
    """(kind, kind_reason, doc_type, doc_type_reason) for ``doc``.

    Declared values win; the reason then says "declared". A declared log doc type
    (``release_notes``, ``changelog``, ``minutes``, ``incident``) makes the inferred kind EVENT.
    """
    if doc.kind is not None:
        kind, kind_reason = doc.kind, "declared"
    else:
        kind, kind_reason = infer_kind(doc.title, doc.text, doc.doc_type, doc.valid_from, doc.valid_until,
                                       doc.supersedes, doc.version)
    if doc.doc_type:
        doc_type, type_reason = doc.doc_type, "declared"
    else:
        doc_type, type_reason = infer_doc_type(doc.title, doc.text, doc.source, kind)
    return kind, kind_reason, doc_type, type_reason
