"""Whole-agent checkpoints and rollback, both atomic, on any memory backend.

:func:`create` snapshots every store as of the last tick (the backend seals the state first);
:func:`rollback` restores all of them in one transaction and archives the undone ticks, then
the kernel re-reads its caches and plugins rebuild derived state (a vector index) through
``agi_restore_checkpoint``. At most ``CHECKPOINT_LIMIT`` are kept; pruning deletes the oldest
only, and the journal is never pruned, so every kept checkpoint replays. How a snapshot is
kept is the backend's (SQLite: a file copy, :mod:`agi_core.memory.sqlite.checkpoints`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agi_core.memory.backend import CheckpointError, CheckpointInfo, MemoryBackend, RollbackReport
from agi_core.memory.sqlite.checkpoints import check_file, checkpoint_file, file_sha256, folder_of

if TYPE_CHECKING:
    from agi_core.kernel import Kernel

CHECKPOINT_LIMIT = 100
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

__all__ = [
    "CHECKPOINT_LIMIT",
    "CheckpointError",
    "CheckpointInfo",
    "RollbackReport",
    "check_file",
    "checkpoint_file",
    "create",
    "file_sha256",
    "folder_of",
    "list_checkpoints",
    "prune",
    "rollback",
]


def list_checkpoints(store: MemoryBackend) -> list[CheckpointInfo]:
    return store.checkpoint_list()


def create(kernel: Kernel, name: str) -> CheckpointInfo:
    """Snapshot the whole agent as it is after its last tick; it is listed only once complete."""
    if not _NAME.match(name):
        raise CheckpointError(f"checkpoint name {name!r} is invalid; use letters, digits, '.', '_' or '-' (max 64)")
    info = kernel.store.checkpoint_create(name, kernel.journal_key)
    prune(kernel.store, CHECKPOINT_LIMIT)
    return info


def prune(store: MemoryBackend, keep: int) -> list[str]:
    """Delete the oldest checkpoints beyond ``keep``; returns their names."""
    return store.checkpoint_prune(keep)


def rollback(kernel: Kernel, name: str) -> RollbackReport:
    """Restore the whole agent to checkpoint ``name`` in one transaction; undone ticks are archived."""

    def rollback_id(live_tick: int, archived: int) -> str:
        return kernel.determinism.sign(f"rollback|{name}|{live_tick}|{archived}")[:16]

    report = kernel.store.checkpoint_rollback(name, kernel.journal_key, rollback_id)
    kernel.reload()
    kernel.plugins.restore_checkpoint(kernel=kernel, tick=report.tick, skip=kernel.disabled_plugins)
    return report
