"""A state as one JSON document valid against ``schemas/rlm_state.json``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agi_core.state.model import FORMAT_VERSION

if TYPE_CHECKING:
    from agi_core.state.service import StateService

SCHEMA_NAME = "rlm_state"


def document(
    service: StateService, state_id: str, *, include_shared: bool = False, validate: bool = True
) -> dict[str, Any]:
    """Build the export of ``state_id`` (values inlined, even those kept in blobs).

    :param include_shared: also list the tree, session and global variables the state sees.
    :param validate: check the document against the schema before returning it.
    """
    state = service.state(state_id)
    variables = service.variables(state_id, include_shared=include_shared)
    mutations = service.history(state_id)
    checkpoints = service.checkpoints(state_id)
    doc: dict[str, Any] = {"version": FORMAT_VERSION, "state_id": state.state_id}
    for key in ("session_id", "tree_id", "parent_state_id", "result_name"):
        if getattr(state, key) is not None:
            doc[key] = getattr(state, key)
    doc["variables"] = {v.name: v.to_document() for v in variables}
    doc["history"] = {
        "mutations": [m.to_document() for m in mutations],
        "checkpoints": [c.to_document() for c in checkpoints],
    }
    doc["metadata"] = {
        "created_at": state.created_at,
        "last_updated_at": state.last_updated_at,
        "variable_count": len(variables),
        "mutation_count": state.mutation_count,
        "checkpoint_count": len(checkpoints),
        "total_size_bytes": sum(v.size_bytes for v in variables),
        "execution_config": execution_config(service),
        "completion_status": state.completion_status,
    }
    if validate:
        validate_document(doc, what=f"export of {state_id}")
    return doc


def execution_config(service: StateService) -> dict[str, Any]:
    """How the state's values came to be: the agent's seed and ``seeded`` (every id and timestamp
    derives from the seed, every outside input is a recorded external: replay is exact)."""
    return {"seed": service.determinism.seed, "execution_mode": "seeded"}


def validate_document(doc: Any, what: str = "RLM state document") -> None:
    """Raise :class:`~agi_core.errors.ValidationError` naming the first problem and its path."""
    from agi_core.schemas import validate

    validate(SCHEMA_NAME, doc, what=what)
