"""Many processes on one database: the write lock, its bound, and change detection.

SQLite in WAL mode lets readers go on while one writer writes. Every write transaction
here starts with ``BEGIN IMMEDIATE``, which takes the write lock before the first read, so
a writer never reads a state that another writer changes under it (a deferred transaction
would fail with ``SQLITE_BUSY_SNAPSHOT`` instead of waiting). Every connection has a busy
timeout: a writer waits that long for the lock, then gets :class:`DatabaseLocked`, a
one-line error naming the database and the fix. ``PRAGMA data_version`` tells a
connection cheaply whether another connection committed since it last looked.

SQLite rolls a transaction back by itself on some errors (a full disk, an I/O error, no
memory). A connection in autocommit mode would then commit each later statement on its own:
the rest of a tick, stored without its start. :class:`GuardedConnection` refuses every
statement after that with :class:`TransactionLost` until the transaction's owner rolls back.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agi_core.errors import DatabaseLocked, TransactionLost, database_problem

DEFAULT_LOCK_TIMEOUT_S = 30.0


class GuardedConnection(sqlite3.Connection):
    """An autocommit connection that never goes on in autocommit mode inside a transaction SQLite dropped.

    After a ``BEGIN`` it expects a transaction until ``COMMIT`` or ``ROLLBACK``. If SQLite rolled it back
    by itself (the statement that failed raised), every later statement raises :class:`TransactionLost`
    instead of committing on its own, a ``COMMIT`` included; the owner's :meth:`rollback` (or ``ROLLBACK``)
    ends it quietly.
    """

    opened = False  # a BEGIN of ours opened a transaction that no COMMIT or ROLLBACK ended yet
    failed: sqlite3.Error | None = None  # the last statement's error: what made SQLite roll back

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return self._guarded(sqlite3.Connection.execute, sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        return self._guarded(sqlite3.Connection.executemany, sql, parameters)

    def _guarded(self, run: Any, sql: str, parameters: Any) -> sqlite3.Cursor:
        """``run(self, sql, parameters)`` unless SQLite dropped our transaction; notes a failure, and whether a
        transaction is open after it (a BEGIN opens one, a COMMIT or ROLLBACK ends it)."""
        if self.opened and not self.in_transaction:
            return self._after_lost(sql)
        try:
            cursor: sqlite3.Cursor = run(self, sql, parameters)
        except sqlite3.Error as exc:
            self.failed = exc
            raise
        self.opened = self.in_transaction
        return cursor

    def rollback(self) -> None:
        """ROLLBACK the open transaction; none open (SQLite rolled it back itself) is no error."""
        self.opened = False
        super().rollback()

    def _after_lost(self, sql: str) -> sqlite3.Cursor:
        if sql.lstrip()[:8].upper() == "ROLLBACK" and " TO " not in sql.upper():
            self.opened = False  # the owner ends the transaction SQLite ended: nothing left to undo
            return self.cursor()
        raise TransactionLost(lost_transaction(self))


def lost_transaction(conn: sqlite3.Connection) -> str:
    """The line for a transaction SQLite rolled back by itself: the cause, and the fix."""
    failed = getattr(conn, "failed", None)
    listed = sqlite3.Connection.execute(conn, "PRAGMA database_list")  # past the guard: it only reads
    path = next((row[2] for row in listed if row[1] == "main"), "") or ":memory:"
    cause = database_problem(failed, path) if failed is not None else f"the database {path} failed"
    return f"{cause} (SQLite rolled the transaction back: nothing of it is stored)"


def connect(path: str | Path, lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S) -> sqlite3.Connection:
    """An autocommit connection (transactions are explicit) that waits ``lock_timeout_s`` for a lock."""
    return sqlite3.connect(
        path, timeout=lock_timeout_s, isolation_level=None, check_same_thread=False, factory=GuardedConnection
    )


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
        conn.rollback()  # none open if SQLite rolled it back itself (a full disk): then it only ends
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        conn.rollback()  # a COMMIT that failed (a full disk) leaves the transaction open, or SQLite dropped it
        raise


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
