"""Infer a document's kind and doc type from its text and metadata (blog, "Axis 2: Document
Kind", and "On my platform I automated the tagging entirely").

Rules are keyword heuristics, ordered, first match wins; each returns a short human reason
("inferred VERSIONED: supersedes policy_v1") that the dashboard shows beside the label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from ..clock import ensure_utc
from ..config import DEFAULT_DOC_TYPE
from ..models import DocumentKind
from .settings import DEFAULT_TEMPORAL, ValidityConfig

_VERSION_TITLE = re.compile(r"(?<![\w.])v\d+(?:\.\d+)*\b|\b(?:version|revision|rev\.?|edition|release)\s*\d"
                            r"|(?<![\w.])\d+\.\d+\.\d+\b|\b(?:updated|revised|amended)\s+(?:policy|terms|guide)\b",
                            re.I)
_EVENT_WORDS = re.compile(r"\b(?:outages?|maintenance|announcements?|announced?|incidents?|webinars?|until"
                          r"|today|tonight|suspended|downtime|temporar(?:y|ily)|scheduled|live\s+now)\b", re.I)
_EVENT_DOC_TYPES = frozenset({"breaking_news", "news"})
_STATIC_DOC_TYPES = frozenset({"mathematics", "reference"})
_VERSIONED_DOC_TYPES = frozenset({"policy", "legal"})

_DOC_TYPE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("mathematics", re.compile(r"\b(?:theorem|proofs?|lemma|corollary|axioms?|conjecture|q\.e\.d)\b", re.I)),
    ("breaking_news", re.compile(r"\b(?:breaking|outages?|incidents?|service\s+disruption|down\s+right\s+now)\b",
                                 re.I)),
    ("legal", re.compile(r"(?i:\b(?:regulations?|regulatory|statutes?|compliance|legislation|legal|gdpr|hipaa|court"
                         r"|jurisdiction|(?:privacy|data\s+protection|tax|labou?r|employment|copyright)\s+laws?)\b)"
                         r"|\b[A-Z]\w*\s+Act\b")),
    ("policy", re.compile(r"\b(?:polic(?:y|ies)|terms\s+(?:of\s+(?:service|use)|and\s+conditions)|rate[\s-]limits?|sla|quotas?"
                          r"|service\s+level)\b", re.I)),
    ("research", re.compile(r"\b(?:study|studies|paper|findings|benchmarks?|experiments?|arxiv|preprint"
                            r"|we\s+propose|results\s+show)\b", re.I)),
    ("reference", re.compile(r"\b(?:definition|defined\s+as|reference|glossary|specification|how\s+\w+(?:\s+\w+)?"
                             r"\s+works?|what\s+is\s+an?)\b", re.I)),
    ("news", re.compile(r"\b(?:news|announced|announces|announcement|report(?:s|ed)?|press\s+release)\b", re.I)),
)


def infer_kind(title: str = "", text: str = "", doc_type: str | None = None,
               valid_from: datetime | None = None, valid_until: datetime | None = None,
               supersedes: Sequence[str] = (), version: str = "",
               config: ValidityConfig = DEFAULT_TEMPORAL.validity) -> tuple[DocumentKind, str]:
    """The document's kind and why. Rules in order, first match wins:

    1. ``supersedes`` given -> VERSIONED ("supersedes policy_v1");
    2. a ``version`` field or a version-like title ("v2", "Version 3", "2.1.0") -> VERSIONED;
    3. a short window (``valid_until`` set and at most 31 days after ``valid_from``, or no
       ``valid_from``) plus event wording (outage, maintenance, announcement, incident, webinar,
       until, today, suspended, downtime, temporary, scheduled) -> EVENT;
    4. doc type breaking_news / news with a ``valid_until`` -> EVENT;
    5. doc type mathematics / reference -> STATIC; 6. policy / legal -> VERSIONED;
    7. otherwise STATIC (blog: documents without metadata "fall back to STATIC").
    """
    doc_type = (doc_type or "").strip().lower()
    if supersedes:
        return DocumentKind.VERSIONED, f"inferred VERSIONED: supersedes {', '.join(supersedes)}"
    if version and str(version).strip():
        return DocumentKind.VERSIONED, f"inferred VERSIONED: version {str(version).strip()}"
    if m := _VERSION_TITLE.search(title or ""):
        return DocumentKind.VERSIONED, f"inferred VERSIONED: version-like title ({m.group().strip()!r})"
    has_end = valid_until is not None
    short = has_end and (valid_from is None or (ensure_utc(valid_until) - ensure_utc(valid_from)).total_seconds()
                         <= config.event_max_window_days * 86_400)
    if short and (m := _EVENT_WORDS.search(f"{title or ''}\n{text or ''}")):
        return DocumentKind.EVENT, f"inferred EVENT: short window and {m.group().lower()!r}"
    if has_end and doc_type in _EVENT_DOC_TYPES:
        return DocumentKind.EVENT, f"inferred EVENT: {doc_type} with a validity window"
    if doc_type in _STATIC_DOC_TYPES:
        return DocumentKind.STATIC, f"inferred STATIC: doc type {doc_type}"
    if doc_type in _VERSIONED_DOC_TYPES:
        return DocumentKind.VERSIONED, f"inferred VERSIONED: doc type {doc_type}"
    return DocumentKind.STATIC, "inferred STATIC: no version, window or event wording"


def infer_doc_type(title: str = "", text: str = "", source: str = "",
                   kind: DocumentKind | str | None = None) -> tuple[str, str]:
    """The doc type (a key of ``config.DECAY_PROFILES``) and why.

    Keyword rules in this order: theorem/proof/lemma -> mathematics; breaking/outage/incident
    -> breaking_news; regulation/compliance/"X law"/"X Act" -> legal (a bare "law" is not legal:
    "scaling laws"); policy/terms of service/rate limit/SLA/quota
    -> policy; study/paper/findings/benchmark -> research; definition/reference/glossary/
    "how X works" -> reference; news/announced/report -> news. The title is searched first,
    then the source, then the text (the title is the strongest evidence). No keyword: an EVENT
    is news, a VERSIONED document is policy (the blog files tutorials under "policy": "newer is
    usually better"), anything else ``config.DEFAULT_DOC_TYPE``.
    """
    for where, field in (("title", title), ("source", source), ("text", text)):
        if not isinstance(field, str) or not field:
            continue
        for doc_type, rule in _DOC_TYPE_RULES:
            if m := rule.search(field):
                return doc_type, f"inferred {doc_type}: {m.group().lower()!r} in {where}"
    kind_name = str(kind).upper() if kind else ""
    if kind_name == DocumentKind.EVENT:
        return "news", "inferred news: EVENT without type keywords"
    if kind_name == DocumentKind.VERSIONED:
        return "policy", "inferred policy: VERSIONED without type keywords"
    return DEFAULT_DOC_TYPE, f"default {DEFAULT_DOC_TYPE}: no type keywords"
