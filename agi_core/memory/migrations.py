"""Schema migrations of the SQLite store: one function per step, applied in order once.

Add a step by appending a function to ``MIGRATIONS``; never edit a released one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import sqlite_utils


def m001_core_tables(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("facts").create(
        {"key": str, "id": str, "value": str, "fact": str, "relations": str, "updated_at": str, "tick": int},
        pk="key",
    )
    db.table("episodes").create(
        {"seq": int, "id": str, "tick": int, "event": str, "context": str, "timestamp": str},
        pk="seq",
    )
    db.table("episodes").create_index(["tick"])
    db.table("working").create({"id": int, "data": str}, pk="id")
    db.table("journal").create({"tick": int, "id": str, "record": str, "chain": str}, pk="tick")


def m002_checkpoints_and_archive(db: sqlite_utils.Database) -> None:
    db.table("checkpoints").create({"name": str, "tick": int, "file": str, "seq": int}, pk="name")
    db.table("journal_archive").create(
        {"rollback": str, "tick": int, "id": str, "record": str, "chain": str}, pk=("rollback", "tick")
    )


def m003_rlm_state(db: sqlite_utils.Database) -> None:
    from agi_core.state.migrations import migrate as migrate_rlm_state

    migrate_rlm_state(db.conn)


def m004_long_term_memory(db: sqlite_utils.Database) -> None:
    from agi_core.longterm.schema import migrate as migrate_long_term

    migrate_long_term(db.conn)


def m005_intents(db: sqlite_utils.Database) -> None:
    """Write/external tool calls committed before they run; ``receipt_tick`` is set when their receipt commits."""
    db.table("intents").create({"tick": int, "tool": str, "args": str, "receipt_tick": int}, pk="tick")


def m006_blobs(db: sqlite_utils.Database) -> None:
    """Content-addressed blobs (sha256 hex -> UTF-8 bytes) for large values; see agi_core.memory.blobs."""
    db.execute("CREATE TABLE blobs (hash TEXT PRIMARY KEY, data BLOB NOT NULL)")


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [
    m001_core_tables,
    m002_checkpoints_and_archive,
    m003_rlm_state,
    m004_long_term_memory,
    m005_intents,
    m006_blobs,
]


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the steps not yet applied, in one transaction; returns how many ran."""
    db = sqlite_utils.Database(conn)
    conn.execute("CREATE TABLE IF NOT EXISTS _agi_migrations (step INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT name FROM _agi_migrations")}
    ran = 0
    for step, function in enumerate(MIGRATIONS, start=1):
        if function.__name__ in done:
            continue
        with conn:
            function(db)
            conn.execute("INSERT INTO _agi_migrations (step, name) VALUES (?, ?)", (step, function.__name__))
        ran += 1
    return ran
