"""RLM state rows (:class:`~agi_core.memory.backend.RlmRows`) in the agent's schema.

The same tables and columns as the SQLite backend's ``rlm_*`` tables; every statement runs on
the store's connection, inside the tick's transaction when one is open.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from agi_core.memory.row_layouts import STATE_COLUMNS, VARIABLE_COLUMNS

if TYPE_CHECKING:
    from agi_plugin_postgres.store import PostgresStore

STEPS = [
    "CREATE TABLE {s}.rlm_states (state_id TEXT PRIMARY KEY, seq BIGINT NOT NULL UNIQUE, session_id TEXT, "
    "tree_id TEXT, parent_state_id TEXT REFERENCES {s}.rlm_states(state_id) DEFERRABLE INITIALLY DEFERRED, "
    "result_name TEXT, created_at TEXT NOT NULL, last_updated_at TEXT NOT NULL, "
    "mutation_count BIGINT NOT NULL DEFAULT 0, completion_status TEXT NOT NULL DEFAULT 'incomplete')",
    "CREATE TABLE {s}.rlm_variables (namespace TEXT NOT NULL, name TEXT NOT NULL, owner_state_id TEXT NOT NULL, "
    "type TEXT NOT NULL, value TEXT, file TEXT, size_bytes BIGINT NOT NULL, description TEXT, source TEXT, "
    "created_at TEXT NOT NULL, updated_at TEXT NOT NULL, access_count BIGINT NOT NULL DEFAULT 0, "
    "read_only BIGINT NOT NULL DEFAULT 0, scope TEXT NOT NULL, ttl_seconds BIGINT, expires_at TEXT, "
    "PRIMARY KEY (namespace, name))",
    "CREATE TABLE {s}.rlm_mutations (seq BIGINT PRIMARY KEY, state_id TEXT NOT NULL, mutation_id TEXT NOT NULL, "
    "operation TEXT NOT NULL, variable_name TEXT NOT NULL, old_value TEXT, new_value TEXT, source TEXT, "
    "timestamp TEXT NOT NULL, metadata TEXT NOT NULL DEFAULT '{{}}', UNIQUE (state_id, mutation_id))",
    "CREATE TABLE {s}.rlm_checkpoints (checkpoint_id TEXT PRIMARY KEY, state_id TEXT NOT NULL, seq BIGINT NOT NULL, "
    "name TEXT NOT NULL, description TEXT, timestamp TEXT NOT NULL, snapshot TEXT NOT NULL)",
    "CREATE INDEX ON {s}.rlm_variables (expires_at)",
    "CREATE INDEX ON {s}.rlm_checkpoints (state_id, seq)",
    "CREATE INDEX ON {s}.rlm_mutations (state_id, seq)",
]
TRANSFER = {
    "rlm_states": ("state_id", "seq", *STATE_COLUMNS[1:]),
    "rlm_variables": VARIABLE_COLUMNS,
    "rlm_mutations": (
        "seq",
        "state_id",
        "mutation_id",
        "operation",
        "variable_name",
        "old_value",
        "new_value",
        "source",
        "timestamp",
        "metadata",
    ),
    "rlm_checkpoints": ("checkpoint_id", "state_id", "seq", "name", "description", "timestamp", "snapshot"),
}
ORDER = {"rlm_states": "seq", "rlm_variables": 'namespace COLLATE "C", name COLLATE "C"', "rlm_mutations": "seq"}
ORDER["rlm_checkpoints"] = 'checkpoint_id COLLATE "C"'
_CHECKPOINT_FIELDS = "checkpoint_id, state_id, name, timestamp, snapshot, description"
_MUTATION_FIELDS = "mutation_id, operation, variable_name, old_value, new_value, source, timestamp, metadata"
_VARS = ", ".join(VARIABLE_COLUMNS)


class PostgresRlmRows:
    """RLM rows of one agent; the caller (the tick) owns the transaction."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    @contextlib.contextmanager
    def atomic(self) -> Iterator[None]:
        """A savepoint in the open transaction, or a transaction of its own when none is open."""
        if self.store._tx is not None:
            with self.store.savepoint("rlm_state"):
                yield
        else:
            with self.store.tick_transaction():
                yield

    def ready(self) -> bool:
        return True

    # -- states ------------------------------------------------------------------------
    def state_row(self, state_id: str) -> dict[str, Any] | None:
        row = self.store._one(
            f"SELECT {', '.join(STATE_COLUMNS)} FROM {{s}}.rlm_states WHERE state_id = %s", (state_id,)
        )
        return dict(zip(STATE_COLUMNS, row, strict=True)) if row else None

    def state_ids(self, parent: str | None = None) -> list[str]:
        if parent is None:
            return [r[0] for r in self.store._all("SELECT state_id FROM {s}.rlm_states ORDER BY seq")]
        sql = "SELECT state_id FROM {s}.rlm_states WHERE parent_state_id = %s ORDER BY seq"
        return [r[0] for r in self.store._all(sql, (parent,))]

    def insert_state(
        self,
        state_id: str,
        session_id: str | None,
        tree_id: str | None,
        parent_state_id: str | None,
        result_name: str | None,
        now: str,
    ) -> None:
        self.store._run(
            "INSERT INTO {s}.rlm_states (state_id, seq, session_id, tree_id, parent_state_id, result_name, "
            "created_at, last_updated_at) VALUES (%s, (SELECT coalesce(max(seq), 0) + 1 FROM {s}.rlm_states), "
            "%s, %s, %s, %s, %s, %s)",
            (state_id, session_id, tree_id, parent_state_id, result_name, now, now),
        )

    def set_completion(self, state_id: str, status: str) -> None:
        self.store._run("UPDATE {s}.rlm_states SET completion_status = %s WHERE state_id = %s", (status, state_id))

    def touch_state(self, state_id: str, timestamp: str) -> None:
        self.store._run(
            "UPDATE {s}.rlm_states SET mutation_count = mutation_count + 1, last_updated_at = %s WHERE state_id = %s",
            (timestamp, state_id),
        )

    # -- variables ---------------------------------------------------------------------
    def variables(
        self, namespace: str | None = None, *, owner: str | None = None, expiring: bool = False
    ) -> list[dict[str, Any]]:
        where: list[str] = []
        params: list[Any] = []
        if namespace is not None:
            where.append("namespace = %s")
            params.append(namespace)
        if owner is not None:
            where.append("owner_state_id = %s")
            params.append(owner)
        if expiring:
            where.append("expires_at IS NOT NULL")
        clause = f"WHERE {' AND '.join(where)} " if where else ""
        rows = self.store._all(
            f'SELECT {_VARS} FROM {{s}}.rlm_variables {clause}ORDER BY namespace COLLATE "C", name COLLATE "C"',
            tuple(params),
        )
        return [dict(zip(VARIABLE_COLUMNS, row, strict=True)) for row in rows]

    def variable(self, namespace: str, name: str) -> dict[str, Any] | None:
        row = self.store._one(
            f"SELECT {_VARS} FROM {{s}}.rlm_variables WHERE namespace = %s AND name = %s", (namespace, name)
        )
        return dict(zip(VARIABLE_COLUMNS, row, strict=True)) if row else None

    def count_variables(self, namespace: str) -> int:
        row = self.store._one("SELECT count(*) FROM {s}.rlm_variables WHERE namespace = %s", (namespace,))
        return int(row[0]) if row else 0

    def put_variable(self, row: dict[str, Any]) -> None:
        values = tuple(int(v) if isinstance(v, bool) else v for v in (row[c] for c in VARIABLE_COLUMNS))
        updates = ", ".join(f"{c} = excluded.{c}" for c in VARIABLE_COLUMNS[2:])
        self.store._run(
            f"INSERT INTO {{s}}.rlm_variables ({_VARS}) VALUES ({', '.join(['%s'] * len(VARIABLE_COLUMNS))}) "
            f"ON CONFLICT (namespace, name) DO UPDATE SET {updates}",
            values,
        )

    def delete_variable(self, namespace: str, name: str) -> None:
        self.store._run("DELETE FROM {s}.rlm_variables WHERE namespace = %s AND name = %s", (namespace, name))

    def count_access(self, namespace: str, name: str) -> None:
        self.store._run(
            "UPDATE {s}.rlm_variables SET access_count = access_count + 1 WHERE namespace = %s AND name = %s",
            (namespace, name),
        )

    def restore_variables(self, state_id: str, rows: Iterable[dict[str, Any]], status: str) -> None:
        self.store._run("DELETE FROM {s}.rlm_variables WHERE namespace = %s", (f"state:{state_id}",))
        for row in rows:
            self.put_variable(row)
        self.set_completion(state_id, status)

    # -- mutations ---------------------------------------------------------------------
    def mutation_exists(self, state_id: str, mutation_id: str) -> bool:
        sql = "SELECT 1 FROM {s}.rlm_mutations WHERE state_id = %s AND mutation_id = %s"
        return self.store._one(sql, (state_id, mutation_id)) is not None

    def add_mutation(self, state_id: str, values: Sequence[Any]) -> None:
        self.store._run(
            f"INSERT INTO {{s}}.rlm_mutations (seq, state_id, {_MUTATION_FIELDS}) VALUES "
            "((SELECT coalesce(max(seq), 0) + 1 FROM {s}.rlm_mutations), %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (state_id, *values),
        )

    def prune_mutations(self, state_id: str, keep: int) -> int:
        return self.store._run(
            "DELETE FROM {s}.rlm_mutations WHERE state_id = %s AND seq <= (SELECT seq FROM {s}.rlm_mutations "
            "WHERE state_id = %s ORDER BY seq DESC LIMIT 1 OFFSET %s)",
            (state_id, state_id, keep),
        )

    def mutations(self, state_id: str, limit: int | None = None) -> list[tuple[Any, ...]]:
        return self.store._all(
            f"SELECT {_MUTATION_FIELDS} FROM {{s}}.rlm_mutations WHERE state_id = %s ORDER BY seq DESC LIMIT %s",
            (state_id, limit),
        )

    # -- checkpoints -------------------------------------------------------------------
    def checkpoint_count(self, state_id: str) -> int:
        row = self.store._one("SELECT count(*) FROM {s}.rlm_checkpoints WHERE state_id = %s", (state_id,))
        return int(row[0]) if row else 0

    def checkpoint_exists(self, checkpoint_id: str) -> bool:
        sql = "SELECT 1 FROM {s}.rlm_checkpoints WHERE checkpoint_id = %s"
        return self.store._one(sql, (checkpoint_id,)) is not None

    def add_checkpoint(self, values: Sequence[Any]) -> None:
        checkpoint_id, state_id, name, description, timestamp, snapshot = values
        self.store._run(
            "INSERT INTO {s}.rlm_checkpoints (checkpoint_id, state_id, seq, name, description, timestamp, snapshot) "
            "VALUES (%s, %s, (SELECT coalesce(max(seq), 0) + 1 FROM {s}.rlm_checkpoints), %s, %s, %s, %s)",
            (checkpoint_id, state_id, name, description, timestamp, snapshot),
        )

    def checkpoint_row(self, state_id: str, checkpoint_id: str) -> tuple[Any, ...] | None:
        return self.store._one(
            f"SELECT {_CHECKPOINT_FIELDS} FROM {{s}}.rlm_checkpoints WHERE checkpoint_id = %s AND state_id = %s",
            (checkpoint_id, state_id),
        )

    def checkpoint_rows(self, state_id: str) -> list[tuple[Any, ...]]:
        sql = f"SELECT {_CHECKPOINT_FIELDS} FROM {{s}}.rlm_checkpoints WHERE state_id = %s ORDER BY seq"
        return self.store._all(sql, (state_id,))

    def delete_checkpoint(self, checkpoint_id: str) -> None:
        self.store._run("DELETE FROM {s}.rlm_checkpoints WHERE checkpoint_id = %s", (checkpoint_id,))
