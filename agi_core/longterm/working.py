"""Working memory (AgentOne): recent turns plus relevant long-term memories, no repeats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agi_core.longterm.model import MemoryItem, WorkingMemory

if TYPE_CHECKING:
    from agi_core.longterm.store import LongTermMemory


def working_memory(
    ltm: LongTermMemory, recent_turns: Sequence[MemoryItem | str], query: str, k: int = 10
) -> WorkingMemory:
    """``recent_turns`` plus the ``k`` best memories for ``query`` that are not among them.

    A recent turn matches a memory by id (for a :class:`MemoryItem`) or by its exact text
    (for a plain string), so the same turn never appears twice in the prompt.
    """
    ids = {t.id for t in recent_turns if isinstance(t, MemoryItem)}
    texts = {(t.text if isinstance(t, MemoryItem) else str(t)).strip() for t in recent_turns}
    hits = ltm.search(query, k + len(recent_turns))
    fresh = [h for h in hits if h.item.id not in ids and h.item.text.strip() not in texts][:k]
    return WorkingMemory(list(recent_turns), fresh)
