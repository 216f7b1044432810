"""Long-term memory: every memory in SQLite, recalled by embeddings, BM25 and context.

Public API::

    ltm = LongTermMemory(conn, index_dir)          # kernel-owned sqlite3 connection
    ltm.add("I adopted a puppy", tick=3, speaker="Ann")   # tick path: one row, no commit
    ltm.search("Who has a dog?", k=10)             # -> list[Hit] with score breakdown
    ltm.working_memory(recent_turns, query, k=10)  # recent turns + recalled, no repeats
    ltm.restore_to(tick)                           # rollback: items and index
    ingest_file(ltm, "notes.txt")                  # text / jsonl / LoCoMo -> IngestReport

See docs/long-term-memory.md.
"""

from agi_core.longterm.dates import parse_timestamp, query_window
from agi_core.longterm.embedder import DEFAULT_EMBEDDER, Embedder, embedder_from_plugins
from agi_core.longterm.importance import ACTION_IMPORTANCE, score_importance
from agi_core.longterm.ingest import FORMATS, ingest_file
from agi_core.longterm.model import Hit, IngestReport, MemoryItem, ScoreBreakdown, WorkingMemory, item_id
from agi_core.longterm.ranking import PRESETS, RankWeights
from agi_core.longterm.schema import migrate
from agi_core.longterm.store import LongTermMemory
from agi_core.longterm.vindex import IndexPolicy
from agi_core.longterm.working import working_memory

__all__ = [
    "ACTION_IMPORTANCE",
    "DEFAULT_EMBEDDER",
    "FORMATS",
    "PRESETS",
    "Embedder",
    "Hit",
    "IndexPolicy",
    "IngestReport",
    "LongTermMemory",
    "MemoryItem",
    "RankWeights",
    "ScoreBreakdown",
    "WorkingMemory",
    "embedder_from_plugins",
    "ingest_file",
    "item_id",
    "migrate",
    "parse_timestamp",
    "query_window",
    "score_importance",
    "working_memory",
]
