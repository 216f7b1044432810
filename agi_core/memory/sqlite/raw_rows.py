"""Raw rows of an SQLite agent, for ``agi export`` / ``agi import`` (:mod:`agi_core.memory.transfer`)."""

from __future__ import annotations

import sqlite3
from typing import Any

from agi_core.errors import StorageError


def table_names(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def dump_table(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """``(columns, rows)`` of ``table`` exactly as stored, in primary-key order."""
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    columns = [row[1] for row in info]
    keys = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]]
    order = ", ".join(f'"{k}"' for k in keys) or "rowid"
    names = ", ".join(f'"{c}"' for c in columns)
    cursor = conn.execute(f'SELECT {names} FROM "{table}" ORDER BY {order}')
    return columns, [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in cursor]


def load_table(conn: sqlite3.Connection, table: str, columns: list[str], rows: list[list[Any]]) -> None:
    """Insert ``rows`` into ``table`` (inside the caller's transaction); meta rows replace existing ones."""
    mine = {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}
    unknown = [c for c in columns if c not in mine]
    if unknown:
        raise StorageError(f"{table} has no column {unknown[0]!r} here; import with the agi version that exported it")
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" * len(columns))
    verb = "INSERT OR REPLACE" if table == "meta" else "INSERT"
    try:
        conn.executemany(f'{verb} INTO "{table}" ({names}) VALUES ({marks})', rows)
    except sqlite3.Error as exc:
        raise StorageError(f"importing {table} failed ({exc}); the target is unchanged") from None
