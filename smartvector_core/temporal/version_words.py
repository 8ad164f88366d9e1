"""Version words in questions (ours): which version a question names, whether it asks which
version did something, and whether it asks for the oldest or the newest release.

Only strings that look like versions are version labels ("v2", "3.5.1", "release 2.0", "Flask
2.3"); recency words ("latest", "newest", "current", "most recent", "new") are not: they choose
the newest version in force, which the gates keep anyway, and "the latest release" asks for the
newest release record of its series (:func:`asks_newest`). Read by :func:`.intent.parse_intent`
and by the lexical signal (:func:`asks_version`).
"""

from __future__ import annotations

import re

from ..words import CONTENT_STOP_WORDS

_VERSION_RES = [
    re.compile(r"\b(?:version|release|ver\.?)\s+v?(?P<v>\d+(?:\.\d+)*(?:[-+][\w.]+)?)", re.I),
    re.compile(r"(?<![\w.])v(?P<v>\d+(?:\.\d+)*)(?![\w.]*\d)", re.I),
    re.compile(r"(?<![\w.])(?P<v>\d+\.\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)"),
    re.compile(r"\b(?:[Ii]n|[Ff]or|[Oo]n|[Ww]ith|[Uu]sing|[Oo]f|[Uu]nder|[Tt]he)\s+[A-Z][\w.+#-]*\s+"
               r"(?P<v>\d+\.\d+)(?![\w.]*\d)"),
]
# "between 2.2 and 2.3": what changed is told by the later release (ours); wins over the above
_VERSION_BETWEEN = re.compile(r"\bbetween\s+(?:[A-Z][\w.+#-]*\s+)?v?(?P<low>\d+(?:\.\d+)+)\s+and\s+"
                              r"(?:[A-Z][\w.+#-]*\s+)?v?(?P<v>\d+(?:\.\d+)+)(?![\w.]*\d)", re.I)
# a word may stand between the rank word and the noun ("the first public release"), not before
# "draft" ("the first round draft" of a sports team is no document version; "the first draft" is)
_RANK_NOUN = r"(?:(?:\w+\s+)?(?:version|release|edition|revision)s?|drafts?)\b"
# "Which Requests release reverted the 2.0.0 requirement ...?", "Since which version ...?": the
# question asks for a version; one it names is what the answer is told against, not the answer
# (ours). At most one word, a product's name, between "which/what" and the noun: "What changed
# in release 1.0?" and "What is release 2.0 about?" ask about that release
_ASKS_VERSION = re.compile(r"^\W*(?:(?:in|since|from|with|as\s+of|until)\s+)?(?:which|what)\s+"
                           r"(?:(?P<name>[\w.+#-]+)\s+)?(?:version|release)s?\b", re.I)
_OLDEST = re.compile(rf"\b(?:oldest|first|original|earliest|initial)\s+{_RANK_NOUN}", re.I)
# "the latest release", "the newest Flask version", "the most recent release": a recency word on
# the noun of a release asks for the newest release (ours; no version label, :func:`asks_newest`);
# up to two words of a name may stand between ("the latest Nimbus CLI release"), no linking word
# ("the latest news on the release" asks for news)
_NEWEST = re.compile(r"\b(?:latest|newest|most\s+recent|last)\s+(?:(?!(?:of|on|in|for|about|from|with|to|and|or|the"
                     r"|a|an)\b)[\w.+#-]+\s+){0,2}(?:version|release|edition|revision)s?\b", re.I)




def blank(text: str, spans: list[tuple[int, int]]) -> str:
    """Replace each span by spaces (offsets stay valid for the original text)."""
    for a, b in spans:
        text = text[:a] + " " * (b - a) + text[b:]
    return text




def version_key(label: str) -> str:
    return re.sub(r"^v(?=\d)", "", str(label).strip().lower())


def version_named(text: str) -> tuple[str | None, str]:
    """The version the question names and the text with every version blanked; no version for
    a question that asks which version or release did something (:data:`_ASKS_VERSION`: "Which
    Requests release reverted the 2.0.0 requirement?" is answered by a later release, not 2.0.0)."""
    found = [(m.start("v"), m.group("v"), m.span()) for regex in _VERSION_RES for m in regex.finditer(text)]
    between = _VERSION_BETWEEN.search(text)
    if between:
        found.append((-1, between.group("v"), between.span()))
    if not found:
        return None, text
    _, version, _ = min(found, key=lambda f: f[0])
    return (None if _asks_version(text) else version), blank(text, [f[2] for f in found])


def version_between(text: str) -> tuple[str, str] | None:
    """The versions a question names as the ends of a range ("between Requests 2.24.0 and 2.26.0"
    -> ("2.24.0", "2.26.0")): what changed since the first, told by the releases after it up to
    the second (:func:`version_in_range`); None when it names no range."""
    m = _VERSION_BETWEEN.search(text if isinstance(text, str) else "")
    return None if m is None else (m.group("low"), m.group("v"))


def version_order(label: str) -> tuple[int, ...]:
    """A version label's numbers, for ordering ("v2.10.1" -> (2, 10, 1)); () when it has none."""
    return tuple(int(x) for x in re.findall(r"\d+", str(label)))


def version_in_range(label: str | None, low: str, high: str) -> bool:
    """Whether ``label`` is after ``low`` and at most ``high`` (numbers compared in order, a
    missing part counting 0: "3.1" == "3.1.0"): the releases that tell what changed between two
    versions."""
    key = version_order(label or "")
    if not key:
        return False
    ends = [version_order(low), version_order(high)]
    width = max(len(key), *(len(e) for e in ends))
    pad = [tuple(v) + (0,) * (width - len(v)) for v in (key, *ends)]
    return pad[1] < pad[0] <= pad[2]


def _asks_version(text: str) -> bool:
    """Whether the question asks which version or release did something (:data:`_ASKS_VERSION`;
    the word before the noun, if any, is no stop word: "what is release 2.0")."""
    m = _ASKS_VERSION.search(text)
    return m is not None and (m.group("name") is None or m.group("name").lower() not in CONTENT_STOP_WORDS)


def version_rank(text: str) -> str | None:
    """'oldest' when the question asks for the first version ("the original release"); recency
    words ("latest", "newest", "current", "most recent", "new") are not version labels: the
    newest version in force at the moment of judgement is what the gates keep anyway."""
    return "oldest" if _OLDEST.search(text) else None


def asks_version(text: str) -> bool:
    """Whether the question asks which version or release did something ("Which Requests
    release added X?", "Since which version ...?"; :data:`_ASKS_VERSION`), as
    :attr:`QueryIntent.asks_version` says (public: the lexical signal reads it before the intent
    is parsed)."""
    return _asks_version(text if isinstance(text, str) else "")


# "In which Django release was X added?", "Which release introduced X?", "Since which version
# ...?", "In which release did the docs first describe X?": the answer is the first version that
# holds what the question names (ours); a question about an end or a change ("removed",
# "deprecated", "changed") asks for something else, and is left to the other rules
_ORIGIN = re.compile(r"\b(?:add(?:ed|s)?|introduc(?:e|ed|es)|first|new\s+in|appear(?:ed|s)?)\b"
                     r"|^\W*since\s+(?:which|what)\b", re.I)
_NOT_ORIGIN = re.compile(r"\b(?:remov(?:e|ed|es)|drop(?:ped|s)?|deprecat(?:e|ed|es)|delet(?:e|ed|es)|no\s+longer"
                         r"|stop(?:ped|s)?|replac(?:e|ed|es)|chang(?:e|ed|es)|fix(?:ed|es)?|revert(?:ed|s)?)\b", re.I)


def asks_first_version(text: str, asks: bool | None = None) -> bool:
    """Whether the question asks which version first held something (:func:`asks_version` with
    an origin word: "In which Django release was the DEFAULT_AUTO_FIELD setting added?"): among
    the versions of one document, the answer is the earliest that names what the question names,
    not the newest in force (:attr:`QueryIntent.asks_first`). A question about an end, a change
    or a fix ("Which release removed X?", "Which release fixed X?") is not one. ``asks``: what
    :func:`asks_version` says of ``text``, where the caller has read it already."""
    text = text if isinstance(text, str) else ""
    asks = _asks_version(text) if asks is None else asks
    return asks and bool(_ORIGIN.search(text)) and not _NOT_ORIGIN.search(text)


# "Which Python version did Flask most recently drop support for?": a question that asks which
# version or release did something, most recently, asks for the newest release that did it (ours)
_NEWEST_ADVERB = re.compile(r"\bmost\s+recently\b", re.I)


def asks_newest(text: str) -> bool:
    """Whether the question asks for the newest release or version (:data:`_NEWEST`: "What
    changed in the latest release?", "the newest Flask release", "the most recent version"). It
    names no version and no version rank (the gates keep the newest version in force of each
    chain anyway); retrieval reads it to prefer, among release records, the newest of each one's
    series (:func:`smartvector_core.retrieval.scoring.newest_release_signal`). "current" is not
    among its words: "the current default" asks what holds now, which the gates answer. A
    question that asks which version did something "most recently" (:data:`_NEWEST_ADVERB`) asks
    for the newest release too."""
    return bool(_NEWEST.search(text)) or (_asks_version(text) and bool(_NEWEST_ADVERB.search(text)))
