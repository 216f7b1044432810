"""How candidates are scored: weights, presets and the fusion itself.

The default (``hybrid``) score of an item for a query is

    base  = w_dense·cos + w_bm25·bm25/max(bm25) + w_speaker·[speaker named in query]
          + w_date·[stored in the date window the query names] + w_importance·importance
          + w_recency·0.5^(age_in_ticks / half_life)
    score = base + w_neighbour·max(base of the previous item, base of the next item)

where neighbours are the adjacent items of the same session: a turn's meaning often sits
in the turn before or after it ("Yes, last Sunday!"). With ``statements_first`` (the default)
what the conversation's ticks mirrored but holds no statement, the agent's own replies and the
questions asked, comes after every other candidate: a reply that quotes a memory, or the question
that asked for it, scores as high as the memory and would take its place among the ``k`` (a few
questions about one statement filled the top 10 with the questions and the replies quoting it).
The presets ``agentone`` (the seed's 0.7·similarity + 0.3·importance), ``dense`` and ``bm25``
are the baselines it is measured against (benchmarks/locomo_recall.py).
"""

from __future__ import annotations

import attrs
import numpy as np

from agi_core.errors import ConfigError


@attrs.frozen
class RankWeights:
    """Weights of each score component, and the candidate pool sizes.

    :param plain_bm25: BM25 on every word of the query (the textbook baseline) instead of
        content words with speaker names taken out.
    :param candidates: how many items each retriever (faiss, FTS5) contributes before fusion.
    :param statements_first: rank the agent's own replies (mirrored actions, speaker ``agent``) and
        the questions asked in its ticks (mirrored inputs, no session, ending in "?") after every
        other candidate; off in the baselines.
    """

    dense: float = 0.6
    bm25: float = 0.4
    speaker: float = 0.2
    date: float = 0.2
    importance: float = 0.0
    recency: float = 0.0
    neighbour: float = 0.3
    recency_half_life: float = 1000.0
    date_slack_days: int = 14
    candidates: int = 100
    plain_bm25: bool = False
    statements_first: bool = True

    @property
    def uses_dense(self) -> bool:
        return self.dense > 0

    @property
    def uses_bm25(self) -> bool:
        return self.bm25 > 0


_NONE = RankWeights(
    dense=0.0, bm25=0.0, speaker=0.0, date=0.0, importance=0.0, recency=0.0, neighbour=0.0, statements_first=False
)

PRESETS: dict[str, RankWeights] = {
    "hybrid": RankWeights(),
    "agentone": attrs.evolve(_NONE, dense=0.7, importance=0.3),
    "dense": attrs.evolve(_NONE, dense=1.0),
    "bm25": attrs.evolve(_NONE, bm25=1.0, plain_bm25=True),
}


def weights_for(mode: str | RankWeights) -> RankWeights:
    """The preset named ``mode``, or ``mode`` itself if it is already weights."""
    if isinstance(mode, RankWeights):
        return mode
    try:
        return PRESETS[mode]
    except KeyError:
        raise ConfigError(f"unknown ranking mode {mode!r}; use one of {', '.join(PRESETS)}") from None


@attrs.define
class Candidates:
    """Feature columns of the candidate items, one row per item, sorted by ``seq``."""

    seq: np.ndarray
    dense: np.ndarray
    bm25: np.ndarray
    speaker: np.ndarray
    date: np.ndarray
    importance: np.ndarray
    recency: np.ndarray
    prev: np.ndarray  # row of the previous item of the same session, or -1
    next: np.ndarray  # row of the next item of the same session, or -1

    def base(self, w: RankWeights) -> np.ndarray:
        top = float(self.bm25.max()) if len(self.bm25) else 0.0
        bm25 = self.bm25 / top if top > 0 else self.bm25
        return (
            w.dense * self.dense
            + w.bm25 * bm25
            + w.speaker * self.speaker
            + w.date * self.date
            + w.importance * self.importance
            + w.recency * self.recency
        )

    def neighbour(self, base: np.ndarray) -> np.ndarray:
        padded = np.append(base, 0.0)  # row -1 reads the 0 at the end
        return np.maximum(padded[self.prev], padded[self.next])

    def score(self, w: RankWeights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(final, base, neighbour)`` scores."""
        base = self.base(w)
        near = self.neighbour(base) if w.neighbour else np.zeros_like(base)
        return base + w.neighbour * near, base, near


def top_rows(
    final: np.ndarray, seq: np.ndarray, k: int, eligible: np.ndarray, last: np.ndarray | None = None
) -> list[int]:
    """Rows of the ``k`` best eligible candidates, best first; ties go to the older item. Rows where
    ``last`` is true come after all the others (see ``statements_first``)."""
    rows = np.flatnonzero(eligible)
    keys = (seq[rows], -final[rows]) if last is None else (seq[rows], -final[rows], last[rows])
    order = np.lexsort(keys)
    return [int(r) for r in rows[order[:k]]]
