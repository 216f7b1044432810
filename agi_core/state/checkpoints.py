"""Checkpoints: exact snapshots of the rows a state owns, and rollback to them.

A snapshot holds every ``rlm_variables`` row of the state's own namespace (values, types,
timestamps, access counts, TTLs, blob refs) plus the completion status. Blobs are immutable
and named by content, so restoring the rows restores the values byte for byte. Variables
in shared scopes (tree, session, global) are not part of a state's checkpoint: other states
see and change them; the kernel's whole-agent rollback restores those.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from agi_core.determinism import Determinism
from agi_core.state.db import VARIABLE_COLUMNS, exists, insert_variable, variable_rows
from agi_core.state.errors import StateLimitError, StateNotFound, VariableValueError
from agi_core.state.history import fresh_id
from agi_core.state.model import Checkpoint, Limits, StateInfo

_FIELDS = "checkpoint_id, state_id, name, timestamp, snapshot, description"


def _checkpoint(row: tuple[Any, ...]) -> Checkpoint:
    cid, sid, name, ts, snapshot, description = row
    count = len(json.loads(snapshot)["variables"])
    return Checkpoint(
        checkpoint_id=cid, state_id=sid, name=name, timestamp=ts, variable_count=count, description=description
    )


def take(
    conn: sqlite3.Connection,
    det: Determinism,
    limits: Limits,
    state: StateInfo,
    name: str,
    timestamp: str,
    description: str | None = None,
) -> Checkpoint:
    """Snapshot the state's own variables under a new ``ckpt-xxxxxxxx`` id."""
    if not isinstance(name, str) or not name.strip():
        raise VariableValueError(
            f"checkpoint name {name!r} is empty; name it, e.g. 'before_decomposition'",
            path="$.history.checkpoints",
        )
    (count,) = conn.execute("SELECT COUNT(*) FROM rlm_checkpoints WHERE state_id = ?", (state.state_id,)).fetchone()
    if count >= limits.max_checkpoints:
        raise StateLimitError(
            f"{state.state_id} already has {count} checkpoints (the limit is "
            f"{limits.max_checkpoints}); delete an old one with delete_checkpoint() first"
        )
    rows = variable_rows(conn, "namespace = ?", (f"state:{state.state_id}",))
    snapshot = json.dumps(
        {
            "variables": [[row[c] for c in VARIABLE_COLUMNS] for row in rows],
            "completion_status": state.completion_status,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    checkpoint_id = fresh_id(
        det,
        "ckpt",
        f"{state.state_id}|{name}",
        lambda c: exists(conn, "SELECT 1 FROM rlm_checkpoints WHERE checkpoint_id = ?", (c,)),
    )
    (seq,) = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM rlm_checkpoints").fetchone()
    conn.execute(
        "INSERT INTO rlm_checkpoints (checkpoint_id, state_id, seq, name, description, timestamp,"
        " snapshot) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (checkpoint_id, state.state_id, seq, name, description, timestamp, snapshot),
    )
    return Checkpoint(
        checkpoint_id=checkpoint_id,
        state_id=state.state_id,
        name=name,
        timestamp=timestamp,
        variable_count=len(rows),
        description=description,
    )


def get(conn: sqlite3.Connection, state_id: str, checkpoint_id: str) -> tuple[Checkpoint, dict[str, Any]]:
    """The checkpoint and its decoded snapshot; raises :class:`StateNotFound`."""
    row = conn.execute(
        f"SELECT {_FIELDS} FROM rlm_checkpoints WHERE checkpoint_id = ? AND state_id = ?",
        (checkpoint_id, state_id),
    ).fetchone()
    if row is None:
        raise StateNotFound(
            f"no checkpoint {checkpoint_id!r} in {state_id}; list them with checkpoints() (agi state checkpoints)"
        )
    return _checkpoint(row), json.loads(row[4])


def restore(conn: sqlite3.Connection, state_id: str, snapshot: dict[str, Any]) -> None:
    """Replace the state's own variables and completion status with ``snapshot``'s."""
    conn.execute("DELETE FROM rlm_variables WHERE namespace = ?", (f"state:{state_id}",))
    for values in snapshot["variables"]:
        insert_variable(conn, dict(zip(VARIABLE_COLUMNS, values, strict=True)))
    conn.execute(
        "UPDATE rlm_states SET completion_status = ? WHERE state_id = ?",
        (snapshot["completion_status"], state_id),
    )


def listing(conn: sqlite3.Connection, state_id: str) -> list[Checkpoint]:
    """The checkpoints of ``state_id``, oldest first."""
    cur = conn.execute(f"SELECT {_FIELDS} FROM rlm_checkpoints WHERE state_id = ? ORDER BY seq", (state_id,))
    return [_checkpoint(row) for row in cur.fetchall()]


def delete(conn: sqlite3.Connection, state_id: str, checkpoint_id: str) -> None:
    """Remove one checkpoint; raises :class:`StateNotFound` when it does not exist."""
    get(conn, state_id, checkpoint_id)
    conn.execute("DELETE FROM rlm_checkpoints WHERE checkpoint_id = ?", (checkpoint_id,))


def referenced_files(conn: sqlite3.Connection, state_id: str) -> set[str]:
    """``file:`` refs held by the snapshots of ``state_id`` (blobs that must survive)."""
    index = VARIABLE_COLUMNS.index("file")
    refs: set[str] = set()
    for (snapshot,) in conn.execute("SELECT snapshot FROM rlm_checkpoints WHERE state_id = ?", (state_id,)):
        refs.update(v[index] for v in json.loads(snapshot)["variables"] if v[index])
    return refs
