"""One search: candidates from faiss and FTS5, their neighbours, features, fusion.

Candidates are the union of the ``candidates`` best items by cosine (faiss) and by BM25
(the backend's full-text search, :meth:`LtmRows.full_text`), plus, when the neighbour weight
is on, the item before and after each of them in the same session. Every candidate's cosine
is then computed exactly from its vector, read from the index's own storage (so an
approximate index only decides who is a candidate, not the score). Candidate rows are read
as tuples; only the ``k`` hits become :class:`MemoryItem` objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from agi_core.longterm.model import Hit, ScoreBreakdown, row_to_item
from agi_core.longterm.query import QueryInfo, analyze, plain_words
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
        terms = plain_words(info.text) if self.w.plain_bm25 else list(info.words)
        if not terms:
            return {}
        return self.ltm.rows.full_text(terms, self.w.candidates)

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
        rows = sorted(self.ltm.rows.items(sorted(wanted)))  # ITEM_COLUMNS tuples, by seq
        seqs = np.array([r[0] for r in rows], dtype=np.int64)
        n = len(rows)
        dense = np.zeros(n, np.float32)
        if qvec is not None and w.dense:
            _found, stored = self.ltm.index().stored(seqs)
            dense = stored @ qvec
        sessions = [r[_SESSION] for r in rows]
        same_prev = np.array(
            [j > 0 and seqs[j - 1] == seqs[j] - 1 and sessions[j - 1] == sessions[j] for j in range(n)], dtype=bool
        )
        rows_at = np.arange(n, dtype=np.int64)
        prev = np.where(same_prev, rows_at - 1, -1)
        nxt = np.where(np.append(same_prev[1:], False), rows_at + 1, -1)
        named = set(info.speakers)
        window = info.window
        cand = Candidates(
            seq=seqs,
            dense=dense,
            bm25=np.array([bm25.get(int(s), 0.0) for s in seqs], dtype=np.float64),
            speaker=np.array([1.0 if r[_SPEAKER] in named else 0.0 for r in rows]),
            date=np.array([1.0 if window and window.contains(r[_TIMESTAMP], w.date_slack_days) else 0.0 for r in rows]),
            importance=np.array([r[_IMPORTANCE] for r in rows], dtype=np.float64),
            recency=np.array([0.5 ** (max(0, max_tick - r[_TICK]) / w.recency_half_life) for r in rows]),
            prev=prev,
            next=nxt,
        )
        final, _base, near = cand.score(w)
        eligible = np.ones(n, dtype=bool) if w.neighbour else np.isin(seqs, list(core))
        hits = []
        for rank, j in enumerate(top_rows(final, seqs, k, eligible), start=1):
            item = row_to_item(rows[j])
            hits.append(Hit(item, rank, float(final[j]), _breakdown(cand, j, float(final[j]), float(near[j]))))
        return hits


# Positions in an ITEM_COLUMNS row (agi_core.memory.row_layouts).
_TICK, _SPEAKER, _TIMESTAMP, _SESSION, _IMPORTANCE = 2, 5, 6, 7, 8


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
