"""Whole-agent checkpoints and rollback, both atomic, on any memory backend.

:func:`create` snapshots every store as of the last tick (the backend seals the state first);
:func:`rollback` restores all of them in one transaction and archives the undone ticks, then
the kernel re-reads its caches and plugins rebuild derived state (a vector index) through
``agi_restore_checkpoint``. At most ``CHECKPOINT_LIMIT`` are kept (fewer with ``keep``); pruning
deletes the oldest only, :func:`remove` any one, and the journal is never pruned, so every kept
checkpoint replays. How a snapshot is
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
    "remove",
    "rollback",
]


def list_checkpoints(store: MemoryBackend) -> list[CheckpointInfo]:
    return store.checkpoint_list()


def create(kernel: Kernel, name: str, keep: int = CHECKPOINT_LIMIT) -> CheckpointInfo:
    """Snapshot the whole agent as it is after its last tick (listed only once complete), then
    delete the oldest checkpoints beyond the newest ``keep`` (1 to ``CHECKPOINT_LIMIT``)."""
    if not _NAME.match(name):
        raise CheckpointError(f"checkpoint name {name!r} is invalid; use letters, digits, '.', '_' or '-' (max 64)")
    if not 1 <= keep <= CHECKPOINT_LIMIT:
        raise CheckpointError(f"--keep {keep} is out of range; keep 1 to {CHECKPOINT_LIMIT} checkpoints")
    info = kernel.store.checkpoint_create(name, kernel.journal_key)
    prune(kernel.store, keep)
    return info


def prune(store: MemoryBackend, keep: int) -> list[str]:
    """Delete the oldest checkpoints beyond the newest ``keep``; returns their names."""
    if keep < 0:
        raise CheckpointError(f"--keep {keep} is negative; keep 0 or more checkpoints")
    return store.checkpoint_prune(keep)


def remove(store: MemoryBackend, name: str) -> CheckpointInfo:
    """Delete checkpoint ``name`` (its snapshot too); the agent, its journal and the other checkpoints
    are unchanged. An unknown name raises :class:`CheckpointError` naming the existing ones."""
    return store.checkpoint_remove(name)


def rollback(kernel: Kernel, name: str) -> RollbackReport:
    """Restore the whole agent to checkpoint ``name`` in one transaction; undone ticks are archived."""

    def rollback_id(live_tick: int, archived: int) -> str:
        return kernel.determinism.sign(f"rollback|{name}|{live_tick}|{archived}")[:16]

    report = kernel.store.checkpoint_rollback(name, kernel.journal_key, rollback_id)
    kernel.reload()
    kernel.plugins.restore_checkpoint(kernel=kernel, tick=report.tick, skip=kernel.disabled_plugins)
    return report
