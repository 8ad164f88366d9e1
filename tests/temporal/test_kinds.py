from datetime import UTC, datetime, timedelta

import pytest

from smartvector_core.models import DocumentKind as K
from smartvector_core.temporal import infer_doc_type, infer_kind

T0 = datetime(2026, 6, 15, tzinfo=UTC)


@pytest.mark.parametrize(("kwargs", "kind", "reason"), [
    ({"title": "Rate limits", "supersedes": ("policy_v1",)}, K.VERSIONED, "inferred VERSIONED: supersedes policy_v1"),
    ({"title": "Rate limits", "version": "3"}, K.VERSIONED, "inferred VERSIONED: version 3"),
    ({"title": "Rate limit policy v2"}, K.VERSIONED, "version-like title ('v2')"),
    ({"title": "Guide, Version 3"}, K.VERSIONED, "version-like title"),
    ({"title": "Scheduled maintenance", "valid_from": T0, "valid_until": T0 + timedelta(hours=48)},
     K.EVENT, "inferred EVENT: short window and"),
    ({"text": "Rate limiting is suspended", "valid_until": T0}, K.EVENT, "'suspended'"),
    ({"title": "Quarterly update", "doc_type": "news", "valid_from": T0, "valid_until": T0 + timedelta(days=90)},
     K.EVENT, "news with a validity window"),
    ({"title": "Maintenance handbook", "valid_from": T0, "valid_until": T0 + timedelta(days=365)},
     K.STATIC, "no version"),                                       # long window: not an event
    ({"title": "Outage report"}, K.STATIC, "no version"),            # no window: not an event
    ({"title": "Pythagoras", "doc_type": "mathematics"}, K.STATIC, "doc type mathematics"),
    ({"title": "Privacy", "doc_type": "legal"}, K.VERSIONED, "doc type legal"),
    ({"title": "Privacy", "doc_type": "Policy"}, K.VERSIONED, "doc type policy"),
    ({}, K.STATIC, "no version, window or event wording"),
])
def test_infer_kind(kwargs, kind, reason):
    got, why = infer_kind(**kwargs)
    assert got == kind
    assert reason in why


@pytest.mark.parametrize(("kwargs", "doc_type"), [
    ({"title": "Pythagorean theorem"}, "mathematics"),
    ({"text": "Proof. By induction on n."}, "mathematics"),
    ({"title": "API outage in eu-west"}, "breaking_news"),
    ({"title": "Breaking: data center fire"}, "breaking_news"),
    ({"title": "GDPR compliance checklist"}, "legal"),
    ({"title": "The Data Protection Act explained"}, "legal"),
    ({"title": "Rate limit policy v2"}, "policy"),
    ({"title": "Terms of service"}, "policy"),
    ({"title": "Scaling laws: new findings"}, "research"),     # a bare "law" is not legal
    ({"title": "Privacy law update"}, "legal"),
    ({"title": "Benchmark of embedding models"}, "research"),
    ({"text": "Our study shows a 5% gain."}, "research"),
    ({"title": "Glossary of RAG terms"}, "reference"),
    ({"title": "How cosine similarity works"}, "reference"),
    ({"title": "Definition of a vector"}, "reference"),
    ({"title": "Company announced new office"}, "news"),
    ({"title": "Untitled", "source": "arxiv"}, "research"),
    ({"title": "Weekly notes", "kind": K.EVENT}, "news"),
    ({"title": "Setup tutorial", "kind": "VERSIONED"}, "policy"),
    ({"title": "Misc"}, "general"),
])
def test_infer_doc_type(kwargs, doc_type):
    got, why = infer_doc_type(**kwargs)
    assert got == doc_type
    assert why
