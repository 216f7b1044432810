"""The CLI commands that only read an agent: on a path or URL with no agent they fail in one line and
create nothing (no database, schema, key file or folder). Every backend's tests run them."""

from __future__ import annotations

READ_ONLY_COMMANDS: list[list[str]] = [
    ["replay"],
    ["replay", "--from", "c1"],
    ["journal", "verify"],
    ["journal", "export"],
    ["journal", "export", "--archived"],
    ["memory", "get", "user/person/self/name"],
    ["memory", "facts"],
    ["memory", "facts", "--json"],
    ["memory", "search", "anything"],
    ["checkpoint", "list"],
    ["checkpoint", "list", "--json"],
    ["state", "get", "x"],
    ["state", "list"],
    ["state", "list", "--states"],
    ["state", "checkpoints"],
    ["state", "history"],
    ["state", "export"],
    ["status"],
    ["modules"],
    ["modules", "--json"],
    ["modules", "show", "autonomy", "--json"],
    ["schedule", "list"],
    ["config", "list"],
    ["intents"],
]
