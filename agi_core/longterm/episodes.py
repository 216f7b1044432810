"""Long-term memory rows derived from the kernel's episodes.

Ticks store episodes only. The kernel calls :func:`mirror_episodes` whenever something
needs long-term memory, so every input and action becomes a memory without rule-only
ticks paying for it, except the kernel's bookkeeping (:mod:`agi_core.memory.bookkeeping`).
Once long-term memory is open, each tick mirrors its own episodes at its end (at most
:data:`TICK_MIRROR_LIMIT` waiting), and a larger backlog is mirrored before the next tick, outside it
(:func:`mirror_between_ticks`): a recall inside a tick finds little or nothing left to mirror.
Idempotent: progress is kept in the ``meta`` table, and memory ids are content-derived.
An input's importance follows AgentOne's rules (:func:`importance_of`): a clock percept would be a
time update (0.4), but clock ticks are bookkeeping and not mirrored; a tick whose action was a tool
call adds the +0.3 tool-call bonus.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agi_core.longterm.importance import score_importance
from agi_core.memory.bookkeeping import is_bookkeeping_input, is_empty_reply

if TYPE_CHECKING:
    from agi_core.longterm.store import LongTermMemory
    from agi_core.memory.backend import MemoryBackend

PROGRESS_KEY = "ltm_episode_seq"
#: Episodes mirrored by one transaction between ticks (whole ticks; about 30 ms): another writer waits at most that.
MIRROR_CHUNK = 1000
#: Most episodes waiting that a tick mirrors at its end, in its transaction (its own are two, or one): more are
#: mirrored before the next tick (:func:`mirror_between_ticks`), not under the tick's write lock.
TICK_MIRROR_LIMIT = 64
_TICK_PAGE = 2  # episodes read at a time past a chunk's end while its last tick goes on (a tick stores two)
#: Percept sources that are AgentOne's time-sensor updates (base importance 0.4).
TIME_SOURCES = frozenset({"clock"})


def importance_of(text: str, source: str | None, tool_calls: int) -> float:
    """AgentOne's importance of an input: a clock percept starts from 0.4 (a time update), any other
    from 0.3; +0.3 when the tick's thought led to tool calls (``tool_calls`` on its action episode)."""
    kind = "time" if source in TIME_SOURCES else "message"
    return score_importance(text, kind=kind, tool_calls=tool_calls)


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


def waiting(store: MemoryBackend) -> int:
    """At most how many episodes were stored since the last mirror (the difference of their seqs; two reads)."""
    return max(0, store.last_episode_seq() - int(store.meta_get(PROGRESS_KEY, "0") or 0))


def mirror_between_ticks(store: MemoryBackend, memory: LongTermMemory, chunk: int = MIRROR_CHUNK) -> int:
    """:func:`mirror_episodes` outside any tick: transactions of their own of at most ``chunk`` episodes (whole
    ticks), each committed without waiting for the disk where the backend allows (the rows are derived from the
    episodes: a crash only leaves them to be mirrored again). Returns how many episodes were read.

    Not while the backend holds a transaction open for the next tick (the caller checks): this would commit it.
    """
    total = 0
    while waiting(store):
        lazy = getattr(store, "lazy_commit", None)
        if lazy is not None:
            lazy()
        with store.tick_transaction():
            read = _mirror(store, memory, chunk)
        if not read:
            break
        total += read
    return total


def _mirror(store: MemoryBackend, memory: LongTermMemory, chunk: int | None = None) -> int:
    """Both episodes of a tick are stored in one transaction, so a command tick's input is
    always read before its action; a ``chunk`` is cut after a whole tick for the same reason.
    Only the chunk's rows are read (keyset: ``seq`` after the progress row), so a backlog read in
    chunks is read once, not again at each chunk."""
    done = int(store.meta_get(PROGRESS_KEY, "0") or 0)
    rows = store.episode_rows(done, limit=None if chunk is None else chunk + 1)
    while chunk is not None and len(rows) > chunk and rows[-1][1] == rows[chunk - 1][1]:
        more = store.episode_rows(rows[-1][0], limit=_TICK_PAGE)  # the chunk's last tick goes on: read its rest
        rows += more
        if not more:
            break
    if chunk is not None and len(rows) > chunk:
        end = chunk
        while end < len(rows) and rows[end][1] == rows[end - 1][1]:
            end += 1
        rows = rows[:end]
    if not rows:
        return 0
    records: list[dict[str, Any]] = []
    command_ticks: set[int] = set()
    loaded = [
        (tick, store.load_text(event), store.load_json(context), stamp) for _seq, tick, event, context, stamp in rows
    ]
    tool_calls = {tick: int(d.get("tool_calls", 0)) for tick, _text, d, _stamp in loaded if d.get("kind") == "action"}
    for tick, text, details, stamp in loaded:
        kind = "action" if details.get("kind") == "action" else "message"
        if kind == "message" and is_bookkeeping_input(text, details.get("source")):
            command_ticks.add(tick)
            continue
        if kind == "action" and (tick in command_ticks or is_empty_reply(text)):
            continue
        # who said it: the named speaker (``--speaker``, another agent), else the input's source
        speaker = "agent" if kind == "action" else details.get("speaker") or details.get("source", "user")
        if isinstance(details.get("wall_ms"), int):  # the tick's recorded wall clock, when it had one
            stamp = _iso(details["wall_ms"])
        record = {"text": text, "tick": tick, "kind": kind, "speaker": speaker, "timestamp": stamp}
        if kind == "message":
            record["importance"] = importance_of(text, details.get("source"), tool_calls.get(tick, 0))
        records.append(record)
    memory.add_many(records)
    store.meta_set(PROGRESS_KEY, str(rows[-1][0]))
    return len(rows)


def _iso(ms: int) -> str:
    """``ms`` since the epoch as ISO 8601 UTC with milliseconds (as ``agi_core.scheduling.clock.iso_ms``)."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
