"""The ``rlm_*`` tables, created by ordered, idempotent migration steps.

One function per step, recorded by name in ``rlm_migrations`` (the ``sqlite_utils``
``Migrations`` idea without its commits). :func:`migrate` never commits: the caller owns the
transaction, and every statement here is plain ``execute`` (``executescript`` would commit).
Every step uses ``IF NOT EXISTS`` as well, so a step re-run after a rolled-back record is harmless.

The kernel calls :func:`migrate` from its own step ``m003_rlm_state``
(``agi_core/memory/migrations.py``), which runs once per database: a step added here needs a
new kernel step that calls :func:`migrate` again, or existing databases never get it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from agi_core.state.db import atomic

Step = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Step]] = []


def step(name: str) -> Callable[[Step], Step]:
    """Register a migration step; steps run in the order they are defined."""

    def register(fn: Step) -> Step:
        MIGRATIONS.append((name, fn))
        return fn

    return register


@step("m001_create_tables")
def m001_create_tables(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE IF NOT EXISTS rlm_states (
            state_id TEXT PRIMARY KEY,
            seq INTEGER NOT NULL UNIQUE,
            session_id TEXT,
            tree_id TEXT,
            parent_state_id TEXT REFERENCES rlm_states(state_id),
            result_name TEXT,
            created_at TEXT NOT NULL,
            last_updated_at TEXT NOT NULL,
            mutation_count INTEGER NOT NULL DEFAULT 0,
            completion_status TEXT NOT NULL DEFAULT 'incomplete'
        )"""
    )
    conn.execute(
        """CREATE TABLE IF NOT EXISTS rlm_variables (
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            owner_state_id TEXT NOT NULL REFERENCES rlm_states(state_id),
            type TEXT NOT NULL,
            value TEXT,
            file TEXT,
            size_bytes INTEGER NOT NULL,
            description TEXT,
            source TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            access_count INTEGER NOT NULL DEFAULT 0,
            read_only INTEGER NOT NULL DEFAULT 0,
            scope TEXT NOT NULL,
            ttl_seconds INTEGER,
            expires_at TEXT,
            PRIMARY KEY (namespace, name)
        )"""
    )
    conn.execute(
        """CREATE TABLE IF NOT EXISTS rlm_mutations (
            seq INTEGER PRIMARY KEY,
            state_id TEXT NOT NULL REFERENCES rlm_states(state_id),
            mutation_id TEXT NOT NULL,
            operation TEXT NOT NULL,
            variable_name TEXT NOT NULL,
            old_value TEXT,
            new_value TEXT,
            source TEXT,
            timestamp TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            UNIQUE (state_id, mutation_id)
        )"""
    )
    conn.execute(
        """CREATE TABLE IF NOT EXISTS rlm_checkpoints (
            checkpoint_id TEXT PRIMARY KEY,
            state_id TEXT NOT NULL REFERENCES rlm_states(state_id),
            seq INTEGER NOT NULL,
            name TEXT NOT NULL,
            description TEXT,
            timestamp TEXT NOT NULL,
            snapshot TEXT NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX IF NOT EXISTS rlm_variables_expiry ON rlm_variables (expires_at)")
    conn.execute("CREATE INDEX IF NOT EXISTS rlm_checkpoints_state ON rlm_checkpoints (state_id, seq)")
    conn.execute("CREATE INDEX IF NOT EXISTS rlm_mutations_state ON rlm_mutations (state_id, seq)")


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the steps not applied yet, in order; return their names. Never commits."""
    applied = []
    with atomic(conn):
        conn.execute("CREATE TABLE IF NOT EXISTS rlm_migrations (name TEXT PRIMARY KEY)")
        done = {row[0] for row in conn.execute("SELECT name FROM rlm_migrations")}
        for name, fn in MIGRATIONS:
            if name not in done:
                fn(conn)
                conn.execute("INSERT INTO rlm_migrations (name) VALUES (?)", (name,))
                applied.append(name)
    return applied
