"""The ``rlm_*`` tables of the SQLite backend (:class:`~agi_core.memory.backend.RlmRows`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from agi_core.memory.row_layouts import STATE_COLUMNS, VARIABLE_COLUMNS
from agi_core.memory.savepoint import savepoint

_CHECKPOINT_FIELDS = "checkpoint_id, state_id, name, timestamp, snapshot, description"
_MUTATION_FIELDS = "mutation_id, operation, variable_name, old_value, new_value, source, timestamp, metadata"


class SqliteRlmRows:
    """RLM rows on one SQLite connection; the caller (the tick) owns the transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def atomic(self) -> AbstractContextManager[None]:
        return savepoint(self.conn, "rlm_state", begin=True)

    def ready(self) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rlm_states'"
        return self.conn.execute(sql).fetchone() is not None

    # -- states ------------------------------------------------------------------------
    def state_row(self, state_id: str) -> dict[str, Any] | None:
        sql = f"SELECT {', '.join(STATE_COLUMNS)} FROM rlm_states WHERE state_id = ?"
        row = self.conn.execute(sql, (state_id,)).fetchone()
        return dict(zip(STATE_COLUMNS, row, strict=True)) if row else None

    def state_ids(self, parent: str | None = None) -> list[str]:
        if parent is None:
            rows = self.conn.execute("SELECT state_id FROM rlm_states ORDER BY seq")
        else:
            sql = "SELECT state_id FROM rlm_states WHERE parent_state_id = ? ORDER BY seq"
            rows = self.conn.execute(sql, (parent,))
        return [row[0] for row in rows]

    def insert_state(
        self,
        state_id: str,
        session_id: str | None,
        tree_id: str | None,
        parent_state_id: str | None,
        result_name: str | None,
        now: str,
    ) -> None:
        (seq,) = self.conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM rlm_states").fetchone()
        self.conn.execute(
            "INSERT INTO rlm_states (state_id, seq, session_id, tree_id, parent_state_id,"
            " result_name, created_at, last_updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (state_id, seq, session_id, tree_id, parent_state_id, result_name, now, now),
        )

    def set_completion(self, state_id: str, status: str) -> None:
        self.conn.execute("UPDATE rlm_states SET completion_status = ? WHERE state_id = ?", (status, state_id))

    def touch_state(self, state_id: str, timestamp: str) -> None:
        self.conn.execute(
            "UPDATE rlm_states SET mutation_count = mutation_count + 1, last_updated_at = ? WHERE state_id = ?",
            (timestamp, state_id),
        )

    # -- variables ---------------------------------------------------------------------
    def variables(
        self, namespace: str | None = None, *, owner: str | None = None, expiring: bool = False
    ) -> list[dict[str, Any]]:
        where, params = [], []
        if namespace is not None:
            where.append("namespace = ?")
            params.append(namespace)
        if owner is not None:
            where.append("owner_state_id = ?")
            params.append(owner)
        if expiring:
            where.append("expires_at IS NOT NULL")
        clause = f"WHERE {' AND '.join(where)} " if where else ""
        cur = self.conn.execute(
            f"SELECT {', '.join(VARIABLE_COLUMNS)} FROM rlm_variables {clause}ORDER BY namespace, name", params
        )
        return [dict(zip(VARIABLE_COLUMNS, row, strict=True)) for row in cur.fetchall()]

    def variable(self, namespace: str, name: str) -> dict[str, Any] | None:
        cur = self.conn.execute(
            f"SELECT {', '.join(VARIABLE_COLUMNS)} FROM rlm_variables WHERE namespace = ? AND name = ?",
            (namespace, name),
        )
        row = cur.fetchone()
        return dict(zip(VARIABLE_COLUMNS, row, strict=True)) if row else None

    def count_variables(self, namespace: str) -> int:
        sql = "SELECT COUNT(*) FROM rlm_variables WHERE namespace = ?"
        return int(self.conn.execute(sql, (namespace,)).fetchone()[0])

    def put_variable(self, row: dict[str, Any]) -> None:
        marks = ", ".join("?" for _ in VARIABLE_COLUMNS)
        self.conn.execute(
            f"INSERT OR REPLACE INTO rlm_variables ({', '.join(VARIABLE_COLUMNS)}) VALUES ({marks})",
            tuple(row[c] for c in VARIABLE_COLUMNS),
        )

    def delete_variable(self, namespace: str, name: str) -> None:
        self.conn.execute("DELETE FROM rlm_variables WHERE namespace = ? AND name = ?", (namespace, name))

    def count_access(self, namespace: str, name: str) -> None:
        self.conn.execute(
            "UPDATE rlm_variables SET access_count = access_count + 1 WHERE namespace = ? AND name = ?",
            (namespace, name),
        )

    def restore_variables(self, state_id: str, rows: Iterable[dict[str, Any]], status: str) -> None:
        self.conn.execute("DELETE FROM rlm_variables WHERE namespace = ?", (f"state:{state_id}",))
        for row in rows:
            self.put_variable(row)
        self.set_completion(state_id, status)

    # -- mutations ---------------------------------------------------------------------
    def mutation_exists(self, state_id: str, mutation_id: str) -> bool:
        sql = "SELECT 1 FROM rlm_mutations WHERE state_id = ? AND mutation_id = ?"
        return self.conn.execute(sql, (state_id, mutation_id)).fetchone() is not None

    def add_mutation(self, state_id: str, values: Sequence[Any]) -> None:
        self.conn.execute(
            f"INSERT INTO rlm_mutations (state_id, {_MUTATION_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (state_id, *values),
        )

    def prune_mutations(self, state_id: str, keep: int) -> int:
        cur = self.conn.execute(
            "DELETE FROM rlm_mutations WHERE state_id = ? AND seq <= (SELECT seq FROM rlm_mutations"
            " WHERE state_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)",
            (state_id, state_id, keep),
        )
        return cur.rowcount

    def mutations(self, state_id: str, limit: int | None = None) -> list[tuple[Any, ...]]:
        cur = self.conn.execute(
            f"SELECT {_MUTATION_FIELDS} FROM rlm_mutations WHERE state_id = ? ORDER BY seq DESC LIMIT ?",
            (state_id, -1 if limit is None else limit),
        )
        return cur.fetchall()

    # -- checkpoints -------------------------------------------------------------------
    def checkpoint_count(self, state_id: str) -> int:
        sql = "SELECT COUNT(*) FROM rlm_checkpoints WHERE state_id = ?"
        return int(self.conn.execute(sql, (state_id,)).fetchone()[0])

    def checkpoint_exists(self, checkpoint_id: str) -> bool:
        sql = "SELECT 1 FROM rlm_checkpoints WHERE checkpoint_id = ?"
        return self.conn.execute(sql, (checkpoint_id,)).fetchone() is not None

    def add_checkpoint(self, values: Sequence[Any]) -> None:
        checkpoint_id, state_id, name, description, timestamp, snapshot = values
        (seq,) = self.conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM rlm_checkpoints").fetchone()
        self.conn.execute(
            "INSERT INTO rlm_checkpoints (checkpoint_id, state_id, seq, name, description, timestamp,"
            " snapshot) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (checkpoint_id, state_id, seq, name, description, timestamp, snapshot),
        )

    def checkpoint_row(self, state_id: str, checkpoint_id: str) -> tuple[Any, ...] | None:
        cur = self.conn.execute(
            f"SELECT {_CHECKPOINT_FIELDS} FROM rlm_checkpoints WHERE checkpoint_id = ? AND state_id = ?",
            (checkpoint_id, state_id),
        )
        row: tuple[Any, ...] | None = cur.fetchone()
        return row

    def checkpoint_rows(self, state_id: str) -> list[tuple[Any, ...]]:
        sql = f"SELECT {_CHECKPOINT_FIELDS} FROM rlm_checkpoints WHERE state_id = ? ORDER BY seq"
        return self.conn.execute(sql, (state_id,)).fetchall()

    def delete_checkpoint(self, checkpoint_id: str) -> None:
        self.conn.execute("DELETE FROM rlm_checkpoints WHERE checkpoint_id = ?", (checkpoint_id,))
