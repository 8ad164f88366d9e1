"""Dependencies planner: inferred DEPENDS_ON edges from citations.

Declared dependencies come from ingest. A DEPENDS_ON edge is inferred when a document's text
cites another's id (ids with a digit or one of ``_-.:/``, matched as a whole token,
case-sensitively: a bare word like "refunds" is never taken for an id) or its exact title (two
words or more, case-insensitive, whole words). The finder scans the texts
(:func:`~.neighbours.find_candidates`, one token pass per text); here a cited title is resolved
to its newest document, live ones first, which depends on this run's supersessions. A citation
within one version chain or between namesakes is not a dependency.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..config.consolidation import DEFAULT_CONSOLIDATION, ConsolidationConfig
from ..models import EdgeType
from .documents import Documents
from .records import Edge


def resolve_citations(hits, titles, created, live, config: ConsolidationConfig = DEFAULT_CONSOLIDATION
                      ) -> list[tuple[int, int, str]]:
    """(citing doc, cited doc, evidence), sorted: a cited title names its newest document
    (live ones first). Only the titles that hold a cited title's first word are split (a
    C-speed substring test over all titles first: an incremental run cites a few)."""
    cited = {key for _, kind, key, _ in hits if kind == "title"}
    newest: dict[tuple[str, ...], int] = {}
    rows = np.zeros(0, np.int64)
    if cited:
        series = pd.Series(np.asarray(titles, dtype=object), dtype=object)
        rows = np.flatnonzero(np.logical_or.reduce([series.str.contains(w, regex=False, na=False).to_numpy(bool)
                                                    for w in {key[0] for key in cited}]))
    for i in rows.tolist():
        title = titles[i]
        words = tuple(title.split())
        if len(words) < config.min_title_words:
            continue
        j = newest.get(words)
        if j is None or (live[i], created[i]) > (live[j], created[j]):
            newest[words] = i
    return sorted({(citing, key if kind == "id" else newest[key], how) for citing, kind, key, how in hits})


def plan_dependencies(docs: Documents, citations: set[tuple], chain: np.ndarray, live: np.ndarray,
                      known_edge_ids: set[str], config: ConsolidationConfig = DEFAULT_CONSOLIDATION) -> list[Edge]:
    """New inferred DEPENDS_ON edges (citing -> cited) for the finder's ``citations``:
    (citing row, "id", cited row, evidence) or (citing row, "title", title words, evidence)."""
    titles = docs.titles
    out: list[Edge] = []
    seen = set(known_edge_ids)
    for citing, cited, how in resolve_citations(citations, titles, docs.created_us, live, config):
        if citing == cited or (titles[citing] and titles[citing] == titles[cited]) or chain[citing] == chain[cited]:
            continue
        edge = Edge(docs.ids[citing], docs.ids[cited], EdgeType.DEPENDS_ON, how)
        if edge.edge_id not in seen:
            seen.add(edge.edge_id)
            out.append(edge)
    return out
