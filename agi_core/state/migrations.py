"""The ``rlm_*`` tables.

They are created by the agent database's one migration list (``agi_core/memory/migrations.py``,
step ``m003_rlm_state``); a change to them is a new step appended there. :func:`migrate` never
commits: the caller owns the transaction. The SQL is the backend's
(:mod:`agi_core.memory.sqlite.rlm_schema`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agi_core.memory.sqlite.rlm_schema import create_rlm_tables

if TYPE_CHECKING:
    import sqlite3

__all__ = ["create_rlm_tables", "migrate"]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Create or upgrade the whole agent schema (``rlm_*`` included) inside the caller's transaction.

    Returns the names of the database steps it applied. Never commits.
    """
    from agi_core.memory.migrations import migrate as migrate_database

    return migrate_database(conn, commit=False)
