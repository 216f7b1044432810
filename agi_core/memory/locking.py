"""Many processes on one database: the write lock, its bound, and change detection.

SQLite in WAL mode lets readers go on while one writer writes. Every write transaction
here starts with ``BEGIN IMMEDIATE``, which takes the write lock before the first read, so
a writer never reads a state that another writer changes under it (a deferred transaction
would fail with ``SQLITE_BUSY_SNAPSHOT`` instead of waiting). Every connection has a busy
timeout: a writer waits that long for the lock, then gets :class:`DatabaseLocked`, a
one-line error naming the database and the fix. ``PRAGMA data_version`` tells a
connection cheaply whether another connection committed since it last looked.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from agi_core.errors import DatabaseLocked

DEFAULT_LOCK_TIMEOUT_S = 30.0


def connect(path: str | Path, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> sqlite3.Connection:
    """An autocommit connection (transactions are explicit) that waits ``lock_timeout_s`` for a lock."""
    return sqlite3.connect(path, timeout=lock_timeout_s, isolation_level=None, check_same_thread=False)


def is_lock_error(exc: BaseException) -> bool:
    """True for SQLite's "database is locked" (SQLITE_BUSY or SQLITE_LOCKED, any extended code)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(exc, sqlite3.OperationalError) and code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return False


def lock_error(conn: sqlite3.Connection, path: str | Path | None = None) -> DatabaseLocked:
    """The one-line error for a writer that waited its whole busy timeout in vain."""
    if path is None:
        rows = conn.execute("PRAGMA database_list").fetchall()
        path = next((row[2] for row in rows if row[1] == "main"), "") or ":memory:"
    (timeout_ms,) = conn.execute("PRAGMA busy_timeout").fetchone()
    return DatabaseLocked(
        f"database {path} is locked by another writer for more than {timeout_ms / 1000:g} s; "
        "retry, or raise --lock-timeout (KernelConfig.lock_timeout_s)"
    )


def begin_immediate(conn: sqlite3.Connection, path: str | Path | None = None) -> None:
    """``BEGIN IMMEDIATE``: the write lock, waited for up to the busy timeout, then :class:`DatabaseLocked`."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if is_lock_error(exc):
            raise lock_error(conn, path) from None
        raise


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection, path: str | Path | None = None) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back entirely if anything raises.

    Waiting longer than the busy timeout for the write lock raises :class:`DatabaseLocked`.
    """
    begin_immediate(conn, path)
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextlib.contextmanager
def write_block(conn: sqlite3.Connection, path: str | Path | None = None) -> Iterator[None]:
    """Inside the caller's transaction if one is open, else in a :func:`write_transaction` of its own."""
    if conn.in_transaction:
        yield
    else:
        with write_transaction(conn, path):
            yield


def data_version(conn: sqlite3.Connection) -> int:
    """A number that changes when another connection commits to the database (not this one)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])
