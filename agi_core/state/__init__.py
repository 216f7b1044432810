"""RLM variable state: named, typed variables per state, with history, checkpoints and scopes.

Public API::

    from agi_core.state import StateService, migrate
    migrate(conn)                       # creates the rlm_* tables; never commits
    svc = StateService(conn, determinism, root)
    state = svc.create_state("Analyze the auth module")
    svc.set(state.state_id, "risk_count", 3)
    svc.set(state.state_id, "Final", "3 risks found")   # fires on_complete handlers

Inside an agent, go through the kernel instead, so each operation is a journaled tick::

    kernel.command("state", {"op": "set", "args": {"name": "risk_count", "value": 3}})
"""

from agi_core.state.errors import (
    PathEscapeError,
    ReadOnlyVariable,
    StateError,
    StateLimitError,
    StateNotFound,
    VariableNotFound,
    VariableValueError,
)
from agi_core.state.export import validate_document
from agi_core.state.migrations import migrate
from agi_core.state.model import (
    FORMAT_VERSION,
    SCOPES,
    VARIABLE_TYPES,
    Checkpoint,
    CompletionEvent,
    Limits,
    Mutation,
    StateInfo,
    Variable,
)
from agi_core.state.service import StateService

__all__ = [
    "FORMAT_VERSION",
    "SCOPES",
    "VARIABLE_TYPES",
    "Checkpoint",
    "CompletionEvent",
    "Limits",
    "Mutation",
    "PathEscapeError",
    "ReadOnlyVariable",
    "StateError",
    "StateInfo",
    "StateLimitError",
    "StateNotFound",
    "StateService",
    "Variable",
    "VariableNotFound",
    "VariableValueError",
    "migrate",
    "validate_document",
]
