"""Infer a document's kind and doc type from its text and metadata (blog, "Axis 2: Document
Kind", and "On my platform I automated the tagging entirely").

Rules are keyword heuristics, ordered, first match wins; each returns a short human reason
("inferred VERSIONED: supersedes policy_v1") that the dashboard shows beside the label.

Logs (ours): release notes, changelog entries, meeting minutes and incident
reports are records of their own moment. The notes of 3.5.5 do not replace those of 3.5.3, so
such a record is an EVENT (what happened, when), never a version of one document, even when it
carries a ``version`` label or shares its title with the other entries of its log.
:func:`log_record_type` says whether a record is one, and why; :func:`is_log_record` is the
plain predicate that version-chain code calls before treating same-title documents as versions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from types import MappingProxyType

from ..clock import ensure_utc
from ..config import DEFAULT_DOC_TYPE
from ..config.temporal import DEFAULT_TEMPORAL, ValidityConfig
from ..models import DocumentKind

_VERSION_TITLE = re.compile(r"(?<![\w.])v\d+(?:\.\d+)*\b|\b(?:version|revision|rev\.?|edition|release)\s*\d"
                            r"|(?<![\w.])\d+\.\d+\.\d+\b|\b(?:updated|revised|amended)\s+(?:policy|terms|guide)\b",
                            re.I)
_EVENT_WORDS = re.compile(r"\b(?:outages?|maintenance|announcements?|announced?|incidents?|webinars?|until"
                          r"|today|tonight|suspended|downtime|temporar(?:y|ily)|scheduled|live\s+now)\b", re.I)
_EVENT_DOC_TYPES = frozenset({"breaking_news", "news"})
NEWS_DOC_TYPES = _EVENT_DOC_TYPES               # public: the doc types of news (records of their moment)
_STATIC_DOC_TYPES = frozenset({"mathematics", "reference"})
_VERSIONED_DOC_TYPES = frozenset({"policy", "legal"})

# --- logs: records of their own moment (ours) ------------------------------------------
_LOG_NAMES = {"release_notes": "release notes", "changelog": "a changelog entry", "meeting_minutes": "meeting minutes",
              "incident_report": "an incident report"}
#: the log doc types this module infers (each has a decay profile in ``config.DECAY_PROFILES``)
LOG_DOC_TYPES = frozenset(_LOG_NAMES)
#: declared doc types also read as logs, and the log doc type each stands for
LOG_DOC_TYPE_ALIASES = MappingProxyType({"release_note": "release_notes", "changes": "changelog",
                                         "minutes": "meeting_minutes", "incident": "incident_report",
                                         "postmortem": "incident_report", "post_mortem": "incident_report"})
#: the log doc types that record a release of something (a version's own record): the records
#: "the latest release" asks for (:func:`release_series`)
RELEASE_DOC_TYPES = frozenset({"release_notes", "changelog"})
_VERSION_TOKEN = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+[\w.+-]*")
_LOG_TITLE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("release_notes", re.compile(r"\brelease\s+notes?\b|\bwhat'?s\s+new\s+in\b|\breleased?\s+v?\d+(?:\.\d+)+\b"
                                 r"|\bv?\d+(?:\.\d+)+\s+release\b", re.I)),
    ("changelog", re.compile(r"\bchange[\s-]?logs?\b|\b(?:changes|history|news)\.(?:rst|md|txt)\b"
                             r"|\b(?:release|version)\s+history\b", re.I)),
    ("meeting_minutes", re.compile(r"\bminutes\s+of\b|\b(?:meeting|board|committee)\s+minutes\b|\bmeeting\s+notes\b"
                           r"|^\s*minutes\b", re.I)),
    ("incident_report", re.compile(r"\bincident\s+(?:reports?|reviews?|summary|summaries|analysis)\b|\bpost-?mortems?\b"
                            r"|\broot[\s-]cause\s+analysis\b", re.I)),
)
# A text that opens with a release heading ("2.31.0 (2023-05-22)", "## [24.3.0] - 2024-12-16",
# "Version 3.1.0 / Released 2024-11-13") is one changelog entry.
_RELEASE_HEADING = re.compile(r"\A\W*(?:version\s+|v)?\[?\d+(?:\.\d+)+\]?(?:\([^)\n]*\))?\s*(?:\(|[-–—]\s*)?"
                              r"(?:\d{4}-\d{2}-\d{2}|[^\n]*\n[\s=~^*#-]*\n?\s*released\b)", re.I)
_MINUTES_CUES = re.compile(r"^\W*(attendees|present|apologies|action\s+items|agenda)\s*:", re.I | re.M)
_INCIDENT_CUES = re.compile(r"^\W*(root\s+cause|impact|timeline|detection|resolution|remediation)\b\W*(?::|$)",
                            re.I | re.M)


def log_record_type(doc_type: str | None = None, title: str = "", text: str = "") -> tuple[str, str] | None:
    """``(log doc type, evidence)`` when the record is a log entry, else None.

    Evidence, in order: the doc type is one of :data:`LOG_DOC_TYPES` or an alias of one
    (:data:`LOG_DOC_TYPE_ALIASES`: minutes, incident, postmortem, ...); the title names a log
    ("Release notes 3.5.5", "Flask changelog", "Minutes of the board", "Incident report:
    checkout outage", "Post-mortem"); the text opens with a release heading ("2.31.0
    (2023-05-22)", "Version 3.1.0 ... Released 2024-11-13", "## [24.3.0] - 2024-12-16"); the
    text carries two or more minutes cues (attendees:, action items:, agenda:) or incident cues
    (root cause, impact, timeline, resolution as headings). A doc type that is not a log
    (policy, news, ...) is declared evidence against and returns None.
    """
    declared = (doc_type or "").strip().lower()
    if declared in LOG_DOC_TYPES or declared in LOG_DOC_TYPE_ALIASES:
        return LOG_DOC_TYPE_ALIASES.get(declared, declared), f"doc type {declared}"
    if declared:
        return None
    for log_type, rule in _LOG_TITLE_RULES:
        if isinstance(title, str) and (m := rule.search(title)):
            return log_type, f"{m.group().strip()!r} in title"
    head = (text or "")[:400]
    if _RELEASE_HEADING.search(head):
        return "release_notes", f"release heading {head.strip().splitlines()[0][:60]!r} opens the text"
    body = (text or "")[:4000]
    if len({c.lower() for c in _MINUTES_CUES.findall(body)}) >= 2:
        return "meeting_minutes", "minutes cues (attendees / agenda / action items) in text"
    if len({c.lower() for c in _INCIDENT_CUES.findall(body)}) >= 2:
        return "incident_report", "incident cues (root cause / impact / timeline) in text"
    return None


def is_log_record(doc_type: str | None = None, title: str = "", text: str = "") -> bool:
    """True for release notes, changelog entries, minutes and incident reports (see
    :func:`log_record_type`): records of their own moment, which never replace each other by a
    shared title alone."""
    return log_record_type(doc_type, title, text) is not None


def is_release_type(doc_type: object) -> bool:
    """Whether a declared doc type is a release record's: in :data:`RELEASE_DOC_TYPES`, or an
    alias of one."""
    declared = (doc_type if isinstance(doc_type, str) else "").strip().lower()
    return LOG_DOC_TYPE_ALIASES.get(declared, declared) in RELEASE_DOC_TYPES


def release_series(doc_type: str | None, title: str | None) -> str:
    """The series a release record belongs to, "" for any other document (ours): its title
    lower-cased with version strings ("3.0.0", "v2.8") and extra spaces removed, for a document
    whose doc type is a release record's (:func:`is_release_type`). "Larkspur SDK 3.0.0
    release notes" and "Larkspur SDK 2.8.0 release notes" are one series ("larkspur sdk release
    notes"); every entry of the "Flask changelog" is one; Node.js's notes are another."""
    if not is_release_type(doc_type):
        return ""
    declared = (doc_type or "").strip().lower()
    return " ".join(_VERSION_TOKEN.sub(" ", title if isinstance(title, str) else "").lower().split()) or declared


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
    1b. a log record (:func:`log_record_type`: release notes, changelog entry, minutes, incident
       report) -> EVENT, also when it carries a ``version``: a record of its own moment;
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
    if log := log_record_type(doc_type, title, text):
        return DocumentKind.EVENT, f"inferred EVENT: {_LOG_NAMES[log[0]]}, a record of its own moment ({log[1]})"
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
    usually better"), anything else ``config.DEFAULT_DOC_TYPE``. Before all of these, a log
    record (:func:`log_record_type`) gets its log doc type (release_notes, changelog, minutes,
    incident).
    """
    if log := log_record_type(None, title, text):
        return log[0], f"inferred {log[0]}: {log[1]}"
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
