"""The state seal's rows in SQLite (see :mod:`agi_core.seal` for what the seal is).

Row hashes are kept in ``_agi_seal_rows``. Sealing is incremental, so it is cheap: facts,
episodes and goals carry the tick that wrote them (a goal its ``updated_tick``), and only rows
written after the last seal are hashed (``facts_tick``, the episodes' tick index and
``goals_updated`` serve the range); working memory, RLM variables, meta and jobs (a few rows)
are hashed in full. A fact, an episode or a goal edited with plain SQL keeps its old tick, so a
later seal never adopts the edit: :func:`check` keeps naming it. The kernel
seals at close, before each checkpoint's snapshot and after creation; ticks pay nothing.
:func:`check` recomputes every row and names the table and key of each difference.
"""

from __future__ import annotations

import hmac
import json
import sqlite3
from collections.abc import Iterator

from agi_core.faults import fault_point
from agi_core.journal_key import JournalKey
from agi_core.seal import MOD as _MOD
from agi_core.seal import SEAL, UNSEALED_META, parse_seal, row_hash, row_problems, seal_mac

# table -> (SQL of the row key, whether rows carry the tick that wrote them)
TABLES: dict[str, tuple[str, bool]] = {
    "facts": ("key", True),
    "episodes": ("seq", True),
    "working": ("id", False),
    "rlm_variables": ("namespace || '/' || name", False),
    "meta": ("key", False),
    "jobs": ("name", False),  # scheduled jobs (agi_core.scheduling), a few rows
    "module_state": ("module || '/' || key", False),  # cognitive modules' own state (agi_core.modules)
    "goals": ("id", True),  # the goal DAG (agi_core.scheduling.goals): thousands of rows, each with its updated_tick
}
TICK_COLUMNS = {"goals": "updated_tick"}  # the column of a ticked table that holds the writing tick, if not "tick"


def _rows(conn: sqlite3.Connection, table: str, since: int | None = None) -> Iterator[tuple[str, int, str]]:
    """``(row key, writing tick, canonical row text)`` of ``table``; only rows written after ``since`` if given."""
    key_sql, ticked = TABLES[table]
    tick_sql = TICK_COLUMNS.get(table, "tick") if ticked else "0"
    params: tuple[object, ...] = UNSEALED_META if table == "meta" else ()
    where = "WHERE key NOT IN (?, ?, ?)" if table == "meta" else ""
    if ticked and since is not None:
        where, params = f"WHERE {tick_sql} > ?", (since,)
    for row in conn.execute(f"SELECT {key_sql}, {tick_sql}, * FROM {table} {where}", params):
        yield str(row[0]), int(row[1] or 0), json.dumps(row[2:], ensure_ascii=False, default=str)


def read_seal(conn: sqlite3.Connection) -> tuple[int, int, str] | None:
    """``(tick, digest, mac)`` of the stored seal, or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (SEAL,)).fetchone()
    return None if row is None else parse_seal(row[0])


def seal(conn: sqlite3.Connection, key: JournalKey) -> None:
    """Bring the seal up to the stored tick; call inside the caller's write transaction."""
    fault_point("seal")
    row = conn.execute("SELECT value FROM meta WHERE key = 'tick'").fetchone()
    tick = int(row[0]) if row else 0
    stored = read_seal(conn)
    if stored is not None and not hmac.compare_digest(stored[2], seal_mac(key, *stored[:2])):
        return  # an edited seal is never re-sealed over: journal verify keeps reporting it
    since, digest = (stored[0], stored[1]) if stored is not None else (None, 0)
    if since is None:
        conn.execute("DELETE FROM _agi_seal_rows")
    for table, (_key_sql, ticked) in TABLES.items():
        old = {} if ticked else dict(conn.execute("SELECT key, hash FROM _agi_seal_rows WHERE tbl = ?", (table,)))
        new: dict[str, str] = {}
        for row_key, _tick, text in _rows(conn, table, since):
            new[row_key] = row_hash(key, table, row_key, text)
        if ticked and since is not None:
            marks = list(new)
            for start in range(0, len(marks), 500):
                chunk = marks[start : start + 500]
                old.update(
                    conn.execute(
                        f"SELECT key, hash FROM _agi_seal_rows WHERE tbl = ? AND key IN ({','.join('?' * len(chunk))})",
                        (table, *chunk),
                    ).fetchall()
                )
        for row_key in set(old) - set(new) if not ticked else ():
            digest -= int(old[row_key], 16)
            conn.execute("DELETE FROM _agi_seal_rows WHERE tbl = ? AND key = ?", (table, row_key))
        changed = [(table, k, h) for k, h in new.items() if old.get(k) != h]
        for _table, row_key, value in changed:
            digest += int(value, 16) - int(old.get(row_key, "0"), 16)
        conn.executemany("INSERT OR REPLACE INTO _agi_seal_rows (tbl, key, hash) VALUES (?, ?, ?)", changed)
    digest %= _MOD
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        (SEAL, f"{tick} {digest:064x} {seal_mac(key, tick, digest)}"),
    )


def check(conn: sqlite3.Connection, key: JournalKey, head_tick: int) -> list[str]:
    """Every difference between the stored rows and the seal, naming the table and the key."""
    stored = read_seal(conn)
    if stored is None:  # never sealed: a database from before seals, or the seal row was deleted
        has_head = conn.execute("SELECT 1 FROM meta WHERE key = 'journal_head'").fetchone() is not None
        return [f"the state seal is missing from meta (deleted); journal head is {head_tick}"] if has_head else []
    tick, digest, mac = stored
    if not hmac.compare_digest(mac, seal_mac(key, tick, digest)):
        return ["the state seal in meta was edited (its MAC does not match)"]
    sealed = dict(((t, k), h) for t, k, h in conn.execute("SELECT tbl, key, hash FROM _agi_seal_rows"))
    tables = [(table, ticked) for table, (_key_sql, ticked) in TABLES.items()]
    return row_problems(key, sealed, digest, tick, head_tick, tables, lambda table: _rows(conn, table))
