"""One search: candidates from faiss and FTS5, their neighbours, features, fusion.

The query vectors are computed on a worker thread while the full-text queries run on the
caller's (:mod:`agi_core.longterm.query_vectors`, which also caches single queries' vectors).

Candidates are the union of the ``candidates`` best items by cosine (faiss) and by BM25
(the backend's full-text search, :meth:`LtmRows.full_text`), plus, when the neighbour weight
is on, the item before and after each of them in the same session. Every candidate's cosine
is then computed exactly from its vector, read from the index's own storage (so an
approximate index only decides who is a candidate, not the score). Candidate rows are read
as tuples; only the ``k`` hits become :class:`MemoryItem` objects.
"""

from __future__ import annotations

import itertools
import operator
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
        if not queries:
            return []
        encoding = None
        if w.uses_dense or w.neighbour:  # the encoder works while the full-text queries run here
            encoding = self.ltm.query_vectors.start(self.ltm.embedder, queries)
        infos = [analyze(q, self.ltm.speakers()) for q in queries]
        bm25s = [self._bm25(info) if w.uses_bm25 else {} for info in infos]
        max_tick = self.ltm.rows.max_tick() if w.recency else 0
        dense_seqs: list[np.ndarray] = [np.zeros(0, np.int64)] * len(queries)
        qvecs = None
        if encoding is not None:
            qvecs = encoding.result()
            _, found = self.ltm.index().search(qvecs, w.candidates)
            if w.uses_dense:
                dense_seqs = [row[row >= 0] for row in found]
        out = []
        for i, info in enumerate(infos):
            qvec = qvecs[i] if qvecs is not None else None
            out.append(self._rank(info, qvec, dense_seqs[i], bm25s[i], max_tick, k))
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
        if not rows:
            return []
        n = len(rows)
        cols = list(zip(*rows, strict=True))  # the rows as columns: each feature is one pass over a column
        seqs = np.array(cols[0], dtype=np.int64)
        dense = np.zeros(n, np.float32)
        if qvec is not None and w.dense:
            _found, stored = self.ltm.index().stored(seqs)
            dense = stored @ qvec
        sessions = cols[_SESSION]
        same_prev = np.zeros(n, dtype=bool)
        if n > 1:
            same_session = np.fromiter(map(operator.eq, sessions[1:], sessions[:-1]), dtype=bool, count=n - 1)
            same_prev[1:] = (np.diff(seqs) == 1) & same_session
        rows_at = np.arange(n, dtype=np.int64)
        prev = np.where(same_prev, rows_at - 1, -1)
        nxt = np.where(np.append(same_prev[1:], False), rows_at + 1, -1)
        named = set(info.speakers)
        window = info.window
        zeros = np.zeros(n, dtype=np.float64)
        cand = Candidates(
            seq=seqs,
            dense=dense,
            bm25=np.fromiter(map(bm25.get, cols[0], itertools.repeat(0.0)), dtype=np.float64, count=n),
            speaker=np.fromiter((s in named for s in cols[_SPEAKER]), dtype=np.float64, count=n) if named else zeros,
            date=np.fromiter(
                (window.contains(ts, w.date_slack_days) for ts in cols[_TIMESTAMP]), dtype=np.float64, count=n
            )
            if window
            else zeros,
            importance=np.array(cols[_IMPORTANCE], dtype=np.float64),
            recency=_recency(np.array(cols[_TICK], dtype=np.float64), max_tick, w.recency_half_life),
            prev=prev,
            next=nxt,
        )
        final, _base, near = cand.score(w)
        eligible = np.ones(n, dtype=bool) if w.neighbour else np.isin(seqs, list(core))
        chatter = None
        if w.statements_first:
            said = zip(cols[_KIND], cols[_SPEAKER], cols[_SESSION], cols[_TEXT], strict=True)
            chatter = np.fromiter(itertools.starmap(_no_statement, said), dtype=bool, count=n)
        hits = []
        for rank, j in enumerate(top_rows(final, seqs, k, eligible, chatter), start=1):
            item = row_to_item(rows[j])
            hits.append(Hit(item, rank, float(final[j]), _breakdown(cand, j, float(final[j]), float(near[j]))))
        return hits


def _no_statement(kind: str, speaker: str | None, session: str | None, text: str) -> bool:
    """Whether a memory is one that the ranking puts after the others (``statements_first``): the agent's own
    reply, or a question asked in a tick (a mirrored input: no session)."""
    if kind == "action":
        return speaker == AGENT
    return session is None and text.rstrip().endswith("?")


def _recency(ticks: np.ndarray, max_tick: int, half_life: float) -> np.ndarray:
    """``0.5 ** (age / half_life)`` per item, age in ticks (never negative)."""
    return np.power(0.5, np.maximum(0.0, max_tick - ticks) / half_life)


#: the speaker of the agent's own replies, as long-term memory mirrors them (agi_core.longterm.episodes)
AGENT = "agent"
# Positions in an ITEM_COLUMNS row (agi_core.memory.row_layouts).
_TICK, _KIND, _TEXT, _SPEAKER, _TIMESTAMP, _SESSION, _IMPORTANCE = 2, 3, 4, 5, 6, 7, 8


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
