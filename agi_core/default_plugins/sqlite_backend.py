"""The embedded SQLite memory backend."""

from __future__ import annotations

from agi_core.hookspecs import Register, hookimpl


@hookimpl
def agi_register_memory_backends(register: Register) -> None:
    from agi_core.memory.sqlite_store import SqliteStore  # here, not above: `agi --help` loads plugins, not stores

    register(SqliteStore, name="sqlite")
