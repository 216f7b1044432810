"""An agent's rows as ``agi export`` writes them and ``agi import`` loads them (agi_core.memory.transfer).

A mixin of :class:`~agi_plugin_postgres.store.PostgresStore`: rows go out exactly as the SQLite store holds
them (a text kept whole as a blob reference goes out raw) and come in as this backend stores them (PostgreSQL
TEXT holds no NUL).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import psycopg

from agi_core.errors import StorageError
from agi_core.journal_key import JournalKey
from agi_core.memory import blobs
from agi_core.memory.backend import CheckpointError, CheckpointInfo, RawRows
from agi_core.memory.transfer import NOT_EXPORTED_META
from agi_plugin_postgres import ltm, seal, snapshots, world

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

    def dump_table(self, table: str, schema: str = "{s}") -> tuple[list[str], list[tuple[Any, ...]]]:
        """``(columns, rows)`` of ``table`` exactly as stored, in primary-key order (``schema``: a checkpoint's
        snapshot instead of the agent's)."""
        columns = snapshots.TRANSFER_TABLES[table]
        order = snapshots.ORDER[table]
        selected = [snapshots.TRANSFER_CASTS.get((table, c), (c,))[0] for c in columns]
        rows = self._all(f"SELECT {', '.join(selected)} FROM {schema}.{table} ORDER BY {order}")
        whole = [i for i, c in enumerate(columns) if (table, c) in _KEPT_WHOLE]
        return list(columns), [
            tuple(
                bytes(v) if isinstance(v, memoryview) else self.text_back(v) if i in whole and v is not None else v
                for i, v in enumerate(row)
            )
            for row in rows
        ]  # a text kept whole as a blob reference goes out as the SQLite store holds it: raw

    def load_table(self, table: str, columns: list[str], rows: list[list[Any]], schema: str | None = None) -> None:
        """Insert ``rows`` (inside the caller's transaction); ``world/`` facts are also shared, as this agent's.
        ``schema``: a checkpoint's snapshot being built instead (nothing shared, no identity moved on)."""
        mine = snapshots.TRANSFER_TABLES[table]
        unknown = [c for c in columns if c not in mine]
        if unknown:
            raise StorageError(f"{table} has no column {unknown[0]!r} in the postgres backend; update the plugin")
        conflict = " ON CONFLICT (key) DO UPDATE SET value = excluded.value" if table == "meta" else ""
        if table == "blobs":
            conflict = " ON CONFLICT DO NOTHING"
        values = [snapshots.TRANSFER_CASTS.get((table, c), (c, "%s"))[1] for c in columns]
        target = schema or self.s
        sql = f"INSERT INTO {target}.{table} ({', '.join(columns)}) VALUES ({', '.join(values)}){conflict}"
        rows = [self._without_nul(table, columns, row) for row in rows]
        try:
            with self._conn() as conn:
                with conn.cursor() as cur:
                    cur.executemany(sql, rows)
                if schema is not None:
                    return
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


class PostgresCheckpointTransfer(PostgresTransfer):
    """:class:`~agi_core.memory.backend.CheckpointTransfer` on schema snapshots: a checkpoint's rows read from its
    snapshot, and a snapshot built from rows (``agi import`` of an archived agent), so it replays here."""

    def checkpoint_problems(self, name: str, key: JournalKey) -> list[str]:
        raise NotImplementedError

    @contextlib.contextmanager
    def checkpoint_rows(self, name: str, key: JournalKey) -> Iterator[RawRows]:
        """Checkpoint ``name``'s snapshot as raw rows (the blobs are the agent's: rollback keeps them), after its
        MAC and seal are checked."""
        found = self.checkpoint_problems(name, key)
        if found:
            raise CheckpointError(f"checkpoint {name!r} cannot be read ({found[0]}); use another checkpoint")
        (row,) = self._all("SELECT snapshot FROM {s}.checkpoints WHERE name = %s", (name,))
        yield _SnapshotRows(self, row[0])

    def checkpoint_load(
        self, name: str, tick: int, tables: Iterable[tuple[str, list[str], list[list[Any]]]], key: JournalKey
    ) -> CheckpointInfo:
        """A snapshot built from ``tables`` in the caller's transaction (PostgreSQL's DDL is transactional: the
        checkpoint commits with the import or not at all), sealed and listed; its blobs join the agent's."""
        with self._conn() as conn:
            if conn.execute(f"SELECT 1 FROM {self.s}.checkpoints WHERE name = %s", (name,)).fetchone():
                raise CheckpointError(f"checkpoint {name!r} already exists; choose another name")
            (seq,) = conn.execute(f"SELECT coalesce(max(seq), 0) + 1 FROM {self.s}.checkpoints").fetchone() or (1,)
            snap = f"{self.s}__ck{seq}"
            conn.execute(f"DROP SCHEMA IF EXISTS {snap} CASCADE")
            conn.execute(f"CREATE SCHEMA {snap}")
            for table in snapshots.STATE_TABLES:  # with their keys: the seal upserts its rows
                conn.execute(
                    f"CREATE TABLE {snap}.{table} (LIKE {self.s}.{table} INCLUDING DEFAULTS INCLUDING INDEXES)"
                )
        for table, columns, rows in tables:
            if table == "meta":  # the seal is derived from the rows: sealed again below, not taken
                rows = [row for row in rows if row[columns.index("key")] not in NOT_EXPORTED_META]
            if rows and table == "blobs":
                self.load_table(table, columns, rows)
            elif rows and table in snapshots.STATE_TABLES:
                self.load_table(table, columns, rows, schema=snap)
        with self._conn() as conn:
            held = conn.execute(f"SELECT value FROM {snap}.meta WHERE key = 'tick'").fetchone()
            if int(held[0] if held else 0) != tick:
                raise CheckpointError(
                    f"the export's checkpoint {name!r} says tick {tick} but holds tick {held[0] if held else 0}; "
                    "import the file agi export wrote"
                )
            seal.seal(conn, snap, key)
            (sealed,) = conn.execute(
                f"SELECT coalesce(max(value), '') FROM {snap}.meta WHERE key = 'state_seal'"
            ).fetchone() or ("",)
            conn.execute(
                f"INSERT INTO {self.s}.checkpoints (name, tick, seq, snapshot, mac) VALUES (%s, %s, %s, %s, %s)",
                (name, tick, seq, snap, snapshots.row_mac(key, name, tick, snap, sealed)),
            )
        return CheckpointInfo(name, tick, snap)


class _SnapshotRows:
    """A snapshot schema's rows, read only, as :class:`~agi_core.memory.backend.RawRows`."""

    def __init__(self, store: PostgresTransfer, snap: str) -> None:
        self.store, self.snap = store, snap

    def table_names(self) -> set[str]:
        held = {
            row[0] for row in self.store._all("SELECT tablename FROM pg_tables WHERE schemaname = %s", (self.snap,))
        }
        return {table for table in snapshots.TRANSFER_TABLES if table in held} | {"blobs"}

    def dump_table(self, table: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        return self.store.dump_table(table, "{s}" if table == "blobs" else self.snap)

    def load_table(self, table: str, columns: list[str], rows: list[list[Any]]) -> None:
        raise StorageError("a checkpoint's snapshot is read only; load a checkpoint with checkpoint_load")
