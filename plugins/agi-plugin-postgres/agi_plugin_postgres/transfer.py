"""An agent's rows as ``agi export`` writes them and ``agi import`` loads them (agi_core.memory.transfer).

A mixin of :class:`~agi_plugin_postgres.store.PostgresStore`: rows go out exactly as the SQLite store holds
them (a text kept whole as a blob reference goes out raw) and come in as this backend stores them (PostgreSQL
TEXT holds no NUL).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

import psycopg

from agi_core.errors import StorageError
from agi_core.memory import blobs
from agi_plugin_postgres import ltm, snapshots, world

JOB_TEXTS = ("name", "kind", "spec", "say")  # a job's texts, kept whole (a reminder's): with a NUL, a blob reference
_KEPT_WHOLE = {("goals", "description"), *(("jobs", c) for c in JOB_TEXTS)}


class PostgresTransfer:
    """``table_names`` / ``dump_table`` / ``load_table`` on the agent's schema; needs the store's ``s``, ``agent``,
    ``_all``, ``_conn``, ``_problem`` and its stored-text methods."""

    s: str
    agent: str

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _conn(self) -> AbstractContextManager[psycopg.Connection[Any]]:
        raise NotImplementedError

    def _problem(self, exc: BaseException) -> str:
        raise NotImplementedError

    def keep_text(self, text: str) -> str:
        raise NotImplementedError

    def text_back(self, text: str) -> str:
        raise NotImplementedError

    def store_text(self, text: str) -> str:
        raise NotImplementedError

    def table_names(self) -> set[str]:
        return set(snapshots.TRANSFER_TABLES)

    def dump_table(self, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """``(columns, rows)`` of ``table`` exactly as stored, in primary-key order."""
        columns = snapshots.TRANSFER_TABLES[table]
        order = snapshots.ORDER[table]
        selected = [snapshots.TRANSFER_CASTS.get((table, c), (c,))[0] for c in columns]
        rows = self._all(f"SELECT {', '.join(selected)} FROM {{s}}.{table} ORDER BY {order}")
        whole = [i for i, c in enumerate(columns) if (table, c) in _KEPT_WHOLE]
        return list(columns), [
            tuple(
                bytes(v) if isinstance(v, memoryview) else self.text_back(v) if i in whole and v is not None else v
                for i, v in enumerate(row)
            )
            for row in rows
        ]  # a text kept whole as a blob reference goes out as the SQLite store holds it: raw

    def load_table(self, table: str, columns: list[str], rows: list[list[Any]]) -> None:
        """Insert ``rows`` (inside the caller's transaction); ``world/`` facts are also shared, as this agent's."""
        mine = snapshots.TRANSFER_TABLES[table]
        unknown = [c for c in columns if c not in mine]
        if unknown:
            raise StorageError(f"{table} has no column {unknown[0]!r} in the postgres backend; update the plugin")
        conflict = " ON CONFLICT (key) DO UPDATE SET value = excluded.value" if table == "meta" else ""
        values = [snapshots.TRANSFER_CASTS.get((table, c), (c, "%s"))[1] for c in columns]
        sql = f"INSERT INTO {self.s}.{table} ({', '.join(columns)}) VALUES ({', '.join(values)}){conflict}"
        rows = [self._without_nul(table, columns, row) for row in rows]
        try:
            with self._conn() as conn:
                with conn.cursor() as cur:
                    cur.executemany(sql, rows)
                if table == "ltm_items":
                    ltm.after_load(conn, self.s)
                if table == "facts":
                    order = [
                        columns.index(c) for c in ("key", "id", "value", "fact", "relations", "updated_at", "tick")
                    ]
                    for row in rows:
                        if world.is_shared(row[order[0]]):
                            world.write(conn, self.s, tuple(row[i] for i in order), self.agent)
        except psycopg.Error as exc:
            raise StorageError(f"importing {table} into agent {self.agent!r} failed ({self._problem(exc)})") from None

    def _without_nul(self, table: str, columns: list[str], row: list[Any]) -> list[Any]:
        """``row`` as this backend stores it: PostgreSQL TEXT holds no NUL, so an episode's event with one
        becomes a blob reference (as :meth:`store_text` stores it: read back whole), a goal's description and
        a job's texts too (:meth:`keep_text`, as a tick stores them), and a NUL in any other text becomes
        U+FFFD (as a fact's text and a memory's are stored here). A SQLite export holds them raw."""
        if not any(isinstance(value, str) and ("\x00" in value or value.startswith(blobs.MARKER)) for value in row):
            return row
        return [self._stored(table, column, value) for column, value in zip(columns, row, strict=False)]

    def _stored(self, table: str, column: str, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        if (table, column) in _KEPT_WHOLE:
            return self.keep_text(value)
        if "\x00" not in value:
            return value
        return self.store_text(value) if (table, column) == ("episodes", "event") else value.replace("\x00", "\ufffd")
