"""Row layouts every backend shares: the column order of the rows the protocol hands around
(:mod:`agi_core.memory.backend`), so each backend's tables and the services above agree."""

from __future__ import annotations

#: A long-term memory item row (``LtmRows``), as a SELECT list.
ITEM_COLUMNS = "seq, id, tick, kind, text, speaker, timestamp, session, importance, metadata"
#: An RLM variable row (``RlmRows``): the keys of its dict.
VARIABLE_COLUMNS = (
    "namespace",
    "name",
    "owner_state_id",
    "type",
    "value",
    "file",
    "size_bytes",
    "description",
    "source",
    "created_at",
    "updated_at",
    "access_count",
    "read_only",
    "scope",
    "ttl_seconds",
    "expires_at",
)
#: An RLM state row: the fields of :class:`agi_core.state.model.StateInfo`.
STATE_COLUMNS = (
    "state_id",
    "session_id",
    "tree_id",
    "parent_state_id",
    "result_name",
    "created_at",
    "last_updated_at",
    "mutation_count",
    "completion_status",
)
