"""SQLite access for the ``rlm_*`` tables: savepoints that never commit, and row mapping."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agi_core.memory.savepoint import savepoint
from agi_core.state.model import Mutation, StateInfo

VARIABLE_COLUMNS = (
    "namespace",
    "name",
    "owner_state_id",
    "type",
    "value",
    "file",
    "size_bytes",
    "description",
    "source",
    "created_at",
    "updated_at",
    "access_count",
    "read_only",
    "scope",
    "ttl_seconds",
    "expires_at",
)
STATE_COLUMNS = (
    "state_id",
    "session_id",
    "tree_id",
    "parent_state_id",
    "result_name",
    "created_at",
    "last_updated_at",
    "mutation_count",
    "completion_status",
)


@contextmanager
def atomic(conn: sqlite3.Connection) -> Iterator[None]:
    """All-or-nothing inside the caller's transaction; opens one (uncommitted) if none is open.

    Uses a savepoint, so an error undoes only this block. Nothing here ever commits: the
    kernel commits or rolls back the tick's transaction.
    """
    with savepoint(conn, "rlm_state", begin=True):
        yield


def variable_rows(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Rows of ``rlm_variables`` as dicts, ordered by namespace then name."""
    cols = ", ".join(VARIABLE_COLUMNS)
    cur = conn.execute(f"SELECT {cols} FROM rlm_variables WHERE {where} ORDER BY namespace, name", params)
    return [dict(zip(VARIABLE_COLUMNS, row, strict=True)) for row in cur.fetchall()]


def variable_row(conn: sqlite3.Connection, namespace: str, name: str) -> dict[str, Any] | None:
    """One row of ``rlm_variables`` or None."""
    rows = variable_rows(conn, "namespace = ? AND name = ?", (namespace, name))
    return rows[0] if rows else None


def insert_variable(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    """Insert (or replace) one full ``rlm_variables`` row."""
    marks = ", ".join("?" for _ in VARIABLE_COLUMNS)
    conn.execute(
        f"INSERT OR REPLACE INTO rlm_variables ({', '.join(VARIABLE_COLUMNS)}) VALUES ({marks})",
        tuple(row[c] for c in VARIABLE_COLUMNS),
    )


def state_info(conn: sqlite3.Connection, state_id: str) -> StateInfo | None:
    """The state row as :class:`StateInfo`, or None."""
    row = conn.execute(f"SELECT {', '.join(STATE_COLUMNS)} FROM rlm_states WHERE state_id = ?", (state_id,)).fetchone()
    return StateInfo(**dict(zip(STATE_COLUMNS, row, strict=True))) if row else None


def mutation_from_row(row: tuple[Any, ...]) -> Mutation:
    """A ``rlm_mutations`` row (id, op, name, old, new, source, timestamp, metadata)."""
    mid, op, name, old, new, source, ts, meta = row
    return Mutation(
        mutation_id=mid,
        operation=op,
        variable_name=name,
        timestamp=ts,
        old_value=None if old is None else json.loads(old),
        new_value=None if new is None else json.loads(new),
        source=source,
        metadata=json.loads(meta),
    )


def exists(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> bool:
    """True when ``sql`` returns at least one row."""
    return conn.execute(sql, params).fetchone() is not None
