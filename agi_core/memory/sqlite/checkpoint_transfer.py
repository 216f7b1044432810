"""The journal's archive-point checkpoint carried by ``agi export`` / ``agi import`` (SQLite).

:func:`rows` reads a checkpoint's copy as raw rows, after checking its sha256 and MAC. :func:`load`
builds a checkpoint from raw rows: a new database beside the others (``.tmp-<pid>-<name>.db``, which a
later ``checkpoint create`` removes once the process is gone), loaded and sealed with the agent's key in
one transaction, checked (``quick_check``), fsynced and renamed into place; its row is inserted in the
caller's transaction (the import's), so the checkpoint is listed with the imported agent or not at all.
A file renamed into place whose row never commits is an orphan the next ``checkpoint create`` removes.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agi_core.errors import StorageError
from agi_core.journal_key import JournalKey, fsync_folder
from agi_core.memory.backend import CheckpointError, CheckpointInfo
from agi_core.memory.sqlite import checkpoints, raw_rows
from agi_core.memory.transfer import NOT_EXPORTED_META

if TYPE_CHECKING:
    from agi_core.memory.sqlite_store import SqliteStore


class Snapshot:
    """A checkpoint's copy, read only, as :class:`~agi_core.memory.backend.RawRows`."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def table_names(self) -> set[str]:
        return raw_rows.table_names(self.conn)

    def dump_table(self, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        return raw_rows.dump_table(self.conn, table)

    def load_table(self, table: str, columns: list[str], rows: list[list[Any]]) -> None:
        raise StorageError("a checkpoint's copy is read only; load a checkpoint with checkpoint_load")


@contextlib.contextmanager
def rows(store: SqliteStore, name: str, key: JournalKey) -> Iterator[Snapshot]:
    """Checkpoint ``name``'s copy as raw rows, its sha256 and MAC checked first."""
    path = checkpoints.check_file(store, key, name)
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)) as conn:
        yield Snapshot(conn)


def build_file(
    path: Path, name: str, tick: int, tables: Iterable[tuple[str, list[str], list[list[Any]]]], key: JournalKey
) -> str:
    """A self-contained SQLite file at ``path`` holding checkpoint ``name`` of tick ``tick`` from ``tables``, sealed
    with ``key`` and checked (``quick_check``); returns its seal. Also how a replay starts from a checkpoint of a
    backend whose copies are no files (:func:`agi_core.replay.replay`)."""
    from agi_core.memory.sqlite_store import SqliteStore

    copy = SqliteStore(path, synchronous="OFF")
    try:
        with copy.tick_transaction():
            for table, columns, values in tables:
                if table == "meta":  # the seal is derived from the rows: sealed again below, not taken
                    at = columns.index("key")
                    values = [row for row in values if row[at] not in NOT_EXPORTED_META]
                if values:
                    copy.load_table(table, columns, values)
            held = int(copy.meta_get("tick") or 0)
            if held != tick:
                raise CheckpointError(
                    f"the export's checkpoint {name!r} says tick {tick} but holds tick {held}; "
                    "import the file agi export wrote"
                )
            copy.seal(key)
    finally:
        copy.close()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, as checkpoint create leaves it
        check = conn.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"the copy fails quick_check: {check}")
        return str(conn.execute("SELECT value FROM meta WHERE key = 'state_seal'").fetchone()[0])


def load(
    store: SqliteStore, name: str, tick: int, tables: Iterable[tuple[str, list[str], list[list[Any]]]], key: JournalKey
) -> CheckpointInfo:
    """Checkpoint ``name`` of tick ``tick`` built from ``tables``; its row joins the caller's transaction."""
    if not checkpoints.valid_name(name):
        raise CheckpointError(f"checkpoint name {name!r} is invalid; use letters, digits, '.', '_' or '-' (max 64)")
    checkpoints._check_free(store, name)
    folder = checkpoints.folder_of(store)
    tmp = folder / f"{checkpoints._TMP_PREFIX}{os.getpid()}-{name}.db"
    try:
        folder.mkdir(exist_ok=True)
        tmp.unlink(missing_ok=True)
        seal = build_file(tmp, name, tick, tables, key)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        sha256 = checkpoints.file_sha256(tmp)
        seq = checkpoints._next_seq(store, folder)
        file = f"{seq:06d}-{name}.db"
        os.replace(tmp, folder / file)
        fsync_folder(folder)
    except (sqlite3.Error, OSError) as exc:
        raise StorageError(
            f"checkpoint {name!r} was not imported ({' '.join(str(exc).split())}); free disk space and import again"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    store.conn.execute(
        "INSERT INTO checkpoints (name, tick, file, seq, sha256, seal) VALUES (?, ?, ?, ?, ?, ?)",
        (name, tick, file, seq, sha256, f"{seal} {checkpoints.row_mac(key, name, tick, sha256, seal)}"),
    )
    return CheckpointInfo(name, tick, file)
