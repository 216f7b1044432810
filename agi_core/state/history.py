"""The mutation log: one row per change, ``mut-xxxxxxxx`` ids, oldest entries pruned."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agi_core.determinism import Determinism
from agi_core.memory.backend import RlmRows
from agi_core.state.db import mutation_from_row
from agi_core.state.model import Limits, Mutation


def fresh_id(det: Determinism, prefix: str, payload: str, taken: Callable[[str], bool]) -> str:
    """A ``<prefix>-xxxxxxxx`` id from ``det`` that ``taken(id)`` says is free."""
    while True:
        candidate = det.short_id(prefix, payload)
        if not taken(candidate):
            return candidate


def log(
    rows: RlmRows,
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
        det, "mut", f"{state_id}|{operation}|{variable_name}", lambda m: rows.mutation_exists(state_id, m)
    )
    meta = json.dumps(metadata or {}, sort_keys=True, separators=(",", ":"))
    rows.add_mutation(state_id, (mutation_id, operation, variable_name, old, new, source, timestamp, meta))
    rows.touch_state(state_id, timestamp)
    prune(rows, state_id, limits.max_history)
    return mutation_id


def prune(rows: RlmRows, state_id: str, keep: int) -> int:
    """Delete all but the newest ``keep`` entries of ``state_id``; return how many went."""
    return rows.prune_mutations(state_id, keep)


def entries(rows: RlmRows, state_id: str, limit: int | None = None) -> list[Mutation]:
    """The log of ``state_id``, oldest first; with ``limit``, only the newest ``limit``."""
    return [mutation_from_row(row) for row in reversed(rows.mutations(state_id, limit))]
