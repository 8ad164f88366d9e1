"""Supersession planner: which newer document replaces which older one, and when.

Explicit SUPERSEDES edges come from ingest; this planner infers the implicit ones. The newer of
two documents supersedes the older only on **evidence of a replacement** ("implicit
same-title chains need evidence of replacement: same subject, newer, overlapping content that
changed, not a shared title alone"):

(a) **same title**: equal normalised titles (the subject), both dated, same kind, VERSIONED or
    STATIC; the newer strictly later by ``created_at``; their content overlaps (centroid cosine
    >= ``version_overlap`` for VERSIONED, >= ``near_duplicate`` for STATIC: two reference pages
    that share a title but say different things are not versions of each other) and changed
    (different ``doc_hash``); authority within ``implicit_authority_gap`` of the most trusted
    namesake (a forum post titled like the official policy is not its version). Same-title
    versions are chained consecutively by ``created_at`` (v1 <- v2 <- v3);
(a') **same title, changed value**: a pair of rule (a) whose content does not overlap enough is
    still a replacement when the newer text is the older one's statement with a different value
    (a name, a number, a date: :func:`smartvector_core.facts.changed_value.changed_value`), e.g.
    "Who coaches the Texans? Bill O'Brien." -> "... ? David Culley."; short answers to one
    question embed apart although one replaces the other. The edge's evidence names both values;
(b) **near-duplicates** from the same source whose titles do not differ (found by the finder:
    :func:`~.neighbours.find_candidates`). A near-duplicate from another source that changes a
    number is a *contradiction*, not a new version.

Never implicitly chained: EVENTs and records of their own moment (release notes, changelog
entries, minutes, incident reports, by doc type or title:
:func:`smartvector_core.temporal.kinds.is_log_record`): the notes of 3.5.5 do not replace those
of 3.5.3.

Applied: ``superseded_at`` = the earliest effective time of a direct successor
(:func:`smartvector_core.memory.chains.superseded_at`, the one definition).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pandas as pd

from ..clock import from_us, iso
from ..config.consolidation import DEFAULT_CONSOLIDATION, ConsolidationConfig
from ..facts.changed_value import changed_value
from ..memory.chains import NO_END, chain_ids, superseded_at
from ..models import DocumentKind, EdgeType
from .documents import Documents
from .neighbours import cosines
from .records import Edge


def _when(us: int) -> str:
    return iso(from_us(int(us)))


def document_texts(rows: Sequence[int], chunk_doc: np.ndarray, chunk_texts: np.ndarray) -> dict[int, str]:
    """The text of each document row in ``rows``: its chunks' texts in store order, joined by a
    space (only the chunks of those rows are read)."""
    want = np.isin(chunk_doc, np.asarray(list(rows), dtype=np.int64))
    if not want.any():
        return {}
    joined = pd.Series(chunk_texts[want]).groupby(chunk_doc[want], sort=False).agg(" ".join)
    return {int(k): str(v) for k, v in joined.items()}


def same_title_versions(docs: Documents, centroids: np.ndarray, query_side: np.ndarray,
                        config: ConsolidationConfig = DEFAULT_CONSOLIDATION,
                        texts: Callable[[Sequence[int]], Mapping[int, str]] | None = None
                        ) -> list[tuple[int, int, str]]:
    """(older row, newer row, evidence) for rule (a), for the titles of query-side documents.

    ``centroids``: unit-norm mean chunk vector per document (rows of ``docs``); ``texts(rows)``:
    the texts of those rows (:func:`document_texts`), read for the pairs whose content does not
    overlap enough, to look for a changed value (rule (a'))."""
    titles, kinds, created, ids = docs.titles, docs.kinds, docs.created_us, docs.ids
    versionable = docs.dated & (kinds != DocumentKind.EVENT.value) & (titles != "") & ~docs.log
    versionable &= pd.Series(titles).isin(set(titles[versionable & query_side])).to_numpy()
    out: list[tuple[int, int, str]] = []
    if not versionable.any():
        return out
    groups = pd.Series(np.flatnonzero(versionable)).groupby(titles[versionable]).agg(list)
    pairs: list[tuple[int, int, float, str]] = []   # (older, newer, overlap needed, title)
    for title, members in groups.items():
        if len(members) < 2:
            continue
        for kind, overlap in ((DocumentKind.VERSIONED.value, config.version_overlap),
                              (DocumentKind.STATIC.value, config.near_duplicate)):
            same = [i for i in members if kinds[i] == kind]
            if same:   # versions share an author's standing: a far less trusted namesake is not one
                top = max(docs.authority[i] for i in same)
                same = [i for i in same if top - docs.authority[i] <= config.implicit_authority_gap]
            same = sorted(same, key=lambda i: (created[i], ids[i]))
            for older, newer in zip(same, same[1:], strict=False):
                same_text = bool(docs.doc_hash[newer]) and docs.doc_hash[newer] == docs.doc_hash[older]
                if created[newer] <= created[older] or same_text:   # an unknown hash is no evidence either way
                    continue
                pairs.append((older, newer, overlap, title))
    # every pair's cosine in one call (cosines: the same values however the pairs are batched)
    cos = cosines(centroids, [p[0] for p in pairs], [p[1] for p in pairs]) if len(centroids) \
        else np.zeros(len(pairs))
    low = [p for p, c in zip(pairs, cos.tolist(), strict=True) if c < p[2]]
    text = texts(sorted({r for p in low for r in p[:2]})) if texts is not None and low else {}
    for (older, newer, overlap, title), c in zip(pairs, cos.tolist(), strict=True):
        newer_than = f"same title '{title}', newer created_at ({_when(created[newer])} > {_when(created[older])})"
        if c >= overlap:
            out.append((older, newer, f"{newer_than}, content overlaps (cosine {c:.3f}) and changed"))
            continue
        change = changed_value(text.get(older, ""), text.get(newer, ""), max_value_tokens=config.changed_value_tokens,
                               min_shared_share=config.changed_value_shared) if text else None
        if change is not None:
            out.append((older, newer, f"{newer_than}, {change.evidence()} (content cosine {c:.3f})"))
    return out


def plan_supersession(docs: Documents, same_title: list[tuple[int, int, str]],
                      near_duplicates: list[tuple[int, int, float]], sup_src: np.ndarray, sup_dst: np.ndarray,
                      known_edge_ids: set[str]) -> list[Edge]:
    """New inferred SUPERSEDES edges (newer -> older), oldest replacement first.

    ``same_title``: :func:`same_title_versions`; ``near_duplicates``: (x, y, cosine) from the
    finder; ``sup_src``/``sup_dst``: rows of the live SUPERSEDES edges already stored. A pair
    already joined by a directed path either way, or whose edge id is known (also a rejected
    one: an operator's rejection is not overruled), gives no edge."""
    ids, created = docs.ids, docs.created_us
    candidates = list(same_title)
    for x, y, c in near_duplicates:  # ascending (x, y): the pair checks ran in the finder
        older, newer = (x, y) if created[x] < created[y] else (y, x)
        candidates.append((older, newer, f"near-duplicate text (cosine {c:.3f}), same source, newer "
                                         f"created_at ({_when(created[newer])})"))
    candidates.sort(key=lambda t: (created[t[1]], -created[t[0]]))
    graph = nx.DiGraph()
    graph.add_edges_from(zip(ids[np.asarray(sup_src, np.int64)], ids[np.asarray(sup_dst, np.int64)], strict=True))
    seen = set(known_edge_ids)
    out: list[Edge] = []
    for older, newer, evidence in candidates:
        o, w = ids[older], ids[newer]
        if _path(graph, w, o) or _path(graph, o, w):
            continue
        edge = Edge(w, o, EdgeType.SUPERSEDES, evidence)
        if edge.edge_id in seen:
            continue
        seen.add(edge.edge_id)
        graph.add_edge(w, o)
        out.append(edge)
    return out


def _path(graph: nx.DiGraph, a: str, b: str) -> bool:
    return a in graph and b in graph and nx.has_path(graph, a, b)


@dataclass
class Supersession:
    """Supersession applied: per document, its new ``superseded_at`` and chain id."""

    superseded_us: np.ndarray   # NO_END: not superseded
    newly: np.ndarray           # rows superseded now and not before this run
    changed: np.ndarray         # rows whose superseded_at changes
    superseded_now: np.ndarray  # bool: superseded_at <= now
    chain: np.ndarray           # chain id (smallest member id)


def apply_supersession(docs: Documents, sup_src: np.ndarray, sup_dst: np.ndarray, now_us: int) -> Supersession:
    """``superseded_at`` and chains from every live SUPERSEDES edge (stored and new), by the
    definitions of :mod:`smartvector_core.memory.chains`."""
    moment = superseded_at(docs.effective_us, sup_src, sup_dst)
    old = docs.superseded_us
    return Supersession(
        superseded_us=moment,
        newly=np.flatnonzero((old == NO_END) & (moment != NO_END)),
        changed=np.flatnonzero(moment != old),
        superseded_now=moment <= int(now_us),
        chain=chain_ids(docs.ids, sup_src, sup_dst),
    )
