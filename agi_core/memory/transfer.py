"""Whole-agent export and import in a backend-neutral, versioned JSON Lines format.

The file (format ``agi-agent``, version 1), one JSON value per line::

    {"format": "agi-agent", "version": 1, "backend": "sqlite", "tables": ["meta", "facts", ...]}
    {"table": "facts", "columns": ["key", "id", "value", ...], "rows": 2}
    ["user/person/self/name", "id-…", "\\"Ada\\"", ...]          one JSON array per row
    ...
    {"end": true, "rows": 17}

Rows are the stored text exactly (journal records, chain links, JSON values with their blob
references), so an agent moved SQLite → PostgreSQL → SQLite has byte-identical rows and its
journal replays equal. Bytes (blob data) are ``{"$bytes": "<base64>"}``. The state seal is
not exported: the importing backend seals anew. The journal key is never in the file: import
takes it (``--key-file`` or ``AGI_JOURNAL_KEY``) and keeps it beside the new agent.
"""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Iterable, Iterator
from typing import IO, Any

import orjson

from agi_core.errors import AgiError, ConfigError, StorageError

FORMAT, VERSION = "agi-agent", 1
# every table that holds the agent, in import order; derived ones (seal rows, FTS, checkpoint files) are left out
TABLES = (
    "meta",
    "facts",
    "episodes",
    "working",
    "journal",
    "journal_archive",
    "intents",
    "blobs",
    "jobs",
    "goals",
    "module_state",
    "rlm_states",
    "rlm_variables",
    "rlm_mutations",
    "rlm_checkpoints",
    "ltm_items",
    "ltm_vectors",
)
NOT_EXPORTED_META = ("state_seal",)  # derived from the rows: the target seals again


class TransferError(AgiError):
    """An export file is malformed, of another format or version, truncated, or does not fit the target."""


def write_export(store: Any, out: IO[str]) -> int:
    """Write the whole agent in ``store`` to ``out``; returns the number of rows."""
    tables = [t for t in TABLES if t in table_names(store)]
    _line(out, {"format": FORMAT, "version": VERSION, "backend": store.name, "tables": tables})
    total = 0
    for table in tables:
        columns, rows = dump_table(store, table)
        if table == "meta":
            rows = [row for row in rows if row[0] not in NOT_EXPORTED_META]
        _line(out, {"table": table, "columns": columns, "rows": len(rows)})
        for row in rows:
            _line(out, [_encode(value) for value in row])
        total += len(rows)
    _line(out, {"end": True, "rows": total})
    return total


def read_export(lines: Iterable[str]) -> Iterator[tuple[str, list[str], list[list[Any]]]]:
    """``(table, columns, rows)`` of an export, checked line by line; a bad file raises TransferError."""
    it = iter(enumerate(lines, start=1))
    header = _parse(next(it, (1, ""))[1], 1)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise TransferError(f"not an agi agent export (line 1 is not a {FORMAT!r} header); pass a file from agi export")
    if header.get("version") != VERSION:
        raise TransferError(
            f"export format version {header.get('version')!r} is not supported (this agi reads {VERSION})"
        )
    total = 0
    for number, text in it:
        item = _parse(text, number)
        if isinstance(item, dict) and item.get("end") is True:
            if item.get("rows") != total:
                raise TransferError(f"the export ends at line {number} with {item.get('rows')} rows, but holds {total}")
            return
        if not isinstance(item, dict) or not isinstance(item.get("table"), str) or item["table"] not in TABLES:
            raise TransferError(f"line {number}: expected a table header naming one of {', '.join(TABLES)}")
        columns, count = item.get("columns"), item.get("rows")
        if not isinstance(columns, list) or not isinstance(count, int):
            raise TransferError(f"line {number}: a table header needs 'columns' (a list) and 'rows' (a number)")
        rows = []
        for _ in range(count):
            number, text = next(it, (number + 1, ""))
            row = _parse(text, number)
            if not isinstance(row, list) or len(row) != len(columns):
                raise TransferError(f"line {number}: expected a row of {len(columns)} values for {item['table']}")
            rows.append([_decode(value) for value in row])
        total += len(rows)
        yield item["table"], columns, rows
    raise TransferError("the export is truncated (no end line); export the agent again")


def import_rows(store: Any, tables: Iterable[tuple[str, list[str], list[list[Any]]]]) -> int:
    """Write every table's rows into ``store`` (a new agent) in one transaction; returns the rows written."""
    present = table_names(store)
    total = 0
    with store.tick_transaction():
        if store.last_chain() or store.meta_get("tick") not in (None, "0"):
            raise ConfigError(f"{store.path} already holds an agent; import into a new database (or a new agent name)")
        for table, columns, rows in tables:
            if not rows:
                continue
            if table not in present:
                raise TransferError(
                    f"the export has {len(rows)} {table} rows but the {store.name} backend has no {table} table "
                    f"({_feature(table)} is not supported there yet); import it into SQLite instead"
                )
            load_table(store, table, columns, rows)
            total += len(rows)
    return total


def _feature(table: str) -> str:
    if table.startswith("rlm_"):
        return "RLM state"
    if table.startswith("ltm_"):
        return "long-term memory"
    return {"jobs": "scheduled jobs", "module_state": "module state"}.get(table, table)


# -- the backends' raw rows ---------------------------------------------------------------
def table_names(store: Any) -> set[str]:
    if _is_sqlite(store):
        rows = store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return {row[0] for row in rows}
    return set(store.table_names())


def dump_table(store: Any, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """``(columns, rows)`` of ``table`` exactly as stored, in primary-key order."""
    if not _is_sqlite(store):
        return store.dump_table(table)  # type: ignore[no-any-return]
    columns = [row[1] for row in store.conn.execute(f'PRAGMA table_info("{table}")')]
    keys = [row[1] for row in sorted(store.conn.execute(f'PRAGMA table_info("{table}")'), key=lambda r: r[5]) if row[5]]
    order = ", ".join(f'"{k}"' for k in keys) or "rowid"
    cursor = store.conn.execute(
        f'SELECT {", ".join(chr(34) + c + chr(34) for c in columns)} FROM "{table}" ORDER BY {order}'
    )
    return columns, [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in cursor]


def load_table(store: Any, table: str, columns: list[str], rows: list[list[Any]]) -> None:
    """Insert ``rows`` into ``table`` (inside the caller's transaction); meta rows replace existing ones."""
    if not _is_sqlite(store):
        store.load_table(table, columns, rows)
        return
    mine = {row[1] for row in store.conn.execute(f'PRAGMA table_info("{table}")')}
    unknown = [c for c in columns if c not in mine]
    if unknown:
        raise TransferError(f"{table} has no column {unknown[0]!r} here; import with the agi version that exported it")
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" * len(columns))
    verb = "INSERT OR REPLACE" if table == "meta" else "INSERT"
    try:
        store.conn.executemany(f'{verb} INTO "{table}" ({names}) VALUES ({marks})', rows)
    except sqlite3.Error as exc:
        raise StorageError(f"importing {table} failed ({exc}); the target is unchanged") from None


def _is_sqlite(store: Any) -> bool:
    from agi_core.memory.sqlite_store import SqliteStore

    return isinstance(store, SqliteStore)


# -- lines ----------------------------------------------------------------------------------
def _line(out: IO[str], value: Any) -> None:
    out.write(orjson.dumps(value).decode("utf-8") + "\n")


def _parse(text: str, number: int) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise TransferError(f"line {number} of the export is not JSON ({exc}); export the agent again") from None


def _encode(value: Any) -> Any:
    return {"$bytes": base64.b64encode(value).decode("ascii")} if isinstance(value, bytes) else value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$bytes"}:
        return base64.b64decode(value["$bytes"])
    return value
