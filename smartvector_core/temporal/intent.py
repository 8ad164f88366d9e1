"""What a query says about time (blog, "When the user specifies a time range" and "When the
query tells you how much recency should matter").

:func:`parse_intent` reads, from the query text alone and the ``as_of`` moment:

- a **time range** the user asked for ("in 2019", "2021-2023", "since 2022", "last 30 days",
  "this week", "Q1 2025", "March 2024", "2024-03-15"), as a half-open ``[start, end)``;
- a **judgement moment** ("as of 2024-03-15", "in effect on March 1, 2024", "as at 2023",
  "by 2019", "on 12 December", "next Monday"): the moment at which the user wants facts
  judged, *not* a range. It may lie after ``as_of`` (a question about a future day); a bare
  year means the end of that year (``judged_reading`` says which reading applied). "in 2019"
  names a period (a hard range: what held during it), not a moment;
- a **version** ("in Node.js 20.19.0", "v3.5", "version 5.3.2": only strings that look like
  versions) and a **version rank** ("the oldest version"). "latest", "newest", "current", "most
  recent" and "new" are recency words, never version labels: they choose the newest version in
  force at the moment of judgement, which the gates keep. Three flags say what a question asks for:
  ``asks_version`` ("Which release added X?": a version, told by its text, whatever its age),
  ``asks_newest`` ("the latest release": the newest release record of its subject) and
  ``asks_first`` ("In which release was X added?": the first version of a document that holds X);
- a **recency weight** from signal words (blog: "current" 0.70, "recently" 0.55, baseline 0.20).

Hard and soft time (ours): a range written with explicit dates ("from 2021 to 2023",
"in Q1 2025", "since 2022", "March 2024") is a **hard** filter. A range relative to ``as_of``
("this week", "today", "last month", "the past 30 days") is a **soft** preference: people say
"this week" of something that happened 15 days ago, so it must not reject; retrieval gives
documents inside it full weight and lets the weight fall off outside it
(:func:`~smartvector_core.retrieval.scoring.window_signal`). "recently" and "lately" name no
window at all and only raise the recency weight. ``range_mode`` says which applied.

The parser is total: it never raises on any text, it just finds nothing. It steps aside when
unsure (blog: "I did not want it to guess"): only 4-digit years standing alone
count as years (1000–2100), so "Node.js 20.19.0", "1000 requests" and "2000 requests" are not years, and
month names need a year ("May I ..." is not a month).

How consumers should use the range (our advice, documented here because the blog is silent):
keep a document when its time span ``[valid_from or created_at, valid_until)`` overlaps the
range, rather than when ``created_at`` falls inside it; otherwise "today" would keep only
documents written today. Inside a range, recency decay should step aside (blog: "Temporal decay
made it worse, ranking newer documents higher when older ones were exactly what was asked for").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from dateutil.relativedelta import relativedelta

from ..clock import ensure_utc, iso, to_us
from ..config.temporal import DEFAULT_TEMPORAL, IntentConfig
from .codes import NO_START
from .version_words import (
    asks_first_version,
    asks_newest,
    asks_version,
    blank,
    version_between,
    version_key,
    version_named,
    version_rank,
)

OPEN_START = datetime.min.replace(tzinfo=UTC)   # "before 2020": no lower bound
HARD, SOFT = "hard", "soft"                    # QueryIntent.range_mode
_ONE_US = timedelta(microseconds=1)

_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
           "sep": 9, "oct": 10, "nov": 11, "dec": 12}
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_YEAR = r"(?:1[0-9]\d\d|20\d\d|2100)"
_UNIT_AFTER = (r"requests?|req|calls?|tokens?|users?|items?|rows?|ms|seconds?|secs?|minutes?|mins?"
               r"|hours?|days?|words?|characters?|chars|bytes?|kb|mb|gb|tb|times|people|employees"
               r"|dollars|euros|per|x|files?|documents?|records?|messages?|emails?|seats?|licen[cs]es?"
               r"|accounts?|members?|customers?|orders?|products?|pages?|lines?|entries|events?|points?"
               r"|credits?|units?|devices?|connections?|instances?|nodes?|keys?|queries|attempts?|retries"
               r"|images?|videos?|uploads?|downloads?|transactions?|invoices?|tickets?|projects?|repos?"
               r"|repositories|agents?|licences?|rps|qps|rpm")
# a number after one of these names something (an error code, a port), it is not a year
_NAMED_NUMBER = "".join(rf"(?<!{re.escape(w)} )" for w in ("code", "error", "port", "status", "number", "no.", "id", "#",
                                                  "model", "type", "item", "issue", "ticket", "pr"))
# A standalone year: not glued to letters, digits, dots, currency, and not a count of something.
# 1900-2100 stand alone; an older one (1000-1899) is a year only where the text says so: after a
# time word ("in 1850", "since 1066", "as of 1895") or in a range of years ("1850-1860", "1850 to 1860"), so that
# "1000" in "1000 -> 500" stays a quantity.
_OLD_YEAR = r"1[0-8]\d\d"
_OLD_YEAR_CUED = ("(?:(?:" + "|".join(rf"(?<=\b{w} )" for w in (
    "in", "since", "until", "till", "during", "before", "after", "circa", "around", "between", "as of", "as at"))
    + r"|(?<=\d\d\d\d-)|(?<=\d\d\d\d–)|(?<=\d\d\d\d to )|(?<=\d\d\d\d and )|(?<=\d\d\d\d until ))"
    + _OLD_YEAR + "|" + _OLD_YEAR + r"(?=\s*(?:[-–—]|to\b|until\b|till\b|through\b|and\b)\s*1[0-9]\d\d\b))")
_YEAR_ALONE = (rf"(?<![\w.$€£/:]){_NAMED_NUMBER}(?:19\d\d|20\d\d|2100|{_OLD_YEAR_CUED})"
               rf"(?!\w|\.\d|,\d|/\w|\s*%|\s+(?:{_UNIT_AFTER})\b)")
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_PERIOD_FORMS = (
    ("day", rf"(?P<y>{_YEAR})-(?P<m>\d\d)-(?P<d>\d\d)(?!\d)"),
    ("month", rf"(?P<y>{_YEAR})-(?P<m>\d\d)(?![\d-])"),
    ("quarter", rf"(?P<y>{_YEAR})\s*-?\s*q(?P<q>[1-4])\b"),
    ("quarter", rf"\bq(?P<q>[1-4])\s*[-,]?\s*(?P<y>{_YEAR})(?!\w)"),
    ("day", rf"\b(?P<mn>{_MONTH})\.?\s+(?P<d>{_DAY}),?\s+(?P<y>{_YEAR})(?!\w)"),
    ("day", rf"\b(?P<d>{_DAY})\s+(?:of\s+)?(?P<mn>{_MONTH})\.?,?\s+(?P<y>{_YEAR})(?!\w)"),
    ("month", rf"\b(?P<mn>{_MONTH})\.?,?\s+(?P<y>{_YEAR})(?!\w)"),
    ("decade", r"(?<![\w.$])(?P<y>(?:19|20)\d0)'?s\b"),
    ("year", rf"(?P<y>{_YEAR_ALONE})"),
)
_OLD_YEAR_ONLY = re.compile(_OLD_YEAR)
_FORM_RES = [(kind, re.compile(pattern, re.I)) for kind, pattern in _PERIOD_FORMS]
# One alternation that finds a period anywhere (groups stripped of names).
PERIOD_PATTERN = _P = "(?:" + "|".join(re.sub(r"\(\?P<\w+>", "(?:", p) for _, p in _PERIOD_FORMS) + ")"

_RANGE_TWO = [
    re.compile(rf"\bbetween\s+(?P<a>{_P})\s+and\s+(?P<b>{_P})", re.I),
    re.compile(rf"\bfrom\s+(?P<a>{_P})\s*(?:[-–—]|\b(?:to|until|till|through|thru)\b)\s*(?P<b>{_P})", re.I),
    re.compile(rf"(?P<a>{_P})(?:\s*[-–—]\s*|\s+(?:to|until|till|through|thru)\s+)(?P<b>{_P})", re.I),
]
_SINCE = re.compile(rf"\b(?P<w>since|after|starting(?:\s+(?:in|from))?|later\s+than)\s+(?P<a>{_P})", re.I)
_BEFORE = re.compile(rf"\b(?P<w>before|prior\s+to|earlier\s+than|until|up\s+to|through)\s+(?P<a>{_P})", re.I)
_WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                 "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_UNIT = r"(?P<unit>hour|day|week|month|quarter|year|decade)s?\b"
_LAST_N = re.compile(rf"\b(?:last|past|previous)\s+(?P<n>\d{{1,4}}|{'|'.join(_WORD_NUMBERS)})\s+{_UNIT}", re.I)
_LAST_ONE = re.compile(rf"\b(?P<the>the\s+)?(?P<w>last|past|previous)\s+{_UNIT}", re.I)
_CALENDAR = re.compile(r"\b(?:(?P<day>today|yesterday)|this\s+(?P<unit>week|month|quarter|year))\b", re.I)

_JUDGED = re.compile(rf"\b(?:as\s+(?:of|at)|by|in\s+effect\s+(?:on|in|at|during)|effective(?:\s+(?:on|as\s+of))?)"
                     rf"\s+(?:the\s+)?(?P<a>{_P}|yesterday)", re.I)
_JUDGED_ON = re.compile(rf"\bon\s+(?:the\s+)?(?P<a>{_P})", re.I)   # "on" only with a day
# a day written without its year ("on 12 December", "on December 12th"): its nearest occurrence
_DAY_NO_YEAR = re.compile(rf"\b(?:on|by)\s+(?:the\s+)?(?:(?P<d1>{_DAY})\s+(?:of\s+)?(?P<m1>{_MONTH})"
                          rf"|(?P<m2>{_MONTH})\.?\s+(?P<d2>{_DAY}))(?!,?\s*\d)(?!\w)", re.I)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NEXT_WEEKDAY = re.compile(rf"\b(?:(?:on\s+)?next|this\s+coming|on)\s+(?P<wd>{'|'.join(_WEEKDAYS)})\b", re.I)
_NOT_A_RANGE = re.compile(r"\bas\s+(?:of|at)\s+(?:right\s+)?(?:now|today)\b", re.I)
# an identifier that carries a year is a name, not a time (ours): "Which releases fixed
# CVE-2021-45115?" asks about no period of 2021 (letters, then a year and a number, by hyphens)
_ID_WITH_YEAR = re.compile(rf"\b[A-Za-z][A-Za-z0-9]*-{_YEAR}-\d+\b")
# A clause that describes the subject (ours): a relative clause ("who served as prime minister
# from 1999 to 2008,", "that was built between 1772 and 1774 in Mannheim,") or a participle of
# origin (", established in 1960,"), closed by a comma, not at the question's start.
_CLAUSE_END = r"(?:[^,?]|,(?=\s*\d))*,(?!\s*\d)"   # up to a comma, not one inside a date ("March 24, 2021")
_DESCRIBING = re.compile(rf"(?<=\w )(?:who|that|which|whose)\b{_CLAUSE_END}|,\s*(?:born|founded|established|built|"
                         rf"formed|created|opened|launched|released)\b{_CLAUSE_END}", re.I)

@dataclass(frozen=True)
class QueryIntent:
    """The time-related meaning of one query; see :func:`parse_intent`.

    ``time_range`` is half-open ``[start, end)`` with aware UTC datetimes; ``start`` is
    :data:`OPEN_START` when unbounded below ("before 2020"). ``judged_at`` is None when the
    query judges facts at ``as_of`` itself.
    """

    time_range: tuple[datetime, datetime] | None = None
    range_text: str = ""
    judged_at: datetime | None = None
    judged_text: str = ""
    version: str | None = None
    version_rank: str | None = None   # 'oldest' | None (recency words are no version rank)
    recency_weight: float = DEFAULT_TEMPORAL.intent.baseline
    recency_words: tuple[str, ...] = ()
    range_mode: str | None = None     # 'hard' (explicit dates: a filter) | 'soft' (relative: a preference)
    judged_period: tuple[datetime, datetime] | None = None   # the period "as of / on / by" named
    judged_reading: str = ""          # how the judged period became ``judged_at``
    asks_version: bool = False        # "which release added X?": the answer is a version, told by its text
    asks_newest: bool = False         # "the latest release": the newest release of its subject
    asks_first: bool = False          # "which release added X?": the first version of a document that holds X
    version_range: tuple[str, str] | None = None   # "between 2.24.0 and 2.26.0": the releases after the first, to the second

    @property
    def named_period_us(self) -> tuple[int, int] | None:
        """The period the question names, for matching against the periods written in passages
        (:mod:`.content_time`): an explicit range ("from 2004 to 2005", "in 2019"), else the
        period of the judgement moment ("as of 2018", "on 12 December"); int64 µs, half-open."""
        if self.range_mode == HARD:
            return self.time_range_us
        if self.judged_period is None:
            return None
        return to_us(self.judged_period[0]), to_us(self.judged_period[1])

    @property
    def hard_range_us(self) -> tuple[int, int] | None:
        """The range as a filter: only when written with explicit dates (``range_mode`` hard)."""
        return self.time_range_us if self.range_mode == HARD else None

    @property
    def soft_range_us(self) -> tuple[int, int] | None:
        """The range as a preference: only when relative to ``as_of`` (``range_mode`` soft)."""
        return self.time_range_us if self.range_mode == SOFT else None

    @property
    def time_range_us(self) -> tuple[int, int] | None:
        """``time_range`` in int64 microseconds, with :data:`NO_START` for an open start."""
        if self.time_range is None:
            return None
        start, end = self.time_range
        return (NO_START if start == OPEN_START else to_us(start)), to_us(end)

    def to_dict(self) -> dict[str, Any]:
        rng = None
        if self.time_range is not None:
            rng = [None if self.time_range[0] == OPEN_START else iso(self.time_range[0]),
                   iso(self.time_range[1])]
        return {"time_range": rng, "range_text": self.range_text, "range_mode": self.range_mode,
                "judged_at": iso(self.judged_at),
                "judged_text": self.judged_text, "judged_reading": self.judged_reading, "version": self.version,
                "version_rank": self.version_rank, "recency_weight": self.recency_weight,
                "recency_words": list(self.recency_words), "asks_version": self.asks_version,
                "asks_newest": self.asks_newest, "asks_first": self.asks_first,
                "version_range": None if self.version_range is None else list(self.version_range)}


def parse_intent(text: object, as_of: datetime, config: IntentConfig = DEFAULT_TEMPORAL.intent) -> QueryIntent:
    """Read time range, judgement moment, version and recency weight from a query.

    Recency weight (blog, "When the query tells you how much recency should matter"):
    ``max(baseline, max weight of the matched signal phrases)``; phrases match whole words,
    case-insensitively, so "Should I ..." matches (the blog lower-cased the query and then
    looked for "should I", which never matched). Defaults: strong 0.70 ("current", "latest",
    "now", ...), medium 0.55 ("recently", "changed", ...), advisory 0.45 ("should I",
    "do I need"), baseline 0.20.

    Time range precedence: two-ended ("between A and B", "from A to B", "A-B") > one-ended
    ("since A" -> [start A, as_of], "after A" -> [end A, as_of], "before A" -> [-inf, start A))
    > rolling ("last/past N days|weeks|months|years" -> [as_of − N, as_of]; "the last/past year"
    is rolling, bare "last year|month|week|quarter" is the previous calendar one) > calendar
    ("today", "yesterday", "this week" from Monday 00:00 UTC, "this month|quarter|year") >
    a single period anywhere ("in 2019", "March 2024", "Q1 2025", "2025-Q1", "2024-03-15",
    "the 2010s"). Ends at ``as_of`` are stored as ``as_of + 1 µs`` so the half-open range
    contains ``as_of``. Where the question names a judgement moment (below), the rolling,
    calendar and one-ended periods are relative to that moment instead of ``as_of``: "last year's
    winner as of 2021" asks about 2020 whenever it is read.

    Judgement moment: "as of / as at / by / in effect on / effective <period>", "on <day>",
    "on|by <day> <month>" without a year (its occurrence nearest ``as_of``) and "next|on
    <weekday>" (the next one; "on Monday" the nearest). It is the last microsecond of that
    period, or ``as_of`` when the period contains ``as_of`` ("as of 2026" asked in 2026 means
    now); ``judged_period`` keeps the period itself. Its text is removed before the range is parsed,
    so "the rate limit as of 2023" has no range. Versions are removed too, so "20.19.0" is
    never read as a date, and so are identifiers that carry a year ("CVE-2021-45115"). "Between 2.24.0 and 2.26.0" names version 2.26.0 and the range of
    releases after 2.24.0 up to 2.26.0 (``version_range``).
    """
    text = text if isinstance(text, str) else ("" if text is None else str(text))
    as_of = ensure_utc(as_of)
    scratch = blank(text, [m.span() for m in _ID_WITH_YEAR.finditer(text)])
    judged_at, judged_text, scratch, judged_period, judged_reading = _judged(scratch, as_of)
    asks_which = asks_version(scratch)
    between = version_between(scratch)
    version, scratch = version_named(scratch)
    scratch = blank(scratch, [m.span() for m in _NOT_A_RANGE.finditer(scratch)])
    # a period relative to a moment ("last year", "this week") is relative to the moment the
    # question names, where it names one: "last year's winner as of 2021" asks about 2020
    time_range, range_text, relative = _asked_range(scratch, as_of if judged_at is None else judged_at)
    weight, words = _recency(text, config)
    mode = None if time_range is None else (SOFT if relative else HARD)
    return QueryIntent(time_range=time_range, range_text=text[range_text[0]:range_text[1]].strip()
                       if range_text else "", judged_at=judged_at, judged_text=judged_text,
                       version=version, version_rank=version_rank(text), recency_weight=weight,
                       recency_words=words, range_mode=mode, judged_period=judged_period,
                       judged_reading=judged_reading, asks_version=asks_which, asks_newest=asks_newest(text),
                       asks_first=asks_first_version(scratch, asks_which),
                       version_range=between if version is not None else None)


# --- periods ------------------------------------------------------------------------------
def declared_version(intent: QueryIntent, declared) -> QueryIntent:
    """``intent`` with a period that is written as a declared ``version`` value read as that
    version label: a document declaring ``version: 2025-Q1`` makes "what changed in 2025-Q1?"
    ask for that version, not for the first quarter of 2025. ``declared``: the ``version``
    values of the candidates (any iterable of str or None). The rule: when the text of the
    range ("2025-Q1") or of the judged period ("as of 2025-Q1" -> "2025-Q1") equals a declared
    value (case and a leading ``v`` aside), that value is the version and the range or the
    judgement moment it came from is dropped; a version the question already names wins. A
    period that no document declares stays a period."""
    if intent.version is not None:
        return intent
    labels = {version_key(v): str(v).strip() for v in declared if v is not None and str(v).strip()}
    if not labels:
        return intent
    judged = _JUDGED.search(intent.judged_text) if intent.judged_text else None
    if intent.range_text and version_key(intent.range_text) in labels:
        return replace(intent, version=labels[version_key(intent.range_text)], time_range=None, range_text="",
                       range_mode=None)
    if judged is not None and version_key(judged.group("a")) in labels:
        return replace(intent, version=labels[version_key(judged.group("a"))], judged_at=None, judged_text="",
                       judged_period=None, judged_reading="")
    return intent


def period_bounds(period_text: str) -> tuple[datetime, datetime] | None:
    """``[start, end)`` of one written period ("2019", "March 2024", "Q1 2025", "2024-03-15",
    "the 2010s"), or None when it is not a real date (e.g. "2024-02-30"). A year before 1900
    found in its context (a time word or a range before it) is read here on its own."""
    body = re.sub(r"^the\s+", "", period_text.strip(), flags=re.I)
    if _OLD_YEAR_ONLY.fullmatch(body):
        start = datetime(int(body), 1, 1, tzinfo=UTC)
        return start, start + relativedelta(years=1)
    for kind, form in _FORM_RES:
        m = form.fullmatch(body)
        if m is None:
            continue
        try:
            return _bounds(kind, m)
        except (ValueError, OverflowError):
            return None
    return None


def _bounds(kind: str, m: re.Match[str]) -> tuple[datetime, datetime]:
    year = int(m.group("y"))
    if kind == "year":
        start = datetime(year, 1, 1, tzinfo=UTC)
        return start, start + relativedelta(years=1)
    if kind == "decade":
        start = datetime(year, 1, 1, tzinfo=UTC)
        return start, start + relativedelta(years=10)
    if kind == "quarter":
        start = datetime(year, 3 * int(m.group("q")) - 2, 1, tzinfo=UTC)
        return start, start + relativedelta(months=3)
    groups = m.groupdict()
    month = int(groups["m"]) if groups.get("m") else _MONTHS[groups["mn"][:3].lower()]
    if kind == "month":
        start = datetime(year, month, 1, tzinfo=UTC)
        return start, start + relativedelta(months=1)
    day = int(re.match(r"\d+", groups["d"]).group())
    start = datetime(year, month, day, tzinfo=UTC)
    return start, start + timedelta(days=1)


def _plus_us(moment: datetime) -> datetime:
    try:
        return moment + _ONE_US
    except OverflowError:
        return moment


def _judged(text: str, as_of: datetime
            ) -> tuple[datetime | None, str, str, tuple[datetime, datetime] | None, str]:
    """(moment, its phrase, ``text`` with judged phrases blanked, the period named, how it was read).

    A phrase that names a calendar period ("as of 2017", "on 12 December") outranks one that
    names only a weekday ("on Saturday"), which can be part of a name ("on saturday night live");
    among phrases of one rank the first wins."""
    candidates = []
    for regex in (_JUDGED, _JUDGED_ON):
        for m in regex.finditer(text):
            phrase = m.group("a")
            if phrase.lower() == "yesterday":
                midnight = as_of.replace(hour=0, minute=0, second=0, microsecond=0)
                bounds = (midnight - timedelta(days=1), midnight)
            else:
                bounds = period_bounds(phrase)
                if bounds is None or (regex is _JUDGED_ON and not _is_day(phrase)):
                    continue
            candidates.append((0, m.start(), m.span(), bounds))
    for m in _DAY_NO_YEAR.finditer(text):
        day = _nearest_day(m, as_of)
        if day is not None:
            candidates.append((0, m.start(), m.span(), (day, day + timedelta(days=1))))
    for m in _NEXT_WEEKDAY.finditer(text):
        day = _weekday(m, as_of)
        candidates.append((1, m.start(), m.span(), (day, day + timedelta(days=1))))
    if not candidates:
        return None, "", text, None, ""
    _, _, span, (start, end) = min(candidates)
    if start <= as_of < end:
        moment, reading = as_of, "the period holds as_of: judged at as_of"
    else:
        moment, reading = end - _ONE_US, f"judged at the end of the period named ({iso(end - _ONE_US)})"
        if end - start >= timedelta(days=365):
            reading = f"a bare year means the end of that year: {reading}"
    return (moment, text[span[0]:span[1]].strip(), blank(text, [c[2] for c in candidates]), (start, end),
            reading)


def _nearest_day(m: re.Match[str], as_of: datetime) -> datetime | None:
    """The day of a "12 December" written without a year: its occurrence nearest to ``as_of``
    (last year's, this year's or next year's; a tie goes to the future one)."""
    month = _MONTHS[(m.group("m1") or m.group("m2"))[:3].lower()]
    day = int(re.match(r"\d+", m.group("d1") or m.group("d2")).group())
    midnight = as_of.replace(hour=0, minute=0, second=0, microsecond=0)
    found = []
    for year in (as_of.year - 1, as_of.year, as_of.year + 1):
        try:
            when = midnight.replace(year=year, month=month, day=day)
        except ValueError:
            continue
        found.append((abs(when - midnight), when < midnight, when))
    return min(found)[2] if found else None


def _weekday(m: re.Match[str], as_of: datetime) -> datetime:
    """"next Monday" / "this coming Monday": the first such day after ``as_of``'s date;
    "on Monday": the nearest one (today counts; a tie goes to the future one)."""
    midnight = as_of.replace(hour=0, minute=0, second=0, microsecond=0)
    ahead = (_WEEKDAYS.index(m.group("wd").lower()) - midnight.weekday()) % 7
    if m.group().lower().lstrip().startswith("on ") and not re.search(r"next|coming", m.group(), re.I):
        return midnight + timedelta(days=ahead if ahead <= 3 else ahead - 7)
    return midnight + timedelta(days=ahead or 7)


def _is_day(phrase: str) -> bool:
    bounds = period_bounds(phrase)
    return bounds is not None and bounds[1] - bounds[0] == timedelta(days=1)


# --- time ranges --------------------------------------------------------------------------
def periods_in(text: str, anchor: datetime, *, relative: bool = True) -> list[tuple[int, int, datetime, datetime]]:
    """Every period written in ``text``, as ``(char start, char end, start, end)`` (half-open
    ``[start, end)``; ``start`` is :data:`OPEN_START` for "until 2019"), in text order.

    The same grammar as a question's range (:func:`parse_intent`), applied until nothing is
    left: two-ended ranges first ("from 2004 to 2005", "between ... and ...", "1916-1920"), then
    one-ended ones ("since 1990", "until 2019", "before 2020"), relative ones ("last year",
    "this month", "today"; ``anchor`` is the moment they are relative to: the passage's
    ``created_at``; left out when ``relative`` is false), then single periods ("in 1963",
    "March 2024", "the 1980s", "2024-03-15"). Each phrase is taken once: a found phrase is
    blanked before the next search.
    """
    scratch = text if isinstance(text, str) else ""
    anchor = ensure_utc(anchor)
    out: list[tuple[int, int, datetime, datetime]] = []
    finders = (_two_ended, _one_ended, _rolling, _calendar, _single) if relative else (_two_ended, _one_ended, _single)
    for finder in finders:
        while True:
            found = finder(scratch, anchor)
            if found is None:
                break
            (start, end), (a, b) = found
            out.append((a, b, start, end))
            scratch = blank(scratch, [(a, b)])
    return sorted(out)


def _asked_range(text: str, as_of: datetime
                 ) -> tuple[tuple[datetime, datetime] | None, tuple[int, int] | None, bool]:
    """:func:`_time_range` of the question outside the clauses that describe its subject
    (``_DESCRIBING``), else of the whole question: "New Zealand politician who served as prime
    minister from 1999 to 2008, Helen Clark received which award in 2010?" asks about 2010 (TimeQA,
    train: the first, descriptive period was read, and a 2000s paragraph answered)."""
    outside = blank(text, [m.span() for m in _DESCRIBING.finditer(text)])
    if outside != text:
        found = _time_range(outside, as_of)
        if found[0] is not None:
            return found
    return _time_range(text, as_of)


def _time_range(text: str, as_of: datetime
                ) -> tuple[tuple[datetime, datetime] | None, tuple[int, int] | None, bool]:
    """(range, its span in ``text``, whether it is relative to ``as_of``: rolling or calendar)."""
    for finder in (_two_ended, _one_ended, _rolling, _calendar, _single):
        found = finder(text, as_of)
        if found is not None:
            return found[0], found[1], finder in (_rolling, _calendar)
    return None, None, False


def _two_ended(text: str, as_of: datetime):
    for regex in _RANGE_TWO:
        for m in regex.finditer(text):
            a, b = period_bounds(m.group("a")), period_bounds(m.group("b"))
            if a and b:
                return (min(a[0], b[0]), max(a[1], b[1])), m.span()
    return None


def _one_ended(text: str, as_of: datetime):
    hits = []
    for m in _SINCE.finditer(text):
        bounds = period_bounds(m.group("a"))
        if bounds:
            start = bounds[0] if m.group("w").lower().startswith(("since", "starting")) else bounds[1]
            hits.append((m.start(), (start, max(start, _plus_us(as_of))), m.span()))
    for m in _BEFORE.finditer(text):
        bounds = period_bounds(m.group("a"))
        if bounds:
            inclusive = m.group("w").lower() in ("until", "through") or m.group("w").lower().startswith("up")
            hits.append((m.start(), (OPEN_START, bounds[1] if inclusive else bounds[0]), m.span()))
    if not hits:
        return None
    _, rng, span = min(hits, key=lambda h: h[0])
    return rng, span


def _step(unit: str, n: int) -> relativedelta:
    unit = unit.lower()
    if unit == "decade":
        return relativedelta(years=10 * n)
    if unit == "quarter":
        return relativedelta(months=3 * n)
    return relativedelta(**{unit + "s": n})


def _minus(moment: datetime, delta: relativedelta) -> datetime:
    try:
        return moment - delta
    except (OverflowError, ValueError):
        return OPEN_START


def _rolling(text: str, as_of: datetime):
    m = _LAST_N.search(text)
    if m:
        raw = m.group("n").lower()
        n = _WORD_NUMBERS.get(raw) or int(raw)
        return (_minus(as_of, _step(m.group("unit"), n)), _plus_us(as_of)), m.span()
    m = _LAST_ONE.search(text)
    if not m:
        return None
    unit = m.group("unit").lower()
    if m.group("the") or m.group("w").lower() == "past" or unit in ("hour", "day", "decade"):
        return (_minus(as_of, _step(unit, 1)), _plus_us(as_of)), m.span()
    start, _ = _calendar_period(unit, as_of)          # previous calendar week/month/quarter/year
    return (_minus(start, _step(unit, 1)), start), m.span()


def _calendar_period(unit: str, as_of: datetime) -> tuple[datetime, datetime]:
    midnight = as_of.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "week":
        start = midnight - timedelta(days=midnight.weekday())
    elif unit == "month":
        start = midnight.replace(day=1)
    elif unit == "quarter":
        start = midnight.replace(day=1, month=3 * ((midnight.month - 1) // 3) + 1)
    else:
        start = midnight.replace(day=1, month=1)
    return start, start + _step(unit, 1)


def _calendar(text: str, as_of: datetime):
    m = _CALENDAR.search(text)
    if not m:
        return None
    if m.group("day"):
        midnight = as_of.replace(hour=0, minute=0, second=0, microsecond=0)
        if m.group("day").lower() == "yesterday":
            return (midnight - timedelta(days=1), midnight), m.span()
        return (midnight, midnight + timedelta(days=1)), m.span()
    return _calendar_period(m.group("unit").lower(), as_of), m.span()


def _single(text: str, as_of: datetime):
    for m in re.finditer(_P, text, re.I):
        bounds = period_bounds(m.group())
        if bounds:
            return bounds, m.span()
    return None


# --- recency ------------------------------------------------------------------------------
_RECENCY_CACHE: dict[IntentConfig, tuple[re.Pattern[str], dict[str, float]]] = {}


def _recency_matcher(config: IntentConfig) -> tuple[re.Pattern[str], dict[str, float]]:
    cached = _RECENCY_CACHE.get(config)
    if cached is None:
        weights: dict[str, float] = {}
        for words, weight in ((config.advisory_words, config.advisory), (config.medium_words, config.medium),
                              (config.strong_words, config.strong)):
            for word in words:
                weights[_norm(word)] = max(weight, weights.get(_norm(word), 0.0))
        phrases = sorted(weights, key=len, reverse=True)
        alternation = "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases) or r"(?!)"
        cached = (re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])", re.I), weights)
        _RECENCY_CACHE[config] = cached
    return cached


def _norm(phrase: str) -> str:
    return " ".join(phrase.lower().split())


def _recency(text: str, config: IntentConfig) -> tuple[float, tuple[str, ...]]:
    regex, weights = _recency_matcher(config)
    words = tuple(dict.fromkeys(_norm(m.group()) for m in regex.finditer(text)))
    weight = max([config.baseline, *(weights[w] for w in words)])
    return weight, words
