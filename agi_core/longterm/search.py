"""One search: candidates from faiss and FTS5, their neighbours, features, fusion.

Candidates are the union of the ``candidates`` best items by cosine (faiss) and by BM25
(FTS5), plus, when the neighbour weight is on, the item before and after each of them in
the same session. Every candidate's cosine is then computed exactly from its stored
vector (so an approximate index only decides who is a candidate, not the score).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from agi_core.longterm import vectors
from agi_core.longterm.model import Hit, MemoryItem, ScoreBreakdown
from agi_core.longterm.query import QueryInfo, analyze, plain_expression
from agi_core.longterm.ranking import Candidates, RankWeights, top_rows

if TYPE_CHECKING:
    from agi_core.longterm.store import LongTermMemory


class Searcher:
    """Runs queries against one :class:`LongTermMemory` with one set of weights."""

    def __init__(self, ltm: LongTermMemory, weights: RankWeights) -> None:
        self.ltm = ltm
        self.w = weights

    def run(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        queries = list(queries)
        w = self.w
        infos = [analyze(q, self.ltm.speakers()) for q in queries]
        dense_seqs: list[np.ndarray] = [np.zeros(0, np.int64)] * len(queries)
        qvecs = None
        if w.uses_dense or w.neighbour:
            qvecs = self.ltm.embedder.encode(queries)
            _, found = self.ltm.index().search(qvecs, w.candidates)
            dense_seqs = [row[row >= 0] for row in found]
        max_tick = 0
        if w.recency:
            max_tick = self.ltm.rows.max_tick()
        out = []
        for i, info in enumerate(infos):
            bm25 = self._bm25(info) if w.uses_bm25 else {}
            qvec = qvecs[i] if qvecs is not None else None
            out.append(
                self._rank(info, qvec, dense_seqs[i] if w.uses_dense else np.zeros(0, np.int64), bm25, max_tick, k)
            )
        return out

    def _bm25(self, info: QueryInfo) -> dict[int, float]:
        expr = plain_expression(info.text) if self.w.plain_bm25 else info.fts_expression()
        if expr is None:
            return {}
        return self.ltm.rows.full_text(expr, self.w.candidates)

    def _rank(
        self,
        info: QueryInfo,
        qvec: np.ndarray | None,
        dense_seqs: np.ndarray,
        bm25: dict[int, float],
        max_tick: int,
        k: int,
    ) -> list[Hit]:
        w = self.w
        core = set(int(s) for s in dense_seqs) | set(bm25)
        if not core:
            return []
        wanted = set(core)
        if w.neighbour:
            for seq in core:
                wanted.update((seq - 1, seq + 1))
        items = self.ltm.items(sorted(wanted))
        seqs = np.array(sorted(items), dtype=np.int64)
        rows = [items[int(s)] for s in seqs]
        n = len(rows)
        dense = np.zeros(n, np.float32)
        if qvec is not None and w.dense:
            stored = vectors.fetch(self.ltm.rows, self.ltm.embedder.name, len(qvec), seqs.tolist())
            for j, seq in enumerate(seqs):
                vec = stored.get(int(seq))
                if vec is not None:
                    dense[j] = float(vec @ qvec)
        where = {int(s): j for j, s in enumerate(seqs)}
        prev = np.array([_adjacent(where, rows, j, -1) for j in range(n)], dtype=np.int64)
        nxt = np.array([_adjacent(where, rows, j, +1) for j in range(n)], dtype=np.int64)
        named = set(info.speakers)
        window = info.window
        cand = Candidates(
            seq=seqs,
            dense=dense,
            bm25=np.array([bm25.get(int(s), 0.0) for s in seqs], dtype=np.float64),
            speaker=np.array([1.0 if r.speaker in named else 0.0 for r in rows]),
            date=np.array([1.0 if window and window.contains(r.timestamp, w.date_slack_days) else 0.0 for r in rows]),
            importance=np.array([r.importance for r in rows]),
            recency=np.array([0.5 ** (max(0, max_tick - r.tick) / w.recency_half_life) for r in rows]),
            prev=prev,
            next=nxt,
        )
        final, _base, near = cand.score(w)
        eligible = np.ones(n, dtype=bool) if w.neighbour else np.isin(seqs, list(core))
        hits = []
        for rank, j in enumerate(top_rows(final, seqs, k, eligible), start=1):
            hits.append(Hit(rows[j], rank, float(final[j]), _breakdown(cand, j, float(final[j]), float(near[j]))))
        return hits


def _adjacent(where: dict[int, int], rows: list[MemoryItem], j: int, step: int) -> int:
    other = where.get(rows[j].seq + step)
    if other is None or rows[other].session != rows[j].session:
        return -1
    return other


def _breakdown(cand: Candidates, j: int, score: float, near: float) -> ScoreBreakdown:
    top = float(cand.bm25.max()) if len(cand.bm25) else 0.0
    return ScoreBreakdown(
        score=score,
        dense=float(cand.dense[j]),
        bm25=float(cand.bm25[j] / top) if top > 0 else 0.0,
        importance=float(cand.importance[j]),
        recency=float(cand.recency[j]),
        speaker=float(cand.speaker[j]),
        date=float(cand.date[j]),
        neighbour=near,
    )
