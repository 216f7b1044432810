"""Long-term memory rows derived from the kernel's episodes.

Ticks store episodes only. The kernel calls :func:`mirror_episodes` whenever something
needs long-term memory, so every input and action becomes a memory without rule-only
ticks paying for it, except the kernel's bookkeeping (:mod:`agi_core.memory.bookkeeping`).
Idempotent: progress is kept in the ``meta`` table, and memory ids are content-derived.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agi_core.memory.bookkeeping import is_command_record, is_empty_reply

if TYPE_CHECKING:
    from agi_core.longterm.store import LongTermMemory
    from agi_core.memory.backend import MemoryBackend

PROGRESS_KEY = "ltm_episode_seq"


def mirror_episodes(store: MemoryBackend, memory: LongTermMemory) -> int:
    """Add the episodes stored since the last call as memories; returns how many were read.

    Runs in the caller's transaction, or under the write lock of its own, so the progress
    read and its update are one step even with other processes writing.
    """
    done = int(store.meta_get(PROGRESS_KEY, "0") or 0)
    if store.last_episode_seq() <= done:
        return 0  # the common case: nothing new, no write lock taken
    with store.write_block():
        return _mirror(store, memory)


def _mirror(store: MemoryBackend, memory: LongTermMemory) -> int:
    """Both episodes of a tick are stored in one transaction, so a command tick's input is
    always read before its action."""
    done = int(store.meta_get(PROGRESS_KEY, "0") or 0)
    rows = store.episode_rows(done)
    if not rows:
        return 0
    records: list[dict[str, Any]] = []
    command_ticks: set[int] = set()
    for _seq, tick, event, context, stamp in rows:
        details = store.load_json(context)
        text = store.load_text(event)
        kind = "action" if details.get("kind") == "action" else "message"
        if kind == "message" and is_command_record(text, details.get("source")):
            command_ticks.add(tick)
            continue
        if kind == "action" and (tick in command_ticks or is_empty_reply(text)):
            continue
        speaker = "agent" if kind == "action" else details.get("source", "user")
        if isinstance(details.get("wall_ms"), int):  # the tick's recorded wall clock, when it had one
            stamp = _iso(details["wall_ms"])
        records.append({"text": text, "tick": tick, "kind": kind, "speaker": speaker, "timestamp": stamp})
    memory.add_many(records)
    store.meta_set(PROGRESS_KEY, str(rows[-1][0]))
    return len(rows)


def _iso(ms: int) -> str:
    """``ms`` since the epoch as ISO 8601 UTC with milliseconds (as ``agi_core.scheduling.clock.iso_ms``)."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
