"""The ``module_state`` table of the SQLite backend (migration ``m012_module_state``).

One row per ``(module, key)``: a cognitive module's own persistent state, its value as
canonical JSON and the tick that wrote it. :class:`~agi_core.memory.sqlite_store.SqliteStore`
serves :class:`~agi_core.memory.backend.ModuleStateStore` with these functions. Writes happen
inside a tick's transaction, so checkpoints, rollback, replay and the seal cover module state
like any other table.
"""

from __future__ import annotations

import sqlite3


def get_value(conn: sqlite3.Connection, module: str, key: str) -> str | None:
    row = conn.execute("SELECT value FROM module_state WHERE module = ? AND key = ?", (module, key)).fetchone()
    return row[0] if row else None


def put_value(conn: sqlite3.Connection, module: str, key: str, value: str, tick: int) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO module_state (module, key, value, tick) VALUES (?, ?, ?, ?)",
        (module, key, value, tick),
    )


def put_values(conn: sqlite3.Connection, rows: list[tuple[str, str, str, int]]) -> None:
    """:func:`put_value` of each ``(module, key, value, tick)``, in order, as one statement."""
    conn.executemany("INSERT OR REPLACE INTO module_state (module, key, value, tick) VALUES (?, ?, ?, ?)", rows)


def delete_value(conn: sqlite3.Connection, module: str, key: str) -> bool:
    return conn.execute("DELETE FROM module_state WHERE module = ? AND key = ?", (module, key)).rowcount > 0


def items(conn: sqlite3.Connection, module: str) -> list[tuple[str, str]]:
    """``(key, JSON text)`` of ``module``'s state, in key order."""
    return conn.execute("SELECT key, value FROM module_state WHERE module = ? ORDER BY key", (module,)).fetchall()


def sizes(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """``{module: (keys, bytes of JSON)}`` of every module with state."""
    rows = conn.execute("SELECT module, count(*), sum(length(CAST(value AS BLOB))) FROM module_state GROUP BY module")
    return {module: (int(count), int(size or 0)) for module, count, size in rows}
