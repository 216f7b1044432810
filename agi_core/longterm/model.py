"""The shapes long-term memory stores and returns (attrs classes, plain data)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import attrs


@attrs.frozen
class MemoryItem:
    """One long-term memory: a turn, an observation, an action, a line of a file.

    ``seq`` is the row number SQLite gave it (also its id in the vector index); ``id`` is
    the stable, caller-given or content-derived identifier. ``session`` groups items that
    were said together (a conversation session, a file): neighbours for context are taken
    inside one session only.
    """

    seq: int
    id: str
    tick: int
    kind: str
    text: str
    speaker: str | None = None
    timestamp: str | None = None
    session: str | None = None
    importance: float = 0.3
    metadata: dict[str, Any] = attrs.field(factory=dict)

    def embedding_text(self) -> str:
        """The text that is embedded: ``"speaker: text"`` when there is a speaker."""
        return embedding_text(self.text, self.speaker)


def embedding_text(text: str, speaker: str | None) -> str:
    """``"speaker: text"`` or ``text``; used for the item and for nothing else."""
    return f"{speaker}: {text}" if speaker else text


@attrs.frozen
class ScoreBreakdown:
    """Every component of a hit's score, before weighting (so a reader can recompute it).

    ``dense`` is the cosine similarity, ``bm25`` the FTS5 BM25 score divided by the best
    one among the candidates, ``speaker``/``date`` are 0 or 1 matches, ``recency`` is in
    (0, 1], ``neighbour`` the best score of an adjacent item of the same session.
    ``score`` is the final weighted total the hits are sorted by.
    """

    score: float
    dense: float = 0.0
    bm25: float = 0.0
    importance: float = 0.0
    recency: float = 0.0
    speaker: float = 0.0
    date: float = 0.0
    neighbour: float = 0.0


@attrs.frozen
class Hit:
    """One search result: the item, its rank (1-based) and the score breakdown."""

    item: MemoryItem
    rank: int
    score: float
    breakdown: ScoreBreakdown

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (what ``agi memory search --json`` prints per hit)."""
        return {
            "rank": self.rank,
            "score": round(self.score, 6),
            **attrs.asdict(self.item),
            "breakdown": {k: round(v, 6) for k, v in attrs.asdict(self.breakdown).items()},
        }


@attrs.frozen
class IngestReport:
    """What :func:`agi_core.longterm.ingest_file` did.

    ``added`` new items, ``duplicates`` already stored (ingestion is idempotent: ids are
    derived from the source and the position), ``skipped`` empty or unusable records,
    ``embedded`` vectors computed (0 when ``embed=False``), ``problems`` why each record
    was skipped (``line 7 not JSON``).
    """

    path: str
    format: str
    added: int
    duplicates: int
    skipped: int
    embedded: int
    problems: tuple[str, ...] = ()


@attrs.frozen
class WorkingMemory:
    """Recent turns plus the long-term memories relevant to the query, without repeats."""

    recent: list[Any]
    recalled: list[Hit]

    def texts(self) -> list[str]:
        """Recent texts first, then recalled texts, in rank order."""
        recent = [r.text if isinstance(r, MemoryItem) else str(r) for r in self.recent]
        return recent + [hit.item.text for hit in self.recalled]


def item_id(*parts: Any) -> str:
    """A deterministic, content-derived id: ``ltm-`` and 24 hex digits of SHA-256."""
    digest = hashlib.sha256("\x1f".join("" if p is None else str(p) for p in parts).encode("utf-8"))
    return "ltm-" + digest.hexdigest()[:24]


def row_to_item(row: Sequence[Any]) -> MemoryItem:
    seq, id_, tick, kind, text, speaker, timestamp, session, importance, metadata = row
    return MemoryItem(seq, id_, tick, kind, text, speaker, timestamp, session, importance, json.loads(metadata))
