"""The relations graph: typed edges, ripple propagation, relational signal.

Version chains and ``superseded_at`` are defined once, in :mod:`smartvector_core.memory.chains`.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``): section 2.1
"relational awareness" (edges depends_on / depended_by / supersedes / contradicts), section 2.4
"RipplePropagator" (bounded BFS along depended_by edges, a decaying penalty per hop, no GNN
training), section 2.3 (S_relational: "a logarithmic saturating reward based on graph
connectivity").

Edge direction follows :class:`~smartvector_core.models.EdgeType`: ``src SUPERSEDES dst`` (src
is the newer version), ``src DEPENDS_ON dst`` (``dst`` is *depended_by* ``src``: when ``dst`` is
corrected, ``src`` is hit by the ripple).

Choices where the paper gives no value (documented in :class:`RippleConfig` and
:class:`RelationalConfig`): ripple penalty 0.10 at hop 1, halved per further hop, at most 2
hops; each document is hit at most once per ripple, at its shortest distance (the reference
code hit a diamond's bottom twice). Relational importance is ln(1+d)/ln(1+d_sat), d_sat = 10,
with d the number of distinct *live* neighbours over SUPERSEDES and DEPENDS_ON edges in either
direction; CONTRADICTS edges earn no reward.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from ..config.consolidation import DEFAULT_RIPPLE, RippleConfig
from ..errors import InputError
from ..models import EdgeType


@dataclass(frozen=True)
class RelationalConfig:
    """S_relational = min(1, ln(1+d) / ln(1+d_sat)); d = distinct live neighbours (ours: d_sat 10)."""

    d_sat: float = 10.0
    edge_types: tuple[EdgeType, ...] = (EdgeType.SUPERSEDES, EdgeType.DEPENDS_ON)


DEFAULT_RELATIONAL = RelationalConfig()


@dataclass(frozen=True)
class RippleStep:
    """One document a ripple reaches: ``hop`` edges from the start, through ``via``."""

    doc_id: str
    hop: int
    penalty: float
    via: str


class KnowledgeGraph:
    """Typed edges between known documents; one ``networkx.DiGraph`` per edge type.

    Build with :meth:`from_edges`. Every document of ``doc_ids`` is a node even without edges.
    Edges touching an unknown document and self-loops are dropped (counted in
    ``dropped_edges``).
    """

    def __init__(self, doc_ids: Iterable[str]) -> None:
        self.doc_ids: tuple[str, ...] = tuple(dict.fromkeys(str(d) for d in doc_ids))
        self._position = {d: i for i, d in enumerate(self.doc_ids)}
        self.graphs: dict[EdgeType, nx.DiGraph] = {}
        for edge_type in EdgeType:
            graph = nx.DiGraph()
            graph.add_nodes_from(self.doc_ids)
            self.graphs[edge_type] = graph
        self.dropped_edges = 0

    @classmethod
    def from_edges(cls, edges: pd.DataFrame | Mapping[str, Any] | None, doc_ids: Iterable[str], *,
                   as_of_us: int | None = None) -> KnowledgeGraph:
        """Graph of ``edges`` (columns ``src``, ``dst``, ``edge_type``; optional ``origin``,
        ``evidence``, ``created_at_us``) among ``doc_ids``.

        With ``as_of_us``, only edges with ``created_at_us <= as_of_us`` are kept (edges
        without that column are always kept).
        """
        graph = cls(doc_ids)
        if edges is None:
            return graph
        frame = edges if isinstance(edges, pd.DataFrame) else pd.DataFrame(dict(edges))
        if frame.empty:
            return graph
        missing = [c for c in ("src", "dst", "edge_type") if c not in frame.columns]
        if missing:
            raise InputError(f"expected edge columns src, dst, edge_type; missing {missing}",
                             field="edges")
        if as_of_us is not None and "created_at_us" in frame.columns:
            frame = frame[frame["created_at_us"].to_numpy(dtype=np.int64) <= int(as_of_us)]
        for row in frame.itertuples(index=False):
            graph.add_edge(str(row.src), str(row.dst), row.edge_type,
                           origin=str(getattr(row, "origin", "declared")),
                           evidence=str(getattr(row, "evidence", "")))
        return graph

    def add_edge(self, src: str, dst: str, edge_type: EdgeType | str, **attrs: Any) -> bool:
        """Add one edge; False (and counted as dropped) for unknown ends or a self-loop."""
        kind = EdgeType.parse(edge_type, field_name="edge_type")
        if src == dst or src not in self._position or dst not in self._position:
            self.dropped_edges += 1
            return False
        self.graphs[kind].add_edge(src, dst, **attrs)
        return True

    def _require(self, doc_id: str) -> None:
        if doc_id not in self._position:
            raise InputError(f"expected a document of this graph, found {doc_id!r}", field="doc_id")

    # --- ripple --------------------------------------------------------------------------
    def _depended_by(self, doc_id: str) -> list[str]:
        """Documents that DEPEND_ON ``doc_id``, sorted (deterministic BFS order)."""
        return sorted(self.graphs[EdgeType.DEPENDS_ON].predecessors(doc_id))

    def _bfs_dependents(self, start: str, max_hops: int,
                        exclude: Collection[str]) -> list[tuple[str, int, str]]:
        self._require(start)
        seen = {start}
        out: list[tuple[str, int, str]] = []
        queue = deque([(start, 0)])
        while queue:
            node, hop = queue.popleft()
            if hop >= max_hops:
                continue
            for dependent in self._depended_by(node):
                if dependent in seen or dependent in exclude:
                    continue
                seen.add(dependent)
                out.append((dependent, hop + 1, node))
                queue.append((dependent, hop + 1))
        return out

    def ripple_plan(self, start_doc: str, penalty: float = DEFAULT_RIPPLE.penalty,
                    hop_decay: float = DEFAULT_RIPPLE.hop_decay, max_hops: int = DEFAULT_RIPPLE.max_hops,
                    *, exclude: Collection[str] = ()) -> list[RippleStep]:
        """Who a correction of ``start_doc`` hits, and how hard (paper, "RipplePropagator").

        Bounded BFS along depended_by edges (reverse DEPENDS_ON). Each document is hit at most
        once, at its shortest hop h, with penalty · hop_decay^(h−1); the start is never hit;
        cycles are safe. Documents in ``exclude`` (e.g. ARCHIVED ones) are neither hit nor
        traversed. Ordered by hop, then doc id.
        """
        config = RippleConfig(penalty, hop_decay, max_hops)
        return [RippleStep(doc, hop, config.penalty * config.hop_decay ** (hop - 1), via)
                for doc, hop, via in self._bfs_dependents(start_doc, config.max_hops, exclude)]

    def dependents(self, doc_id: str, hops: int = DEFAULT_RIPPLE.max_hops) -> dict[str, int]:
        """doc_id -> hop for every document that depends on ``doc_id`` within ``hops`` (for the
        UI: where a correction would ripple to), ordered by hop then id."""
        if int(hops) != hops or hops < 0:
            raise InputError(f"expected hops an integer >= 0, found {hops!r}", field="hops")
        return {doc: hop for doc, hop, _ in self._bfs_dependents(doc_id, int(hops), ())}

    # --- relational signal ---------------------------------------------------------------
    def _neighbour_pairs(self, edge_types: Iterable[EdgeType]) -> tuple[np.ndarray, np.ndarray]:
        """Distinct undirected neighbour pairs (i, j), i < j, as graph positions."""
        pairs = {tuple(sorted((self._position[u], self._position[v])))
                 for kind in edge_types for u, v in self.graphs[EdgeType.parse(kind)].edges()}
        if not pairs:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        arr = np.asarray(sorted(pairs), dtype=np.int64)
        return arr[:, 0], arr[:, 1]

    def live_degree(self, doc_ids: Iterable[str], live_mask: np.ndarray,
                    config: RelationalConfig = DEFAULT_RELATIONAL) -> np.ndarray:
        """Distinct live neighbours per document of ``doc_ids`` (0 for unknown documents).

        ``live_mask`` is aligned with ``doc_ids``; a neighbour outside ``doc_ids`` counts as not
        live, so pass every document of the store and index the candidates afterwards.
        """
        ids = [str(d) for d in doc_ids]
        live = np.asarray(live_mask, dtype=bool)
        if live.shape != (len(ids),):
            raise InputError(f"expected a live mask of length {len(ids)}, found shape {live.shape}",
                             field="live_mask")
        live_by_position = np.zeros(len(self.doc_ids), dtype=bool)
        positions = np.asarray([self._position.get(d, -1) for d in ids], dtype=np.int64)
        known = positions >= 0
        live_by_position[positions[known]] = live[known]
        u, v = self._neighbour_pairs(config.edge_types)
        n = len(self.doc_ids)
        degree = (np.bincount(u, weights=live_by_position[v], minlength=n)
                  + np.bincount(v, weights=live_by_position[u], minlength=n))
        return np.where(known, degree[np.maximum(positions, 0)], 0.0).astype(np.int64)

    def relational_importance(self, doc_ids: Iterable[str], live_mask: np.ndarray,
                              config: RelationalConfig = DEFAULT_RELATIONAL) -> np.ndarray:
        """S_relational = min(1, ln(1+d) / ln(1+d_sat)) in [0, 1] (paper, section 2.3).

        d: distinct neighbours marked in ``live_mask`` over ``config.edge_types`` in either
        direction (see :meth:`live_degree`; the knowledge index marks the newest version of each
        chain, the one no successor replaces). 0 edges -> 0, d_sat or more -> 1, concave between,
        so the first links matter most and hubs cannot dominate the score.
        """
        degree = self.live_degree(doc_ids, live_mask, config)
        return np.clip(np.log1p(degree) / np.log1p(config.d_sat), 0.0, 1.0)
