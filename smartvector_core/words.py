"""Words: the one tokenizer and the stop lists of the engine, in one place.

**The full-text analyser** (:func:`analyse` for many texts, :func:`terms_of` for one) reproduces
LanceDB's full-text index exactly (``lancedb.index.FTS`` defaults, tantivy's analysis, in this
order): split on every character that is not a letter or a digit; drop tokens of
``MAX_TOKEN_BYTES`` bytes or more; lower-case; Snowball English stem (PyStemmer: the Snowball
project's own stemmer); drop stop words (:data:`STOP_WORDS`, compared after stemming: "having"
-> "have" is dropped, "does" -> "doe" is kept); fold to ASCII. The in-memory text index
(:class:`smartvector_core.retrieval.text_index.TextIndex`) and the lexical signal's name
matching read text through it; tests/retrieval/test_text_index.py checks it against LanceDB.

**Derived views** for readers that must not stem (they read a question's surface, or match
word prefixes) share :data:`STOP_WORDS` and add the words their reading needs, each said
beside it; every view is :data:`STOP_WORDS`-based: its words outside :data:`STOP_WORDS` are
listed in :data:`QUESTION_WORDS` or in the view's own additions (tests/test_words.py):

- :data:`CONTENT_STOP_WORDS` and :func:`content_words` (lower-cased runs of ``[a-z0-9]``, 3+
  characters): the words of a question that say what it is about (the abstention's lexical
  support, :func:`smartvector_core.retrieval.calibration.lexical_support`);
- :data:`STARTER_WORDS`: words that start a question or a request, capitalised there because
  they start it, not names (:func:`smartvector_core.retrieval.lexical.subject_terms`);
- :data:`FACT_STOP_WORDS`: words that never name what a number is about
  (:mod:`smartvector_core.facts.quantities`, :mod:`smartvector_core.facts.statements`).

This module sits below ``facts`` and ``retrieval`` (both read it; it imports neither).
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import Stemmer

MAX_TOKEN_BYTES = 40     # LanceDB's max_token_length: a token of 40 bytes or more is dropped
_SPLIT = r"[^\p{L}\p{N}]+"   # tantivy's simple tokenizer: a token is a run of letters and digits
# tantivy's English stop words (LanceDB's remove_stop_words), matched against the stemmed token
_STOP_WORD_TEXT = """
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him
his himself she she's her hers herself it it's its itself they them their theirs themselves what which who
whom this that that'll these those am is are was were be been being have has had having do does did doing a
an the and but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here there when
where why how all any both each few more most other some such no nor not only own same so than too very s t
can will just don don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't
doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't
shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
"""
STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())

# Words a question or a request is made of beyond tantivy's list: modal verbs, request verbs,
# courtesy and answer words (the views below take them from here).
QUESTION_WORDS = frozenset(["could", "may", "might", "must", "shall", "would", "whose", "please", "tell", "show", "give", "yes", "also", "else", "per", "us", "via"])


def _view(text: str, additions: str = "") -> frozenset[str]:
    """A stop list: ``text``'s words, each in :data:`STOP_WORDS` or :data:`QUESTION_WORDS` or in
    ``additions`` (the view's own words, said where the view is defined)."""
    words = frozenset(text.split())
    extra = frozenset(additions.split())
    stray = words - STOP_WORDS - QUESTION_WORDS - extra
    if stray:
        raise ValueError(f"stop-list words outside STOP_WORDS, QUESTION_WORDS and the view's additions: {sorted(stray)}")
    return words


#: the abstention's non-content words; its own additions: recency words (the time intent's
#: business, not the subject: "current", "latest", "today") and verbs of asking ("know", "need")
CONTENT_STOP_WORDS = _view("""a an the and or of to in on at for by with from as is are was were be been being do does
did what which who whom whose when where why how this that these those it its there their our your my we you
they he she i me us them any some all can could should would will may might must shall about into over under
than then so not no yes if else also just only very more most much many per vs via please tell show give
get know need want now today current currently latest new""", additions="""
current currently latest new today get know need want vs many much
""")
#: a capitalised one of these starts the sentence; its own additions: request verbs
STARTER_WORDS = _view("""
what which who whom whose when where why how is are was were do does did can could should would will
shall may might must has have had the a an in on at for of to from since after before during list show
tell give find explain describe compare summarize summarise i my our we you your please any all each
there this that these those it its if and or but not no yes
""", additions="""
compare describe explain find list summarise summarize since
""")
#: a number after or before one of these is not named by it; its own additions: contractions and
#: adverbs of time and degree that sit between a noun and its number
FACT_STOP_WORDS = _view("""
a an the and or but if then else of in on at to for from by with as is are was were be been being
it its this that these those there here their them they we you your our us he she his her i me my
do does did done have has had having will would shall should could can may might must than so such
any all each every some only also very just about into onto via upon while when where which who whom
whose what how why not no never nor neither now still again already up down out off per
i've i'm we've we're you're they're it's that's there's don't doesn't isn't aren't
""", additions="""
already done every i'm i've neither never onto upon still that's there's they're we're we've
""")

_CONTENT_WORD = re.compile(r"[a-z0-9]+")


def content_words(text: str) -> set[str]:
    """Lower-cased words of ``text`` (runs of ``[a-z0-9]``) of 3+ characters that are not in
    :data:`CONTENT_STOP_WORDS`."""
    return {w for w in _CONTENT_WORD.findall(str(text).lower()) if len(w) >= 3 and w not in CONTENT_STOP_WORDS}


def fold(term: str) -> str:
    """ASCII folding: accents and other combining marks removed (é -> e)."""
    if term.isascii():
        return term
    return "".join(c for c in unicodedata.normalize("NFKD", term) if not unicodedata.combining(c))


def _term(stem: str) -> str | None:
    """A stemmed token's term: None for a stop word, else folded to ASCII."""
    return None if stem in STOP_WORDS else fold(stem)


def analyse(texts: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray, list[str | None]]:
    """The tokens of ``texts`` as LanceDB's index sees them: (the text of each token, its entry in
    the vocabulary, and per vocabulary entry its term, None for a stop word). The split, length
    filter and lower-casing run in Arrow over all texts; stemming, stop words and folding once
    per distinct token."""
    texts = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    parts = pc.split_pattern_regex(texts.fill_null(""), _SPLIT)
    owner = pc.list_parent_indices(parts).to_numpy()
    tokens = pc.list_flatten(parts)
    size = pc.binary_length(tokens)
    keep = pc.and_(pc.greater(size, 0), pc.less(size, MAX_TOKEN_BYTES))
    tokens = pc.utf8_lower(tokens.filter(keep))
    owner = owner[keep.to_numpy(zero_copy_only=False)]
    encoded = pc.dictionary_encode(tokens)
    terms = [_term(s) for s in Stemmer.Stemmer("english").stemWords(encoded.dictionary.to_pylist())]
    return owner, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False), terms


_WORD = re.compile(r"[^\W_]+")   # a run of letters and digits: :data:`_SPLIT`'s tokens, for one short text


def terms_of(text: str) -> list[str]:
    """The terms of one text (a question, a name), in order, repeats kept: :func:`analyse` for
    a single short text, in Python (Arrow compiles its pattern on every call: 2 ms a question).
    The two agree on every text of the real sets and on a sample of Unicode (tests)."""
    tokens = [t.lower() for t in _WORD.findall(str(text)) if len(t.encode("utf-8")) < MAX_TOKEN_BYTES]
    return [t for t in map(_term, Stemmer.Stemmer("english").stemWords(tokens)) if t is not None]


