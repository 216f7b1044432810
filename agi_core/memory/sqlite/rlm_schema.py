"""The ``rlm_*`` tables of the SQLite backend (the database's migration step ``m003_rlm_state``)."""

from __future__ import annotations

import sqlite3


def create_rlm_tables(conn: sqlite3.Connection) -> None:
    """The ``rlm_*`` tables (the database's migration step ``m003_rlm_state``)."""
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
