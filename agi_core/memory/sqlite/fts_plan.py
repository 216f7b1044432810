"""Which query terms go to FTS5: the rarest, up to a budget of postings.

FTS5 computes ``bm25()`` for every row that matches any term of an OR query, then sorts;
at 100k items a query with one common word scores tens of thousands of rows (p50 30 ms,
p99 270 ms measured, benchmarks/recall_scale.py). Terms are therefore taken rarest first
while their summed document frequencies stay within :data:`POSTINGS_BUDGET`; the rarest
term is always kept. When every term fits (any corpus of a few thousand items, LoCoMo
included) the plan is the exact query. A dropped term is a common one, whose IDF is the
smallest; the scores of the kept terms are exact BM25.

Document frequencies come from ``count(*)`` of a one-term MATCH (doclists only, no scoring)
and are cached per connection until the table has grown by a tenth.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

#: Postings scored per query at most (unless the rarest term alone has more).
POSTINGS_BUDGET = 4000
_CACHE_MAX = 50_000


def quoted(term: str) -> str:
    """``term`` as an FTS5 string (a phrase of its tokens)."""
    return '"' + term.replace('"', '""') + '"'


def or_expression(terms: Sequence[str]) -> str:
    """An FTS5 MATCH expression OR-ing ``terms``."""
    return " OR ".join(quoted(term) for term in terms)


class FtsPlan:
    """Chooses terms for one connection's ``ltm_fts``, caching document frequencies."""

    def __init__(self, budget: int = POSTINGS_BUDGET) -> None:
        self.budget = budget
        self._df: dict[str, int] = {}
        self._at_seq = 0

    def frequency(self, conn: sqlite3.Connection, term: str) -> int:
        found = self._df.get(term)
        if found is None:
            row = conn.execute("SELECT count(*) FROM ltm_fts WHERE ltm_fts MATCH ?", (quoted(term),)).fetchone()
            found = self._df[term] = int(row[0])
        return found

    def choose(self, conn: sqlite3.Connection, terms: Sequence[str]) -> list[str]:
        """The terms to query, in the caller's order: rarest first within the budget, absent terms left out."""
        terms = list(dict.fromkeys(t for t in terms if t.strip()))
        if not terms:
            return []
        top = conn.execute("SELECT coalesce(max(seq), 0) FROM ltm_items").fetchone()[0]
        if top < self._at_seq or top > self._at_seq * 1.1 or len(self._df) > _CACHE_MAX:
            self._df.clear()
            self._at_seq = top
        kept: set[str] = set()
        total = 0
        for df, term in sorted((self.frequency(conn, t), t) for t in terms):
            if df == 0:
                continue
            if kept and total + df > self.budget:
                break
            kept.add(term)
            total += df
        return [t for t in terms if t in kept]
