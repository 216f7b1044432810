"""Checkpoints: exact snapshots of the rows a state owns, and rollback to them.

A snapshot holds every ``rlm_variables`` row of the state's own namespace (values, types,
timestamps, access counts, TTLs, blob refs) plus the completion status. Blobs are immutable
and named by content, so restoring the rows restores the values byte for byte. Variables
in shared scopes (tree, session, global) are not part of a state's checkpoint: other states
see and change them; the kernel's whole-agent rollback restores those.
"""

from __future__ import annotations

import json
from typing import Any

from agi_core.determinism import Determinism
from agi_core.memory.backend import RlmRows
from agi_core.state.db import VARIABLE_COLUMNS
from agi_core.state.errors import StateLimitError, StateNotFound, VariableValueError
from agi_core.state.history import fresh_id
from agi_core.state.model import Checkpoint, Limits, StateInfo


def _checkpoint(row: tuple[Any, ...]) -> Checkpoint:
    cid, sid, name, ts, snapshot, description = row
    count = len(json.loads(snapshot)["variables"])
    return Checkpoint(
        checkpoint_id=cid, state_id=sid, name=name, timestamp=ts, variable_count=count, description=description
    )


def take(
    rows_store: RlmRows,
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
    count = rows_store.checkpoint_count(state.state_id)
    if count >= limits.max_checkpoints:
        raise StateLimitError(
            f"{state.state_id} already has {count} checkpoints (the limit is "
            f"{limits.max_checkpoints}); delete an old one with delete_checkpoint() first"
        )
    rows = rows_store.variables(f"state:{state.state_id}")
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
        rows_store.checkpoint_exists,
    )
    rows_store.add_checkpoint((checkpoint_id, state.state_id, name, description, timestamp, snapshot))
    return Checkpoint(
        checkpoint_id=checkpoint_id,
        state_id=state.state_id,
        name=name,
        timestamp=timestamp,
        variable_count=len(rows),
        description=description,
    )


def get(rows: RlmRows, state_id: str, checkpoint_id: str) -> tuple[Checkpoint, dict[str, Any]]:
    """The checkpoint and its decoded snapshot; raises :class:`StateNotFound`."""
    row = rows.checkpoint_row(state_id, checkpoint_id)
    if row is None:
        raise StateNotFound(
            f"no checkpoint {checkpoint_id!r} in {state_id}; list them with checkpoints() (agi state checkpoints)"
        )
    return _checkpoint(row), json.loads(row[4])


def restore(rows: RlmRows, state_id: str, snapshot: dict[str, Any]) -> None:
    """Replace the state's own variables and completion status with ``snapshot``'s."""
    variables = (dict(zip(VARIABLE_COLUMNS, values, strict=True)) for values in snapshot["variables"])
    rows.restore_variables(state_id, variables, snapshot["completion_status"])


def listing(rows: RlmRows, state_id: str) -> list[Checkpoint]:
    """The checkpoints of ``state_id``, oldest first."""
    return [_checkpoint(row) for row in rows.checkpoint_rows(state_id)]


def delete(rows: RlmRows, state_id: str, checkpoint_id: str) -> None:
    """Remove one checkpoint; raises :class:`StateNotFound` when it does not exist."""
    get(rows, state_id, checkpoint_id)
    rows.delete_checkpoint(checkpoint_id)


def referenced_files(rows: RlmRows, state_id: str) -> set[str]:
    """``file:`` refs held by the snapshots of ``state_id`` (blobs that must survive)."""
    index = VARIABLE_COLUMNS.index("file")
    refs: set[str] = set()
    for row in rows.checkpoint_rows(state_id):
        refs.update(v[index] for v in json.loads(row[4])["variables"] if v[index])
    return refs
