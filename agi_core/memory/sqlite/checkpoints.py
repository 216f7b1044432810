"""Whole-agent checkpoints of the SQLite backend: a file copy per checkpoint, rollback by table copy.

A checkpoint is a consistent copy of the whole database kept in ``<db>.checkpoints/``.
:func:`create` seals the state, copies it with SQLite's backup API into a temporary file,
checks the copy (``quick_check``), fsyncs it, records its sha256, renames it into place and
only then inserts the checkpoint row, all under the write lock: a kill or an error at any
point leaves either no checkpoint or a complete one, never a row without its file. Stale
temporary files and orphaned copies are removed by the next :func:`create`.

:func:`rollback` checks the file's sha256 and MAC first, then, in ONE transaction on the
live database, replaces every table's rows with the snapshot's (attached read-only) and
appends the undone ticks to ``journal_archive``; the checkpoint list is kept. The file is
attached read-only (a file removed meanwhile is not created empty) and the row is looked up
again under the write lock, so a checkpoint removed by another process is refused, not restored.

:func:`remove` deletes the row under the write lock, then the file; a kill in between leaves an
orphan the next :func:`create` removes. File numbers are never reused (:func:`_next_seq`), so
a removal's late unlink cannot take the file of a checkpoint created meanwhile under its name.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from agi_core.errors import StorageError, TransactionLost
from agi_core.faults import fault_point
from agi_core.journal_key import JournalKey, fsync_folder
from agi_core.memory.backend import CheckpointError, CheckpointInfo, RollbackReport
from agi_core.memory.sqlite import seal as sealing

if TYPE_CHECKING:
    from agi_core.memory.sqlite_store import SqliteStore

# blobs never change: rollback adds the copy's that the live table lacks (an archive deletes those no row refers to)
KEPT_BY_ROLLBACK = ("checkpoints", "journal_archive", "_agi_migrations", "blobs")
_KEY_META = "('journal_key_check', 'journal_key_source')"  # the database's key, kept by rollback
_TMP_PREFIX = ".tmp-"


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


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def row_mac(key: JournalKey, name: str, tick: int, sha256: str, seal: str) -> str:
    return key.mac(f"checkpoint|{name}|{tick}|{sha256}|{seal}")


def create(store: SqliteStore, name: str, key: JournalKey) -> CheckpointInfo:
    """Snapshot the whole agent as it is after its last tick; the row appears only once the file is complete."""
    _check_free(store, name)
    folder = folder_of(store)
    tmp = folder / f"{_TMP_PREFIX}{os.getpid()}-{name}.db"
    final: Path | None = None
    try:
        folder.mkdir(exist_ok=True)
        _remove_stale_temporaries(folder)
        with store.tick_transaction():
            sealing.seal(store.conn, key)
        tick, seal = _snapshot(store.conn, tmp, key)
        fault_point("checkpoint.copied")
        sha256 = file_sha256(tmp)
        with store.tick_transaction():
            _check_free(store, name)
            seq = _next_seq(store, folder)
            file = f"{seq:06d}-{name}.db"
            final = folder / file
            os.replace(tmp, final)
            fsync_folder(folder)
            fault_point("checkpoint.renamed")
            store.conn.execute(
                "INSERT INTO checkpoints (name, tick, file, seq, sha256, seal) VALUES (?, ?, ?, ?, ?, ?)",
                (name, tick, file, seq, sha256, f"{seal} {row_mac(key, name, tick, sha256, seal)}"),
            )
            _remove_orphans(store, folder)
    except (sqlite3.Error, OSError) as exc:
        if final is not None and not store.conn.execute("SELECT 1 FROM checkpoints WHERE name = ?", (name,)).fetchone():
            final.unlink(missing_ok=True)
        raise StorageError(
            f"checkpoint {name!r} was not created ({_reason(exc)}); the agent is unchanged — free disk space and retry"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    return CheckpointInfo(name, tick, file)


def _next_seq(store: SqliteStore, folder: Path) -> int:
    """One past every checkpoint's number, listed or still on disk (a removal not yet unlinked)."""
    listed = store.conn.execute("SELECT coalesce(max(seq), 0) FROM checkpoints").fetchone()[0]
    on_disk = [int(path.name[:6]) for path in folder.iterdir() if is_checkpoint_file(path.name)]
    return max([int(listed), *on_disk]) + 1


def _check_free(store: SqliteStore, name: str) -> None:
    if store.conn.execute("SELECT 1 FROM checkpoints WHERE name = ?", (name,)).fetchone():
        raise CheckpointError(f"a checkpoint named {name!r} exists; choose another name")


def _sqlite_cause(exc: BaseException, conn: sqlite3.Connection) -> BaseException | None:
    """The SQLite error behind ``exc``: itself, the one a tick's StorageError was raised from, or for
    :class:`TransactionLost` the one that made SQLite roll back; None for any other error."""
    if isinstance(exc, sqlite3.Error):
        return exc
    if isinstance(exc, TransactionLost):
        return getattr(conn, "failed", None) or exc
    return exc.__cause__ if isinstance(exc.__cause__, sqlite3.Error) else None


def _reason(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _snapshot(conn: sqlite3.Connection, tmp: Path, key: JournalKey) -> tuple[int, str]:
    """Copy the database into ``tmp`` completely and durably; returns its tick and its state seal.

    The copy is sealed again: another process may have ticked between the live seal and the copy.
    """
    tmp.unlink(missing_ok=True)
    target = sqlite3.connect(tmp, isolation_level=None)
    try:
        conn.backup(target)
        target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        check = target.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"the copy fails quick_check: {check}")
        target.execute("BEGIN IMMEDIATE")
        sealing.seal(target, key)
        target.execute("COMMIT")
        meta = dict(target.execute("SELECT key, value FROM meta WHERE key IN ('tick', 'state_seal')").fetchall())
    finally:
        target.close()
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return int(meta.get("tick") or 0), meta.get("state_seal", "")


def _temporary_pid(name: str) -> int | None:
    """The pid in a temporary copy's name ``.tmp-<pid>-<name>.db``, else None."""
    if not name.startswith(_TMP_PREFIX):
        return None
    digits = name[len(_TMP_PREFIX) :].partition("-")[0]
    return int(digits) if digits.isascii() and digits.isdigit() else None


def _remove_stale_temporaries(folder: Path) -> None:
    """Temporary copies left by a process that died (its pid is gone)."""
    for path in folder.iterdir():
        pid = _temporary_pid(path.name)
        if pid is not None and not process_alive(pid):
            path.unlink(missing_ok=True)


def process_alive(pid: int) -> bool:
    """False once process ``pid`` is gone (the temporary files it named after itself may go)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_checkpoint_file(name: str) -> bool:
    """``NNNNNN-<checkpoint name>.db``, the names :func:`create` gives its copies."""
    stem = name.removesuffix(".db")
    return (
        stem != name
        and len(stem) > 7
        and stem[:6].isascii()
        and stem[:6].isdigit()
        and stem[6] == "-"
        and valid_name(stem[7:])
    )


def valid_name(name: str) -> bool:
    """Letters, digits, ``_ . -``, starting with a letter or digit, at most 64 characters."""
    return 0 < len(name) <= 64 and name.isascii() and name[0].isalnum() and all(c.isalnum() or c in "_.-" for c in name)


def _remove_orphans(store: SqliteStore, folder: Path) -> None:
    """Copies renamed into place whose row never committed (a kill in between); call under the write lock."""
    known = {row[0] for row in store.conn.execute("SELECT file FROM checkpoints")}
    for path in folder.iterdir():
        if is_checkpoint_file(path.name) and path.name not in known:
            path.unlink(missing_ok=True)


def archive_point(store: SqliteStore) -> str | None:
    """The checkpoint of the journal's archive point (``agi journal archive``), if any: replay of the live
    journal starts there, so it is never pruned nor removed."""
    base = (store.meta_get("journal_base") or "").split(" ")
    return base[2] if len(base) > 2 else None


def prune(store: SqliteStore, keep: int) -> list[str]:
    """Delete the oldest checkpoints beyond ``keep`` (never the journal's archive point's); returns their names."""
    with store.tick_transaction():
        kept = archive_point(store)
        rows = store.conn.execute(
            "SELECT name, file FROM checkpoints WHERE name IS NOT ? ORDER BY seq DESC LIMIT -1 OFFSET ?", (kept, keep)
        ).fetchall()
        store.conn.executemany("DELETE FROM checkpoints WHERE name = ?", [(name,) for name, _file in rows])
    for _name, file in rows:  # after the commit: a kill in between leaves an orphan, removed later
        _discard(folder_of(store), file)
    return [name for name, _file in rows]


def remove(store: SqliteStore, name: str) -> CheckpointInfo:
    """Delete checkpoint ``name``: its row under the write lock, then its file; other checkpoints are untouched."""
    with store.tick_transaction():
        row = store.conn.execute("SELECT name, tick, file FROM checkpoints WHERE name = ?", (name,)).fetchone()
        if row is None:
            known = ", ".join(info.name for info in list_checkpoints(store)) or "none"
            raise CheckpointError(f"no checkpoint named {name!r}; existing checkpoints: {known}")
        if name == archive_point(store):
            raise CheckpointError(
                f"checkpoint {name!r} is the journal's archive point (replay of the live journal starts there); "
                "archive through a later checkpoint first (agi journal archive --through NAME --to FILE)"
            )
        store.conn.execute("DELETE FROM checkpoints WHERE name = ?", (name,))
    info = CheckpointInfo(row[0], int(row[1]), row[2])
    _discard(folder_of(store), info.file)
    return info


def _discard(folder: Path, file: str) -> None:
    """Unlink a checkpoint's file once its row is gone (committed)."""
    (folder / file).unlink(missing_ok=True)


def check_file(store: SqliteStore, key: JournalKey, name: str) -> Path:
    """The checkpoint's file, after checking its sha256 and its row's MAC."""
    path = checkpoint_file(store, name)
    tick, sha256, seal = store.conn.execute(
        "SELECT tick, sha256, seal FROM checkpoints WHERE name = ?", (name,)
    ).fetchone()
    if sha256 is None:
        return path  # a checkpoint from before checksums
    seal_text, _, mac = (seal or "").rpartition(" ")
    if not hmac.compare_digest(mac, row_mac(key, name, tick, sha256, seal_text)):
        raise CheckpointError(f"checkpoint {name!r}: its row was edited (MAC mismatch); use another checkpoint")
    if file_sha256(path) != sha256:
        raise CheckpointError(f"checkpoint {name!r} is damaged ({path} fails its sha256); use another checkpoint")
    return path


def problems(store: SqliteStore, key: JournalKey, name: str) -> list[str]:
    """Integrity of one checkpoint: its sha256 and MAC, then the seal of the state it holds."""
    row = store.conn.execute("SELECT tick, sha256, file FROM checkpoints WHERE name = ?", (name,)).fetchone()
    if row is None:
        return [f"no checkpoint named {name!r}"]
    tick, sha256, file = row
    found: list[str] = []
    if sha256 is None:
        return found  # a checkpoint from before checksums and seals: nothing to compare with
    try:
        path = check_file(store, key, name)
    except CheckpointError as exc:
        found.append(str(exc).removeprefix(f"checkpoint {name!r}").lstrip(": "))
        path = folder_of(store) / file
        if not path.is_file():
            return found
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)) as snapshot:
            found += sealing.check(snapshot, key, tick)
    except sqlite3.DatabaseError as exc:
        found.append(f"{path} does not open ({exc})")
    return found


def rollback(store: SqliteStore, name: str, key: JournalKey, rollback_id: Callable[[int, int], str]) -> RollbackReport:
    """Restore the whole agent to checkpoint ``name`` in one transaction; undone ticks are archived."""
    conn = store.conn
    source = check_file(store, key, name)
    try:  # read-only: a file removed since it was checked fails here instead of being created empty
        conn.execute("ATTACH DATABASE ? AS snap", (f"{source.resolve().as_uri()}?mode=ro",))
    except sqlite3.Error as exc:
        raise StorageError(
            f"rollback to {name!r} failed: cannot open {source} ({_reason(exc)}); the agent is unchanged"
        ) from None
    try:
        fault_point("rollback.attached")
        with store.tick_transaction():
            tick = _tick_if_still_listed(conn, name, source)
            undone = conn.execute("SELECT tick, id, record, chain FROM main.journal WHERE tick > ?", (tick,)).fetchall()
            archived = conn.execute("SELECT count(*) FROM main.journal_archive").fetchone()[0]
            live_tick = int(store.meta_get("tick", "0") or 0)
            made_id = rollback_id(live_tick, archived)
            identity = conn.execute(f"SELECT key, value FROM main.meta WHERE key IN {_KEY_META}").fetchall()
            base = store.meta_get("journal_base")
            _copy_tables(conn)
            # the blobs its rows refer to that the live table no longer holds (an archive deleted them since)
            if conn.execute("SELECT 1 FROM snap.sqlite_master WHERE type = 'table' AND name = 'blobs'").fetchone():
                conn.execute("INSERT OR IGNORE INTO main.blobs (hash, data) SELECT hash, data FROM snap.blobs")
            conn.executemany("INSERT OR REPLACE INTO main.meta (key, value) VALUES (?, ?)", identity)
            if base is not None:
                _keep_archive_point(store, base, tick, key)
            conn.executemany(
                "INSERT INTO main.journal_archive (rollback, tick, id, record, chain) VALUES (?, ?, ?, ?, ?)",
                [(made_id, *row) for row in undone],
            )
            fault_point("rollback.copied")
    except (sqlite3.Error, StorageError) as exc:
        cause = _sqlite_cause(exc, conn)
        if cause is None:
            raise  # not SQLite's refusal (the write lock not had in time: DatabaseLocked says so)
        raise StorageError(f"rollback to {name!r} failed ({_reason(cause)}); the agent is unchanged") from None
    finally:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("DETACH DATABASE snap")
    return RollbackReport(name, tick, len(undone), made_id)


def _keep_archive_point(store: SqliteStore, base: str, tick: int, key: JournalKey) -> None:
    """After the copy, inside the rollback's transaction: the live archive point ``base`` stays when the restored
    journal continues through it (a checkpoint at or after it, of this history): the records up to it, which a
    checkpoint made before the archive still holds, are in the archive file and are not restored to the live
    journal. A checkpoint older than the point, or of another history, keeps its own journal and point."""
    conn = store.conn
    base_tick, base_chain = base.split(" ")[:2]
    if tick < int(base_tick):
        return
    row = conn.execute("SELECT chain FROM main.journal WHERE tick = ?", (int(base_tick),)).fetchone()
    if store.meta_get("journal_base") != base and (row is None or row[0] != base_chain):
        return
    conn.execute("DELETE FROM main.journal WHERE tick <= ?", (int(base_tick),))
    store.meta_update({"journal_base": base})
    sealing.seal(conn, key)


def _tick_if_still_listed(conn: sqlite3.Connection, name: str, source: Path) -> int:
    """The checkpoint's tick, read under the write lock; refused if it was removed (or removed and
    made anew) since its file was checked."""
    row = conn.execute("SELECT tick, file FROM main.checkpoints WHERE name = ?", (name,)).fetchone()
    if row is None or row[1] != source.name:
        raise CheckpointError(f"checkpoint {name!r} was removed by another process; the agent is unchanged")
    return int(row[0])


def _copy_tables(conn: sqlite3.Connection) -> None:
    """Every row of every table except the kept ones, from ``snap`` into ``main`` (inside a transaction)."""
    conn.execute("PRAGMA defer_foreign_keys=ON")
    schema = conn.execute("SELECT name, sql FROM main.sqlite_master WHERE type = 'table'").fetchall()
    virtual = [n for n, sql in schema if (sql or "").upper().startswith("CREATE VIRTUAL")]
    tables = [
        n
        for n, _sql in schema
        if n not in KEPT_BY_ROLLBACK
        and n != "sqlite_sequence"
        and n not in virtual
        and not any(n.startswith(v + "_") for v in virtual)  # FTS shadow tables follow their triggers
    ]
    in_snapshot = {row[0] for row in conn.execute("SELECT name FROM snap.sqlite_master WHERE type = 'table'")}
    for table in tables:
        conn.execute(f'DELETE FROM main."{table}"')
    for table in [*tables, "sqlite_sequence"]:
        if table not in in_snapshot:
            continue  # created by a later migration: empty at the checkpoint
        if table == "sqlite_sequence":
            conn.execute("DELETE FROM main.sqlite_sequence")
        columns = [row[1] for row in conn.execute(f'PRAGMA main.table_info("{table}")')]
        theirs = {row[1] for row in conn.execute(f'PRAGMA snap.table_info("{table}")')}
        shared = ", ".join(f'"{c}"' for c in columns if c in theirs)
        conn.execute(f'INSERT INTO main."{table}" ({shared}) SELECT {shared} FROM snap."{table}"')
