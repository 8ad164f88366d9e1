"""The lexical signal of the ``default`` profile: BM25 from LanceDB's native full-text index,
with the names the question mentions weighted up (issue 14, "Specificity").

A question like "What uptime does the Checkout Service guarantee?" is about a *subject* (the
Checkout Service) and an *attribute* (uptime). Dense similarity and plain BM25 both reward a
glossary entry that repeats the attribute; the document that names the subject must win. So
the full-text query is the question itself (BM25: rare terms weigh more by their IDF) OR each
of the question's names, all of its terms required, boosted by ``NAME_BOOST`` (a LanceDB
``BooleanQuery`` of ``MatchQuery`` clauses; the index stems and drops stop words). A generic
entry that repeats the attribute but not the name gets the question's BM25 only. Name terms are read from the question's
surface only (:func:`subject_terms`); documents are never matched by hand.
"""

from __future__ import annotations

import re

import numpy as np

NAME_BOOST = 5.0        # ours: a name term counts this much more than a plain question term (tuned on tune splits)

# Words that start a question or a request; capitalised there because they start it, not names.
_STARTER_WORDS = """
what which who whom whose when where why how is are was were do does did can could should would will
shall may might must has have had the a an in on at for of to from since after before during list show
tell give find explain describe compare summarize summarise i my our we you your please any all each
there this that these those it its if and or but not no yes
"""
_STARTERS = frozenset(_STARTER_WORDS.split())
_QUOTED = re.compile(r"[\"“”`]([^\"“”`]{2,80})[\"“”`]")
_TOKEN = re.compile(r"[A-Za-z0-9][\w.+#/-]*[\w+#]|[A-Za-z0-9]")


def subject_terms(question: str) -> list[str]:
    """The names in ``question``, each a group of terms a document must all contain to name it:

    - quoted text ("send_file", `SESSION_COOKIE_NAME`);
    - identifiers: a token with a digit, ``_``, ``.``, ``/``, ``#`` inside, or an inner capital
      (``3.5.5``, ``send_file``, ``HTTPError``, ``X-Forwarded-For``), each on its own;
    - runs of capitalised words (``Checkout Service``), except a question or request word that
      only starts the sentence ("What", "Which", "Show").
    """
    text = question if isinstance(question, str) else ""
    groups = [m.group(1).strip() for m in _QUOTED.finditer(text)]
    run: list[str] = []
    last_end = -1
    for m in _TOKEN.finditer(text):
        token = m.group().rstrip(".")
        identifier = bool(re.search(r"\d|_|[./#]\w|[a-z][A-Z]", token)) or (
            "-" in token and any(c.isupper() for c in token))
        capital = token[:1].isupper() and token.lower() not in _STARTERS and len(token) > 1
        adjacent = run and text[last_end:m.start()].strip() == ""
        if run and not (capital and not identifier and adjacent):
            groups.append(" ".join(run))
            run = []
        if identifier:
            groups.append(token)
        elif capital:
            run.append(token)
        last_end = m.end()
    if run:
        groups.append(" ".join(run))
    return list(dict.fromkeys(g for g in groups if g))


def lexical_shares(chunk_ids: list[str], bm25: np.ndarray) -> dict[str, float]:
    """The lexical signal of full-text hits: ``S_lex = bm25 / max bm25`` over the query's hits
    (ours). BM25 already weights rare terms and names (by IDF, and the name boost); dividing by
    the query's best hit puts it in [0, 1] without sending the weakest hit to 0 (no min-max).
    A chunk that matches no query term scores 0."""
    bm25 = np.asarray(bm25, dtype=np.float64)
    best = bm25.max(initial=0.0)
    if best <= 0:
        return {}
    return dict(zip(chunk_ids, np.clip(bm25 / best, 0.0, 1.0).tolist(), strict=True))
