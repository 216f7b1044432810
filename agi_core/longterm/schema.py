"""The long-term memory tables (``ltm_*``): created by the agent database's one migration list.

The SQLite schema is :mod:`agi_core.memory.sqlite.ltm_schema` (step ``m004_long_term_memory``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Create or upgrade the whole agent schema (``ltm_*`` included) inside the caller's transaction.

    Returns the names of the database steps it applied; a second call applies nothing.
    Never commits: the steps run in a SAVEPOINT of the caller's transaction.
    """
    from agi_core.memory.migrations import migrate as migrate_database

    return migrate_database(conn, commit=False)
