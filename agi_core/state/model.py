"""Shapes of the RLM state service: states, variables, mutations, checkpoints, limits."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from agi_core.state.errors import VariableValueError

FORMAT_VERSION = "1.1.0"
"""``version`` written into exported documents (1.0.0 documents still validate)."""

VariableType = Literal["text", "number", "boolean", "null", "json", "array", "file_path", "file_content"]
VARIABLE_TYPES: tuple[str, ...] = (
    "text",
    "number",
    "boolean",
    "null",
    "json",
    "array",
    "file_path",
    "file_content",
)
Scope = Literal["state", "tree", "session", "global", "temporary"]
SCOPES: tuple[str, ...] = ("state", "tree", "session", "global", "temporary")
"""``state`` (the default) and ``temporary`` live in the state; the others are shared."""

Operation = Literal["create", "update", "delete", "rename", "rollback"]
CompletionStatus = Literal["incomplete", "complete", "error", "cancelled"]

FINAL = "Final"
PROMPT = "prompt"
SPECIAL_NAMES = (FINAL, PROMPT)


@attrs.frozen
class Limits:
    """The seed's documented limits; tests may lower them, production keeps the defaults."""

    max_variables: int = 1000
    max_name_length: int = 128
    max_inline_bytes: int = 10240
    max_history: int = 10000
    max_checkpoints: int = 100


DEFAULT_LIMITS = Limits()


@attrs.frozen
class StateInfo:
    """One state: its ids, its place in a task tree, and its bookkeeping."""

    state_id: str
    created_at: str
    last_updated_at: str
    session_id: str | None = None
    tree_id: str | None = None
    parent_state_id: str | None = None
    result_name: str | None = None
    mutation_count: int = 0
    completion_status: CompletionStatus = "incomplete"

    def namespaces(self) -> list[str]:
        """Where a name is looked up, nearest first: state, tree, session, global."""
        found = [f"state:{self.state_id}"]
        if self.tree_id is not None:
            found.append(f"tree:{self.tree_id}")
        if self.session_id is not None:
            found.append(f"session:{self.session_id}")
        found.append("global")
        return found

    def namespace(self, scope: str) -> str:
        """The namespace a variable of ``scope`` set through this state is stored in."""
        if scope in ("state", "temporary"):
            return f"state:{self.state_id}"
        if scope == "global":
            return "global"
        key = self.tree_id if scope == "tree" else self.session_id
        if key is None:
            raise VariableValueError(
                f"state {self.state_id} has no {scope} id, so it cannot hold a {scope}-scoped "
                f"variable; create the state with {scope}_id=... or use scope='state'",
                path="$.variables",
            )
        return f"{scope}:{key}"


@attrs.frozen
class Variable:
    """A named, typed value; ``file`` says where a value kept outside SQLite lives."""

    name: str
    value: Any
    type: str
    scope: str
    owner_state_id: str
    created_at: str
    updated_at: str
    access_count: int = 0
    read_only: bool = False
    description: str | None = None
    source: str | None = None
    ttl_seconds: int | None = None
    expires_at: str | None = None
    file: str | None = None
    size_bytes: int = 0

    def to_document(self) -> dict[str, Any]:
        """The variable as the schema's ``Variable`` object."""
        doc: dict[str, Any] = {"name": self.name, "value": self.value, "type": self.type}
        for key in ("description", "source"):
            if getattr(self, key) is not None:
                doc[key] = getattr(self, key)
        doc.update(created_at=self.created_at, updated_at=self.updated_at, access_count=self.access_count)
        meta: dict[str, Any] = {
            "read_only": self.read_only,
            "scope": self.scope,
            "owner_state_id": self.owner_state_id,
            "size_bytes": self.size_bytes,
        }
        for key in ("ttl_seconds", "expires_at", "file"):
            if getattr(self, key) is not None:
                meta[key] = getattr(self, key)
        doc["metadata"] = meta
        return doc


@attrs.frozen
class Mutation:
    """One entry of a state's mutation log (values of files appear as ``file:`` refs)."""

    mutation_id: str
    operation: str
    variable_name: str
    timestamp: str
    old_value: Any = None
    new_value: Any = None
    source: str | None = None
    metadata: dict[str, Any] = attrs.field(factory=dict)

    def to_document(self) -> dict[str, Any]:
        """The mutation as the schema's ``StateMutation`` object."""
        doc: dict[str, Any] = {
            "mutation_id": self.mutation_id,
            "operation": self.operation,
            "variable_name": self.variable_name,
        }
        if self.operation in ("update", "delete"):
            doc["old_value"] = self.old_value
        if self.operation in ("create", "update"):
            doc["new_value"] = self.new_value
        if self.source is not None:
            doc["source"] = self.source
        doc["timestamp"] = self.timestamp
        if self.metadata:
            doc["metadata"] = dict(self.metadata)
        return doc


@attrs.frozen
class Checkpoint:
    """A named snapshot of the variables a state owns (its ``state`` namespace)."""

    checkpoint_id: str
    state_id: str
    name: str
    timestamp: str
    variable_count: int
    description: str | None = None

    def to_document(self) -> dict[str, Any]:
        """The checkpoint as the schema's ``StateCheckpoint`` object."""
        doc: dict[str, Any] = {
            "checkpoint_id": self.checkpoint_id,
            "name": self.name,
            "timestamp": self.timestamp,
            "snapshot_path": f"sqlite:rlm_checkpoints/{self.checkpoint_id}",
        }
        if self.description is not None:
            doc["description"] = self.description
        return doc


@attrs.frozen
class CompletionEvent:
    """Passed to completion handlers when a state's ``Final`` becomes non-null."""

    state_id: str
    value: Any
    parent_state_id: str | None = None
    result_name: str | None = None
