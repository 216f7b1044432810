"""The keyed state seal on PostgreSQL: the same scheme as the SQLite backend's (agi_core.seal).

Each sealed row has ``HMAC(key, table|row key|row)`` in ``_agi_seal_rows``; the seal in meta is
``tick digest mac`` with the digest the sum of the row hashes modulo 2**256. Facts, episodes
and goals carry their tick (a goal its ``updated_tick``), so sealing hashes only the rows
written since the last seal; working memory, meta, jobs and module state are hashed in full.
:func:`check` recomputes every row.
Everything runs on the caller's connection, inside its transaction.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterator
from typing import Any

from agi_core.journal_key import JournalKey
from agi_core.memory.row_layouts import VARIABLE_COLUMNS
from agi_core.seal import MOD, SEAL, UNSEALED_META, parse_seal, row_hash, row_problems, seal_mac

# table -> (SQL of the row key, whether rows carry the tick that wrote them, columns hashed)
TABLES: dict[str, tuple[str, bool, str]] = {
    "facts": ("key", True, "key, id, value, fact, relations, updated_at, tick"),
    "episodes": ("seq::text", True, "seq, id, tick, event, context, timestamp"),
    "working": ("id::text", False, "id, data"),
    "rlm_variables": ("namespace || '/' || name", False, ", ".join(VARIABLE_COLUMNS)),
    "meta": ("key", False, "key, value"),
    "jobs": ("name", False, "name, kind, spec, say, next_due_ms, last_run_ms, runs, missed, created_tick"),
    "goals": (
        "id",
        True,
        "id, parent, description, status, priority, progress, plan, assumptions, created_tick, updated_tick, "
        "replans, seq",
    ),
    "module_state": ("module || '/' || key", False, "module, key, value, tick"),
}
TICK_COLUMNS = {"goals": "updated_tick"}  # the column of a ticked table that holds the writing tick, if not "tick"


def _rows(conn: Any, s: str, table: str, since: int | None = None) -> Iterator[tuple[str, int, str]]:
    key_sql, ticked, columns = TABLES[table]
    tick_sql = TICK_COLUMNS.get(table, "tick") if ticked else "0"
    where: str = ""
    params: tuple[Any, ...] = ()
    if table == "meta":
        where, params = "WHERE NOT (key = ANY(%s))", (list(UNSEALED_META),)
    if ticked and since is not None:
        where, params = f"WHERE {tick_sql} > %s", (since,)
    for row in conn.execute(f"SELECT {key_sql}, {tick_sql}, {columns} FROM {s}.{table} {where}", params):
        yield str(row[0]), int(row[1] or 0), json.dumps(list(row[2:]), ensure_ascii=False, default=str)


def tables_of(conn: Any, s: str) -> set[str]:
    """The tables that exist in schema ``s`` (a checkpoint's snapshot lacks those added after it)."""
    return {row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (s,))}


def read_seal(conn: Any, s: str) -> tuple[int, int, str] | None:
    row = conn.execute(f"SELECT value FROM {s}.meta WHERE key = %s", (SEAL,)).fetchone()
    return None if row is None else parse_seal(row[0])


def seal(conn: Any, s: str, key: JournalKey) -> None:
    """Bring the seal up to the stored tick (inside the caller's write transaction)."""
    row = conn.execute(f"SELECT value FROM {s}.meta WHERE key = 'tick'").fetchone()
    tick = int(row[0]) if row else 0
    stored = read_seal(conn, s)
    if stored is not None and not hmac.compare_digest(stored[2], seal_mac(key, *stored[:2])):
        return  # an edited seal is never re-sealed over: journal verify keeps reporting it
    since, digest = (stored[0], stored[1]) if stored is not None else (None, 0)
    if since is None:
        conn.execute(f"DELETE FROM {s}._agi_seal_rows")
    for table, (_key_sql, ticked, _columns) in TABLES.items():
        new = {row_key: row_hash(key, table, row_key, text) for row_key, _t, text in _rows(conn, s, table, since)}
        if ticked and since is not None:
            found = conn.execute(
                f"SELECT key, hash FROM {s}._agi_seal_rows WHERE tbl = %s AND key = ANY(%s)", (table, list(new))
            )
            old = dict(found.fetchall())
        else:
            old = dict(conn.execute(f"SELECT key, hash FROM {s}._agi_seal_rows WHERE tbl = %s", (table,)).fetchall())
        for row_key in set(old) - set(new) if not ticked else ():
            digest -= int(old[row_key], 16)
            conn.execute(f"DELETE FROM {s}._agi_seal_rows WHERE tbl = %s AND key = %s", (table, row_key))
        changed = [(table, k, h) for k, h in new.items() if old.get(k) != h]
        for _table, row_key, value in changed:
            digest += int(value, 16) - int(old.get(row_key, "0"), 16)
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {s}._agi_seal_rows (tbl, key, hash) VALUES (%s, %s, %s) "
                "ON CONFLICT (tbl, key) DO UPDATE SET hash = excluded.hash",
                changed,
            )
    digest %= MOD
    conn.execute(
        f"INSERT INTO {s}.meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (SEAL, f"{tick} {digest:064x} {seal_mac(key, tick, digest)}"),
    )


def check(conn: Any, s: str, key: JournalKey, head_tick: int) -> list[str]:
    """Every difference between the stored rows and the seal, naming the table and the key."""
    stored = read_seal(conn, s)
    if stored is None:
        has_head = conn.execute(f"SELECT 1 FROM {s}.meta WHERE key = 'journal_head'").fetchone() is not None
        return [f"the state seal is missing from meta (deleted); journal head is {head_tick}"] if has_head else []
    tick, digest, mac = stored
    if not hmac.compare_digest(mac, seal_mac(key, tick, digest)):
        return ["the state seal in meta was edited (its MAC does not match)"]
    sealed = {(t, k): h for t, k, h in conn.execute(f"SELECT tbl, key, hash FROM {s}._agi_seal_rows")}
    present = tables_of(conn, s)  # a checkpoint's snapshot taken before a table was added holds no rows of it
    tables = [(table, ticked) for table, (_key_sql, ticked, _columns) in TABLES.items()]
    rows = lambda table: _rows(conn, s, table) if table in present else ()  # noqa: E731
    return row_problems(key, sealed, digest, tick, head_tick, tables, rows)
