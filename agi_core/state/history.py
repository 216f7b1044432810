"""The mutation log: one row per change, ``mut-xxxxxxxx`` ids, oldest entries pruned."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from agi_core.determinism import Determinism
from agi_core.state.db import exists, mutation_from_row
from agi_core.state.model import Limits, Mutation


def fresh_id(det: Determinism, prefix: str, payload: str, taken: Callable[[str], bool]) -> str:
    """A ``<prefix>-xxxxxxxx`` id from ``det`` that ``taken(id)`` says is free."""
    while True:
        candidate = det.short_id(prefix, payload)
        if not taken(candidate):
            return candidate


def log(
    conn: sqlite3.Connection,
    det: Determinism,
    limits: Limits,
    state_id: str,
    timestamp: str,
    operation: str,
    variable_name: str,
    *,
    old: str | None = None,
    new: str | None = None,
    source: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> str:
    """Append a mutation (``old``/``new`` are JSON texts), count it, prune; return its id."""
    mutation_id = fresh_id(
        det,
        "mut",
        f"{state_id}|{operation}|{variable_name}",
        lambda m: exists(conn, "SELECT 1 FROM rlm_mutations WHERE state_id = ? AND mutation_id = ?", (state_id, m)),
    )
    conn.execute(
        "INSERT INTO rlm_mutations (state_id, mutation_id, operation, variable_name, old_value,"
        " new_value, source, timestamp, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            state_id,
            mutation_id,
            operation,
            variable_name,
            old,
            new,
            source,
            timestamp,
            json.dumps(metadata or {}, sort_keys=True, separators=(",", ":")),
        ),
    )
    conn.execute(
        "UPDATE rlm_states SET mutation_count = mutation_count + 1, last_updated_at = ? WHERE state_id = ?",
        (timestamp, state_id),
    )
    prune(conn, state_id, limits.max_history)
    return mutation_id


def prune(conn: sqlite3.Connection, state_id: str, keep: int) -> int:
    """Delete all but the newest ``keep`` entries of ``state_id``; return how many went."""
    cur = conn.execute(
        "DELETE FROM rlm_mutations WHERE state_id = ? AND seq <= (SELECT seq FROM rlm_mutations"
        " WHERE state_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)",
        (state_id, state_id, keep),
    )
    return cur.rowcount


def entries(conn: sqlite3.Connection, state_id: str, limit: int | None = None) -> list[Mutation]:
    """The log of ``state_id``, oldest first; with ``limit``, only the newest ``limit``."""
    cur = conn.execute(
        "SELECT mutation_id, operation, variable_name, old_value, new_value, source, timestamp,"
        " metadata FROM rlm_mutations WHERE state_id = ? ORDER BY seq DESC LIMIT ?",
        (state_id, -1 if limit is None else limit),
    )
    return [mutation_from_row(row) for row in reversed(cur.fetchall())]
