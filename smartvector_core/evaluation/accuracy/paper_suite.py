"""The SmartVector paper's benchmark, rebuilt from its description (deterministic, seeded).

The paper (``seeds/smartvector-paper-*.txt``, section 3) evaluates on "a reproducible synthetic
versioned-policy benchmark of 258 vectors and 138 queries" with a held-out split and 0–75%
contradiction injection, but publishes neither the generator nor the data. This module is
our reconstruction: the same sizes, the same kind of content (numeric policy facts that change
over versions, e.g. refund window 30 → 60 days, rate limit 100 → 1,000 requests per minute),
plus the traps the temporal-RAG blog describes, so that "newest wins" scores badly too.

Parameters of :func:`generate_paper_suite`
-----------------------------------------
``seed`` (int, default 7)
    Seeds one ``random.Random``; the same seed gives byte-identical corpus and queries.
``contradiction_rate`` (float in [0, 1], default 0.0; the paper uses 0, 0.25, 0.5, 0.75)
    Share of the 60 policy subjects (``round(rate · 60)``) that get one extra document stating a
    conflicting number from another source (``partner-wiki``, ``reseller-portal``, ``blog``),
    mid authority 0.45–0.6, newer than the current version, superseding nothing. It must not
    win; it is listed in the affected queries' ``distractors``. Injection draws from its own
    seeded generator, so the base 258 documents and the 138 queries are identical at every
    rate and a higher rate's contradicted subjects include a lower rate's.

What is generated (at rate 0: 258 documents, 138 queries)
---------------------------------------------------------
- 60 subjects (product × fact type, :mod:`.paper_facts`), each with 2, 3 or 4 policy
  versions (16, 26, 18 subjects: 182 documents), ``kind`` VERSIONED, ``doc_type`` policy,
  taking effect between 2023-02 and 2026-03 (``valid_from``), written 3–30 days earlier
  (``created_at``). A version stops being true when the next takes effect. How that is
  declared varies: 30 subjects *explicit* (``supersedes`` the previous id and ``valid_until``),
  15 *windowed* (``valid_until`` only), 15 *implicit* (neither: same title, newer date).
- 18 expired EVENT notices (temporary change of the fact, window 3–21 days, closed before the
  query) and 12 active EVENT notices (window open at the query), all newer than the policy.
- 20 STATIC reference/mathematics documents written 1961–1999 (16 answer a query).
- 14 forum rumours (source ``forum``, authority 0.2–0.3, newer than the current policy,
  conflicting number, no ``kind``: left to inference).
- 12 FAQ documents that ``depends_on`` a policy version: 8 on a version already superseded
  (they restate the old number: stale by dependency), 4 on the current version.

Query types (138; ``split`` is ``tune`` or ``heldout``, exactly half of each type):
``current`` 34 (latest version, asked June–November 2026), ``past`` 18 (``as_of`` inside an
older version's window; for 9 of them the next version is already written but not yet in
force, so even "newest existing document wins" fails), ``point_in_time`` 14 (asked in 2026 about a named month, e.g.
"as of March 2024"; the extra field ``refers_to`` holds that moment and labels are judged
there), ``expired_event`` 18, ``active_event`` 12 (the live notice is the answer),
``timeless`` 16, ``rumour`` 14, ``dependency`` 12.

Labels, judged from the ground truth (``Suite.truth``) at the moment ``t`` = ``refers_to`` or
``as_of``, among documents that exist at ``as_of`` (``created_at <= as_of``):
``relevant`` = the live notice for ``active_event``; otherwise the policy version (and any FAQ
built on it) true at ``t``, or the reference document for ``timeless``. ``stale`` = versions,
notices and FAQs of the subject whose truth ended at or before ``t``. ``distractors`` (extra
field) = rumours and injected contradictions of the subject. Query texts carry no numbers
except the named month and year.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ...clock import iso
from ...errors import InputError
from .paper_facts import (
    ACTIVE_QUESTIONS,
    EVENT_REASONS,
    FACT_TYPES,
    PAST_QUESTIONS,
    POLICY_BOILERPLATE,
    PRODUCTS,
    REFERENCE_DOCS,
    FactType,
)

DEFAULT_SEED = 7
CONTRADICTION_RATES = (0.0, 0.25, 0.5, 0.75)

N_SUBJECTS = 60
VERSION_COUNTS = {2: 16, 3: 26, 4: 18}                       # versions per subject -> subjects
DECLARATION_MODES = {"explicit": 30, "windowed": 15, "implicit": 15}
QUERY_COUNTS = {"current": 34, "past": 18, "point_in_time": 14, "expired_event": 18,
                "active_event": 12, "timeless": 16, "rumour": 14, "dependency": 12}
N_STALE_FAQS = 8
N_PAST_ANNOUNCED = 9          # past queries asked after the next version was written, before it took effect
N_CURRENT_FAQS = 4
N_DOCUMENTS = 258
N_QUERIES = 138

TIMELINE_START = datetime(2023, 2, 1, tzinfo=UTC)   # first versions take effect from here
TIMELINE_END = datetime(2026, 3, 31, tzinfo=UTC)    # ... and the last ones by here
SIDE_DOCS_BY = datetime(2026, 5, 25, tzinfo=UTC)    # rumours, FAQs, contradictions written by
NOW_START = datetime(2026, 6, 1, tzinfo=UTC)        # "current" questions are asked from here
NOW_END = datetime(2026, 11, 30, tzinfo=UTC)        # ... until here (latest as_of)
EARLIEST_AS_OF = datetime(2023, 3, 1, tzinfo=UTC)

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_PREFIXES = ("", "Quick question: ", "Hi, ", "Can you tell me: ")


@dataclass
class _Doc:
    record: dict[str, Any]
    role: str                        # policy | event | reference | rumour | faq | contradiction
    subject: str | None
    created: datetime
    true_from: datetime | None       # ground-truth validity window (None, None: never true)
    true_until: datetime | None

    @property
    def id(self) -> str:
        return self.record["id"]

    def true_at(self, t: datetime) -> bool:
        return (self.true_from is not None and self.true_from <= t
                and (self.true_until is None or t < self.true_until))


@dataclass
class _Subject:
    key: str
    product: str
    fact: FactType
    values: list[float]              # one per version, then event, rumour, contradiction values
    versions: list[_Doc] = field(default_factory=list)
    docs: list[_Doc] = field(default_factory=list)

    @property
    def title(self) -> str:
        words = " ".join(w if w.isupper() else w.capitalize() for w in self.fact.name.split())
        return f"{self.product} {words} Policy"


@dataclass(frozen=True)
class Suite:
    """A generated benchmark: corpus and query records (CONTRACT.md formats) and how they were made.

    ``truth`` maps every document id to its ground truth: ``role``, ``subject`` and the
    window in which its content is true (``true_from``/``true_until``, ISO or None).
    """

    corpus: list[dict[str, Any]]
    queries: list[dict[str, Any]]
    params: dict[str, Any]
    truth: dict[str, dict[str, Any]] = field(default_factory=dict)

    def split(self, name: str) -> list[dict[str, Any]]:
        """The queries of one split (``tune`` or ``heldout``)."""
        if name not in ("tune", "heldout"):
            raise InputError(f"expected one of tune, heldout, found {name!r}", field="split")
        return [q for q in self.queries if q["split"] == name]


# --- small helpers -----------------------------------------------------------------------
def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _rand_time(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    """A whole-second moment in [lo, hi)."""
    span = int((hi - lo).total_seconds())
    return lo + timedelta(seconds=rng.randrange(max(span, 1)))


def _rand_day(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    return _day(_rand_time(rng, lo, hi))


def _words(moment: datetime) -> str:
    return f"{_MONTHS[moment.month - 1]} {moment.day}, {moment.year}"


def _number(value: float) -> str:
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:g}"


def _amount(fact: FactType, value: float) -> str:
    """The value with its unit as a document writes it: ``60 days``, ``$49``, ``99.9%``."""
    if fact.unit == "percent":
        return f"{_number(value)}%"
    if fact.unit.startswith("USD"):
        rest = fact.unit[3:]
        return f"${_number(value)}{rest}"
    return f"{_number(value)} {fact.unit}"


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")


def _version_label(style: int, index: int, valid_from: datetime) -> str:
    if style == 0:
        return f"v{index + 1}"
    if style == 1:
        return f"{index + 1}.0"
    if style == 2:
        return f"{valid_from.year}-Q{(valid_from.month - 1) // 3 + 1}"
    return f"rev {'ABCD'[index]}"


def _question(rng: random.Random, question: str) -> str:
    prefix = rng.choice(_PREFIXES)
    return prefix + (question[0].lower() + question[1:] if prefix else question)


# --- documents ---------------------------------------------------------------------------
def _policy_versions(rng: random.Random, subj: _Subject, n_versions: int, mode: str) -> None:
    segment = (TIMELINE_END - TIMELINE_START) / n_versions
    starts = [_rand_day(rng, TIMELINE_START + segment * (i + 0.2), TIMELINE_START + segment * (i + 0.8))
              for i in range(n_versions)]
    style = rng.randrange(4)
    for i, valid_from in enumerate(starts):
        until = starts[i + 1] if i + 1 < n_versions else None
        created = valid_from - timedelta(days=rng.randint(3, 30), hours=-rng.randint(8, 17))
        label = _version_label(style, i, valid_from)
        text = (f"{subj.title} — version {label}. Effective {_words(valid_from)}. "
                f"{subj.fact.sentence.format(p=subj.product, v=_number(subj.values[i]))} "
                f"{rng.choice(POLICY_BOILERPLATE).format(p=subj.product)}")
        record: dict[str, Any] = {
            "id": f"{subj.key}_v{i + 1}", "title": subj.title, "text": text,
            "created_at": iso(created), "valid_from": iso(valid_from),
            "kind": "VERSIONED", "doc_type": "policy", "version": label,
            "source": rng.choice(("official", "docs", "policy")),
            "authority": round(rng.uniform(0.85, 0.95), 2),
            "metadata": {"suite": "paper", "subject": subj.key},
        }
        if until is not None and mode in ("explicit", "windowed"):
            record["valid_until"] = iso(until)
        if i > 0 and mode == "explicit":
            record["supersedes"] = subj.versions[-1].id
            record["text"] += f" This version replaces version {subj.versions[-1].record['version']}."
        doc = _Doc(record, "policy", subj.key, created, valid_from, until)
        subj.versions.append(doc)
        subj.docs.append(doc)


def _event(rng: random.Random, subj: _Subject, start: datetime, end: datetime) -> _Doc:
    value = _amount(subj.fact, subj.values[len(subj.versions)])
    created = start - timedelta(days=rng.randint(1, 7), hours=rng.randint(0, 12))
    breaking = rng.random() < 0.5
    title = (f"{subj.product} service notice: temporary {subj.fact.name} change" if breaking
             else f"Scheduled maintenance notice for {subj.product}")
    text = (f"Service notice for {subj.product}: from {_words(start)} until {_words(end)}, while "
            f"{rng.choice(EVENT_REASONS)}, the {subj.fact.name} is temporarily {value}. "
            f"The regular policy applies again afterwards.")
    record = {"id": f"{subj.key}_notice", "title": title, "text": text, "created_at": iso(created),
              "valid_from": iso(start), "valid_until": iso(end), "kind": "EVENT",
              "doc_type": "breaking_news" if breaking else "news", "source": "status-page",
              "authority": 0.9, "metadata": {"suite": "paper", "subject": subj.key}}
    doc = _Doc(record, "event", subj.key, created, start, end)
    subj.docs.append(doc)
    return doc


def _rumour(rng: random.Random, subj: _Subject) -> _Doc:
    created = _rand_time(rng, subj.versions[-1].true_from + timedelta(days=10), SIDE_DOCS_BY)
    value = _amount(subj.fact, subj.values[len(subj.versions) + 1])
    text = (f"Heard from someone who works at {subj.product} that the {subj.fact.name} is now "
            f"{value}. Has anyone else seen this? Nothing official yet as far as I can tell.")
    record = {"id": f"{subj.key}_forum", "title": f"Community forum: {subj.product} {subj.fact.name}?",
              "text": text, "created_at": iso(created), "doc_type": "news", "source": "forum",
              "authority": round(rng.uniform(0.2, 0.3), 2),
              "metadata": {"suite": "paper", "subject": subj.key}}
    doc = _Doc(record, "rumour", subj.key, created, None, None)
    subj.docs.append(doc)
    return doc


def _faq(rng: random.Random, subj: _Subject, stale: bool) -> _Doc:
    index = rng.randrange(len(subj.versions) - 1) if stale else len(subj.versions) - 1
    dep = subj.versions[index]
    lo = dep.created + timedelta(days=15)
    hi = SIDE_DOCS_BY if not stale else min(SIDE_DOCS_BY, subj.versions[index + 1].true_from
                                             + timedelta(days=120))
    created = _rand_time(rng, lo, hi)
    answer = subj.fact.sentence.format(p=subj.product, v=_number(subj.values[index]))
    text = (f"Q: {subj.fact.questions[1].format(p=subj.product)} A: Under the {subj.title} "
            f"(version {dep.record['version']}): {answer} Contact the {subj.product} help centre "
            f"for exceptions.")
    record = {"id": f"{subj.key}_faq", "title": f"{subj.product} {subj.fact.name} FAQ", "text": text,
              "created_at": iso(created), "kind": "VERSIONED", "doc_type": "reference",
              "depends_on": [dep.id], "source": "help-center", "authority": 0.8,
              "metadata": {"suite": "paper", "subject": subj.key}}
    doc = _Doc(record, "faq", subj.key, created, dep.true_from, dep.true_until)
    subj.docs.append(doc)
    return doc


def _contradiction(rng: random.Random, subj: _Subject) -> _Doc:
    created = _rand_time(rng, subj.versions[-1].true_from + timedelta(days=10), SIDE_DOCS_BY)
    value = _amount(subj.fact, subj.values[len(subj.versions) + 2])
    source = rng.choice(("partner-wiki", "reseller-portal", "blog"))
    text = (f"According to our {subj.product} partner notes, the {subj.fact.name} is {value}. "
            f"Summary prepared for resellers; check with your account contact.")
    record = {"id": f"{subj.key}_{_slug(source)}", "title": f"{subj.product} {subj.fact.name} — partner summary",
              "text": text, "created_at": iso(created), "kind": "VERSIONED", "doc_type": "policy",
              "source": source, "authority": round(rng.uniform(0.45, 0.6), 2),
              "metadata": {"suite": "paper", "subject": subj.key}}
    doc = _Doc(record, "contradiction", subj.key, created, None, None)
    subj.docs.append(doc)
    return doc


def _reference_docs(rng: random.Random) -> list[_Doc]:
    docs = []
    for ref in REFERENCE_DOCS:
        created = _rand_time(rng, datetime(ref.year, 1, 1, tzinfo=UTC), datetime(ref.year, 12, 31, tzinfo=UTC))
        record = {"id": f"ref_{ref.key}", "title": ref.title, "text": ref.text, "created_at": iso(created),
                  "kind": "STATIC", "doc_type": ref.doc_type, "source": "textbook", "authority": 0.95,
                  "metadata": {"suite": "paper"}}
        docs.append(_Doc(record, "reference", None, created, created, None))
    return docs


# --- queries -----------------------------------------------------------------------------
@dataclass
class _Query:
    type: str
    text: str
    as_of: datetime
    subject: _Subject | None
    refers_to: datetime | None = None
    answer: _Doc | None = None       # for timeless queries (and a check for the others)


def _is_event_time(subj: _Subject, t: datetime) -> bool:
    return any(d.role == "event" and d.true_at(t) for d in subj.docs)


def _now_as_of(rng: random.Random, subj: _Subject) -> datetime:
    """A moment in [NOW_START, NOW_END) outside every notice window of ``subj``."""
    while True:
        moment = _rand_time(rng, NOW_START, NOW_END)
        if not _is_event_time(subj, moment):
            return moment


def _month_inside(rng: random.Random, start: datetime, end: datetime) -> datetime:
    """The 15th of a whole calendar month lying inside [start, end)."""
    months = []
    year, month = start.year, start.month
    while True:
        first = datetime(year, month, 1, tzinfo=UTC)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        following = datetime(year, month, 1, tzinfo=UTC)
        if following > end:
            break
        if first >= start:
            months.append(first)
    return rng.choice(months).replace(day=15, hour=12)


def _queries(rng: random.Random, subjects: list[_Subject], roles: dict[str, list[_Subject]],
             references: list[_Doc]) -> list[_Query]:
    out: list[_Query] = []
    for subj in rng.sample(subjects, QUERY_COUNTS["current"]):
        out.append(_Query("current", _question(rng, subj.fact.questions[0].format(p=subj.product)),
                          _now_as_of(rng, subj), subj))
    for n, subj in enumerate(rng.sample(subjects, QUERY_COUNTS["past"])):
        index = rng.randrange(len(subj.versions) - 1)
        version, announced = subj.versions[index], subj.versions[index + 1]
        if n < N_PAST_ANNOUNCED:   # the next version is already written but not yet in force
            as_of = _rand_time(rng, announced.created + timedelta(hours=1), announced.true_from)
        else:
            as_of = _rand_time(rng, version.true_from + timedelta(days=5), announced.created)
        out.append(_Query("past", _question(rng, subj.fact.questions[0].format(p=subj.product)), as_of,
                          subj, answer=version))
    for subj in rng.sample(subjects, QUERY_COUNTS["point_in_time"]):
        version = subj.versions[rng.randrange(len(subj.versions) - 1)]
        moment = _month_inside(rng, version.true_from, version.true_until)
        when = f"{_MONTHS[moment.month - 1]} {moment.year}"
        text = rng.choice(PAST_QUESTIONS).format(q=subj.fact.qnoun, p=subj.product, when=when)
        out.append(_Query("point_in_time", text, _now_as_of(rng, subj), subj, refers_to=moment,
                          answer=version))
    for subj, notice in roles["expired_event"]:
        as_of = notice.true_until + timedelta(days=rng.randint(5, 60), hours=rng.randint(0, 23))
        out.append(_Query("expired_event", _question(rng, subj.fact.questions[0].format(p=subj.product)),
                          min(as_of, NOW_END), subj))
    for subj, notice in roles["active_event"]:
        span = notice.true_until - notice.true_from
        as_of = notice.true_from + span * rng.uniform(0.2, 0.8)
        text = rng.choice(ACTIVE_QUESTIONS).format(q=subj.fact.qnoun, p=subj.product)
        out.append(_Query("active_event", text, as_of.replace(microsecond=0), subj, answer=notice))
    for subj, _ in roles["rumour"]:
        out.append(_Query("rumour", _question(rng, subj.fact.questions[0].format(p=subj.product)),
                          _now_as_of(rng, subj), subj))
    for subj, _ in roles["dependency"]:
        out.append(_Query("dependency", _question(rng, subj.fact.questions[0].format(p=subj.product)),
                          _now_as_of(rng, subj), subj))
    answerable = [(ref, spec) for ref, spec in zip(references, REFERENCE_DOCS, strict=True) if spec.question]
    for ref, spec in answerable[:QUERY_COUNTS["timeless"]]:
        out.append(_Query("timeless", spec.question, _rand_time(rng, EARLIEST_AS_OF, NOW_END), None,
                          answer=ref))
    return out


def _labels(query: _Query) -> dict[str, list[str]]:
    """relevant / stale / distractors of one query, from the ground truth (see module docstring)."""
    if query.subject is None:
        return {"relevant": [query.answer.id], "stale": [], "distractors": []}
    t = query.refers_to or query.as_of
    existing = [d for d in query.subject.docs if d.created <= query.as_of]
    live_events = [d for d in existing if d.role == "event" and d.true_at(t)]
    if query.type == "active_event":
        relevant = live_events
    else:
        if live_events:
            raise AssertionError(f"{query.type} query at {iso(t)} falls inside a live notice")
        relevant = [d for d in existing if d.role in ("policy", "faq") and d.true_at(t)]
    stale = [d for d in existing if d.role in ("policy", "event", "faq")
             and d.true_until is not None and d.true_until <= t]
    distractors = [d for d in existing if d.role in ("rumour", "contradiction")]
    if not relevant or (query.answer is not None and query.answer not in relevant):
        raise AssertionError(f"{query.type} query on {query.subject.key}: inconsistent labels")
    return {"relevant": [d.id for d in relevant], "stale": [d.id for d in stale],
            "distractors": [d.id for d in distractors]}


# --- assembly ----------------------------------------------------------------------------
def _subjects(rng: random.Random) -> list[_Subject]:
    pairs = rng.sample([(p, f) for p in PRODUCTS for f in FACT_TYPES], N_SUBJECTS)
    counts = [k for k, n in VERSION_COUNTS.items() for _ in range(n)]
    modes = [m for m, n in DECLARATION_MODES.items() for _ in range(n)]
    rng.shuffle(counts)
    rng.shuffle(modes)
    subjects = []
    for (product, fact), n_versions, mode in zip(pairs, counts, modes, strict=True):
        picked = rng.sample(fact.values, n_versions + 3)
        in_order = sorted(picked[:n_versions], reverse=fact.descending ^ (rng.random() < 0.2))
        subj = _Subject(f"{_slug(product)}_{fact.key}", product, fact, in_order + picked[n_versions:])
        _policy_versions(rng, subj, n_versions, mode)
        subjects.append(subj)
    return subjects


def _side_documents(rng: random.Random, subjects: list[_Subject]) -> dict[str, list[tuple[_Subject, _Doc]]]:
    order = rng.sample(subjects, len(subjects))
    n_expired, n_active = QUERY_COUNTS["expired_event"], QUERY_COUNTS["active_event"]
    roles: dict[str, list[tuple[_Subject, _Doc]]] = {}
    roles["expired_event"] = []
    for subj in order[:n_expired]:
        start = _rand_day(rng, subj.versions[-1].true_from + timedelta(days=20), datetime(2026, 9, 30, tzinfo=UTC))
        end = start + timedelta(days=rng.randint(3, 21))
        roles["expired_event"].append((subj, _event(rng, subj, start, end)))
    roles["active_event"] = []
    for subj in order[n_expired:n_expired + n_active]:
        start = _rand_day(rng, subj.versions[-1].true_from + timedelta(days=20), datetime(2026, 11, 10, tzinfo=UTC))
        end = start + timedelta(days=rng.randint(2, 14))
        roles["active_event"].append((subj, _event(rng, subj, start, end)))
    roles["rumour"] = [(s, _rumour(rng, s)) for s in rng.sample(subjects, QUERY_COUNTS["rumour"])]
    faq_subjects = rng.sample(subjects, N_STALE_FAQS + N_CURRENT_FAQS)
    roles["dependency"] = [(s, _faq(rng, s, stale=i < N_STALE_FAQS)) for i, s in enumerate(faq_subjects)]
    return roles


def _check_rate(contradiction_rate: float) -> float:
    try:
        rate = float(contradiction_rate)
    except (TypeError, ValueError):
        rate = float("nan")
    if not 0.0 <= rate <= 1.0:
        raise InputError(f"expected a share in [0, 1] (the paper uses {', '.join(map(str, CONTRADICTION_RATES))}), "
                         f"found {contradiction_rate!r}", field="contradiction_rate")
    return rate


def generate_paper_suite(seed: int = DEFAULT_SEED, contradiction_rate: float = 0.0) -> Suite:
    """Build the paper benchmark (see the module docstring for what, how, and the parameters)."""
    rate = _check_rate(contradiction_rate)
    rng = random.Random(seed)
    subjects = _subjects(rng)
    references = _reference_docs(rng)
    roles = _side_documents(rng, subjects)
    base_docs = [d for s in subjects for d in s.docs] + references
    rng.shuffle(base_docs)
    queries = _queries(rng, subjects, roles, references)
    rng.shuffle(queries)

    injector = random.Random(f"paper-suite/{seed}/contradictions")
    contradicted = injector.sample(subjects, len(subjects))[:round(rate * len(subjects))]
    injected = [_contradiction(injector, s) for s in contradicted]

    records = []
    for number, query in enumerate(queries, start=1):
        record: dict[str, Any] = {"id": f"q{number:03d}", "text": query.text, "as_of": iso(query.as_of)}
        record.update(_labels(query))
        record["type"] = query.type
        if query.refers_to is not None:
            record["refers_to"] = iso(query.refers_to)
        if query.subject is not None:
            record["subject"] = query.subject.key
        records.append(record)
    _assign_splits(rng, records)

    docs = base_docs + injected
    truth = {d.id: {"role": d.role, "subject": d.subject, "true_from": iso(d.true_from),
                    "true_until": iso(d.true_until)} for d in docs}
    params = {
        "suite": "paper", "seed": seed, "contradiction_rate": rate,
        "n_documents": len(docs), "n_queries": len(records), "n_subjects": len(subjects),
        "n_contradictions": len(injected), "version_counts": dict(VERSION_COUNTS),
        "declaration_modes": dict(DECLARATION_MODES), "query_types": dict(QUERY_COUNTS),
        "splits": {s: sum(r["split"] == s for r in records) for s in ("tune", "heldout")},
        "now_window": [iso(NOW_START), iso(NOW_END)],
    }
    return Suite([d.record for d in docs], records, params, truth)


def _assign_splits(rng: random.Random, records: list[dict[str, Any]]) -> None:
    """Half of each query type (the odd one out, if any, to ``tune``) is held out, chosen by ``rng``."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_type.setdefault(record["type"], []).append(record)
    for name in sorted(by_type):
        group = by_type[name]
        chosen = set(rng.sample(range(len(group)), len(group) // 2))
        for i, record in enumerate(group):
            record["split"] = "heldout" if i in chosen else "tune"


def write_jsonl(path: str | Path, records: Iterable[Mapping[str, Any]]) -> Path:
    """Write ``records`` as JSON Lines (UTF-8, one object per line); creates parent folders."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return target


def write_suite(suite: Suite, directory: str | Path) -> tuple[Path, Path]:
    """Write ``corpus.jsonl`` and ``queries.jsonl`` of ``suite`` into ``directory``."""
    folder = Path(directory)
    return write_jsonl(folder / "corpus.jsonl", suite.corpus), write_jsonl(folder / "queries.jsonl", suite.queries)
