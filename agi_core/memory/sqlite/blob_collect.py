"""Blobs no stored row refers to, deleted (SQLite): after ``agi journal archive`` removed the records that alone
referred to them (a tick's working memory, stored as one blob per change, is referred to by its record only).

A blob is kept when a row of any table of the live database (the blobs table aside: the journal, the rollbacks'
archive, facts, episodes, module state, …) holds its reference, or a kept blob does (kept transitively).
Checkpoints are not read: each checkpoint file holds its own copy of the blobs table, and a rollback brings back
the blobs of its copy the live table lacks (:func:`~agi_core.memory.sqlite.checkpoints.rollback`).

It runs inside the caller's write transaction (the archive's): every writer stores a blob in the transaction
that writes its reference (:mod:`agi_core.memory.blobs`), so no reference appears between the scan and the
delete, and a kill leaves every blob or the collection and the archive done together.
"""

from __future__ import annotations

import sqlite3

from agi_core.memory.blobs import MARKER, refs_in


def delete_unreferenced(conn: sqlite3.Connection) -> tuple[int, int]:
    """Delete the blobs nothing refers to, in the caller's transaction; returns ``(blobs, bytes)`` deleted."""
    referenced = _referenced_by_rows(conn)
    inside: dict[str, set[str]] = {}  # a blob's own references (a stored JSON value written as one blob)
    for hex_digest, data in conn.execute("SELECT hash, data FROM blobs WHERE instr(data, ?) > 0", (MARKER,)):
        inside[hex_digest] = refs_in(_text(data))
    waiting = list(referenced)
    while waiting:
        for found in inside.get(waiting.pop(), ()):
            if found not in referenced:
                referenced.add(found)
                waiting.append(found)
    unreferenced = [
        (hex_digest, size)
        for hex_digest, size in conn.execute("SELECT hash, length(data) FROM blobs")
        if hex_digest not in referenced
    ]
    conn.executemany("DELETE FROM blobs WHERE hash = ?", [(hex_digest,) for hex_digest, _size in unreferenced])
    return len(unreferenced), sum(int(size or 0) for _hash, size in unreferenced)


def _referenced_by_rows(conn: sqlite3.Connection) -> set[str]:
    """Every blob hash a value of any column of any table but ``blobs`` holds (virtual tables are read through
    the tables that hold their rows): one pass over each table, whatever its number of columns (the archive's
    write transaction waits on this scan)."""
    found: set[str] = set()
    schema = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    for table, sql in schema:
        if table == "blobs" or (sql or "").upper().startswith("CREATE VIRTUAL"):
            continue
        columns = [f'"{row[1]}"' for row in conn.execute(f'PRAGMA table_info("{table}")')]
        holding = " OR ".join(f"instr({column}, ?1) > 0" for column in columns)
        for row in conn.execute(f'SELECT {", ".join(columns)} FROM "{table}" WHERE {holding}', (MARKER,)):
            for value in row:
                if value is not None:
                    found |= refs_in(_text(value))
    return found


def _text(value: object) -> str:
    if isinstance(value, bytes | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)
