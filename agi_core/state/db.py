"""How the state service reaches its rows: an :class:`~agi_core.memory.backend.RlmRows`, and row mapping.

The SQL lives in the backend (SQLite: :mod:`agi_core.memory.sqlite.rlm_rows`); a bare SQLite
connection is accepted and wrapped, as before.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any

from agi_core.memory.backend import RlmRows
from agi_core.memory.row_layouts import STATE_COLUMNS, VARIABLE_COLUMNS
from agi_core.memory.sqlite.rlm_rows import SqliteRlmRows
from agi_core.state.model import Mutation

__all__ = ["STATE_COLUMNS", "VARIABLE_COLUMNS", "atomic", "mutation_from_row", "rows_of"]


def rows_of(source: Any) -> RlmRows:
    """``source`` if it already is an :class:`RlmRows`, else the rows of a SQLite connection."""
    return source if hasattr(source, "state_ids") else SqliteRlmRows(source)


def atomic(source: Any) -> AbstractContextManager[None]:
    """All-or-nothing inside the caller's transaction; opens one (uncommitted) if none is open.

    Uses a savepoint, so an error undoes only this block. Nothing here ever commits: the
    kernel commits or rolls back the tick's transaction.
    """
    return rows_of(source).atomic()


def mutation_from_row(row: tuple[Any, ...]) -> Mutation:
    """A ``rlm_mutations`` row (id, op, name, old, new, source, timestamp, metadata)."""
    mid, op, name, old, new, source, ts, meta = row
    return Mutation(
        mutation_id=mid,
        operation=op,
        variable_name=name,
        timestamp=ts,
        old_value=None if old is None else json.loads(old),
        new_value=None if new is None else json.loads(new),
        source=source,
        metadata=json.loads(meta),
    )
