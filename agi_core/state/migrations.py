"""The ``rlm_*`` tables.

They are created by the agent database's one migration list (``agi_core/memory/migrations.py``,
step ``m003_rlm_state``); a change to them is a new step appended there. :func:`migrate` never
commits: the caller owns the transaction (every statement is plain ``execute``;
``executescript`` would commit).
"""

from __future__ import annotations

import sqlite3

from agi_core.memory.sqlite.rlm_schema import create_rlm_tables

__all__ = ["create_rlm_tables", "migrate"]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Create or upgrade the whole agent schema (``rlm_*`` included) inside the caller's transaction.

    Returns the names of the database steps it applied. Never commits.
    """
    from agi_core.memory.migrations import migrate as migrate_database

    return migrate_database(conn, commit=False)
