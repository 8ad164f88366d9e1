"""The lexical signal of the ``default`` profile: BM25 from LanceDB's native full-text index,
and whether the passage names what the question names ("specificity").

A question like "What uptime does the Checkout Service guarantee?" is about a *subject* (the
Checkout Service) and an *attribute* (uptime). Dense similarity and plain BM25 both reward a
glossary entry that repeats the attribute; the document that names the subject must win. So
the signal has two halves (:func:`lexical_signal`): the passage's BM25 for the question (rare
terms weigh more by their IDF), and the share of the question's names it contains, each name
weighted by its best BM25 (a rare name counts more than a common one; all of a name's terms
required: a LanceDB ``MatchQuery`` with the AND operator). When every candidate names the
subject (versions and siblings of one service) the names half is flat and decides nothing.
Name terms are read from the question's surface only (:func:`subject_terms`); passages are
never matched by hand: LanceDB's index (stemmed, stop words removed) does the matching. A
passage also names what its document's title names (:func:`named_in_titles`, the titles read
as that index reads text): "Its first president, from 1928 until 1935, was Konstantinos
Raktivan" is a paragraph of "Council of State (Greece)" and names the Council of State, though
its text says "its" (TimeQA train: the page's lead paragraph, which writes the name, led the
paragraph that answers).

A question written without case ("when did dublin last win the all ireland") tells no names by
its capitals, so each of its content words stands as a name of its own (:func:`uncased_terms`);
their weights (each word's best BM25, so its IDF) let the rare ones (``dublin``) decide, and the
common ones, which every candidate holds, stay flat. Without this, a Dublin question answered by
the Galway document of the same wording got no lexical help.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from ..temporal.kinds import NEWS_DOC_TYPES
from ..temporal.version_words import version_named
from ..words import CONTENT_STOP_WORDS, STARTER_WORDS, terms_of

NAME_SHARE = 0.6        # ours, swept on the tune sets: the names half of the lexical signal (the rest: the question's BM25)

# Dates are the time intent's business, not names: months, weekdays, quarters, and plain numbers
# (a year, a count) are never names; a version needs a dot ("2.0.1") or letters ("v2", "HTTP2").
_DATE_WORD = re.compile(r"(?i)(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
                        r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday"
                        r"|thursday|friday|saturday|sunday|q[1-4]|h[12]|fy\d\d(?:\d\d)?)")
_QUOTED = re.compile(r"[\"“”`]([^\"“”`]{2,80})[\"“”`]")
_TOKEN = re.compile(r"[A-Za-z0-9][\w.+#/-]*[\w+#]|[A-Za-z0-9]")
# a release number right after a capitalised name belongs to it ("PostgreSQL 12", "MySQL 5.7",
# "Python 3.10"); a year does not ("Wimbledon 2019": the year is the time intent's)
_RELEASE_NUMBER = re.compile(r"(?!(?:1[5-9]|20)\d\d$)\d{1,4}(?:\.\d+)*")
_IDENTIFIER = re.compile(r"_|[./#]\w|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]")   # inside a token: an identifier


def subject_terms(question: str) -> list[str]:
    """The names in ``question``, each a group of terms a document must all contain to name it:

    - quoted text ("send_file", `SESSION_COOKIE_NAME`);
    - identifiers: a token with ``_``, ``.``, ``/``, ``#`` inside, letters and digits together, or
      an inner capital (``3.5.5``, ``send_file``, ``HTTPError``, ``X-Forwarded-For``), each on
      its own; plain numbers (years, counts) are not names;
    - runs of capitalised words (``Checkout Service``), except a question or request word that
      only starts the sentence ("What", "Which", "Show"), and months, weekdays and quarters
      (dates are the time intent's business); a release number right after the run belongs to it
      (``PostgreSQL 12``, ``Python 3.10``; not a year, nor the version the question asks about,
      which the version intent judges: "What changed in Larkspur SDK 3.0.0?" names Larkspur SDK
      and 3.0.0, :func:`.version_words.version_named`);
    - in a question without case (:func:`uncased_terms`), its content words, each on its own.

    A query reads them three times (its name searches, the release rules, the confidence's names
    missing): worked out once per question text (:func:`_subject_groups`), a new list each call.
    """
    return list(_subject_groups(question if isinstance(question, str) else ""))


@lru_cache(maxsize=4096)
def _subject_groups(text: str) -> tuple[str, ...]:
    """:func:`subject_terms` of ``text``, kept per text."""
    groups = [m.group(1).strip() for m in _QUOTED.finditer(text)]
    run: list[str] = []
    last_end = -1
    named_last = False                  # the last token was an identifier name ("PostgreSQL")
    asked = version_named(text)[0]      # "in Larkspur SDK 3.0.0": the version asked, the version intent's
    for m in _TOKEN.finditer(text):
        token = m.group().rstrip(".")
        identifier = is_identifier(token)
        capital = (token[:1].isupper() and token.lower() not in STARTER_WORDS and len(token) > 1
                   and not _DATE_WORD.fullmatch(token))
        right_after = last_end >= 0 and text[last_end:m.start()].strip() == ""
        adjacent = run and right_after
        if right_after and (run or named_last) and _RELEASE_NUMBER.fullmatch(token) and token != asked:
            # "PostgreSQL 12", "Python 3.10": the name with its release number
            if run:
                groups.append(" ".join([*run, token]))
            else:
                groups[-1] = f"{groups[-1]} {token}"
            run, named_last, last_end = [], False, m.end()
            continue
        if run and not (capital and not identifier and adjacent):
            groups.append(" ".join(run))
            run = []
        if identifier:
            groups.append(token)
        elif capital:
            run.append(token)
        named_last = identifier and not _RELEASE_NUMBER.fullmatch(token)
        last_end = m.end()
    if run:
        groups.append(" ".join(run))
    if not groups:
        groups = uncased_terms(text)
    return tuple(dict.fromkeys(g for g in groups if g))


def written_as_one(name: str) -> bool:
    """Whether a name must be written whole to be named (:func:`written_whole`): an identifier
    (:func:`is_identifier`), or a name with its release number ("PostgreSQL 12", "Python 3.10")."""
    last = name.rsplit(" ", 1)[-1]
    return is_identifier(name) or (" " in name and bool(_RELEASE_NUMBER.fullmatch(last)))


def is_identifier(token: str) -> bool:
    """Whether a token of a question is an identifier name (:func:`subject_terms`): ``_``, ``.``,
    ``/`` or ``#`` inside, letters and digits together, or an inner capital (``send_file``,
    ``3.5.5``, ``HTTPError``), or hyphens with a capital (``X-Forwarded-For``); never a date word."""
    return (bool(_IDENTIFIER.search(token)) or ("-" in token and any(c.isupper() for c in token))) \
        and not _DATE_WORD.fullmatch(token)


def written_whole(names: Sequence[str], texts: Mapping[str, str]) -> list[set[str] | None]:
    """Per name, the chunks of ``texts`` (chunk id -> text) that write it whole, for a name that is
    an identifier or carries its release number (:func:`written_as_one`); None for any other name
    (its terms, in any order, are what names it). The full-text index reads ``db_default`` as the terms ``db``
    and ``default``, so "django.db ... the default value" would name it, and
    ``PASSWORD_RESET_TIMEOUT`` is found inside ``PASSWORD_RESET_TIMEOUT_DAYS``: an identifier
    names a passage only where the passage writes it, case-blind, with no word character on
    either side and no number it continues (``3.1`` is not written in ``3.10``, ``3.1.2`` or
    ``2.3.1``; ``db_default`` is written in ``Field.db_default``). Django release notes: "Which Django release added the db_default field option?"
    was answered by the 3.2 notes on ``DEFAULT_AUTO_FIELD`` (django.db, default)."""
    out: list[set[str] | None] = []
    lowered: dict[str, str] | None = None
    for name in names:
        if not written_as_one(name):
            out.append(None)
            continue
        if lowered is None:   # once per question: a substring test first, the pattern only where it holds
            lowered = {chunk: text.lower() for chunk, text in texts.items() if isinstance(text, str)}
        first = name.split()[0].lower()
        written = _written_pattern(name)
        out.append({chunk for chunk, text in lowered.items() if first in text and _whole_in(written, text)})
    return out


@lru_cache(maxsize=1024)
def _written_pattern(name: str) -> re.Pattern[str]:
    """The name's words for :func:`written_whole`, lower-cased, any white space between them (a
    literal pattern: fast to find; its edges are checked by :func:`_whole_in`)."""
    return re.compile(r"\s+".join(re.escape(part.lower()) for part in name.split()))


def _whole_in(written: re.Pattern[str], text: str) -> bool:
    """Whether ``text`` holds ``written`` with no word character on either side and no number it
    continues: not after ``x.`` / ``1-`` and a digit or a digit and ``.``/``-``, not before a word
    character or ``.``/``-`` and one."""
    for m in written.finditer(text):
        a, b = m.start(), m.end()
        before, after = text[max(a - 3, 0):a], text[b:b + 2]
        if before[-1:].isalnum() or before[-1:] == "_":
            continue
        if len(before) >= 2 and before[-1] in ".-" and before[-2].isdigit():
            continue
        if after[:1].isalnum() or after[:1] == "_" or (after[:1] in (".", "-") and after[1:2].isalnum()):
            continue
        return True
    return False


def uncased_terms(question: str) -> list[str]:
    """The content words of a question written without case, in order: every word lower-case
    (its first one too: "What is the state of the team?" has case and names nothing), except
    months, weekdays and quarters (a date's "March" is no evidence of case); [] for a question
    that has case. A content word has 3+ letters or digits, is not in
    :data:`words.CONTENT_STOP_WORDS` or :data:`words.STARTER_WORDS`, and is not a plain number
    or a date word. "when did dublin last win the all ireland as of March 2021" -> dublin, last,
    win, ireland."""
    tokens = [m.group().rstrip(".") for m in _TOKEN.finditer(question)]
    if any(t[:1].isupper() and not _DATE_WORD.fullmatch(t) for t in tokens):
        return []
    return [t for t in (t.lower() for t in tokens)
            if len(t) >= 3 and t not in CONTENT_STOP_WORDS and t not in STARTER_WORDS
            and not t.isdigit() and not _DATE_WORD.fullmatch(t) and re.fullmatch(r"[a-z0-9]+", t)]


def named_in_titles(names: Sequence[str], chunks: Sequence[str], titles: Sequence[str | None]) -> list[set[str]]:
    """Per name, the ``chunks`` whose document title (``titles``: one per chunk, None for none)
    names it: the title holds every term of the name, or the name holds every term of a title of
    two terms or more (the page's common name inside the full one the question writes: "Helen
    Clark" in "Helen Elizabeth Clark"; TimeQA train +4 questions, none lost). Terms are read as
    the full-text index reads text (:func:`words.terms_of`: stemmed, stop words dropped, in any
    order): "Council of State ( Greece )" names "Council of State" and "Greece", "Courts of
    Greece" only "Greece"."""
    terms = [_term_set(name) for name in names]
    held: list[set[str]] = [set() for _ in names]
    if not any(terms):
        return held
    for chunk, title in zip(chunks, titles, strict=True):
        if not isinstance(title, str) or not title:
            continue
        in_title = _term_set(title)
        for found, wanted in zip(held, terms, strict=True):
            if wanted and (wanted <= in_title or (len(in_title) >= 2 and in_title <= wanted)):
                found.add(chunk)
    return held


def names_reason(in_text: Sequence[str], in_title: Sequence[str]) -> str | None:
    """The names of the question a passage holds, as the names half counted them, in words: those
    its text holds, then those only its document's title holds; None when it holds none.
    "names Greece; Council, State through its title"."""
    parts = ([", ".join(in_text)] if in_text else []) + ([", ".join(in_title) + " through its title"] if in_title else [])
    return "names " + "; ".join(parts) if parts else None


def subject_titles(titles: Sequence[str | None], doc_types: Sequence[str | None]) -> list[str | None]:
    """The titles that name their document's subject: every title but a news story's (doc types
    :data:`temporal.kinds.NEWS_DOC_TYPES`), which is a headline. A headline tells its story, and
    the other articles on that story tell it with the same names, so a name in it separates
    nothing (RealTimeQA 2022, tune half c: read as names, headlines cost one question and moved
    the report half's AUROC 0.816 -> 0.776; each chunk embedded with its title, the same pattern
    tried in docs/QUALITY.md's seventh session, cost nine)."""
    return [None if doc_type in NEWS_DOC_TYPES else title
            for title, doc_type in zip(titles, doc_types, strict=True)]


@lru_cache(maxsize=4096)
def _term_set(text: str) -> frozenset[str]:
    """The distinct terms of a short text (a title, a name), kept per text: a pool's chunks share
    a few titles, and a question's names come back with it. The last 4,096 texts read are kept,
    about 5 MB; one read again after that costs 9 µs."""
    return frozenset(terms_of(text))


def separation(held: int, pool_size: int) -> float:
    """How well a name separates the candidate pool (ours), in [0, 1]::

        sep(n, N) = idf(n, N) / idf(1, N),   idf(n, N) = ln(1 + (N − n + 0.5) / (n + 0.5))

    with ``n`` the pool's chunks that hold the name and ``N`` the pool's size (BM25's IDF, read
    over the pool instead of the store). A name held by one chunk of the pool separates fully (1);
    one held by half of it (a changelog's product name, "Requests", that half of the entries
    happen to write) about 0.2; one held by every chunk ~0; one held by none 0."""
    if held <= 0 or pool_size <= 1:
        return 1.0 if held > 0 else 0.0
    held = min(held, pool_size)
    return math.log1p((pool_size - held + 0.5) / (held + 0.5)) / math.log1p((pool_size - 0.5) / 1.5)


def lexical_signal(bm25: dict[str, float], names: list[tuple[set[str], float]],
                   name_share: float = NAME_SHARE, pool_size: int | None = None,
                   plain: bool = False) -> dict[str, float]:
    """The lexical signal per chunk id (ours)::

        S_lex = (1 − a) · bm25 / max bm25 + a · Σ_g w_g · sep_g · [chunk names g] / Σ_g w_g

    ``bm25``: the question's BM25 per chunk (absent: 0); ``names``: per name of the question, the
    chunks that contain all of its terms, in their text or their document's title
    (:func:`named_in_titles`), and its weight ``w_g`` (its best BM25 in a text); ``a`` =
    ``name_share``; ``sep_g`` = :func:`separation` of the name over the ``pool_size`` candidate
    chunks (None: 1 for every name). A name worth a share of the signal is one that tells the
    candidates apart: the names half gives a name held by most of the pool (a product name all of
    its release notes share, half of them write) almost nothing, where normalising by Σ w alone
    gave it the whole half when it was the question's only name (changelogs: "Since which Requests
    release ...": the entries that wrote "Requests" led the one BM25 ranks first). A question that
    names nothing gets no lexical signal (all 0): plain BM25 among passages that share the
    question's words is mostly noise (paper suite tune split; the demo's "state of the engineering
    team" question), except with ``plain``: a question that asks which version or release did
    something (:func:`smartvector_core.temporal.version_words.asks_version`, "Which attrs release introduced import
    attrs?") is answered by the one record of a log that holds its words, so its BM25 half stands
    alone (changelogs, tune split: the only such question with no name). Dividing by the query's best hit puts BM25 in [0, 1] without sending the
    weakest hit to 0 (no min-max); a chunk matching nothing scores 0.
    """
    best = max(bm25.values(), default=0.0)
    out = {c: s / best for c, s in bm25.items()} if best > 0 else {}
    total = sum(w for _, w in names if w > 0)
    if total <= 0:
        return {c: (1.0 - name_share) * v for c, v in out.items()} if plain else {}
    named: dict[str, float] = {}
    for chunks, w in names:
        share = max(w, 0.0) / total * (1.0 if pool_size is None else separation(len(chunks), pool_size))
        for c in chunks:
            named[c] = named.get(c, 0.0) + share
    return {c: (1.0 - name_share) * out.get(c, 0.0) + name_share * named.get(c, 0.0)
            for c in set(out) | set(named)}
