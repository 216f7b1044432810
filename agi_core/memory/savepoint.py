"""The one savepoint helper: a step inside the caller's transaction that can fail alone."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator


@contextlib.contextmanager
def savepoint(conn: sqlite3.Connection, name: str, *, begin: bool = False) -> Iterator[None]:
    """Run the block inside ``SAVEPOINT name``: undone alone if it raises, released into the transaction if not.

    Never commits: whoever owns the transaction (the kernel's tick) commits or rolls back.
    With ``begin=True`` a write transaction (``BEGIN IMMEDIATE``) is opened first when none is
    (it stays open after the block).
    """
    if begin and not conn.in_transaction:
        conn.execute("BEGIN IMMEDIATE")  # a write: take the write lock first (agi_core.memory.locking)
    conn.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        conn.execute(f"ROLLBACK TO {name}")
        conn.execute(f"RELEASE {name}")
        raise
    conn.execute(f"RELEASE {name}")
