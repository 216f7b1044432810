"""Whole-agent checkpoints and rollback.

A checkpoint is a consistent copy of the whole database (SQLite's backup API) taken
between ticks, kept in ``<db>.checkpoints/``. Rollback copies it back over the live
database — facts, episodes, working memory, RLM variables, long-term memory rows and the
determinism counter all return to that tick — then puts back what must survive: the
ticks it undid go to ``journal_archive`` (never destroyed, exportable) and the list of
checkpoints is kept. Plugins bring derived state (a vector index) back through
``agi_restore_checkpoint``. At most ``CHECKPOINT_LIMIT`` are kept; pruning deletes the
oldest copies only, and the journal is never pruned, so every kept checkpoint replays.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from agi_core.errors import AgiError, StorageError
from agi_core.memory import blobs
from agi_core.memory.sqlite_store import SqliteStore

if TYPE_CHECKING:
    from agi_core.kernel import Kernel

CHECKPOINT_LIMIT = 100
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class CheckpointError(AgiError):
    """A checkpoint name is invalid, unknown or already taken."""


@attrs.frozen
class CheckpointInfo:
    name: str
    tick: int
    file: str


@attrs.frozen
class RollbackReport:
    name: str
    tick: int
    archived_ticks: int
    rollback_id: str


def folder_of(store: SqliteStore) -> Path:
    return store.path.with_name(store.path.name + ".checkpoints")


def list_checkpoints(store: SqliteStore) -> list[CheckpointInfo]:
    rows = store.conn.execute("SELECT name, tick, file FROM checkpoints ORDER BY seq").fetchall()
    return [CheckpointInfo(*row) for row in rows]


def checkpoint_file(store: SqliteStore, name: str) -> Path:
    row = store.conn.execute("SELECT file FROM checkpoints WHERE name = ?", (name,)).fetchone()
    if row is None:
        known = ", ".join(info.name for info in list_checkpoints(store)) or "none"
        raise CheckpointError(f"no checkpoint named {name!r}; existing checkpoints: {known}")
    path = folder_of(store) / row[0]
    if not path.is_file():
        raise CheckpointError(f"checkpoint {name!r} lost its file {path}; restore the file or use another checkpoint")
    return path


def create(kernel: Kernel, name: str) -> CheckpointInfo:
    """Snapshot the whole agent as it is after its last tick."""
    store = kernel.store
    if not _NAME.match(name):
        raise CheckpointError(f"checkpoint name {name!r} is invalid; use letters, digits, '.', '_' or '-' (max 64)")
    if store.conn.execute("SELECT 1 FROM checkpoints WHERE name = ?", (name,)).fetchone():
        raise CheckpointError(f"a checkpoint named {name!r} exists; choose another name")
    folder = folder_of(store)
    folder.mkdir(exist_ok=True)
    seq = (store.conn.execute("SELECT coalesce(max(seq), 0) FROM checkpoints").fetchone()[0]) + 1
    file = f"{seq:06d}-{name}.db"
    with store.tick_transaction():
        store.conn.execute(
            "INSERT INTO checkpoints (name, tick, file, seq) VALUES (?, ?, ?, ?)", (name, kernel.tick_count, file, seq)
        )
    target = sqlite3.connect(folder / file)
    try:
        store.conn.backup(target)
    finally:
        target.close()
    prune(store, CHECKPOINT_LIMIT)
    return CheckpointInfo(name, kernel.tick_count, file)


def prune(store: SqliteStore, keep: int) -> list[str]:
    """Delete the oldest checkpoints beyond ``keep``; returns their names."""
    rows = store.conn.execute(
        "SELECT name, file FROM checkpoints ORDER BY seq DESC LIMIT -1 OFFSET ?", (keep,)
    ).fetchall()
    for name, file in rows:
        store.conn.execute("DELETE FROM checkpoints WHERE name = ?", (name,))
        (folder_of(store) / file).unlink(missing_ok=True)
    return [name for name, _file in rows]


def rollback(kernel: Kernel, name: str) -> RollbackReport:
    """Restore the whole agent to checkpoint ``name``; undone ticks are archived."""
    store = kernel.store
    source = checkpoint_file(store, name)
    tick = store.conn.execute("SELECT tick FROM checkpoints WHERE name = ?", (name,)).fetchone()[0]
    undone = list(store.journal_rows(since=tick))
    archive = list(store.archived_rows())
    hashes = set().union(*(blobs.refs_in(str(row[-2])) for row in [*undone, *archive]))
    kept_blobs = [(h, store.conn.execute("SELECT data FROM blobs WHERE hash = ?", (h,)).fetchone()) for h in hashes]
    checkpoints = store.conn.execute("SELECT name, tick, file, seq FROM checkpoints").fetchall()
    rollback_id = kernel.determinism.sign(f"rollback|{name}|{kernel.tick_count}|{len(archive)}")[:16]
    snapshot = sqlite3.connect(source)
    try:
        snapshot.backup(store.conn)
    except sqlite3.Error as exc:
        raise StorageError(
            f"rollback to {name!r} failed while copying {source} ({exc}); the database is unchanged"
        ) from None
    finally:
        snapshot.close()
    with store.tick_transaction():
        store.conn.execute("DELETE FROM journal_archive")
        store.conn.executemany(
            "INSERT INTO journal_archive (rollback, tick, id, record, chain) VALUES (?, ?, ?, ?, ?)",
            [*archive, *[(rollback_id, *row) for row in undone]],
        )
        if kept_blobs:  # blobs the archived records refer to outlive the rollback
            store.conn.executemany(
                "INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)", [(h, row[0]) for h, row in kept_blobs if row]
            )
        store.conn.execute("DELETE FROM checkpoints")
        store.conn.executemany("INSERT INTO checkpoints (name, tick, file, seq) VALUES (?, ?, ?, ?)", checkpoints)
    kernel.reload()
    for _ in kernel.plugins.call_each("agi_restore_checkpoint", kernel=kernel, tick=tick):
        pass
    return RollbackReport(name, tick, len(undone), rollback_id)
